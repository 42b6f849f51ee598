"""One paper, one row: the same paper found in several lists is kept once.

Two papers are the same when they share an id (in any files, as before), or, coming from different
files, an OpenReview forum (from the paper page or PDF address), an arXiv id, or the same abstract
with whitespace and case folded (abstracts long enough to say something: placeholders like "part
of" are not matched). Papers are taken in corpus order and each joins the first paper it matches.

The merged paper keeps the first one's id, file (`source`, which also decides the index shard it
is indexed in, once) and place in corpus order; the other files are in `also_in`, so `list:NAME`
finds it in each. Its fields are the richer record's (the one with more fields filled; the first on
a tie), with any field that one lacks taken from the others. Its facts (facts.py's reviews, people,
citations) are each the first list's that has it; the per-author ones (ids, institutions,
countries, positions, pages) follow the merged paper's authors, each author's taken from the first
list that has it for that person, found by OpenReview id or by name. The ids of the papers merged into it
are aliases of its id, so a bookmark made on any of them still finds it.
"""

from __future__ import annotations

import hashlib
import re
import unicodedata
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from search.corpus.formats.common import openreview_forum
from search.models import NO_FACTS, Facts, Paper

MIN_ABSTRACT_CHARS = 100
"""Shorter abstracts (whitespace folded) are not compared: too likely to be a placeholder."""
FILLED = (
    "title",
    "authors",
    "keywords",
    "status",
    "track",
    "year",
    "venue",
    "site",
    "pdf",
    "github",
    "project",
    "arxiv",
)
"""The fields that make a record richer, and that a merged paper takes from the others when it lacks them."""


@dataclass(frozen=True)
class Merged:
    papers: list[Paper]
    """One per paper, in corpus order (of each paper's first appearance)."""
    aliases: dict[str, str] = field(default_factory=dict)
    """The id of each paper merged into another -> the id it is kept under."""
    duplicates: int = 0
    """How many papers were merged into one found earlier."""


def merge(papers: Sequence[Paper], ends: Sequence[bytes | None] | None = None) -> Merged:
    """Linear in the number of papers (and their abstracts' length), whatever they hold: each paper
    is looked up by its id, keys and folded abstract in dicts, never compared with the papers before
    it; only the groups merged into are sorted (n log n at worst). `ends`: each paper's
    `abstract_ends` where known (None: computed here, reading each abstract)."""
    groups: list[list[Paper]] = []
    by_id: dict[str, int] = {}
    """A paper's id -> its group."""
    by_key: dict[tuple[str, str], int] = {}
    """An OpenReview forum or arXiv id -> the first group that has it."""
    files: dict[int, set[str]] = {}
    """A group holding papers of more than one file -> its files (the others hold their first paper's)."""
    openings: dict[bytes, int | None] = {}
    """An abstract's opening and ending -> the group, made by a paper that starts and ends so, whose
    abstract is not folded yet (None: it is in `by_abstract`). Most are a single paper's: their
    abstracts are never folded (lists of one template, "We study ...", differ at the end)."""
    by_abstract: dict[str, _SameAbstract] = {}
    """A folded abstract -> the groups whose first paper has it."""

    def has_file(group: int, source: str) -> bool:
        return groups[group][0].source == source or source in files.get(group, ())

    across_files = len({paper.source for paper in papers}) > 1  # one file: only the same id is the same paper
    for at, paper in enumerate(papers):
        target = by_id.get(paper.id)
        keys = _keys(paper) if across_files else ()
        opening = None
        if across_files:  # the abstract is read only when not known (it may be kept on disk: kept.py)
            opening = ends[at] if ends is not None else abstract_ends(paper.abstract)
        folded = None
        if opening is not None and opening in openings:  # another paper starts and ends so: whole abstracts decide
            folded = _folded(paper.abstract)
            waiting = openings[opening]
            if waiting is not None:
                openings[opening] = None
                earlier = _folded(groups[waiting][0].abstract)
                if earlier is not None:
                    by_abstract.setdefault(earlier, _SameAbstract()).groups.append(waiting)
        if target is None and across_files:
            if keys:
                found = (by_key.get(key) for key in keys)
                target = next(
                    (group for group in found if group is not None and not has_file(group, paper.source)), None
                )
            if target is None and folded is not None and folded in by_abstract:
                target = by_abstract[folded].first_without(paper.source, has_file)
        if target is None:
            target = len(groups)
            groups.append([paper])
            if folded is not None:
                by_abstract.setdefault(folded, _SameAbstract()).groups.append(target)
            elif opening is not None and opening not in openings:
                openings[opening] = target
        else:
            group = groups[target]
            if paper.source != group[0].source:
                files.setdefault(target, {group[0].source}).add(paper.source)
            group.append(paper)
        by_id.setdefault(paper.id, target)
        for key in keys:
            by_key.setdefault(key, target)
    aliases: dict[str, str] = {}
    kept: list[Paper] = []
    for group in groups:
        first = group[0]
        kept.append(first if len(group) == 1 else _combined(group))
        for other in group[1:]:
            if other.id != first.id:
                aliases[other.id] = first.id
    return Merged(kept, aliases, len(papers) - len(groups))


