"""Filters and sort: which loaded papers the query's facets let through (list:, venue:, status:,
has:, is:) and the non-relevance orders (sort:order, sort:name). They read the loaded papers, not
the index, so they work before the index is open and over any corpus set.

A filter means what it says: a value no loaded paper has (status:best, list:nope) lets nothing
through, and its problem names the values there are. What the loaded papers have is also what a
filter menu offers (`available`), and what explains a field that finds nothing (`missing_fields`)."""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from collections.abc import Callable, Collection, Iterable, Sequence
from dataclasses import replace
from functools import lru_cache

from search.corpus.formats.common import status_key
from search.models import AvailableFilters, Marks, Paper
from search.query.boolean import FilterExpression, evaluate
from search.query.facets import Facets, Range, quoted, split_facets

CACHED_FILTERS = 16
"""Filters kept: the same one comes back on every keystroke while words are typed after it."""
LISTED_VALUES = 8
"""Values a problem names ("loaded: oral, poster, reject, …"), at most."""
_FIELD_DATA = {"title": "titles", "authors": "authors", "keywords": "keywords"}
"""The searched fields that only some lists have, and what they are called in a notice."""


class Filters:
    """Evaluates facets over the loaded papers; `lists_of(paper)` names the lists a paper is in
    (several when the same paper is in several lists), `headline(id)` and `has_code(id)` come from
    the result rows."""

    def __init__(
        self,
        papers: Sequence[Paper],
        lists: Callable[[], list[str]],
        lists_of: Callable[[Paper], Collection[str]],
        headline: Callable[[str], str],
        has_code: Callable[[str], bool],
    ) -> None:
        self._papers = papers
        self._lists = lists
        self._lists_of = lists_of
        self._headline = headline
        self._has_code = has_code
        self._cache: dict[tuple, tuple[frozenset[str], list[str]]] = {}
        self._statuses: dict[str, str | None] | None = None
        self._any_code: bool | None = None
        self._values: dict[str, frozenset[str]] = {}
        self._everything: frozenset[str] | None = None
        self._sortable: dict[str, bool] = {}

    def allowed(self, facets: Facets, marks: Marks) -> tuple[frozenset[str] | None, list[str]]:
        """The paper ids the facets let through (None: no filter), and what was not understood."""
        if not facets.filters:
            return None, list(facets.problems)
        if facets.unreadable:
            return frozenset(), list(facets.problems)
        key = (
            replace(facets, sort="relevance", related=None, problems=(), match=None),
            marks if facets.needs_marks else None,
        )
        if key not in self._cache:
            if len(self._cache) >= CACHED_FILTERS:
                self._cache.clear()
            self._cache[key] = self._compute(facets, marks)
        allowed, problems = self._cache[key]
        return allowed, [*facets.problems, *problems]

    def combined(self, expression: FilterExpression, marks: Marks) -> tuple[frozenset[str], list[str]]:
        """The paper ids a query's filters let through when its AND, OR, NOT or parentheses join
        them (boolean.py), and what was not understood or finds nothing, each said once."""
        problems = list(expression.problems)

        def plain(text: str) -> frozenset[str] | None:
            allowed, found = self.allowed(split_facets(text)[1], marks)
            problems.extend(problem for problem in found if problem not in problems)
            return allowed

        if self._everything is None:
            self._everything = frozenset(paper.id for paper in self._papers)
        everything = self._everything
        found = plain(expression.plain) if expression.plain else None
        result = everything if found is None else found
        for node in expression.filters:
            result = result & evaluate(node, plain, everything)
        return result, problems

    def _compute(self, facets: Facets, marks: Marks) -> tuple[frozenset[str], list[str]]:
        problems = [
            *self._list_problems((*facets.lists, *facets.excluded_lists)),
            *self._venue_problems((*facets.venues, *facets.excluded_venues)),
            *self._status_problems(facets.statuses, facets.excluded_statuses),
        ]
        # Sets: a query may name many values, and each check runs once per paper.
        lists, excluded, statuses, excluded_statuses = (
            frozenset(values)
            for values in (facets.lists, facets.excluded_lists, facets.statuses, facets.excluded_statuses)
        )
        status_of = self._status_of()
        checks: list[Callable[[Paper], bool]] = []
        if lists:
            checks.append(lambda paper: not lists.isdisjoint(self._lists_of(paper)))
        if excluded:
            checks.append(lambda paper: excluded.isdisjoint(self._lists_of(paper)))
        if facets.venues:
            checks.append(lambda paper: any(venue in (paper.venue or "").lower() for venue in facets.venues))
        if facets.excluded_venues:
            checks.append(
                lambda paper: not any(venue in (paper.venue or "").lower() for venue in facets.excluded_venues)
            )
        if statuses:
            checks.append(lambda paper: status_of[paper.id] in statuses)
        if excluded_statuses:
            checks.append(lambda paper: status_of[paper.id] not in excluded_statuses)
        for flag, wanted in facets.flags:
            checks.append(self._flag(flag, wanted, marks))
        for bounds in facets.ranges:
            checks.append(_range_check(bounds))
        by_field: dict[tuple[str, bool], list[str]] = {}
        for field, value, negated in facets.values:
            by_field.setdefault((field, negated), []).append(value)
        value_checks = []
        for (field, negated), wanted_values in by_field.items():
            check = self._value_check(field, wanted_values, marks)
            checks.append(_negated(check) if negated else check)
            value_checks.append((field, wanted_values, check))
        allowed = frozenset(paper.id for paper in self._papers if all(check(paper) for check in checks))
        if not allowed:  # why: a field no list has, a value no paper has (worked out only then)
            for bounds in facets.ranges:
                problems += self._range_problems(bounds)
            for field, wanted_values, check in value_checks:
                problems += self._value_problems(field, wanted_values, check, marks)
        if ("has:code", True) in facets.flags and not allowed and not self._some_code():
            problems.append("no loaded paper has a code link: has:code finds nothing here")
        return allowed, problems

    def _range_problems(self, bounds: Range) -> list[str]:
        """Why a range finds nothing: no loaded paper has that number at all."""
        value = _RANGE_VALUES[bounds.field]
        found = [number for number in map(value, self._papers) if number is not None]
        if not found:
            return [f"no loaded list has {_RANGE_NAMES[bounds.field]}: {bounds.field}: finds nothing here"]
        if bounds.negated or any(bounds.holds(number) for number in found):
            return []
        low, high = (_RANGE_SHOWN[bounds.field](number) for number in (min(found), max(found)))
        return [f"{bounds.field}: no loaded paper is in that range (loaded: {low} to {high})"]

    def _value_check(self, field: str, wanted: list[str], marks: Marks) -> Callable[[Paper], bool]:
        """Whether a paper has one of the wanted people, institutions, countries, areas, or (from
        the user's bookmarks) tags or notes."""
        if field == "author":
            return people_check(self._papers, wanted)
        if field in ("tag", "note"):
            if field == "tag":
                tags = {_folded(tag) for tag in wanted}
                ids = {pid for pid, _, own in marks.notes if tags.intersection(_folded(tag) for tag in own)}
            else:
                words = [_folded(note) for note in wanted]
                ids = {pid for pid, own, _ in marks.notes if any(word in _folded(own) for word in words)}
            return lambda paper: paper.id in ids
        folded = [value for value in map(_folded, wanted) if value]  # "(" says no name: finds nothing
        if field == "inst":
            # Each institution as the papers write it (per author, "A + B") is judged once.
            matching = {
                written
                for written in self._distinct("inst")
                if any(_institution_is(part, value) for part in written.split(" + ") for value in folded)
            }
            return lambda paper: (
                not (matching.isdisjoint(paper.facts.institutions) and matching.isdisjoint(paper.facts.abbreviations))
            )
        if field == "country":
            countries = {COUNTRY_NAMES.get(value, value) for value in folded}
            matching = {
                written
                for written in self._distinct("country")
                if any(_folded(part) in countries for part in written.split(" + "))
            }
            return lambda paper: not matching.isdisjoint(paper.facts.countries)
        return lambda paper: (
            paper.facts.area is not None and any(value in _folded(paper.facts.area) for value in folded)
        )

    def _distinct(self, field: str) -> frozenset[str]:
        """Every institution (or abbreviation), or every country, the loaded papers' authors have
        as written, worked out once."""
        if field not in self._values:
            if field == "inst":
                found = {value for paper in self._papers for value in paper.facts.institutions}
                found.update(value for paper in self._papers for value in paper.facts.abbreviations)
            else:
                found = {value for paper in self._papers for value in paper.facts.countries}
            found.discard("")
            self._values[field] = frozenset(found)
        return self._values[field]

    def _value_problems(self, field: str, wanted: list[str], check: Callable[[Paper], bool], marks: Marks) -> list[str]:
        """Why a field finds nothing: no loaded list has it at all, or no paper has these values;
        for tag: and note:, the user has none yet, or none of theirs is that one."""
        if field == "tag":
            yours = sorted({tag for _, _, tags in marks.notes for tag in tags}, key=str.casefold)
            if not yours:
                return ["you have no tags yet: tag: finds nothing (t on a paper adds one)"]
            shown = " or ".join(f"tag:{quoted(value)}" for value in wanted)
            return [f"{shown}: none of your bookmarks has that tag (yours: {_listed(yours)})"]
        if field == "note":
            if not any(note.strip() for _, note, _ in marks.notes):
                return ["you have no notes yet: note: finds nothing (n on a paper writes one)"]
            shown = " or ".join(f"note:{quoted(value)}" for value in wanted)
            return [f"{shown}: none of your notes has that"]
        has = _VALUE_DATA[field]
        if not any(has(paper) for paper in self._papers):
            return [f"no loaded list has {_VALUE_NAMES[field]}: {field}: finds nothing here"]
        if not any(check(paper) for paper in self._papers):
            shown = " or ".join(f"{field}:{quoted(value)}" for value in wanted)
            return [f"{shown}: no loaded paper has that {_VALUE_ONE[field]}"]
        return []

    def _list_problems(self, names: Iterable[str]) -> list[str]:
        known = self._lists()
        return [
            f"no list named {name!r} (loaded: {', '.join(known)})" for name in dict.fromkeys(names) if name not in known
        ]

    def _venue_problems(self, words: Iterable[str]) -> list[str]:
        venues = sorted({paper.venue for paper in self._papers if paper.venue})
        problems = []
        for word in dict.fromkeys(words):
            if not venues:
                return ["no loaded list names its venue: venue: finds nothing here"]
            if not any(word in venue.lower() for venue in venues):
                problems.append(f"venue:{word}: no paper's venue has that (loaded: {_listed(venues)})")
        return problems

    def _status_problems(self, wanted: Sequence[str], excluded: Sequence[str]) -> list[str]:
        loaded = self.statuses()
        if not loaded:
            return ["no loaded list has statuses: status: finds nothing here"] if wanted else []
        return [
            f"status:{status}: no paper has that status (loaded: {_listed(sorted(loaded))})"
            for status in dict.fromkeys((*wanted, *excluded))
            if status not in loaded
        ]

    def statuses(self) -> dict[str, int]:
        """Each status the loaded papers have, as status: reads it (reject, poster), with how many
        papers have it, most first."""
        counts = Counter(status for status in self._status_of().values() if status)
        return dict(sorted(counts.items(), key=lambda item: (-item[1], item[0])))

    def _status_of(self) -> dict[str, str | None]:
        """paper id -> its status for status:, worked out once (the papers never change)."""
        if self._statuses is None:
            self._statuses = {paper.id: status_key(paper.status, paper.track) for paper in self._papers}
        return self._statuses

    def _some_code(self) -> bool:
        if self._any_code is None:
            self._any_code = any(self._has_code(paper.id) for paper in self._papers)
        return self._any_code

    def available(
        self, list_counts: dict[str, int], has_code: Callable[[str], bool], name: Callable[[str], str | None] | None
    ) -> AvailableFilters:
        """What the loaded papers let filters and fields find; `has_code` and `name` read a paper's
        row (no `name`: names are not known yet)."""
        papers = self._papers
        venues = Counter(paper.venue for paper in papers if paper.venue)
        return AvailableFilters(
            papers=len(papers),
            lists=tuple(list_counts.items()),
            statuses=tuple(self.statuses().items()),
            venues=tuple(sorted(venues.items(), key=lambda item: (-item[1], item[0]))),
            with_code=sum(has_code(paper.id) for paper in papers),
            with_titles=sum(bool(paper.title) for paper in papers),
            with_authors=sum(bool(paper.authors) for paper in papers),
            with_keywords=sum(bool(paper.keywords) for paper in papers),
            with_names=None if name is None else sum(bool(name(paper.id)) for paper in papers),
        )

    def _flag(self, flag: str, wanted: bool, marks: Marks) -> Callable[[Paper], bool]:
        """has:code, is:bookmarked or is:unread, each as wanted (True) or negated (False)."""
        if flag == "has:code":
            return lambda paper: self._has_code(paper.id) == wanted
        if flag == "is:bookmarked":
            return lambda paper: (paper.id in marks.bookmarked) == wanted
        return lambda paper: (paper.id not in marks.opened) == wanted

    def unsortable(self, sort: str) -> str | None:
        """Why sort:rating (citations, year) cannot order anything: no loaded paper has that
        number ("no loaded list has ratings"); None when some paper has it or the sort needs none."""
        if sort not in _RANGE_VALUES:
            return None
        if sort not in self._sortable:
            value = _RANGE_VALUES[sort]
            self._sortable[sort] = any(value(paper) is not None for paper in self._papers)
        return None if self._sortable[sort] else f"no loaded list has {_RANGE_NAMES[sort]}"

    def sort(self, papers: list[Paper], sort: str) -> list[Paper]:
        """Papers by name (headline, case-folded); by rating, citations or year, highest (newest)
        first, those without one last, ties in corpus order; for any other sort, in corpus order."""
        if sort == "name":
            return sorted(papers, key=lambda paper: (self._headline(paper.id).casefold(), paper.position))
        if sort in _RANGE_VALUES:
            value = _RANGE_VALUES[sort]

            def key(paper: Paper) -> tuple[bool, float, int]:
                number = value(paper)
                return (number is None, -(number or 0), paper.position)

            return sorted(papers, key=key)
        return sorted(papers, key=lambda paper: paper.position)


