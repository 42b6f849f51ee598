"""Run queries against the open index: parse, correct, rank, and copy the hits out.

Whoosh objects never leave this module: hits are copied into `Hit`s. One long-lived searcher is
reused across queries (its term statistics and the per-term scores cached by TermScorer are what
makes typing fast). Every search runs within a Budget (budget.py): its bounds' hints join the
result's notice, and a search past its time or cancelled returns what it had finished.

A query of plain words ranks every paper with any of them (the default, match "any"); it also
counts the papers with all of them, from the per-word match sets ranking made anyway, and with
match "all" only those are listed, ranked the same.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Set
from dataclasses import replace
from typing import NamedTuple

from whoosh import collectors, columns
from whoosh import query as wq
from whoosh.codec.whoosh3 import LENGTHS_COLUMN
from whoosh.reading import MultiReader
from whoosh.searching import Searcher

from search.index.analysis import stems
from search.index.schema import build_schema
from search.models import Hit, SearchResult
from search.query import ahead
from search.query.ahead import Ahead
from search.query.budget import CHECK_EVERY, MAX_QUERY_WORDS, Budget, SearchStopped, shortened
from search.query.parse import OPERATORS, WORD, Clauses, QueryParser
from search.query.pasted import explicit_syntax, words_meant
from search.query.related import similar_query
from search.query.scoring import TermScorer, Typed, score_files, word_keys
from search.query.spelling import Speller, typed_by_hand, word_being_typed

_SYNTAX = re.compile(r"[*?~:\"^()\[\]{}]")


class QueryRunner:
    """One long-lived searcher reused across queries; thread-safe through a lock."""

    def __init__(self, indexes: list, words: list[str] | None = None, counts: list[int] | None = None) -> None:
        """`indexes`: one Whoosh index per corpus file, searched as one (statistics are shared);
        `words` and `counts`: the vocabulary, for spelling and completions."""
        self._lock = threading.Lock()
        indexes = indexes or [_empty_index()]  # no papers at all: nothing matches, nothing fails
        segments = [segment for ix in indexes for segment, _ in ix.reader().leaf_readers()]
        self._searcher = Searcher(segments[0] if len(segments) == 1 else MultiReader(segments))
        reader = self._searcher.reader()
        self._scorer = TermScorer(reader, score_files(indexes, reader))
        self._indexes = indexes
        self.ahead: Ahead | None = None
        """The child writing the common words' scores ahead (ahead.py), once the first search is done."""
        self._ahead_due = True
        vocabulary = words or []
        self._speller = Speller(reader, vocabulary, counts or [1] * len(vocabulary))
        self._parser = QueryParser(indexes[0].schema, reader, self._speller.corrector)
        self._id_column = _opened_columns(reader) if reader.doc_count_all() else []
        """docnum -> paper id: much cheaper than Whoosh's pickled stored fields."""
        self._docnum_of: dict[str, int] | None = None
        self._last_ids: Set[str] | None = None
        self._last_docnums: set[int] = set()

    def close(self) -> None:
        with self._lock:
            self._ahead_due = False
            if self.ahead is not None:
                self.ahead.stop()
            self._searcher.close()

    def run(
        self,
        text: str,
        limit: int = 50,
        partial: bool = False,
        hit_terms: bool = True,
        allowed: Set[str] | None = None,
        budget: Budget | None = None,
        match: str = "any",
        correct: bool = True,
    ) -> SearchResult:
        """Run a query. With `partial`, the last word is still being typed and also matches its
        completions; `hit_terms=False` skips each hit's matched terms (about 10% faster);
        `allowed`: only these paper ids may match (filters); `budget`: its time and cancel event
        (none: no time limit; the bounds on expansions always hold); `match`: "all" lists only the
        papers with every word of a query of plain words (see SearchResult.all_words);
        `correct=False`: never search a spelling correction instead of the query (it may still be
        offered, as SearchResult.suggestion)."""
        budget = budget or Budget(None)
        as_typed = shortened(text, budget)
        partial = partial and as_typed == text  # a cut query's last word is not being typed
        text = " ".join(as_typed.split())
        if not WORD.search(text):
            return _with_hints(SearchResult(text, (), 0), budget)
        searched = text
        words = text.split()
        if len(words) > MAX_QUERY_WORDS:
            searched = as_typed = " ".join(words[:MAX_QUERY_WORDS])
            partial = False
            budget.hint(f"a long query: searched its first {MAX_QUERY_WORDS} words")
        searched = words_meant(searched)  # a pasted title's `?`, `:` and capitals are its words
        typing = word_being_typed(as_typed) if partial else None
        with self._lock:
            attempts: list[SearchResult] = []  # the finished ones, in case the budget runs out
            try:
                budget.check()
                how = _How(limit, hit_terms, match == "all", correct)
                result = self._run(text, searched, typing, how, allowed, budget, attempts, correct)
            except SearchStopped as stopped:
                budget.hint(stopped.hint)
                result = attempts[-1] if attempts else SearchResult(text, (), 0)
            common = _only_common_words(searched)
            if result.total == 0 and common and (not partial or as_typed[-1:].isspace()):  # not "a" of "at…"
                budget.hint("{items}: too common or too short to search", ", ".join(common))
            if self._ahead_due:  # after the first matches, never before
                self._ahead_due = False
                self.ahead = ahead.start(self._indexes, self._scorer._files, self._searcher.reader().doc_count_all())
            return _with_hints(result, budget)

    def _run(
        self,
        text: str,
        searched: str,
        typing: str | None,
        how: _How,
        allowed: Set[str] | None,
        budget: Budget,
        attempts: list[SearchResult],
        correct: bool = True,
    ) -> SearchResult:
        """The query's result; a query typed by hand with a misspelt word (spelling.py says which)
        is searched corrected when the correction finds something (and `correct`); else it is
        searched as typed and the correction is offered as its suggestion."""
        if typing is not None and self._speller.misspelt_already(typing):
            typing = None  # no word starts with it (it has no completions): corrected like a finished word
        settled = searched if typing is None else searched[: -len(typing)]
        docs = None if allowed is None else self._docnums(allowed)
        by_hand = typed_by_hand(searched)
        # A word no paper contains, typed in a short query, is most likely a typo: its correction first.
        fix = self._speller.correct(settled, budget, by_hand)
        searched_fix = None
        if fix is not None and fix.sure and correct:
            attempts.append(self._attempt(text, fix.text, typing, how, docs, budget, corrected=True))
            if attempts[-1].total:  # said with the query's own words: as typed, but for the typos
                return replace(attempts[-1], corrected=fix.applied(text))
            searched_fix, fix = fix.text + (typing or ""), None  # it finds nothing either (a filter)
        attempts.append(self._attempt(text, settled, typing, how, docs, budget))
        result = attempts[-1]
        if result.total == 0 and not result.any_words:  # (none with all the words is no typo)
            whole = self._speller.correct(searched, budget, by_hand)  # the word being typed too, now nothing matches
            if whole is not None and whole.sure and correct and whole.text != searched_fix:
                retried = self._attempt(text, whole.text, None, how, docs, budget, corrected=True)
                if retried.total:
                    return replace(retried, corrected=whole.applied(text))
            elif whole is not None:
                fix = whole
        if fix is None:
            return result
        # Offered for the whole query (a long one was searched only in part), the words as typed.
        return replace(result, suggestion=fix.applied(text))

    def _attempt(
        self,
        text: str,
        base: str,
        typing: str | None,
        how: _How,
        docs: set[int] | None,
        budget: Budget,
        corrected: bool = False,
    ) -> SearchResult:
        """Search base, plus the unfinished word `typing` matching its common completions; only
        papers in `docs` (docnums) may match, when given."""
        typed = base + typing if typing else base
        widened = self._speller.widened(base, budget) if how.widen else None  # `transfomer`: transformer too
        base = widened.text if widened else base
        words = self._speller.completing(typing) if typing else []  # (found once: a walk of the vocabulary)
        completed = base + self._speller.completed(typing, words) if typing else base
        group = tuple(map(word_keys, words)) if len(words) > 1 else None  # its completions: one word
        # The words are counted only when they are the query's own parts: not for AND, OR, NOT.
        query, notice, clauses = self._parser.parse_words(completed, budget, words=not explicit_syntax(typed))
        if clauses:
            found = self._find(query, how.limit, how.hit_terms, docs, budget, clauses, how.all_words, group)
        else:
            found = _Found(*self._execute(query, how.limit, how.hit_terms, docs, budget, group))
        if how.all_words and found.any_words and not found.total:
            notice = "; ".join(
                filter(None, [notice, f"no paper has every word; {found.any_words:,} have some (match:any)"])
            )
        return SearchResult(
            text,
            found.hits,
            found.total,
            typed if corrected else None,
            notice,
            found.terms,
            all_words=found.all_words,
            any_words=found.any_words,
            match="all" if how.all_words and found.all_words is not None else "any",
            also_searched=widened.pairs if widened else (),
        )

    # -- running ------------------------------------------------------------------------------

    def _execute(
        self,
        query: wq.Query,
        limit: int,
        hit_terms: bool,
        allowed: set[int] | None,
        budget: Budget,
        typed: Typed | None = None,
    ) -> tuple[tuple[Hit, ...], int, tuple[str, ...]]:
        """The query's top hits, how many match, and its terms (`typed`: as _find's)."""
        found = self._find(query, limit, hit_terms, allowed, budget, typed=typed)
        return found.hits, found.total, found.terms

    def _find(
        self,
        query: wq.Query,
        limit: int,
        hit_terms: bool,
        allowed: set[int] | None,
        budget: Budget,
        clauses: Clauses | None = None,
        all_words: bool = False,
        typed: Typed | None = None,
    ) -> _Found:
        """The query's top hits and how many match; given its words (`clauses`), how many have
        every word and how many any, and with `all_words` only the first are hits; `typed`: the word
        being typed, with its completions (scored as one word)."""
        if query is wq.NullQuery:
            return _Found((), 0, ())
        terms = tuple(dict.fromkeys(_decode(t) for field, t in query.iter_all_terms() if field != "id"))
        ids = self._id_column
        if TermScorer.handles(query):
            # Words as typing makes them (prefixes completed): the best found without scoring every match.
            top = self._scorer.top_words(query, clauses, max(1, limit), allowed, all_words, budget.check, typed)
            if top is not None:
                budget.check()  # a search superseded meanwhile stops here, before its hits are made
                found = [
                    Hit(_decode(ids[doc]), score, _matched(top.leaves, doc) if hit_terms else ())
                    for doc, score in top.best
                ]
                return _Found(tuple(found), top.total, terms, top.with_all, top.with_any)
            # Words, prefixes, fuzzy terms, fields and booleans: ranked from cached per-term scores.
            ranked = self._scorer.rank(query, budget.check, typed)
            if clauses:
                self._scorer.add_adjacency(query, ranked, clauses, budget.check, typed)
            if allowed is not None:
                ranked.scores = {doc: score for doc, score in ranked.scores.items() if doc in allowed}
            with_any = with_all = None
            if clauses:
                budget.check()
                every = self._scorer.with_every(query, ranked, clauses)
                with_any, with_all = len(ranked.scores), len(every)
                self._scorer.reward_every_word(ranked, every, len(clauses))
                if all_words:
                    ranked.scores = {doc: ranked.scores[doc] for doc in every}
            ranked_hits: list[Hit] = []
            for count, (doc, score) in enumerate(self._scorer.top(ranked, max(1, limit))):
                if count % CHECK_EVERY == 0:
                    budget.check()
                ranked_hits.append(Hit(_decode(ids[doc]), score, _matched(ranked.leaves, doc) if hit_terms else ()))
            return _Found(tuple(ranked_hits), len(ranked.scores), terms, with_all, with_any)
        # Anything else (sloppy phrases, ...): Whoosh. limit=None, because its top-N collector skips
        # good papers in later segments, and with every match collected the count is exact too.
        collector = _BudgetCollector(self._searcher.collector(limit=None, terms=hit_terms), budget)
        self._searcher.search_with_collector(query, collector)
        results = [hit for hit in collector.results() if allowed is None or hit.docnum in allowed]
        hits = tuple(
            Hit(
                _decode(ids[hit.docnum]),
                float(hit.score),
                tuple(sorted({_decode(t) for _, t in hit.matched_terms()})) if hit_terms else (),
            )
            for hit in results[: max(1, limit)]
        )
        return _Found(hits, len(results), terms)

    def similar(
        self, paper_id: str, text: str, limit: int, allowed: Set[str] | None = None, budget: Budget | None = None
    ) -> list[Hit]:
        """More like this: papers sharing the text's most distinctive words, best first (never the
        paper itself). SearchStopped when the budget runs out."""
        budget = budget or Budget(None)
        with self._lock:
            budget.check()
            query = similar_query(self._searcher.reader(), text)
            if query is None:
                return []
            ranked = self._scorer.rank(query, budget.check)
            own = self._docnum_map().get(paper_id)
            keep = None if allowed is None else self._docnums(allowed)
            ranked.scores = {d: s for d, s in ranked.scores.items() if d != own and (keep is None or d in keep)}
            ids = self._id_column
            return [
                Hit(_decode(ids[doc]), score, _matched(ranked.leaves, doc))
                for doc, score in self._scorer.top(ranked, limit)
            ]

    def _docnum_map(self) -> dict[str, int]:
        """paper id -> docnum, built on first use (only filters and related papers need it)."""
        if self._docnum_of is None:
            self._docnum_of = {_decode(paper_id): doc for doc, paper_id in enumerate(self._id_column)}
        return self._docnum_of

    def _docnums(self, paper_ids: Set[str]) -> set[int]:
        if paper_ids is not self._last_ids:  # a filter is the same object while the user types after it
            docnum_of = self._docnum_map()
            self._last_ids = paper_ids
            self._last_docnums = {docnum_of[paper_id] for paper_id in paper_ids if paper_id in docnum_of}
        return self._last_docnums


