"""SearchEngine: the facade the CLI and the app use. Loads papers, keeps the index fresh, answers queries."""

from __future__ import annotations

import dataclasses
import re
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any, TypeVar

from search import paths
from search.corpus.library import list_name
from search.corpus.loader import Corpus, load_corpus
from search.errors import UnknownPaper
from search.index.lifecycle import DAMAGED_NOTICE, IndexStatus, ShardedIndex
from search.index.shard import Progress
from search.models import AvailableFilters, Hit, Marks, Paper, SearchResult
from search.query.budget import SEARCH_SECONDS, Budget, SearchStopped, shortened
from search.query.facets import MATCHES, SORTS, Facets, facet_tokens, split_facets
from search.query.filters import Filters, missing_fields
from search.query.parse import named_fields
from search.query.pasted import explicit_syntax
from search.query.runner import QueryRunner
from search.query.scan import scan
from search.text.describe import Description, describe, quick_headline

__all__ = ["IndexStatus", "Row", "SearchEngine", "UnknownPaper"]


@dataclass(frozen=True, slots=True)
class Row:
    """What the result list shows for a paper."""

    name: str | None
    headline: str
    has_code: bool


FILES_CHECK_INTERVAL = 2.0
"""At most this often (in seconds), a search first checks that the open index's files are as they
were when checked (a stat each); one written, replaced or deleted meanwhile has the index repaired."""
QUICK_NOTICE = "Quick matches by word while the index builds; ranked results follow"
"""The notice of a result found by scanning the papers' text (`quick_search`)."""


