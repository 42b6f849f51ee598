"""SearchEngine: the facade the CLI and the app use. Loads papers, keeps the index fresh, answers queries."""

from __future__ import annotations

import contextlib
import dataclasses
import re
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from search import memory, paths
from search.corpus.fingerprint import BySource
from search.corpus.library import list_name
from search.corpus.loader import Corpus, load_corpus
from search.errors import UnknownPaper
from search.index.guard import GuardedIndex
from search.index.lifecycle import DAMAGED_NOTICE, IndexStatus, OpenedIndex
from search.index.shard import Progress
from search.models import AvailableFilters, Hit, Marks, Paper, SearchRequest, SearchResult
from search.query.boolean import filter_expression
from search.query.budget import SEARCH_SECONDS, Budget, SearchStopped, shortened
from search.query.facets import FACET_NAMES, MATCHES, SORTS, Facets, facet_tokens, split_facets
from search.query.filters import Filters, missing_fields
from search.query.parse import SEARCH_FIELDS, named_fields, unknown_fields
from search.query.pasted import explicit_syntax
from search.query.recommend import Recommendations
from search.query.recommend import recommend as recommend_papers
from search.query.runner import QueryRunner
from search.query.scan import scan
from search.query.stats import Stats
from search.query.stats import compute as compute_stats
from search.text.describe import Description, describe, quick_has_code, quick_headline

__all__ = ["IndexStatus", "Row", "SearchEngine", "UnknownPaper"]


@dataclass(frozen=True, slots=True)
class Row:
    """What the result list shows for a paper."""

    name: str | None
    headline: str
    has_code: bool


QUICK_NOTICE = "Quick matches by word while the index builds; ranked results follow"
"""The notice of a result found by scanning the papers' text (`quick_search`)."""


_WORDS = re.compile(r"[^\W_]")
KNOWN_FIELDS = " ".join(f"{name}:" for name in (*SEARCH_FIELDS, "by", *FACET_NAMES))
"""What a hint about an unknown field lists."""
_SORT_TOKEN = re.compile(r"-?sort:", re.I)


def _joined(notes: list[str]) -> str | None:
    return "; ".join(notes) if notes else None


DESCRIBED = 2048
"""Descriptions kept (rendered abstract, spans, links): 3.8 KB a paper on average over the 17 real
lists, so about 8 MB. Unbounded, a session kept every paper it showed, and a build in this process
every paper (40 MB at 10,744 papers)."""

GIVE_WAY_SECONDS = 1.5
"""How long, in all, the index's first open waits for quick searches (see _Foreground)."""


class _Foreground:
    """The quick searches running (the user waits for them), and the background work that gives way
    to them: the index's first open, which hashes every paper's content (0.35 s of CPU at 100,000
    papers) just as a cold start's first frame is up and the user types. Two threads of Python
    share the interpreter, so a scan beside it took half as long again; it now waits while a quick
    search runs, at most GIVE_WAY_SECONDS in all (the index is what the scan stands in for)."""

    def __init__(self) -> None:
        self._running = 0
        self._idle = threading.Condition()

    @contextlib.contextmanager
    def running(self) -> Iterator[None]:
        with self._idle:
            self._running += 1
        try:
            yield
        finally:
            with self._idle:
                self._running -= 1
                if not self._running:
                    self._idle.notify_all()

    def giver(self, seconds: float = GIVE_WAY_SECONDS) -> Callable[[], None]:
        """A call that returns when no quick search runs, or once `seconds` of waiting are spent
        over all its calls."""
        left = [seconds]

        def give_way() -> None:
            with self._idle:
                if not self._running or left[0] <= 0:
                    return
                started = time.monotonic()
                self._idle.wait_for(lambda: not self._running, left[0])
                left[0] -= time.monotonic() - started

        return give_way


