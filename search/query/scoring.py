"""Rank ORs, ANDs and NOTs of terms from cached per-term scores, the way Whoosh would.

Whoosh scores a query by walking matcher objects posting by posting, in pure Python: about 70 ms
for three common words over 10k abstracts. While a user types, the same few terms come back on
every keystroke, so here each term's BM25F scores are computed once, kept in a dict
{docnum: score}, and a query is a few dict merges. The formula, boosts and coordination bonus
are Whoosh's own (`BM25F()` defaults, `Or(scale=...)`'s CoordMatcher), so the ranking is the
same; tests compare the two. Anything else (phrases, wildcards) is left to Whoosh.
"""

from __future__ import annotations

from collections import Counter, OrderedDict
from collections.abc import Callable
from heapq import nlargest
from math import log

from whoosh import query as wq
from whoosh.codec.whoosh3 import W3LeafMatcher

from search.query.budget import CHECK_EVERY

B = 0.75
K1 = 1.2
CACHED_TERMS = 4096
CACHED_WORDS = 64
"""Papers per word of a query (`with_every`): the words typed before stay while the next is typed."""


class Ranked:
    """A query's matches: score per docnum, which leaf terms matched each, and the papers each of
    the query's top-level parts matched (for an Or or an And; else empty), in order."""

    __slots__ = ("leaves", "parts", "scores")

    def __init__(
        self,
        scores: dict[int, float],
        leaves: list[tuple[str, str, dict[int, float]]],
        parts: list[dict[int, float]] | None = None,
    ) -> None:
        self.scores = scores
        self.leaves = leaves
        self.parts = parts or []


