"""Parse and run queries: ranked words, phrases, prefix*, fuzzy~, field:term, AND/OR/NOT.

Malformed syntax never raises: it is read as plain words. Words the index has never seen are
spelling-corrected (and a query with no hits is retried corrected). Whoosh objects never leave
this module: hits are copied into `Hit`s.
"""

from __future__ import annotations

import re
import threading
from bisect import bisect_left
from collections import Counter
from collections.abc import Set
from heapq import nlargest
from itertools import islice
from math import log

from whoosh import qparser
from whoosh import query as wq
from whoosh.reading import MultiReader
from whoosh.searching import Searcher
from whoosh.spelling import ListCorrector

from search.index.analysis import stems
from search.models import Hit, SearchResult
from search.query.scoring import TermScorer

SEARCH_FIELDS = ("name", "title", "abstract", "keywords", "authors")
FIELD_ALIASES = {"authors": ["author", "by"], "keywords": ["keyword", "kw"], "abstract": ["text"]}
MAX_PREFIX_EXPANSIONS = 24
"""A short prefix like `ge*` expands to thousands of terms; only the most frequent are searched."""
SIMILAR_TERMS = 25
"""A paper's most distinctive words that a related-papers search looks for."""
MAX_SHARE = 0.2
"""Words in more than this share of the papers say nothing about likeness."""
COMPLETIONS = 4
"""While a word is being typed, it also matches its few most common completions."""
_OPERATORS = {"AND", "OR", "NOT", "ANDNOT", "ANDMAYBE"}
_WORD = re.compile(r"[^\W_][\w'-]*")
# Words that are not field names, fuzzy terms or prefixes: the ones spelling correction may touch.
_PLAIN_WORD = re.compile(r"(?<![\w:*~])[^\W\d_]+(?![\w:*~])")