class _How(NamedTuple):
    """How a query's matches are listed: how many, with their matched terms or not, only the
    papers with all the words or any."""

    limit: int
    hit_terms: bool
    all_words: bool
    widen: bool = True
    """Rare words also searched as their common spelling (spelling.py's `widened`)."""


class _Found(NamedTuple):
    """What one query found: its top hits, how many matches, the query's terms, and for a query of
    plain words how many matches have all its words and how many any (else None)."""

    hits: tuple[Hit, ...]
    total: int
    terms: tuple[str, ...]
    all_words: int | None = None
    any_words: int | None = None


class _BudgetCollector(collectors.WrappingCollector):
    """Collects like its child, checking the search's budget every CHECK_EVERY matches (Whoosh's
    TimeLimitCollector needs a timer thread and SIGALRM, which only the main thread may use)."""

    def __init__(self, child: collectors.Collector, budget: Budget) -> None:
        super().__init__(child)
        self._budget = budget

    def collect_matches(self) -> None:
        check = self._budget.check
        collect = self.child.collect
        check()
        for count, sub_docnum in enumerate(self.child.matches(), 1):
            if count % CHECK_EVERY == 0:
                check()
            collect(sub_docnum)


def _only_common_words(text: str) -> list[str]:
    """The words of a query of plain words only, when the analyzer drops every one of them (stop
    words, single letters); else none."""
    if _SYNTAX.search(text):
        return []
    words = WORD.findall(text)
    if any(word.upper() in OPERATORS or stems(word) for word in words):
        return []
    return words