class TermScorer:
    """Per-term BM25F scores for one open reader, cached across queries."""

    def __init__(self, reader) -> None:
        self._reader = reader
        self._segments = list(reader.leaf_readers())
        self._doc_count = reader.doc_count_all() or 1
        self._lengths: dict[tuple[int, str], list[int]] = {}
        self._cache: OrderedDict[tuple[str, str], dict[int, float]] = OrderedDict()
        self._word_docs: OrderedDict[tuple[wq.Query, ...], frozenset[int]] = OrderedDict()
        self._check: Callable[[], None] = _unlimited

    @staticmethod
    def handles(query: wq.Query) -> bool:
        """True when the query is made only of terms under Or / And / AndNot."""
        if type(query) is wq.Term or query is wq.NullQuery:
            return True
        if type(query) is wq.Phrase:
            return query.slop == 1
        if type(query) in (wq.Or, wq.And):
            return all(TermScorer.handles(child) for child in query.subqueries)
        if type(query) is wq.AndNot:
            return TermScorer.handles(query.a) and TermScorer.handles(query.b)
        return False

    def rank(self, query: wq.Query, check: Callable[[], None] | None = None) -> Ranked:
        """The query's scores; `check` is called between steps (a term, a segment's postings, a
        batch of phrase candidates) and may raise to stop (a search's budget)."""
        leaves: list[tuple[str, str, dict[int, float]]] = []
        parts: list[dict[int, float]] = []
        self._check = check or _unlimited
        try:
            scores, _ = self._evaluate(query, leaves, parts)
        finally:
            self._check = _unlimited
        return Ranked(scores, leaves, parts)

    def with_every(self, query: wq.Query, ranked: Ranked, clauses: tuple[tuple[int, ...], ...]) -> frozenset[int]:
        """The papers among `ranked`'s that every clause matches: a clause is a word of the Or
        `query`, the positions of the top-level parts it is made of (parse.Clauses)."""
        matched = [self._clause_docs(query, ranked, clause) for clause in clauses]
        matched.sort(key=len)  # the rarest word first: the intersection only gets smaller
        return matched[0].intersection(*matched[1:], ranked.scores) if matched else frozenset()

    def _clause_docs(self, query: wq.Query, ranked: Ranked, clause: tuple[int, ...]) -> frozenset[int]:
        """The papers a word matches in any field, kept across queries (the same word comes back
        on every keystroke after it)."""
        key = tuple(query.subqueries[at] for at in clause)
        docs = self._word_docs.get(key)
        if docs is None:
            docs = self._word_docs[key] = frozenset().union(*(ranked.parts[at] for at in clause))
            if len(self._word_docs) > CACHED_WORDS:
                self._word_docs.popitem(last=False)
        else:
            self._word_docs.move_to_end(key)
        return docs

    def top(self, ranked: Ranked, limit: int) -> list[tuple[int, float]]:
        """The best `limit` (docnum, score), ties in index order as Whoosh breaks them."""
        return nlargest(limit, ranked.scores.items(), key=lambda item: (item[1], -item[0]))

    # -- evaluation ---------------------------------------------------------------------------

    def _evaluate(
        self, node: wq.Query, leaves: list, top_parts: list[dict[int, float]] | None = None
    ) -> tuple[dict[int, float], Counter | None]:
        """Scores per doc, and (for Ors and Ands) how many leaf terms matched each doc; `top_parts`
        receives an Or's or an And's children's scores, in order."""
        if node is wq.NullQuery:
            return {}, None
        if type(node) is wq.Term:
            self._check()
            scores = self.term_scores(node.fieldname, node.text)
            leaves.append((node.fieldname, node.text, scores))
            if node.boost != 1.0:
                scores = {doc: score * node.boost for doc, score in scores.items()}
            return scores, None
        if type(node) is wq.Phrase:
            return self._phrase(node, leaves)
        if type(node) is wq.AndNot:
            scores, matched = self._evaluate(node.a, leaves)
            excluded, _ = self._evaluate(node.b, [])
            return {doc: s for doc, s in scores.items() if doc not in excluded}, matched
        parts = [self._evaluate(child, leaves) for child in node.subqueries]
        if top_parts is not None:
            top_parts.extend(child_scores for child_scores, _ in parts)
        parts = [part for part in parts if part[0] or type(node) is wq.And]
        if type(node) is wq.And:
            common = set(parts[0][0]).intersection(*(p[0] for p in parts[1:])) if parts else set()
            merged = {doc: sum(p[0][doc] for p in parts) for doc in common}
        else:
            merged = {}
            for child_scores, _ in parts:
                get = merged.get
                for doc, score in child_scores.items():
                    merged[doc] = get(doc, 0.0) + score
        matched = Counter()
        for child_scores, child_matched in parts:
            if child_matched is None:
                matched.update(iter(child_scores))  # iterator: Counter's C fast path
            else:
                matched.update(child_matched)
        if node.boost != 1.0:
            merged = {doc: score * node.boost for doc, score in merged.items()}
        scale = getattr(node, "scale", None)
        if scale:
            merged = _coordinated(merged, matched, self._active_terms(node), scale)
        return merged, matched

    def _phrase(self, node: wq.Phrase, leaves: list) -> tuple[dict[int, float], Counter | None]:
        """Whoosh scores a phrase as the sum of its words' scores, in the papers where they are adjacent."""
        field = node.fieldname
        words = [self._reader.schema[field].to_bytes(word) for word in node.words]
        per_word = [self.term_scores(field, word) for word in words]
        candidates = set(per_word[0]).intersection(*per_word[1:]) if all(per_word) else set()
        found = self._adjacent(field, words, candidates)
        for word, scores in zip(words, per_word):
            leaves.append((field, word, {doc: scores[doc] for doc in found}))
        scores = {doc: sum(word_scores[doc] for word_scores in per_word) * node.boost for doc in found}
        return scores, Counter(dict.fromkeys(found, len(words)))

    def _adjacent(self, field: str, words: list[bytes], candidates: set[int]) -> list[int]:
        """The candidate papers where the words occur one right after another."""
        found = []
        for segment, offset in self._segments:
            local = sorted(doc - offset for doc in candidates if offset <= doc < offset + segment.doc_count_all())
            if not local:
                continue
            positions = [_positions(segment.postings(field, word), local, self._check) for word in words]
            for doc in local:
                rest = [set(word_positions[doc]) for word_positions in positions[1:]]
                if any(all(start + i in later for i, later in enumerate(rest, 1)) for start in positions[0][doc]):
                    found.append(offset + doc)
        return found

    def _active_terms(self, node: wq.Query) -> int:
        """Whoosh's CoordMatcher counts the query's terms that exist in the index."""
        return sum(1 for field, text in node.iter_all_terms() if (field, text) in self._reader)

    # -- per-term scores ----------------------------------------------------------------------

    def term_scores(self, field: str, text) -> dict[int, float]:
        key = (field, text)
        cached = self._cache.get(key)
        if cached is not None:
            self._cache.move_to_end(key)
            return cached
        scores = self._compute(field, text)
        self._cache[key] = scores
        if len(self._cache) > CACHED_TERMS:
            self._cache.popitem(last=False)
        return scores

    def _compute(self, field: str, text) -> dict[int, float]:
        reader = self._reader
        if (field, text) not in reader:
            return {}
        idf = log(self._doc_count / (reader.doc_frequency(field, text) + 1)) + 1
        avgfl = (reader.field_length(field) / self._doc_count) or 1
        norm = K1 * B / avgfl
        base = K1 * (1 - B)
        scores: dict[int, float] = {}
        for number, (segment, offset) in enumerate(self._segments):
            if (field, text) not in segment:
                continue
            self._check()
            lengths = self._segment_lengths(number, segment, field)
            for doc, weight in _postings(segment.postings(field, text)):
                scores[offset + doc] = idf * (weight * (K1 + 1)) / (weight + base + norm * lengths[doc])
        return scores

    def _segment_lengths(self, number: int, segment, field: str) -> list[int]:
        key = (number, field)
        lengths = self._lengths.get(key)
        if lengths is None:
            length_of = segment.doc_field_length
            lengths = [length_of(doc, field, 1) or 1 for doc in range(segment.doc_count_all())]
            self._lengths[key] = lengths
        return lengths


def _unlimited() -> None:
    """No budget: never stops."""


def _postings(matcher):
    """(docnum, weight) pairs, a block at a time for Whoosh's on-disk postings."""
    if isinstance(matcher, W3LeafMatcher):
        while matcher.is_active():
            matcher._read_ids()
            matcher._read_weights()
            yield from zip(matcher._ids, matcher._weights)
            matcher._next_block()
        return
    while matcher.is_active():
        yield matcher.id(), matcher.weight()
        matcher.next()


def _positions(matcher, docs: list[int], check: Callable[[], None]) -> dict[int, list[int]]:
    """Each doc's positions of the term, for the given sorted docs (all of which contain it)."""
    positions = {}
    for count, doc in enumerate(docs):
        if count % CHECK_EVERY == 0:
            check()
        matcher.skip_to(doc)
        positions[doc] = matcher.value_as("positions")
    return positions


def _coordinated(scores: dict[int, float], matched: Counter, terms: int, scale: float) -> dict[int, float]:
    """Whoosh's CoordMatcher ("SQR"): a bonus for matching more of the query's terms."""
    if terms == 0 or terms == scale:
        return dict.fromkeys(scores, 0.0)
    spread = (terms - scale) ** 2
    factor = (terms - 1) / terms
    return {doc: (score + (matched[doc] - 1) / spread) * factor for doc, score in scores.items()}