def missing_fields(fields: Iterable[tuple[str, str]], available: AvailableFilters) -> list[str]:
    """Why a field the query names (as (typed, field searched), see parse.named_fields) finds
    nothing: no loaded paper has anything in it ("no loaded list has titles: title: finds nothing
    here")."""
    counts = {
        "title": available.with_titles,
        "authors": available.with_authors,
        "keywords": available.with_keywords,
        "name": available.with_names,
    }
    problems = []
    for typed, field in fields:
        if field == "name" and counts["name"] == 0:
            problems.append(f"no loaded paper has a method name: {typed}: finds nothing here")
        elif field in _FIELD_DATA and counts[field] == 0:
            problems.append(f"no loaded list has {_FIELD_DATA[field]}: {typed}: finds nothing here")
    return problems


_RANGE_VALUES: dict[str, Callable[[Paper], float | None]] = {
    "rating": lambda paper: paper.rating,
    "confidence": lambda paper: paper.facts.confidence_avg,
    "citations": lambda paper: paper.citations,
    "year": lambda paper: paper.year,
}
_RANGE_SHOWN: dict[str, Callable[[float], str]] = {
    "rating": lambda number: f"{number:.2f}",  # as the reader and `search` show a rating (not 9.66667)
    "confidence": lambda number: f"{number:.2f}",
    "citations": lambda number: f"{number:,.0f}",  # (:g wrote 1.23457e+06)
    "year": lambda number: f"{number:.0f}",
}
_RANGE_NAMES = {"rating": "ratings", "confidence": "confidences", "citations": "citations", "year": "years"}
_VALUE_DATA: dict[str, Callable[[Paper], object]] = {
    "author": lambda paper: paper.authors,
    "inst": lambda paper: paper.facts.institutions,
    "country": lambda paper: paper.facts.countries,
    "area": lambda paper: paper.facts.area,
}
_VALUE_NAMES = {"author": "authors", "inst": "institutions", "country": "countries", "area": "primary areas"}
_VALUE_ONE = {"author": "author", "inst": "institution", "country": "country", "area": "area"}
COUNTRY_NAMES = {
    "us": "united states",
    "usa": "united states",
    "united states of america": "united states",
    "uk": "united kingdom",
    "korea": "south korea",
}
"""Countries as people type them -> as the lists write them (folded)."""
_NOT_A_WORD = re.compile(r"[\W_]+")