_WORDS = re.compile(r"[^\W_]")
_SORT_TOKEN = re.compile(r"-?sort:", re.I)


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
        self._runner: GuardedRunner | None = None
        self._index: ShardedIndex | None = None
        self._index_notice: str | None = None
        self._searched: object = None
        """The open index (lifecycle.OpenedIndex) the runner searches."""
        self._files_checked = 0.0
        self._lock = threading.Lock()
        self._unsaved: list[Callable[[], None]] = []
        self._unsaved_lock = threading.Lock()  # not _lock, which a build holds for seconds
        self._stored_rows: Mapping[str, Sequence] = {}
        """paper id -> the index's stored (name, headline, has_code)."""
        self.describe = lru_cache(maxsize=None)(self._describe)
        self._list_of = lru_cache(maxsize=None)(list_name)
        self._lists_of = lru_cache(maxsize=None)(self._paper_lists)
        self._lists: list[str] | None = None
        self._with_papers: set[str] | None = None
        self._available: AvailableFilters | None = None
        """What the loaded papers let filters find, once the index (with every paper's row) is open."""
        self._filters = Filters(
            self.papers,
            lambda: self.lists,
            lambda paper: self._lists_of(paper.source, paper.also_in),
            lambda paper_id: self.row(paper_id).headline,
            lambda paper_id: self.row(paper_id).has_code,
        )

    @classmethod
    def from_paths(
        cls, paths_: Sequence[str | Path] | None = None, skip_broken: bool = False, save_later: bool = False
    ) -> SearchEngine:
        """The given files, or by default the bundled list plus the user's library. A file that
        cannot be loaded is an error, except in the library or with `skip_broken`: then it is left
        out and named in corpus.problems (unless nothing loads at all). With `save_later`, what the
        load saves for the next start waits for `save_for_next_start`."""
        later: list[Callable[[], None]] | None = [] if save_later else None
        if paths_:
            corpus = load_corpus(paths_, skip_broken=skip_broken, keep=True, later=later)
        else:
            from search.corpus.library import Library

            corpus = load_corpus(Library().default_sources(), skip_broken=True, keep=True, later=later)
        engine = cls(corpus)
        engine._unsaved = later or []
        return engine

    def save_for_next_start(self) -> None:
        """Write what a load with `save_later` left unsaved (each newly parsed file's papers, the
        merged corpus: derived data, at 10,745 papers a third of a second, which the app's first
        frame need not wait for). Safe from any thread, and at most once."""
        with self._unsaved_lock:
            unsaved, self._unsaved = self._unsaved, []
        for save in unsaved:
            save()

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
            return Row(*stored)
        description = self.describe(paper_id)
        return Row(description.name, description.headline, description.has_code)

    def quick_row(self, paper_id: str) -> Row:
        """A row that never converts markup: the stored one, or the title or raw first words."""
        stored = self._stored_rows.get(paper_id)
        if stored is not None:
            return Row(*stored)
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
            status = self._index.open(self.papers, self._describe_paper, on_progress, cancel, rebuild)
            try:
                self._adopt()
            except Exception as error:
                # Damaged between checking and opening (another process at work): check again, once.
                repaired = self._index.repair(self._describe_paper) if _may_be_damage(error) else None
                if repaired is None:
                    raise
                self._adopt()
                built, damaged = status.built or repaired.built, status.damaged + repaired.damaged
                status = dataclasses.replace(status, built=built, notice=repaired.notice, damaged=damaged)
            return status

    def _describe_paper(self, paper: Paper) -> Description:
        return self.describe(paper.id)

    def _adopt(self) -> None:
        """Search the index's open shards, unless they are the ones searched already."""
        assert self._index is not None
        opened = self._index.opened
        if opened is None or (opened is self._searched and self._runner is not None):
            return
        runner = GuardedRunner(QueryRunner(opened.indexes, opened.words, opened.counts), self)
        if self._runner is not None:
            self._runner.close()
        self._stored_rows = opened.rows  # a Row is made when asked for: 40 a screen, not 100,000 a start
        self._runner, self._searched = runner, opened
        self._files_checked = time.monotonic()

    def _checked(self, runner: GuardedRunner) -> tuple[GuardedRunner, bool]:
        """The runner to search with: `runner`, or a repaired one if files of the open index changed
        on disk (checked every FILES_CHECK_INTERVAL; not while the index is being opened); and
        whether damaged shards were rebuilt."""
        now = time.monotonic()
        if now - self._files_checked < FILES_CHECK_INTERVAL or not self._lock.acquire(blocking=False):
            return runner, False
        try:
            self._files_checked = now
            changed = self._index is not None and self._index.changed_on_disk()
        finally:
            self._lock.release()
        return (self._repaired(runner) or (runner, False)) if changed else (runner, False)

    def _repaired(self, failed: GuardedRunner) -> tuple[GuardedRunner, bool] | None:
        """After `failed` raised while reading the index, or gave an id the corpus does not know: the
        runner to try again with (every file checked on disk, damaged shards rebuilt) and whether
        shards were rebuilt; None when the index on disk is sound and the one open, so the error was
        not damage."""
        with self._lock:
            if self._runner is not failed:  # another thread repaired it already (or the engine was closed)
                return None if self._runner is None else (self._runner, False)
            assert self._index is not None
            status = self._index.repair(self._describe_paper)
            if status is None:
                return None
            self._adopt()
            if status.damaged:
                self._index_notice = DAMAGED_NOTICE
            assert self._runner is not None
            return self._runner, bool(status.damaged)

    def take_index_notice(self) -> str | None:
        """What to tell the user, once, about the index since the last call, or None: that it was found
        damaged while searching, and rebuilt. (The result of the search that found it says so too,
        in its notice; this is for callers that may not show that result.)"""
        notice, self._index_notice = self._index_notice, None
        return notice

    def _known(self, paper_id: str) -> bool:
        return paper_id in self.by_id

    # -- queries ------------------------------------------------------------------------------

    def search(
        self,
        text: str,
        limit: int = 50,
        partial: bool = False,
        hit_terms: bool = True,
        marks: Marks | None = None,
        cancel: threading.Event | None = None,
        seconds: float | None = SEARCH_SECONDS,
        match: str = "any",
        sort: str = "relevance",
        correct: bool = True,
    ) -> SearchResult:
        """Ranked hits for a query, with its facets (list:, venue:, status:, has:, is:, sort:,
        match:) applied; `partial`: the last word is still being typed; `hit_terms`: fill each
        hit's matched terms (the result's own `terms` are always there, for highlighting); `marks`:
        the user's bookmarks and read papers, for is: filters; `match`: "any" (papers with any of
        the words, ranked) or "all" (only those with every word), unless the query says match:;
        `sort`: the order (relevance, order, name) unless the query says sort:; `correct=False`:
        search the words exactly as typed, never a spelling correction (one may still be offered,
        as the result's suggestion).
        The search stops when `cancel` is set or after `seconds` (None: no time limit), with what
        it had and a hint in the notice; every bound it met on the way (fuzzy distance, expansions,
        query length) is a hint too, and so is every facet or field that cannot find anything."""
        if match not in MATCHES:
            raise ValueError(f"match must be one of {', '.join(MATCHES)}, not {match!r}")
        if sort not in SORTS:
            raise ValueError(f"sort must be one of {', '.join(SORTS)}, not {sort!r}")
        if self._runner is None:
            self.ensure_index()
        assert self._runner is not None
        budget = Budget(seconds, cancel)
        text = shortened(text, budget)
        words, facets = split_facets(text)
        if sort != "relevance" and not any(_SORT_TOKEN.match(token) for token in facet_tokens(text)):
            facets = dataclasses.replace(facets, sort=sort)
        text = " ".join(text.split())
        allowed, problems = self._filters.allowed(facets, self._canonical_marks(marks or Marks()))
        if facets.related is not None:
            return self._related_result(text, facets, limit, allowed, problems, budget)
        if not _WORDS.search(words):
            if not facets.filters and facets.sort == "relevance":
                if facet_tokens(text) and problems:  # only facets that filter nothing (has:pdf): never words
                    return SearchResult(text, (), 0, notice=_joined([*problems, *budget.hints]))
                if facet_tokens(text):  # match:all, sort:relevance alone: nothing to rank, every paper
                    hits = tuple(Hit(paper.id, 0.0) for paper in self.papers[:limit])
                    return SearchResult(text, hits, len(self.papers), notice=_joined(budget.hints))
                return self._runner.run(text, limit, partial, hit_terms, budget=budget)  # no words, no facets
            papers = [paper for paper in self.papers if allowed is None or paper.id in allowed]
            hits = tuple(Hit(paper.id, 0.0) for paper in self._filters.sort(papers, facets.sort)[:limit])
            return SearchResult(text, hits, len(papers), notice=_joined([*problems, *budget.hints]))
        problems += self._field_problems(words)
        if facets.match == "all" and explicit_syntax(words):
            problems.append("match:all: the query's own AND, OR, NOT or parentheses say what matches")
        wanted = len(self.papers) if facets.sort != "relevance" else limit
        tokens = facet_tokens(text)
        typing = partial and not (tokens and text.endswith(tokens[-1]))  # a facet after the words ends them
        result = self._runner.run(words, wanted, typing, hit_terms, allowed, budget, facets.match or match, correct)
        hits = result.hits
        if facets.sort != "relevance":
            order = {
                paper.id: rank
                for rank, paper in enumerate(self._filters.sort([self.paper(h.paper_id) for h in hits], facets.sort))
            }
            hits = tuple(sorted(hits, key=lambda hit: order[hit.paper_id]))
        notice = _joined([*problems, *([result.notice] if result.notice else [])])
        # A correction searched or offered keeps the query's facets.
        corrected = " ".join([result.corrected, *tokens]) if result.corrected else None
        suggestion = " ".join([result.suggestion, *tokens]) if result.suggestion else None
        return dataclasses.replace(
            result, query=text, hits=hits[:limit], corrected=corrected, suggestion=suggestion, notice=notice
        )

    def _field_problems(self, words: str) -> list[str]:
        """Why the fields the query names find nothing, when no loaded paper has them (title:
        over lists without titles)."""
        fields = named_fields(words)
        return missing_fields(fields, self.available_filters()) if fields else []

    def quick_search(self, text: str, limit: int = 50, cancel: threading.Event | None = None) -> SearchResult:
        """Papers with the query's words, found by scanning their text, for the seconds before the
        index is open (a cold start, a list just added): plain words only, ranked by how many a
        paper has (search/query/scan.py). The result's notice says so."""
        text = " ".join(text.split())  # as search() has it, so the interface compares like with like
        found = scan(self.papers, text, cancel)
        hits = tuple(Hit(paper_id, score) for paper_id, score in found.ranked[:limit])
        return SearchResult(text, hits, len(found.ranked), notice=QUICK_NOTICE, terms=found.words)

    def available_filters(self) -> AvailableFilters:
        """What the loaded papers let filters and fields find, for a menu of filters (ctrl+t): the
        statuses with their counts, papers with code links, titles, authors, keywords, method
        names, the lists. Code links and names come from the index's rows: before the index is
        open, only the papers' own code links count and names are not known (None)."""
        if self._available is not None:
            return self._available
        counts = self.list_counts()
        if not self.ready:
            return self._filters.available(counts, lambda paper_id: self.quick_row(paper_id).has_code, None)
        available = self._filters.available(
            counts, lambda paper_id: self.row(paper_id).has_code, lambda paper_id: self.row(paper_id).name
        )
        self._available = available
        return available

    def related(
        self,
        paper_id: str,
        limit: int = 10,
        allowed: frozenset[str] | None = None,
        cancel: threading.Event | None = None,
        seconds: float | None = SEARCH_SECONDS,
    ) -> list[Hit]:
        """The papers most similar to this one (its title, name and abstract), best first; none
        when `cancel` is set or it takes more than `seconds`."""
        try:
            return self._related(paper_id, limit, allowed, Budget(seconds, cancel))
        except SearchStopped:
            return []

    def _related(self, paper_id: str, limit: int, allowed: frozenset[str] | None, budget: Budget) -> list[Hit]:
        if self._runner is None:
            self.ensure_index()
        assert self._runner is not None
        paper = self.paper(paper_id)
        paper_id = paper.id
        description = self.describe(paper_id)
        text = " ".join([paper.title or "", description.name or "", description.rendered.text, *paper.keywords])
        return self._runner.similar(paper_id, text, limit, allowed, budget)

    def _related_result(
        self, text: str, facets: Facets, limit: int, allowed, problems: list[str], budget: Budget
    ) -> SearchResult:
        try:
            # Every paper sharing its distinctive words, ranked, so the whole list can be reached.
            hits = self._related(facets.related or "", len(self.papers), allowed, budget)
        except UnknownPaper as error:
            return SearchResult(text, (), 0, notice=_joined([*problems, *budget.hints, str(error)]))
        except SearchStopped as stopped:
            return SearchResult(text, (), 0, notice=_joined([*problems, *budget.hints, stopped.hint]))
        return SearchResult(text, tuple(hits[:limit]), len(hits), notice=_joined([*problems, *budget.hints]))

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