@dataclass
class _SameAbstract:
    """The groups whose first papers have one abstract, in the order they were made."""

    groups: list[int] = field(default_factory=list)
    start: dict[str, int] = field(default_factory=dict)
    """A file -> how many of `groups`, from the first, hold a paper of it. Groups only gain files, so
    this only grows, and finding the first group without a file costs, over a whole merge, one step
    per paper at most: what makes thousands of copies of one abstract linear."""

    def first_without(self, source: str, has_file: Callable[[int, str], bool]) -> int | None:
        """The first group without a paper from this file: the one a paper from it joins."""
        at = self.start.get(source, 0)
        while at < len(self.groups) and has_file(self.groups[at], source):
            at += 1
        self.start[source] = at
        return self.groups[at] if at < len(self.groups) else None


def _keys(paper: Paper) -> tuple[tuple[str, str], ...]:
    """What identifies the paper across lists: its OpenReview forum and arXiv id."""
    forum = _forum(paper.site) or _forum(paper.pdf)
    if forum and paper.arxiv:
        return (("forum", forum), ("arxiv", paper.arxiv))
    if forum:
        return (("forum", forum),)
    return (("arxiv", paper.arxiv),) if paper.arxiv else ()


def _forum(url: str | None) -> str | None:
    return openreview_forum(url) if url and "openreview" in url else None


_OPENING = 64


def abstract_ends(abstract: str) -> bytes | None:
    """A digest of the abstract's first and last characters with whitespace removed and case
    folded: equal abstracts (whitespace and case folded) have equal ends (removing whitespace and
    folding case go character by character, so the ends of a slice are the ends of the whole), so
    only abstracts with equal digests are folded whole and compared. None for an abstract too short
    to be compared. Kept with each file's parse (parsed.py): a merge of unchanged lists reads none
    of their abstracts."""
    if len(abstract) < MIN_ABSTRACT_CHARS:
        return None
    head = unspaced(abstract[: 2 * _OPENING]).casefold()  # folded before it is cut: ß folds to ss
    tail = unspaced(abstract[-2 * _OPENING :]).casefold()
    if len(head) < _OPENING or len(tail) < _OPENING:
        head = tail = unspaced(abstract).casefold()
    ends = f"{head[:_OPENING]}\0{tail[-_OPENING:]}"
    return hashlib.blake2b(ends.encode("utf-8", "surrogatepass"), digest_size=12).digest()


def unspaced(text: str) -> str:
    """`"".join(text.split())`, the text without its whitespace, made without a list of its words when
    the space is the only whitespace in it (most abstracts' openings and endings): every other
    whitespace character is unprintable, so a text printable once its spaces are gone has none.
    (abstract_ends, made for every paper of a cold start: 4.0 -> 3.1 us a paper on the scaled lists.)"""
    gone = text.replace(" ", "")
    return gone if gone.isprintable() else "".join(text.split())