@lru_cache(maxsize=1 << 16)
def _folded(text: str) -> str:
    """Case and accents folded, every run of punctuation and spaces one space (kept for the names
    that come back: one author of many papers, an institution of thousands)."""
    plain = (
        text
        if text.isascii()
        else "".join(char for char in unicodedata.normalize("NFKD", text) if not unicodedata.combining(char))
    )
    return " ".join(_NOT_A_WORD.sub(" ", plain.casefold()).split())


def _negated(check: Callable[[Paper], bool]) -> Callable[[Paper], bool]:
    return lambda paper: not check(paper)


def _range_check(bounds: Range) -> Callable[[Paper], bool]:
    value = _RANGE_VALUES[bounds.field]
    if bounds.negated:
        return lambda paper: not bounds.holds(value(paper))
    return lambda paper: bounds.holds(value(paper))


def _institution_is(written: str, wanted: str) -> bool:
    """inst:VALUE: an institution (or its abbreviation) named so (upenn, "University of
    Pennsylvania"), or with every word of it (cambridge)."""
    folded = _folded(written)
    if folded == wanted:
        return True
    have = folded.split()
    return bool(have) and all(word in have for word in wanted.split())


def people_check(papers: Sequence[Paper], wanted: list[str]) -> Callable[[Paper], bool]:
    """author:VALUE: the person, by OpenReview id (~Name1) or by name (case, accents and
    punctuation folded); a person named so who has an id is also found by that id where another
    list spells the name otherwise. One word alone (author:hinton) is any author with that word in
    their name. Each distinct name is judged once."""
    ids = {value for value in wanted if value.startswith("~")}
    names = {_folded(value) for value in wanted if not value.startswith("~")} - {""}
    words = {name for name in names if " " not in name}
    distinct = {author for paper in papers for author in paper.authors}
    matching = {
        author
        for author in distinct
        if (folded := _folded(author)) in names or (words and not words.isdisjoint(folded.split()))
    }
    if matching:
        for paper in papers:  # the ids of the people named, where their lists have ids
            author_ids = paper.facts.author_ids
            if author_ids and not matching.isdisjoint(paper.authors):
                ids.update(
                    author_ids[at]
                    for at, author in enumerate(paper.authors)
                    if at < len(author_ids) and author_ids[at] and author in matching
                )
    if ids:
        return lambda paper: not matching.isdisjoint(paper.authors) or not ids.isdisjoint(paper.facts.author_ids)
    return lambda paper: not matching.isdisjoint(paper.authors)


def _listed(values: Sequence[str]) -> str:
    """Values for a problem: the first LISTED_VALUES, then an ellipsis."""
    shown = ", ".join(values[:LISTED_VALUES])
    return f"{shown}, …" if len(values) > LISTED_VALUES else shown