class SearchEngine:
    """Papers in memory, an on-disk Whoosh index (rebuilt only when its content changes), queries."""

    def __init__(self, corpus: Corpus, cache_dir: Path | None = None) -> None:
        self.corpus = corpus
        self.papers: tuple[Paper, ...] = corpus.papers
        self.aliases = corpus.aliases
        """The id of each paper merged into another (the same paper in two lists) -> its kept id."""
        by_id = {paper.id: paper for paper in corpus.papers}
        for alias, target in self.aliases.items():  # (one dict: a second of 100,000 ids was 5 MB the allocator kept)
            if alias not in by_id:
                by_id[alias] = by_id[target]
        self.by_id = by_id
        """Every id a paper can be found by: its own and its aliases."""
        self._cache_dir = cache_dir
        self._foreground = _Foreground()
        self._give_way = self._foreground.giver()
        """Called by the index's first open between chunks of its work (see _Foreground)."""
        if isinstance(corpus.fingerprints, BySource):  # computed when the index first opens
            corpus.fingerprints.give_way = self._give_way
        self._index: GuardedIndex[QueryRunner] = GuardedIndex(_runner_of, QueryRunner.close, self._describe_paper)
        """The index, its query runner, and their repair when damaged (search/index/guard.py)."""
        self._unsaved: list[Callable[[], None]] = []
        self._unsaved_lock = threading.Lock()  # not the index's lock, which a build holds for seconds
        self.describe = lru_cache(maxsize=DESCRIBED)(self._describe)
        self._list_of = lru_cache(maxsize=None)(list_name)
        self._lists_of = lru_cache(maxsize=None)(self._paper_lists)
        self._lists: list[str] | None = None
        self._with_papers: set[str] | None = None
        self._rankings: tuple[object, dict[tuple[str, int], list[str]]] = (None, {})
        """Each bookmark's related papers, as recommend ranked them, and the index reader they came from."""
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
        cls,
        paths_: Sequence[str | Path] | None = None,
        skip_broken: bool = False,
        save_later: bool = False,
        meanwhile: Callable[[], None] | None = None,
    ) -> SearchEngine:
        """The given files, or by default the bundled list plus the user's library. A file that
        cannot be loaded is an error, except in the library or with `skip_broken`: then it is left
        out and named in corpus.problems (unless nothing loads at all). With `save_later`, what the
        load saves for the next start waits for `save_for_next_start`. `meanwhile`: see load_corpus."""
        later: list[Callable[[], None]] | None = [] if save_later else None
        if paths_:
            corpus = load_corpus(paths_, skip_broken=skip_broken, keep=True, later=later, meanwhile=meanwhile)
        else:
            from search.corpus.library import Library

            corpus = load_corpus(
                Library().default_sources(), skip_broken=True, keep=True, later=later, meanwhile=meanwhile
            )
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

    def release_memory(self) -> bool:
        """Hand the memory that searches and loads freed back to the system (search/memory.py): for
        a pause in the typing, not after each search. Whether the allocator could be asked."""
        return memory.release()

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
        return Marks(
            frozenset(map(self.canonical, marks.bookmarked)),
            frozenset(map(self.canonical, marks.opened)),
            tuple((self.canonical(paper_id), note, tags) for paper_id, note, tags in marks.notes),
        )

    def _describe(self, paper_id: str) -> Description:
        return describe(self.paper(paper_id))

    def _stored_row(self, paper_id: str) -> Sequence | None:
        """The index's stored (name, headline, has_code), once the index is open: a Row is made when
        asked for, 40 a screen, not 100,000 a start. The index keeps no headline that is the
        paper's title (OpenedIndex.rows): it is the paper's."""
        opened = self._index.opened
        stored = None if opened is None else opened.rows.get(paper_id)
        if stored is None or stored[1] is not None:
            return stored
        return stored[0], self.paper(paper_id).title, stored[2]

    def row(self, paper_id: str) -> Row:
        """The result-list row, from the index when it has it: no markup conversion needed."""
        stored = self._stored_row(paper_id)
        if stored is not None:
            return Row(*stored)
        description = self.describe(paper_id)
        return Row(description.name, description.headline, description.has_code)

    def quick_row(self, paper_id: str) -> Row:
        """A row that never converts markup: the stored one, or the title or raw first words."""
        stored = self._stored_row(paper_id)
        if stored is not None:
            return Row(*stored)
        paper = self.paper(paper_id)
        return Row(None, quick_headline(paper), quick_has_code(paper))

    # -- index --------------------------------------------------------------------------------

    @property
    def ready(self) -> bool:
        return self._index.reader is not None

    def ensure_index(
        self, on_progress: Progress | None = None, cancel: threading.Event | None = None, rebuild: bool = False
    ) -> IndexStatus:
        """Open each corpus file's index, building the ones that are missing, stale or damaged."""
        root = (self._cache_dir or paths.cache_dir()) / "index"
        if not self.ready:
            self._give_way()  # a quick search already running first
        return self._index.open(root, self.papers, on_progress, cancel, rebuild, self.corpus.fingerprints)

    def _describe_paper(self, paper: Paper) -> Description:
        return self.describe(paper.id)

    @property
    def runner(self) -> QueryRunner:
        """The open index's query runner, the index opened first if need be: for tests and tools
        that look inside it. Searches go through `search` and `related`, which guard it against a
        damaged index and keep ids the corpus does not know from their results."""
        if self._index.reader is None:
            self.ensure_index()
        assert self._index.reader is not None
        return self._index.reader

    def take_index_notice(self) -> str | None:
        """What to tell the user, once, about the index since the last call, or None: that it was found
        damaged while searching, and rebuilt. (The result of the search that found it says so too,
        in its notice; this is for callers that may not show that result.)"""
        return self._index.take_notice()

    def _known(self, paper_id: str) -> bool:
        return paper_id in self.by_id

    # -- queries ------------------------------------------------------------------------------

    def search(self, request: SearchRequest | str, cancel: threading.Event | None = None) -> SearchResult:
        """The ranked hits for a request (a plain string: SearchRequest(text), every default), with
        the query's facets (list:, venue:, status:, has:, is:, sort:, match:) applied. The search
        stops when `cancel` is set or after the request's `budget`, with what it had and a hint in
        the notice; every bound it met on the way (fuzzy distance, expansions, query length) is a
        hint too, and so is every facet or field that cannot find anything. ValueError when the
        request's `match` or `sort` is not one there is."""
        if isinstance(request, str):
            request = SearchRequest(request)
        text, limit, partial, hit_terms = request.text, request.limit, request.partial, request.hit_terms
        match, sort = request.match, request.sort
        if match not in MATCHES:
            raise ValueError(f"match must be one of {', '.join(MATCHES)}, not {match!r}")
        if sort not in SORTS:
            raise ValueError(f"sort must be one of {', '.join(SORTS)}, not {sort!r}")
        if not self.ready:
            self.ensure_index()
        budget = Budget(request.budget, cancel)
        text = shortened(text, budget)
        words, facets = split_facets(text)
        if sort != "relevance" and not any(_SORT_TOKEN.match(token) for token in facet_tokens(text)):
            facets = dataclasses.replace(facets, sort=sort)
        text = " ".join(text.split())
        expression = filter_expression(text)  # filters joined by AND, OR, NOT or parentheses
        allowed: frozenset[str] | None
        if expression is not None:
            words = expression.words
            allowed, problems = self._filters.combined(expression, self._canonical_marks(request.marks))
        else:
            allowed, problems = self._filters.allowed(facets, self._canonical_marks(request.marks))
        if facets.related is not None:
            return self._related_result(text, facets, limit, allowed, problems, budget)
        unsorted = self._filters.unsortable(facets.sort)  # sort:rating where no list has ratings
        if unsorted and _WORDS.search(words):
            problems.append(f"{unsorted}: sorted by relevance")
            facets = dataclasses.replace(facets, sort="relevance")
        elif unsorted:
            problems.append(f"{unsorted}: listed in corpus order")
        if not _WORDS.search(words):
            if allowed is None and facets.sort == "relevance":
                # match:all, sort:relevance alone (or a sort: or match: not read, left out as beside
                # words): nothing to rank, every paper
                if facet_tokens(text):
                    hits = tuple(Hit(paper.id, 0.0) for paper in self.papers[:limit])
                    return SearchResult(text, hits, len(self.papers), notice=_joined([*problems, *budget.hints]))
                return self._run(text, limit, partial, hit_terms, None, budget)  # no words, no facets
            papers = [paper for paper in self.papers if allowed is None or paper.id in allowed]
            hits = tuple(Hit(paper.id, 0.0) for paper in self._filters.sort(papers, facets.sort)[:limit])
            return SearchResult(text, hits, len(papers), notice=_joined([*problems, *budget.hints]))
        problems += self._field_problems(words)
        if facets.match == "all" and explicit_syntax(words):
            problems.append("match:all: the query's own AND, OR, NOT or parentheses say what matches")
        wanted = len(self.papers) if facets.sort != "relevance" else limit
        tokens = facet_tokens(text)
        typing = partial and not (tokens and text.endswith(tokens[-1]))  # a facet after the words ends them
        result = self._run(words, wanted, typing, hit_terms, allowed, budget, facets.match or match, request.correct)
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
        problems = missing_fields(fields, self.available_filters()) if fields else []
        unknown = unknown_fields(words)
        if unknown:
            names = ", ".join(f"{name}:" for name in unknown)
            problems.append(f"{names} is not a field; searched as words (fields: {KNOWN_FIELDS})")
        return problems

    def quick_search(self, text: str, limit: int = 50, cancel: threading.Event | None = None) -> SearchResult:
        """Papers with the query's words, found by scanning their text, for the seconds before the
        index is open (a cold start, a list just added): plain words only, ranked by how many a
        paper has (search/query/scan.py). The result's notice says so."""
        text = " ".join(text.split())  # as search() has it, so the interface compares like with like
        with self._foreground.running():
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

    def stats(self, query: str | SearchRequest = "", marks: Marks | None = None) -> Stats:
        """The statistics (search/query/stats.py) of the papers the query finds (every match, in
        no particular order), or of every loaded paper when it is blank. A request is searched as
        it says (the app's, as typed: its last word a prefix), so the count is the one it shows."""
        if isinstance(query, str):
            query = SearchRequest(query, marks=marks or Marks())
        if not query.text.strip():
            return compute_stats(self.papers)
        result = self.search(dataclasses.replace(query, limit=max(1, len(self.papers)), budget=None))
        return compute_stats([self.paper(hit.paper_id) for hit in result.hits])

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

    def recommend(
        self,
        bookmarks: Sequence[str],
        removed: Iterable[str] = (),
        limit: int = 50,
        cancel: threading.Event | None = None,
        seconds: float | None = None,
        on_partial: Callable[[Recommendations], None] | None = None,
    ) -> Recommendations:
        """More like my bookmarks: the papers most like `bookmarks` (paper ids, newest first; the
        most recent 50 in the loaded lists are compared with), best first, each with the bookmark it
        is closest to (search/query/recommend.py). Never a bookmarked paper nor one of `removed`
        (bookmarks the user took away). A cancel or `seconds` running out stops it with what the
        bookmarks compared so far give, and a notice; `on_partial` is given the result so far now
        and then (after the 1st, 2nd, 4th, ... bookmark), for a screen to show meanwhile."""
        if not self.ready:
            self.ensure_index()
        canonical = [self.canonical(paper_id) for paper_id in bookmarks]
        excluded = {*canonical, *map(self.canonical, removed)}

        reader = self._index.reader
        if self._rankings[0] is not reader:  # another index (rebuilt, a list added): rankings differ
            self._rankings = (reader, {})
        kept = self._rankings[1]

        def by_words(paper_id: str, depth: int, budget: Budget) -> list[str]:
            # Kept while the index is the same: opening Recommended again after bookmarking a few of
            # its papers ranks only the new bookmarks (each ranking is a related-papers search, about
            # 0.1-0.3 s at 100,000 papers).
            if (paper_id, depth) not in kept:
                kept[paper_id, depth] = [hit.paper_id for hit in self._related(paper_id, depth, None, budget)]
            return kept[paper_id, depth]

        budget = Budget(seconds, cancel)
        return recommend_papers(canonical, excluded, [by_words], self._known, limit, budget, on_partial)

    def _related(self, paper_id: str, limit: int, allowed: frozenset[str] | None, budget: Budget) -> list[Hit]:
        if not self.ready:
            self.ensure_index()
        paper = self.paper(paper_id)
        paper_id = paper.id
        description = self.describe(paper_id)
        text = " ".join([paper.title or "", description.name or "", description.rendered.text, *paper.keywords])
        hits, _ = self._index.read(
            lambda runner, attempt: runner.similar(paper_id, text, limit, allowed, _renewed(budget, attempt)),
            lambda hits: _sound(hits, self._known),
        )
        return list(_kept(hits, self._known))

    def _run(
        self,
        text: str,
        limit: int,
        partial: bool,
        hit_terms: bool,
        allowed: frozenset[str] | None,
        budget: Budget,
        match: str = "any",
        correct: bool = True,
    ) -> SearchResult:
        """QueryRunner.run over the index, read again once repaired if it was damaged (the result
        then says so); ids the corpus does not know never leave here."""
        result, rebuilt = self._index.read(
            lambda runner, attempt: runner.run(
                text, limit, partial, hit_terms, allowed, _renewed(budget, attempt), match, correct
            ),
            lambda result: _sound(result.hits, self._known),
        )
        hits = _kept(result.hits, self._known)
        if len(hits) == len(result.hits) and not rebuilt:
            return result
        notice = "; ".join(filter(None, [result.notice, DAMAGED_NOTICE if rebuilt else None])) or None
        return dataclasses.replace(result, hits=hits, total=result.total - len(result.hits) + len(hits), notice=notice)

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
        self._index.close()


def _runner_of(opened: OpenedIndex) -> QueryRunner:
    return QueryRunner(opened.indexes, opened.words, opened.counts)


def _renewed(budget: Budget, attempt: int) -> Budget:
    """The search's budget, started afresh on a read after a repair: the time the repair took (a
    rebuild of a shard may take seconds) is not the search's."""
    return budget if attempt == 0 else Budget(budget.seconds, budget.cancel)


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