def _with_hints(result: SearchResult, budget: Budget) -> SearchResult:
    """The result with the budget's hints after its own notice."""
    hints = budget.hints
    if not hints:
        return result
    notices = [*([result.notice] if result.notice else []), *(hint for hint in hints if hint != result.notice)]
    return replace(result, notice="; ".join(notices))


def _opened_columns(reader) -> columns.ColumnReader:
    """The reader's id column (docnum -> paper id), every segment's own, with the lengths columns
    that scoring reads opened now too. Whoosh opens a segment's column files by name when first
    asked and takes one that is not there for a field no paper has: its MultiReader then leaves
    that segment out of the id column, and the docnums of its papers read the next segment's
    ids (a49 came out as b19). A shard another process replaced since its segments were opened
    has no files by those names: that is an error here (a reader the guard repairs), never
    another paper's id; and the guard checks, once this reader is made, that no shard's files
    changed while it opened them (search/index/guard.py)."""
    ids = []
    offsets = []
    for segment, offset in reader.leaf_readers():
        perdoc = segment._perdoc
        field = segment.schema["id"]
        # Opened by name: FileNotFoundError when the shard was replaced (no default values).
        ids.append(
            columns.TranslatingColumnReader(perdoc.column_reader("id", field.column_type), field.from_column_value)
        )
        offsets.append(offset)
        for name in segment.schema.scorable_names():
            perdoc._cached_reader(f"_{name}_len", LENGTHS_COLUMN)  # may be none: then the guard's check sees why
    return ids[0] if len(ids) == 1 else columns.MultiColumnReader(ids, offsets)


def _empty_index():
    from whoosh.filedb.filestore import RamStorage

    return RamStorage().create_index(build_schema())


def _matched(leaves, doc: int) -> tuple[str, ...]:
    return tuple(sorted({_decode(text) for _, text, scores in leaves if doc in scores}))


def _decode(term) -> str:
    return term.decode("utf-8", "replace") if isinstance(term, bytes) else str(term)