def _folded(abstract: str) -> str | None:
    """The whole abstract, whitespace and case folded (only papers whose opening another paper has
    get here); None when it is too short to say something: such abstracts equal nothing."""
    text = " ".join(abstract.split()).casefold()
    return text if len(text) >= MIN_ABSTRACT_CHARS else None


def richness(paper: Paper) -> int:
    """How many of the FILLED fields the record has."""
    return sum(1 for name in FILLED if getattr(paper, name))


def _combined(group: list[Paper]) -> Paper:
    first = group[0]
    ranked = sorted(group, key=richness, reverse=True)  # stable: the first wins a tie
    winner = ranked[0]
    filled = {
        name: next((getattr(p, name) for p in ranked if getattr(p, name)), getattr(winner, name)) for name in FILLED
    }
    for name in ("rating", "citations"):  # what only some lists know, from the first that knows it
        filled[name] = next((getattr(p, name) for p in group if getattr(p, name) is not None), getattr(winner, name))
    # Each fact from the first list that has it: one list's reviews, another's institutions; each
    # author's from the first list that has it for that author (lists order authors differently).
    known = [p for p in group if p.facts != NO_FACTS]
    if len(known) > 1:
        facts = Facts(
            *(next((value for value in values if value), values[0]) for values in zip(*(p.facts for p in known)))
        )
        filled["facts"] = _per_author(facts, filled["authors"], known)
    elif known:
        filled["facts"] = known[0].facts
        if known[0].authors != filled["authors"]:
            filled["facts"] = _per_author(known[0].facts, filled["authors"], known)
    also_in = tuple(dict.fromkeys(p.source for p in group[1:] if p.source != first.source))
    return winner._replace(**filled, id=first.id, source=first.source, position=first.position, also_in=also_in)


PER_AUTHOR = (
    *("author_ids", "affiliations", "institutions", "abbreviations", "countries", "positions"),
    *("homepages", "dblp", "scholar", "orcid"),
)
"""The facts that are one value per author, in `Paper.authors`' order."""


def _per_author(facts: Facts, authors: tuple[str, ...], papers: list[Paper]) -> Facts:
    """The facts with each per-author one in the order of the merged paper's `authors`: for each author,
    the value of the first paper (list) that has one for that person, found by OpenReview id where
    both lists have one, else by name (case, accents, punctuation and word order folded). A fact
    no list has for an author is ""; a fact no list has at all is ()."""
    places: list[dict[tuple[str, str], int]] = []
    for paper in papers:
        ids = paper.facts.author_ids
        place: dict[tuple[str, str], int] = {}
        for at, name in enumerate(paper.authors):
            place.setdefault(("name", _person(name)), at)
            if at < len(ids) and ids[at]:
                place.setdefault(("id", ids[at]), at)
        places.append(place)
    wanted: list[list[tuple[str, str]]] = []
    for name in authors:
        keys = [("name", _person(name))]
        for paper, place in zip(papers, places, strict=True):  # the person's ids, where a list names them so
            same = place.get(keys[0])
            ids = paper.facts.author_ids
            if same is not None and same < len(ids) and ids[same] and ("id", ids[same]) not in keys:
                keys.insert(0, ("id", ids[same]))
        wanted.append(keys)
    found: dict[str, Any] = {}
    for name in PER_AUTHOR:
        values = []
        for keys in wanted:
            value = ""
            for paper, place in zip(papers, places, strict=True):
                own = getattr(paper.facts, name)
                where = next((place[key] for key in keys if key in place), None)
                if where is not None and where < len(own) and own[where]:
                    value = own[where]
                    break
            values.append(value)
        found[name] = tuple(values) if any(values) else ()
    return facts._replace(**found)


def _person(name: str) -> str:
    """A name as two lists may both write it: case, accents and punctuation folded, words sorted
    ("Smith, John" and "john smith" are one person)."""
    plain = unicodedata.normalize("NFKD", name)
    plain = "".join(char for char in plain if not unicodedata.combining(char)).casefold()
    return " ".join(sorted(re.sub(r"[\W_]+", " ", plain).split()))