class QueryRunner:
    """One long-lived searcher reused across queries; thread-safe through a lock."""

    def __init__(self, indexes: list, words: list[str] | None = None, counts: list[int] | None = None) -> None:
        """`indexes`: one Whoosh index per corpus file, searched as one (statistics are shared)."""
        self._words = words or []
        self._counts = counts or [1] * len(self._words)
        self._corrector = ListCorrector(self._words)
        self._lock = threading.Lock()
        schema = indexes[0].schema
        segments = [segment for ix in indexes for segment, _ in ix.reader().leaf_readers()]
        self._searcher = Searcher(segments[0] if len(segments) == 1 else MultiReader(segments))
        self._scorer = TermScorer(self._searcher.reader())
        self._id_column = self._searcher.reader().column_reader("id")
        """docnum -> paper id: much cheaper than Whoosh's pickled stored fields."""
        self._docnum_of: dict[str, int] | None = None
        self._last_ids: Set[str] | None = None
        self._last_docnums: set[int] = set()
        self._parser = qparser.MultifieldParser(list(SEARCH_FIELDS), schema, group=qparser.OrGroup.factory(0.9))
        self._parser.add_plugin(qparser.FuzzyTermPlugin())
        self._parser.add_plugin(qparser.FieldAliasPlugin(FIELD_ALIASES))
        self._plain_parser = qparser.MultifieldParser(
            list(SEARCH_FIELDS), schema, group=qparser.OrGroup.factory(0.9), plugins=[]
        )

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
        if not _WORD.search(text):
            return SearchResult(text, (), 0)
        typing = _word_being_typed(as_typed) if partial else None
        settled = text if typing is None else text[: -len(typing)]
        with self._lock:
            docs = None if allowed is None else self._docnums(allowed)
            # A word the index has never seen is most likely a typo: try the corrected query first.
            corrected = self._correct(settled)
            if corrected:
                result = self._attempt(text, corrected, typing, limit, hit_terms, docs, corrected=True)
                if result.total:
                    return result
            result = self._attempt(text, settled, typing, limit, hit_terms, docs)
            if result.total == 0:
                corrected = self._correct(text)  # the word being typed too, now that nothing matches
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
        query, notice = self._parse(base + self._completed(typing) if typing else base)
        hits, total, terms = self._execute(query, limit, hit_terms, docs)
        shown = (base + typing if typing else base) if corrected else None
        return SearchResult(text, hits, total, shown, notice, terms)

    # -- parsing ------------------------------------------------------------------------------

    def _parse(self, text: str) -> tuple[wq.Query, str | None]:
        problem = _syntax_problem(text)
        if problem is None:
            try:
                query = self._parser.parse(text)
                if query is not wq.NullQuery and not _matches_everything(query):
                    return self._bounded(query), None
            except Exception:  # noqa: BLE001 - whoosh's parser on odd input: read as plain words
                pass
            problem = "query syntax not understood"
        words = " ".join(_WORD.findall(text.replace("*", " ").replace("~", " ")))
        return self._plain_parser.parse(words), f"{problem}; searched for the words only"

    def _bounded(self, query: wq.Query) -> wq.Query:
        """Bound prefix/wildcard expansion, and make `a NOT b` exclude b (an OR group would not)."""
        reader = self._searcher.reader()
        near_words: dict[tuple[str, int, int], dict[str, None]] = {}  # one fuzzy term spans five fields

        def near(text: str, maxdist: int, prefix: int) -> dict[str, None]:
            key = (text, maxdist, prefix)
            if key not in near_words:
                # Whoosh walks the whole term dictionary for a fuzzy term; the vocabulary is faster.
                words = self._corrector.suggest(text, limit=MAX_PREFIX_EXPANSIONS, maxdist=maxdist, prefix=prefix)
                near_words[key] = dict.fromkeys(form for word in (text, *words) for form in (word, *stems(word)))
            return near_words[key]

        def bound(node: wq.Query) -> wq.Query:
            if isinstance(node, wq.FuzzyTerm):
                forms = near(node.text, node.maxdist, node.prefixlength)
                return wq.Or([wq.Term(node.fieldname, form, boost=node.boost) for form in forms])
            if isinstance(node, wq.PatternQuery):
                expansions = list(islice(node._btexts(reader), 4 * MAX_PREFIX_EXPANSIONS))
                expansions.sort(key=lambda term: -reader.doc_frequency(node.fieldname, term))
                terms = [wq.Term(node.fieldname, term, boost=node.boost) for term in expansions[:MAX_PREFIX_EXPANSIONS]]
                return wq.Or(terms) if terms else wq.NullQuery
            node = node.apply(bound)
            if isinstance(node, wq.Or):
                negated = [child.query for child in node.subqueries if isinstance(child, wq.Not)]
                wanted = [child for child in node.subqueries if not isinstance(child, wq.Not)]
                if negated and wanted:
                    return wq.AndNot(_either(wanted), _either(negated))
            return node

        return bound(query)

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
        paper itself). Words in one paper only or in over a fifth of all say nothing about likeness."""
        with self._lock:
            reader = self._searcher.reader()
            total = reader.doc_count_all()
            weighted = []
            for term, count in Counter(stems(text)).items():
                papers = reader.doc_frequency("abstract", term)
                if 1 < papers <= max(2, total * MAX_SHARE):
                    weighted.append(((1 + log(count)) * log(total / papers), term))
            best = nlargest(SIMILAR_TERMS, weighted)
            if not best:
                return []
            query = wq.Or(
                [
                    wq.Term(field, term, boost=weight / best[0][0])
                    for weight, term in best
                    for field in ("abstract", "title")
                ]
            )
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

    def _correct(self, text: str) -> str | None:
        """Replace words the index has never seen with their closest spelling, if any."""
        reader = self._searcher.reader()
        changed = False

        def fix(match: re.Match[str]) -> str:
            nonlocal changed
            word = match.group()
            if not _correctable(word) or _known(reader, word):
                return word
            # One edit for short words: `textbf` must not turn into `text`, `wasserstien` may be fixed.
            maxdist = 2 if len(word) >= 8 else 1
            best = self._closest(reader, word.lower(), maxdist)
            if best is None:
                return word
            changed = True
            return best

        corrected = _PLAIN_WORD.sub(fix, text)
        return corrected if changed else None

    def _completions(self, prefix: str, limit: int = COMPLETIONS) -> list[str]:
        """The words starting with prefix that occur in the most papers."""
        prefix = prefix.lower()
        start = bisect_left(self._words, prefix)
        end = bisect_left(self._words, prefix + "\uffff", start)
        candidates = range(start, end)
        best = nlargest(limit + 1, candidates, key=self._counts.__getitem__)
        return [self._words[i] for i in best if self._words[i] != prefix][:limit]

    def _completed(self, typing: str) -> str:
        """The word being typed, or its most common completions: never an unbounded prefix query."""
        if len(typing) < 3:
            return typing
        return "(" + " OR ".join([typing, *self._completions(typing)]) + ")"

    def _closest(self, reader, word: str, maxdist: int) -> str | None:
        """The nearest vocabulary word, nearer edits first, then the one in most abstracts."""
        best: tuple[int, int, str] | None = None
        for distance in range(1, maxdist + 1):
            for candidate in self._corrector.suggest(word, limit=20, maxdist=distance, prefix=1):
                frequency = max((reader.doc_frequency("abstract", stem) for stem in stems(candidate)), default=0)
                key = (distance, -frequency, candidate)
                if candidate != word and frequency and (best is None or key < best):
                    best = key
            if best is not None:
                return best[2]
        return None


def _word_being_typed(text: str) -> str | None:
    """The plain word at the end of text, when the user has not yet typed a space after it."""
    match = re.search(r"(?:^|[\s(])([^\W\d_]{2,})$", text)
    if not match or text.count('"') % 2 or match.group(1).upper() in _OPERATORS:
        return None
    return match.group(1)


def _correctable(word: str) -> bool:
    return len(word) >= 3 and word.upper() not in _OPERATORS and word.isalpha()


def _matched(leaves, doc: int) -> tuple[str, ...]:
    return tuple(sorted({_decode(text) for _, text, scores in leaves if doc in scores}))


def _either(queries: list[wq.Query]) -> wq.Query:
    return queries[0] if len(queries) == 1 else wq.Or(queries)


def _known(reader, word: str) -> bool:
    terms = stems(word)
    return not terms or any(reader.doc_frequency(field, term) for term in terms for field in SEARCH_FIELDS)


def _decode(term) -> str:
    return term.decode("utf-8", "replace") if isinstance(term, bytes) else str(term)


def _matches_everything(query: wq.Query) -> bool:
    return isinstance(query, wq.Every) or any(isinstance(q, wq.Every) for q in query.children())


def _syntax_problem(text: str) -> str | None:
    """A short description of malformed syntax, or None when the query is well formed."""
    if text.count('"') % 2:
        return "unbalanced quote"
    depth = 0
    for ch in text:
        depth += (ch == "(") - (ch == ")")
        if depth < 0:
            return "unbalanced parenthesis"
    if depth:
        return "unbalanced parenthesis"
    tokens = text.split()
    if tokens[0].upper() in _OPERATORS - {"NOT"} or tokens[-1].upper() in _OPERATORS:
        return f"'{tokens[-1] if tokens[-1].upper() in _OPERATORS else tokens[0]}' needs a word on both sides"
    if re.search(r"(?:^|\s)[*?~]+(?:\s|$)", text):
        return "a lone wildcard"
    return None
