"""Run queries against the open index: parse, correct, rank, and copy the hits out.

Whoosh objects never leave this module: hits are copied into `Hit`s. One long-lived searcher is
reused across queries (its term statistics and the per-term scores cached by TermScorer are what
makes typing fast).
"""

from __future__ import annotations

import threading
from collections.abc import Set

from whoosh import query as wq
from whoosh.reading import MultiReader
from whoosh.searching import Searcher

from search.models import Hit, SearchResult
from search.query.parse import WORD, QueryParser
from search.query.related import similar_query
from search.query.scoring import TermScorer
from search.query.spelling import Speller, word_being_typed


class QueryRunner:
    """One long-lived searcher reused across queries; thread-safe through a lock."""

    def __init__(self, indexes: list, words: list[str] | None = None, counts: list[int] | None = None) -> None:
        """`indexes`: one Whoosh index per corpus file, searched as one (statistics are shared);
        `words` and `counts`: the vocabulary, for spelling and completions."""
        self._lock = threading.Lock()
        segments = [segment for ix in indexes for segment, _ in ix.reader().leaf_readers()]
        self._searcher = Searcher(segments[0] if len(segments) == 1 else MultiReader(segments))
        reader = self._searcher.reader()
        self._scorer = TermScorer(reader)
        vocabulary = words or []
        self._speller = Speller(reader, vocabulary, counts or [1] * len(vocabulary))
        self._parser = QueryParser(indexes[0].schema, reader, self._speller.corrector)
        self._id_column = reader.column_reader("id")
        """docnum -> paper id: much cheaper than Whoosh's pickled stored fields."""
        self._docnum_of: dict[str, int] | None = None
        self._last_ids: Set[str] | None = None
        self._last_docnums: set[int] = set()

    def close(self) -> None:
        with self._lock:
            self._searcher.close()

    def run(
        self, text: str, limit: int = 50, partial: bool = False, hit_terms: bool = True, allowed: Set[str] | None = None
    ) -> SearchResult:
        """Run a query. With `partial`, the last word is still being typed and also matches its
        completions; `hit_terms=False` skips each hit's matched terms (about 10% faster);
        `allowed`: only these paper ids may match (filters)."""
        as_typed = text
        text = " ".join(text.split())
        if not WORD.search(text):
            return SearchResult(text, (), 0)
        typing = word_being_typed(as_typed) if partial else None
        settled = text if typing is None else text[: -len(typing)]
        with self._lock:
            docs = None if allowed is None else self._docnums(allowed)
            # A word the index has never seen is most likely a typo: try the corrected query first.
            corrected = self._speller.correct(settled)
            if corrected:
                result = self._attempt(text, corrected, typing, limit, hit_terms, docs, corrected=True)
                if result.total:
                    return result
            result = self._attempt(text, settled, typing, limit, hit_terms, docs)
            if result.total == 0:
                corrected = self._speller.correct(text)  # the word being typed too, now that nothing matches
                retried = (
                    self._attempt(text, corrected, None, limit, hit_terms, docs, corrected=True) if corrected else None
                )
                if retried is not None and retried.total:
                    return retried
            return result

    def _attempt(
        self,
        text: str,
        base: str,
        typing: str | None,
        limit: int,
        hit_terms: bool,
        docs: set[int] | None,
        corrected: bool = False,
    ) -> SearchResult:
        """Search base, plus the unfinished word `typing` matching its common completions; only
        papers in `docs` (docnums) may match, when given."""
        query, notice = self._parser.parse(base + self._speller.completed(typing) if typing else base)
        hits, total, terms = self._execute(query, limit, hit_terms, docs)
        shown = (base + typing if typing else base) if corrected else None
        return SearchResult(text, hits, total, shown, notice, terms)

    # -- running ------------------------------------------------------------------------------

    def _execute(
        self, query: wq.Query, limit: int, hit_terms: bool, allowed: set[int] | None
    ) -> tuple[tuple[Hit, ...], int, tuple[str, ...]]:
        if query is wq.NullQuery:
            return (), 0, ()
        terms = tuple(dict.fromkeys(_decode(t) for field, t in query.iter_all_terms() if field != "id"))
        ids = self._id_column
        if TermScorer.handles(query):
            # Words, prefixes, fuzzy terms, fields and booleans: ranked from cached per-term scores.
            ranked = self._scorer.rank(query)
            if allowed is not None:
                ranked.scores = {doc: score for doc, score in ranked.scores.items() if doc in allowed}
            hits = tuple(
                Hit(_decode(ids[doc]), score, _matched(ranked.leaves, doc) if hit_terms else ())
                for doc, score in self._scorer.top(ranked, max(1, limit))
            )
            return hits, len(ranked.scores), terms
        # Anything else (sloppy phrases, ...): Whoosh. limit=None, because its top-N collector skips
        # good papers in later segments, and with every match collected the count is exact too.
        results = [
            hit
            for hit in self._searcher.search(query, limit=None, terms=hit_terms)
            if allowed is None or hit.docnum in allowed
        ]
        hits = tuple(
            Hit(
                _decode(ids[hit.docnum]),
                float(hit.score),
                tuple(sorted({_decode(t) for _, t in hit.matched_terms()})) if hit_terms else (),
            )
            for hit in results[: max(1, limit)]
        )
        return hits, len(results), terms

    def similar(self, paper_id: str, text: str, limit: int, allowed: Set[str] | None = None) -> list[Hit]:
        """More like this: papers sharing the text's most distinctive words, best first (never the
        paper itself)."""
        with self._lock:
            query = similar_query(self._searcher.reader(), text)
            if query is None:
                return []
            ranked = self._scorer.rank(query)
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


def _matched(leaves, doc: int) -> tuple[str, ...]:
    return tuple(sorted({_decode(text) for _, text, scores in leaves if doc in scores}))


def _decode(term) -> str:
    return term.decode("utf-8", "replace") if isinstance(term, bytes) else str(term)
