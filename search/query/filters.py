"""Filters and sort: which loaded papers the query's facets let through (list:, venue:, status:,
has:, is:) and the non-relevance orders (sort:order, sort:name). They read the loaded papers, not
the index, so they work before the index is open and over any corpus set."""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from dataclasses import replace

from search.corpus.formats.common import status_of
from search.models import Marks, Paper
from search.query.facets import Facets

CACHED_FILTERS = 16
"""Filters kept: the same one comes back on every keystroke while words are typed after it."""


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

    def allowed(self, facets: Facets, marks: Marks) -> tuple[frozenset[str] | None, list[str]]:
        """The paper ids the facets let through (None: no filter), and what was not understood."""
        if not facets.filters:
            return None, list(facets.problems)
        key = (replace(facets, sort="relevance", related=None, problems=()), marks if facets.needs_marks else None)
        if key not in self._cache:
            if len(self._cache) >= CACHED_FILTERS:
                self._cache.clear()
            self._cache[key] = self._compute(facets, marks)
        allowed, problems = self._cache[key]
        return allowed, [*facets.problems, *problems]

    def _compute(self, facets: Facets, marks: Marks) -> tuple[frozenset[str], list[str]]:
        problems: list[str] = []
        known = self._lists()
        for name in dict.fromkeys((*facets.lists, *facets.excluded_lists)):
            if name not in known:
                problems.append(f"no list named {name!r} (loaded: {', '.join(known)})")
        # Sets: a query may name many values, and each check runs once per paper.
        lists, excluded, venues, statuses = (
            frozenset(values) for values in (facets.lists, facets.excluded_lists, facets.venues, facets.statuses)
        )
        checks: list[Callable[[Paper], bool]] = []
        if lists:
            checks.append(lambda paper: not lists.isdisjoint(self._lists_of(paper)))
        if excluded:
            checks.append(lambda paper: excluded.isdisjoint(self._lists_of(paper)))
        if venues:
            checks.append(lambda paper: any(venue in (paper.venue or "").lower() for venue in venues))
        if statuses:
            checks.append(lambda paper: status_of(paper.status, paper.track) in statuses)
        for flag, wanted in facets.flags:
            checks.append(self._flag(flag, wanted, marks))
        return frozenset(paper.id for paper in self._papers if all(check(paper) for check in checks)), problems

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