def _may_be_damage(error: Exception) -> bool:
    """Errors of the engine's own (a ReaderError, a search stopped by its budget, a cancelled build)
    say what the user or the caller did; any other error while reading the index may come from
    damaged files."""
    module = type(error).__module__
    return module != "search" and not module.startswith("search.")


_Read = TypeVar("_Read")


class GuardedRunner:
    """The query runner, guarded against a damaged index. On damaged files Whoosh raises all sorts
    (struct.error, ValueError, KeyError, IndexError, EOFError, zlib.error, UnicodeDecodeError,
    pickle errors, ...), and a damaged id column gives ids the corpus does not know (or one paper
    twice): either way the engine checks the index on disk, rebuilds the damaged shards, and the
    call runs again on them. An error the index on disk does not explain is raised as it was; ids
    the corpus does not know never leave here."""

    def __init__(self, runner: QueryRunner, engine: SearchEngine) -> None:
        self.runner = runner
        self._engine = engine

    def run(self, *args: Any, **kwargs: Any) -> SearchResult:
        result, rebuilt = self._read(lambda runner, a, k: runner.run(*a, **k), args, kwargs, lambda r: r.hits)
        hits = _kept(result.hits, self._engine._known)
        if len(hits) == len(result.hits) and not rebuilt:
            return result
        notice = "; ".join(filter(None, [result.notice, DAMAGED_NOTICE if rebuilt else None])) or None
        return dataclasses.replace(result, hits=hits, total=result.total - len(result.hits) + len(hits), notice=notice)

    def similar(self, *args: Any, **kwargs: Any) -> list[Hit]:
        hits, _ = self._read(lambda runner, a, k: runner.similar(*a, **k), args, kwargs, lambda hits: hits)
        return list(_kept(hits, self._engine._known))

    def close(self) -> None:
        self.runner.close()

    def __getattr__(self, name: str) -> Any:
        if name == "runner":  # not set yet (a copy): never look it up on itself
            raise AttributeError(name)
        return getattr(self.runner, name)

    def _read(
        self,
        read: Callable[[QueryRunner, tuple, dict], _Read],
        args: tuple,
        kwargs: dict,
        hits_of: Callable[[_Read], Sequence[Hit]],
    ) -> tuple[_Read, bool]:
        """read(runner, args, kwargs), and once more on the repaired index after an error or a wrong
        id (when the index on disk is sound, an error is raised as it was and wrong ids are left to
        the caller); and whether damaged shards were rebuilt meanwhile."""
        guard, rebuilt = self._engine._checked(self)
        if guard is not self:
            args, kwargs = _renewed(args, kwargs)
        try:
            value = read(guard.runner, args, kwargs)
        except Exception as error:
            if not _may_be_damage(error):
                raise
            repaired = self._engine._repaired(guard)
            if repaired is None:
                raise
            return read(repaired[0].runner, *_renewed(args, kwargs)), rebuilt or repaired[1]
        if _sound(hits_of(value), self._engine._known):
            return value, rebuilt
        repaired = self._engine._repaired(guard)
        if repaired is None:
            return value, rebuilt
        return read(repaired[0].runner, *_renewed(args, kwargs)), rebuilt or repaired[1]


def _renewed(args: tuple, kwargs: dict) -> tuple[tuple, dict]:
    """A call's arguments with its search budget started afresh: the time a repair took (a rebuild
    of a shard may take seconds) is not the search's."""

    def renewed(value: Any) -> Any:
        return Budget(value.seconds, value.cancel) if isinstance(value, Budget) else value

    return tuple(map(renewed, args)), {key: renewed(value) for key, value in kwargs.items()}


def _sound(hits: Sequence[Hit], known: Callable[[str], bool]) -> bool:
    """Every hit is a paper the corpus knows, and none comes twice."""
    return all(known(hit.paper_id) for hit in hits) and len({hit.paper_id for hit in hits}) == len(hits)


def _kept(hits: Sequence[Hit], known: Callable[[str], bool]) -> tuple[Hit, ...]:
    """The hits without papers the corpus does not know or that came already (from a damaged index)."""
    if _sound(hits, known):
        return tuple(hits)
    kept: dict[str, Hit] = {}
    for hit in hits:
        if known(hit.paper_id):
            kept.setdefault(hit.paper_id, hit)
    return tuple(kept.values())
