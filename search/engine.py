"""SearchEngine: the facade the CLI and the app use. Loads papers, keeps the index fresh, answers queries."""

from __future__ import annotations

import re
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from search import paths
from search.corpus.library import list_name
from search.corpus.loader import Corpus, load_corpus
from search.errors import UnknownPaper
from search.index.lifecycle import IndexStatus, ShardedIndex
from search.index.shard import Progress
from search.models import Hit, Marks, Paper, SearchResult
from search.query.facets import Facets, facet_tokens, split_facets
from search.query.filters import Filters
from search.query.runner import QueryRunner
from search.text.describe import Description, describe, quick_headline

__all__ = ["IndexStatus", "Row", "SearchEngine", "UnknownPaper"]


@dataclass(frozen=True, slots=True)
class Row:
    """What the result list shows for a paper."""

    name: str | None
    headline: str
    has_code: bool


RELATED_LIMIT = 30
"""How many related papers `related:ID` lists."""


_WORDS = re.compile(r"[^\W_]")


def _joined(notes: list[str]) -> str | None:
    return "; ".join(notes) if notes else None


class SearchEngine:
    """Papers in memory, an on-disk Whoosh index (rebuilt only when its content changes), queries."""

    def __init__(self, corpus: Corpus, cache_dir: Path | None = None) -> None:
        self.corpus = corpus
        self.papers: tuple[Paper, ...] = corpus.papers
        self.aliases = corpus.aliases
        """The id of each paper merged into another (the same paper in two lists) -> its kept id."""
        kept = {paper.id: paper for paper in corpus.papers}
        self.by_id = {**{alias: kept[target] for alias, target in self.aliases.items()}, **kept}
        """Every id a paper can be found by: its own and its aliases."""
        self._cache_dir = cache_dir
        self._runner: QueryRunner | None = None
        self._index: ShardedIndex | None = None
        self._lock = threading.Lock()
        self._stored_rows: dict[str, Row] = {}
        self.describe = lru_cache(maxsize=None)(self._describe)
        self._list_of = lru_cache(maxsize=None)(list_name)
        self._lists_of = lru_cache(maxsize=None)(self._paper_lists)
        self._lists: list[str] | None = None
        self._with_papers: set[str] | None = None
        self._filters = Filters(
            self.papers,
            lambda: self.lists,
            lambda paper: self._lists_of(paper.source, paper.also_in),
            lambda paper_id: self.row(paper_id).headline,
            lambda paper_id: self.row(paper_id).has_code,
        )

    @classmethod
    def from_paths(cls, paths_: Sequence[str | Path] | None = None, skip_broken: bool = False) -> SearchEngine:
        """The given files, or by default the bundled list plus the user's library. A file that
        cannot be loaded is an error, except in the library or with `skip_broken`: then it is left
        out and named in corpus.problems (unless nothing loads at all)."""
        if paths_:
            return cls(load_corpus(paths_, skip_broken=skip_broken))
        from search.corpus.library import Library

        return cls(load_corpus(Library().default_sources(), skip_broken=True))

    # -- papers -------------------------------------------------------------------------------

    def paper(self, paper_id: str) -> Paper:
        """The paper with this id, or with this id among its aliases (a paper merged into it)."""
        try:
            return self.by_id[paper_id]
        except KeyError:
            raise UnknownPaper(paper_id) from None

    def canonical(self, paper_id: str) -> str:
        """The id a paper is kept under: itself, or the paper an alias was merged into."""
        return self.aliases.get(paper_id, paper_id)

    def _canonical_marks(self, marks: Marks) -> Marks:
        if not self.aliases:
            return marks
        return Marks(frozenset(map(self.canonical, marks.bookmarked)), frozenset(map(self.canonical, marks.opened)))

    def _describe(self, paper_id: str) -> Description:
        return describe(self.paper(paper_id))

    def row(self, paper_id: str) -> Row:
        """The result-list row, from the index when it has it: no markup conversion needed."""
        stored = self._stored_rows.get(paper_id)
        if stored is not None:
            return stored
        description = self.describe(paper_id)
        return Row(description.name, description.headline, description.has_code)

    def quick_row(self, paper_id: str) -> Row:
        """A row that never converts markup: the stored one, or the title or raw first words."""
        stored = self._stored_rows.get(paper_id)
        if stored is not None:
            return stored
        paper = self.paper(paper_id)
        return Row(None, quick_headline(paper), bool(paper.github))

    # -- index --------------------------------------------------------------------------------

    @property
    def ready(self) -> bool:
        return self._runner is not None

    def ensure_index(
        self, on_progress: Progress | None = None, cancel: threading.Event | None = None, rebuild: bool = False
    ) -> IndexStatus:
        """Open each corpus file's index, building the ones that are missing, stale or damaged."""
        with self._lock:
            root = (self._cache_dir or paths.cache_dir()) / "index"
            if self._index is None or self._index.root != root:
                self._index = ShardedIndex(root)
            before = self._index.opened
            status = self._index.open(self.papers, lambda paper: self.describe(paper.id), on_progress, cancel, rebuild)
            opened = self._index.opened
            if opened is not None and opened is not before:
                if self._runner is not None:
                    self._runner.close()
                self._stored_rows = {key: Row(*row) for key, row in opened.rows.items()}
                self._runner = QueryRunner(opened.indexes, opened.words, opened.counts)
            return status

    # -- queries ------------------------------------------------------------------------------

    def search(
        self, text: str, limit: int = 50, partial: bool = False, hit_terms: bool = True, marks: Marks | None = None
    ) -> SearchResult:
        """Ranked hits for a query, with its facets (list:, venue:, status:, has:, is:, sort:)
        applied; `partial`: the last word is still being typed; `hit_terms`: fill each hit's
        matched terms (the result's own `terms` are always there, for highlighting); `marks`:
        the user's bookmarks and read papers, for is: filters."""
        if self._runner is None:
            self.ensure_index()
        assert self._runner is not None
        words, facets = split_facets(text)
        text = " ".join(text.split())
        allowed, problems = self._filters.allowed(facets, self._canonical_marks(marks or Marks()))
        if facets.related is not None:
            return self._related_result(text, facets, limit, allowed, problems)
        if not _WORDS.search(words):
            if not facets.filters and facets.sort == "relevance":
                return self._runner.run(text, limit, partial, hit_terms)  # no words, no facets
            papers = [paper for paper in self.papers if allowed is None or paper.id in allowed]
            hits = tuple(Hit(paper.id, 0.0) for paper in self._filters.sort(papers, facets.sort)[:limit])
            return SearchResult(text, hits, len(papers), notice=_joined(problems))
        wanted = len(self.papers) if facets.sort != "relevance" else limit
        typing = partial and text.split()[-1] not in facet_tokens(text)  # a facet after the words ends them
        result = self._runner.run(words, wanted, typing, hit_terms, allowed)
        hits = result.hits
        if facets.sort != "relevance":
            order = {
                paper.id: rank
                for rank, paper in enumerate(self._filters.sort([self.paper(h.paper_id) for h in hits], facets.sort))
            }
            hits = tuple(sorted(hits, key=lambda hit: order[hit.paper_id]))
        notice = _joined([*problems, *([result.notice] if result.notice else [])])
        corrected = " ".join([result.corrected, *facet_tokens(text)]) if result.corrected else None
        return SearchResult(text, hits[:limit], result.total, corrected, notice, result.terms)

    def related(self, paper_id: str, limit: int = 10, allowed: frozenset[str] | None = None) -> list[Hit]:
        """The papers most similar to this one (its title, name and abstract), best first."""
        if self._runner is None:
            self.ensure_index()
        assert self._runner is not None
        paper = self.paper(paper_id)
        paper_id = paper.id
        description = self.describe(paper_id)
        text = " ".join([paper.title or "", description.name or "", description.rendered.text, *paper.keywords])
        return self._runner.similar(paper_id, text, limit, allowed)

    def _related_result(self, text: str, facets: Facets, limit: int, allowed, problems: list[str]) -> SearchResult:
        try:
            hits = self.related(facets.related or "", max(limit, RELATED_LIMIT), allowed)
        except UnknownPaper as error:
            return SearchResult(text, (), 0, notice=_joined([*problems, str(error)]))
        return SearchResult(text, tuple(hits[:limit]), len(hits), notice=_joined(problems))

    @property
    def lists(self) -> list[str]:
        """The names of the loaded lists, in corpus order."""
        if self._lists is None:
            self._lists = list(dict.fromkeys(self._list_of(source) for source in self.corpus.sources))
        return [name for name in self._lists if name in self._loaded_lists()]

    def _loaded_lists(self) -> set[str]:
        if self._with_papers is None:
            self._with_papers = {name for paper in self.papers for name in self._lists_of(paper.source, paper.also_in)}
        return self._with_papers

    def list_of(self, paper_id: str) -> str:
        """The list the paper was first found in (lists_of names every list it is in)."""
        return self._list_of(self.paper(paper_id).source)

    def lists_of(self, paper_id: str) -> tuple[str, ...]:
        """Every list the paper is in: the same paper in two lists is one paper, in both."""
        paper = self.paper(paper_id)
        return self._lists_of(paper.source, paper.also_in)

    def _paper_lists(self, source: str, also_in: tuple[str, ...]) -> tuple[str, ...]:
        return tuple(dict.fromkeys(self._list_of(path) for path in (source, *also_in)))

    def list_counts(self) -> dict[str, int]:
        """How many papers each loaded list has, in corpus order; a paper in two lists counts in both."""
        counts = dict.fromkeys(self.lists, 0)
        for paper in self.papers:
            for name in self._lists_of(paper.source, paper.also_in):
                counts[name] = counts.get(name, 0) + 1
        return counts

    def close(self) -> None:
        if self._runner is not None:
            self._runner.close()
            self._runner = None
