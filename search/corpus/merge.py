"""One paper, one row: the same paper found in several lists is kept once.

Two papers are the same when they share an id (in any files, as before), or, coming from different
files, an OpenReview forum (from the paper page or PDF address), an arXiv id, or the same abstract
with whitespace and case folded (abstracts long enough to say something: placeholders like "part
of" are not matched). Papers are taken in corpus order and each joins the first paper it matches.

The merged paper keeps the first one's id, file (`source`, which also decides the index shard it
is indexed in, once) and place in corpus order; the other files are in `also_in`, so `list:NAME`
finds it in each. Its fields are the richer record's (the one with more fields filled; the first on
a tie), with any field that one lacks taken from the others. The ids of the papers merged into it
are aliases of its id, so a bookmark made on any of them still finds it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from search.corpus.formats.common import openreview_forum
from search.models import Paper

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


def merge(papers: Sequence[Paper]) -> Merged:
    groups: list[list[Paper]] = []
    by_id: dict[str, int] = {}
    """A paper's id -> its group."""
    by_key: dict[tuple[str, str], int] = {}
    """An OpenReview forum or arXiv id -> the first group that has it."""
    openings: dict[str, list[int]] = {}
    """An abstract's opening -> the groups whose papers start so: candidates, compared in full."""
    folded: dict[int, str] = {}
    across_files = len({paper.source for paper in papers}) > 1  # one file: only the same id is the same paper
    for paper in papers:
        target = by_id.get(paper.id)
        keys = _keys(paper) if across_files else ()
        opening = _opening(paper.abstract) if across_files else None
        if target is None and across_files:
            candidates = [by_key[key] for key in keys if key in by_key]
            for candidate in openings.get(opening, ()) if opening is not None else ():
                if _folded(paper, folded) == _folded(groups[candidate][0], folded):
                    candidates.append(candidate)
            for candidate in candidates:
                if all(member.source != paper.source for member in groups[candidate]):
                    target = candidate
                    break
        if target is None:
            target = len(groups)
            groups.append([paper])
        else:
            groups[target].append(paper)
        by_id.setdefault(paper.id, target)
        for key in keys:
            by_key.setdefault(key, target)
        if opening is not None:
            known = openings.setdefault(opening, [])
            if target not in known:
                known.append(target)
    aliases: dict[str, str] = {}
    kept: list[Paper] = []
    for group in groups:
        first = group[0]
        kept.append(first if len(group) == 1 else _combined(group))
        for other in group[1:]:
            if other.id != first.id:
                aliases[other.id] = first.id
    return Merged(kept, aliases, len(papers) - len(groups))


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


def _opening(abstract: str) -> str | None:
    """The abstract's first characters with whitespace removed and case folded: equal abstracts
    (whitespace and case folded) have equal openings, and it is cheap to compute for every paper."""
    if len(abstract) < MIN_ABSTRACT_CHARS:
        return None
    opening = "".join(abstract[: 2 * _OPENING].split()).casefold()
    if len(opening) < _OPENING:
        opening = "".join(abstract.split()).casefold()
    return opening[:_OPENING]


def _folded(paper: Paper, cache: dict[int, str]) -> str:
    """The whole abstract, whitespace and case folded (cached by identity: only candidates get here).
    Too short an abstract equals nothing."""
    key = id(paper)
    if key not in cache:
        text = " ".join(paper.abstract.split()).casefold()
        cache[key] = text if len(text) >= MIN_ABSTRACT_CHARS else f"\0{key}"
    return cache[key]


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
    also_in = tuple(dict.fromkeys(p.source for p in group[1:] if p.source != first.source))
    return winner._replace(**filled, id=first.id, source=first.source, position=first.position, also_in=also_in)
