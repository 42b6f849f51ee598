"""Filters and sort: which loaded papers the query's facets let through (list:, venue:, status:,
has:, is:) and the non-relevance orders (sort:order, sort:name). They read the loaded papers, not
the index, so they work before the index is open and over any corpus set.

A filter means what it says: a value no loaded paper has (status:best, list:nope) lets nothing
through, and its problem names the values there are. What the loaded papers have is also what a
filter menu offers (`available`), and what explains a field that finds nothing (`missing_fields`)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Collection, Iterable, Sequence
from dataclasses import replace

from search.corpus.formats.common import status_key
from search.models import AvailableFilters, Marks, Paper
from search.query.facets import Facets

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

    def allowed(self, facets: Facets, marks: Marks) -> tuple[frozenset[str] | None, list[str]]:
        """The paper ids the facets let through (None: no filter), and what was not understood."""
        if not facets.filters:
            return None, list(facets.problems)
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
        allowed = frozenset(paper.id for paper in self._papers if all(check(paper) for check in checks))
        if ("has:code", True) in facets.flags and not allowed and not self._some_code():
            problems.append("no loaded paper has a code link: has:code finds nothing here")
        return allowed, problems

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

    def sort(self, papers: list[Paper], sort: str) -> list[Paper]:
        """Papers by name (headline, case-folded) or, for any other sort, in corpus order."""
        if sort == "name":
            return sorted(papers, key=lambda paper: (self._headline(paper.id).casefold(), paper.position))
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


def _listed(values: Sequence[str]) -> str:
    """Values for a problem: the first LISTED_VALUES, then an ellipsis."""
    shown = ", ".join(values[:LISTED_VALUES])
    return f"{shown}, …" if len(values) > LISTED_VALUES else shown
