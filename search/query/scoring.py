"""Ranking: one BM25F score per query word across a paper's text fields, and a bonus for query words
that stand together.

For a word w (a term of the stemmed text fields) and a paper d:

    tf(w, d)    = sum over fields f of  W_f * freq_f(w, d) / (1 - B + B * len_f(d) / avglen_f)
    score(w, d) = idf(w) * tf(w, d) * (K1 + 1) / (tf(w, d) + K1)
    idf(w)      = ln(1 + (N - n(w) + 0.5) / (n(w) + 0.5))

where W_f is the field's weight (FIELD_WEIGHTS), freq_f the word's occurrences in the field,
len_f the field's length in terms, avglen_f its mean over the papers that have the field, N the
number of papers and n(w) the papers with the word in any of the fields. The fields are summed
before saturating, once: a paper with the word in its title and its abstract is not counted twice
(Whoosh scores each field on its own and adds them up). The authors field is scored the same way
on its own, as a separate clause. An Or adds its words' scores, an And adds them over the papers
with every part, a NOT removes papers.

Adjacent words (`add_adjacency`): for two words typed one after the other, the papers where they stand
side by side in one field also gain ADJACENT * (score(a, d) + score(b, d)): a phrase at a low boost.

Every word (`reward_every_word`): in a query of two plain words or more, the papers with every word
(in any of their fields) have their score, the adjacency bonus included, multiplied by
1 + EVERY_WORD. Without it, two rare words standing many times in a short abstract outscore the
paper that has all four words someone remembered (measured on the quality benchmark: most of the
misses of distinctive-word queries were of that kind); Whoosh's own coordination was lost when its
Or was rebuilt. Queries that say how their words combine (AND, OR, NOT, parentheses) get no bonus.

The word being typed (`Typed`): the app searches it with its few most common completions, which
count as one word: a paper's score for them is its best completion's (a dis-max), each completion's
score taken at the idf of the group's most common member (a completion as rare as `neuralkanren`
would otherwise outscore every paper with the word typed, `neural`), but the word as typed's at its
own (a paper with it scores at least as it will once the word is finished); its adjacency bonus is
the typed word's own. Summed, as an Or adds them, a paper holding several completions scored the
unfinished word above a finished one: `graph neural` listed "Neural Guided Constraint Logic
Programming" (neural, neuralkanren) first, `graph neural ` the graph neural network papers.

Whoosh would walk matcher objects posting by posting, in pure Python: about 70 ms for three
common words over 10k abstracts. While a user types, the same few words come back on every
keystroke, so each word's scores are computed once and kept in a dict {docnum: score} (within a
budget in bytes; a common word's are also written to disk, best first, and read back when forgotten:
impacts.py), and a query is a few dict merges; a query of words, as typing makes it, does
not even merge them: its best matches are found by the threshold algorithm over each word's papers
kept best first (`top_words`). Anything else (sloppy phrases) is left to Whoosh.
"""

from __future__ import annotations

from array import array
from bisect import bisect_left
from collections import Counter, OrderedDict
from collections.abc import Callable, Iterable, Iterator, Sequence, Set, Sized
from heapq import nlargest
from itertools import accumulate, chain, filterfalse, pairwise, repeat
from math import log
from operator import add, itemgetter, mul, neg, truediv
from sys import getsizeof
from typing import NamedTuple, TypeVar

from whoosh import query as wq
from whoosh.codec.whoosh3 import LENGTHS_COLUMN, W3LeafMatcher
from whoosh.reading import TermNotFound
from whoosh.util.numeric import byte_to_length

from search.index.analysis import analysed
from search.query.budget import CHECK_EVERY
from search.query.impacts import MIN_PAPERS, ScoreFiles

Key = TypeVar("Key")
Value = TypeVar("Value")

K1 = 1.2
B = 0.75
FIELD_WEIGHTS = {"title": 2.0, "name": 1.0, "keywords": 1.5, "abstract": 1.0}
"""The stemmed text fields one word is scored across, and how much an occurrence in each counts."""
AUTHORS_WEIGHT = 1.5
"""The authors field (names as written, not stemmed) is scored on its own, times this."""
ADJACENT = 0.25
EVERY_WORD = 0.3
"""A paper with every word of a query of plain words scores this much more (a share of its score)."""
CACHED_TERMS = 4096
CACHED_TERM_BYTES = 16 << 20
"""Words' scores kept: at most this many words, and at most this many bytes (see `weight`). A common
word's scores at 100,000 papers take several MB: bounded by count alone, 4,096 words made a session
of 1,000 searches grow to 464-498 MB; with 48 MB, 283 MB. A common word forgotten is read back from
its file (impacts.py) in a few ms, so 16 MB: the session ends about 45 MB lower for about 5% more
search CPU (docs/PERFORMANCE.md, 2026-12-04 morning)."""
CACHED_FIELD_TERMS = 256
CACHED_FIELD_BYTES = 8 << 20
"""One field's share of a word's score: what the word's scores across fields are made of, and the
papers two words standing together are looked for in."""
CACHED_PAIRS = 256
CACHED_PAIR_BYTES = 4 << 20
"""Papers where two words stand together, or a phrase's words do, per pair or phrase."""
CACHED_POSITIONS = 256
CACHED_POSITIONS_BYTES = 4 << 20
"""A word's postings blocks in one list and field, decoded (docnums and positions) as adjacency reads
them: the next keystroke's pair has the same finished word (`federated learning p`, `... pr`, ...,
`... privacy`: `learn`'s blocks each time, 448 of them in the abstracts at 100,000 papers, 5.4 MB
decoded, 25-45 ms to read; the 208 a pair reads, 2.5 MB). 4 MB, not 8: with 8 the app's peak RSS at
100,000 papers after two searches was 201.5 MB against 190.5 old (the 200 MB target)."""
CACHED_WORDS = 64
CACHED_WORD_BYTES = 8 << 20
"""Papers per word of a query (`with_every`): the words typed before stay while the next is typed."""
CACHED_IMPACT_BYTES = 8 << 20
"""Words' papers in the order of their scores, best first (`top_words`): a pointer per paper, or 4
bytes for a word read back from its file (the file's array)."""
EVERY_AT_ONCE = 2048
"""`top_words` scores the papers with every word all at once when there are at most this many (or
fewer than twice the papers it has seen): those not seen are then bounded without the every-word
factor."""
TOP_WORDS_LIMIT = 1000
"""`top_words` finds up to this many best matches; more are ranked by scoring every match."""

_ENTRY_BYTES = 24
"""What one more paper in a cached dict costs beyond its table slot: its score (a float object, 24
bytes; the docnums' ints are shared, TermScorer._docnums). A set's entries are counted so too."""


_score = itemgetter(1)


def weight(value: Sized) -> int:
    """The bytes a cached dict {docnum: score} or set of docnums holds: its table and, for each
    entry, a float of its own (an overcount for a set, and where scores are shared). For a word's
    (scores, papers best first), the list's pointers: its ints are the scores' keys."""
    if type(value) is tuple:
        return getsizeof(value[1])
    return getsizeof(value) + len(value) * _ENTRY_BYTES


class Recent(OrderedDict[Key, Value]):
    """A mapping that keeps its most recently used entries (the words typed lately): at most `size`
    of them, and when `budget` is given at most that many bytes by `weight` (the newest is kept
    whatever it weighs, until the next one comes)."""

    def __init__(self, size: int, budget: int | None = None, weigh: Callable[[Value], int] | None = None) -> None:
        super().__init__()
        self.size = size
        self.budget = budget
        self._weigh: Callable[[Value], int] = weigh or weight  # type: ignore[assignment]
        self.bytes = 0
        """The entries' weight, when there is a budget."""
        self._weights: dict[Key, int] = {}
        self.forgotten: Callable[[Value], object] | None = None
        """Called with each value forgotten to keep within the bounds."""

    def recall(self, key: Key) -> Value | None:
        """The value kept for key, now the most recent; None when there is none."""
        value = self.get(key)
        if value is not None:
            self.move_to_end(key)
        return value

    def keep(self, key: Key, value: Value) -> Value:
        """Keep value for key, forgetting the least recent entries past `size` or `budget`; returns value."""
        self[key] = value
        self.move_to_end(key)
        if self.budget is not None:
            weighs = self._weigh(value)
            self.bytes += weighs - self._weights.get(key, 0)
            self._weights[key] = weighs
        while len(self) > self.size or (self.budget is not None and self.bytes > self.budget and len(self) > 1):
            oldest, forgotten = self.popitem(last=False)
            self.bytes -= self._weights.pop(oldest, 0)
            if self.forgotten is not None:
                self.forgotten(forgotten)
        return value

    def forget(self, key: Key) -> None:
        """Forget the entry for key, if there is one."""
        if self.pop(key, None) is not None:
            self.bytes -= self._weights.pop(key, 0)


Typed = tuple[frozenset[tuple], ...]
"""The word being typed, as its completions (the word as typed first), each as the word keys
(`word_keys`) of its terms: scored as one word (the module's docstring)."""

Unit = list[list[tuple[int, float]]]
"""How words' scores make one word of a query: per completion, (the position of a word's scores,
the factor they count by), added; the best completion counts. A plain word is [[(its position, 1.0)]]."""


def word_keys(word: str) -> frozenset[tuple]:
    """The keys (`_word_key`) of the words one word typed is scored as: its stems in the text
    fields, its name in the authors field, as the query parser's terms of it have them (without
    parsing it: a keystroke's completions are new words, four parses a keystroke)."""
    stemmed = {(term, 1.0, False) for term in analysed(word, stemmed=True)[1]}
    return frozenset(stemmed | {(name, 1.0, True) for name in analysed(word, stemmed=False)[1]})


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


class Blocks:
    """A word's postings in one list and field (a W3LeafMatcher): each block's last docnum and where
    it starts, read once, and the blocks decoded so far (docnums and encoded positions), each
    decoded the first time a paper in it is asked for."""

    __slots__ = ("_matcher", "_starts", "ids", "last", "values", "weight")

    def __init__(self, matcher) -> None:
        self._matcher = matcher
        self.last: list[int] = []
        self._starts = [matcher._baseoffset]
        while matcher.is_active():  # the blocks' headers, as reading the postings through would
            self.last.append(matcher._maxid)
            if matcher._lastblock:
                break
            self._starts.append(matcher._nextoffset)
            matcher._next_block()
        self.ids: list[Sequence[int] | None] = [None] * len(self.last)
        self.values: list[Sequence[bytes] | None] = [None] * len(self.last)
        self.weight = 1024 + 16 * len(self.last)
        """About the bytes held: the matcher, a block's start and last docnum, and per posting decoded a
        docnum, a bytes object and two pointers (80) and its length."""

    def positions(self, docs: list[int], check: Callable[[], None]) -> dict[int, list[int]]:
        """What `_positions` gives for the sorted docs, decoding the blocks they are in not decoded yet."""
        positions: dict[int, list[int]] = {}
        decode = self._matcher.format.decode_as
        last, blocks, values = self.last, self.ids, self.values
        for doc in docs:
            block = bisect_left(last, doc)
            if block == len(last):
                break
            ids = blocks[block]
            if ids is None:
                check()
                ids = self._decode(block)
            found = bisect_left(ids, doc)
            if found < len(ids) and ids[found] == doc:
                positions[doc] = decode("positions", values[block][found])  # type: ignore[index]
        return positions

    def _decode(self, block: int) -> Sequence[int]:
        matcher = self._matcher
        matcher._goto(self._starts[block])
        matcher._read_data()
        ids = matcher._data[0] if matcher._byteids else list(accumulate(matcher._data[0]))
        matcher._read_values()
        values = self.values[block] = matcher._values
        self.ids[block] = ids
        self.weight += 80 * len(ids) + sum(map(len, values))
        matcher._data = matcher._values = None  # (the block's weights, not needed, go)
        return ids


class Top(NamedTuple):
    """A query of words' best matches, found without scoring every match (TermScorer.top_words)."""

    best: list[tuple[int, float]]
    """The best (docnum, score), ties in index order."""
    total: int
    """How many papers match (with `all_words`: how many have every word)."""
    with_all: int | None
    """For a query of words (clauses given): how many matches have every word; else None."""
    with_any: int | None
    """For a query of words: how many have any; else None."""
    leaves: list[tuple[str, str, dict[int, float]]]
    """Each word's field, text and scores: which words each hit matched."""


class TermScorer:
    """Per-term BM25F scores for one open reader, cached across queries."""

    def __init__(self, reader, files: ScoreFiles | None = None) -> None:
        """`files`: where common words' scores are kept on disk (impacts.py), if anywhere."""
        self._reader = reader
        self._files = files
        self._segments = list(reader.leaf_readers())
        self._doc_count = reader.doc_count_all() or 1
        self._docnums = list(range(reader.doc_count_all()))
        """One int object per docnum, which every cached dict and set shares (28 bytes a paper
        each would otherwise hold: a third of a common word's kept scores)."""
        self._lengths: dict[tuple[int, str], bytes] = {}
        self._divisors: dict[str, list[float]] = {}
        self._fieldless: set[tuple[int, str]] = set()
        """(segment, field) where no document has the field: no term is found there."""
        self._cache: Recent[tuple, dict[int, float]] = Recent(CACHED_TERMS, CACHED_TERM_BYTES)
        self._field_cache: Recent[tuple, dict[int, float]] = Recent(CACHED_FIELD_TERMS, CACHED_FIELD_BYTES)
        self._pairs: Recent[tuple, frozenset[int]] = Recent(CACHED_PAIRS, CACHED_PAIR_BYTES)
        self._blocks: Recent[tuple, Blocks] = Recent(
            CACHED_POSITIONS, CACHED_POSITIONS_BYTES, weigh=lambda kept: kept.weight
        )
        self._means: dict[str, float] = {}
        self._word_docs: Recent[tuple[wq.Query, ...], frozenset[int]] = Recent(CACHED_WORDS, CACHED_WORD_BYTES)
        self._impacts: Recent[int, tuple[dict[int, float], Sequence[int]]] = Recent(CACHED_TERMS, CACHED_IMPACT_BYTES)
        """id(a word's scores) -> (the scores, their papers best first); forgotten with the scores."""
        self._cache.forgotten = lambda scores: self._impacts.forget(id(scores))
        self._check: Callable[[], None] = _unlimited
        self._typed: Typed | None = None

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

    def rank(self, query: wq.Query, check: Callable[[], None] | None = None, typed: Typed | None = None) -> Ranked:
        """The query's scores; `check` is called between steps (a term, a segment's postings, a
        batch of phrase candidates) and may raise to stop (a search's budget); `typed`: the word
        being typed, scored as one word where an Or holds its completions."""
        leaves: list[tuple[str, str, dict[int, float]]] = []
        parts: list[dict[int, float]] = []
        self._check = check or _unlimited
        self._typed = typed
        try:
            scores = self._evaluate(query, leaves, parts)
        finally:
            self._check = _unlimited
            self._typed = None
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
        docs = self._word_docs.recall(key)
        if docs is None:
            docs = self._word_docs.keep(key, frozenset().union(*(ranked.parts[at] for at in clause)))
        return docs

    def top(self, ranked: Ranked, limit: int) -> list[tuple[int, float]]:
        """The best `limit` (docnum, score), ties in index order as Whoosh breaks them."""
        if limit < 1:
            return []
        items = ranked.scores.items()
        # Picked by score alone (a C-level key: a third of the time over thousands of matches), with
        # more picked until every paper tied with the last one kept is among them, then put in order.
        wanted = limit + 1
        while True:
            picked = nlargest(wanted, items, key=_score)
            if len(picked) < wanted or picked[-1][1] != picked[limit - 1][1]:
                return sorted(picked, key=lambda item: (-item[1], item[0]))[:limit]
            wanted *= 2

    # -- the best matches of a query of words, without scoring every match ------------------------

    def top_words(
        self,
        query: wq.Query,
        clauses: tuple[tuple[int, ...], ...] | None,
        limit: int,
        allowed: set[int] | None = None,
        all_words: bool = False,
        check: Callable[[], None] | None = None,
        typed: Typed | None = None,
    ) -> Top | None:
        """What rank, add_adjacency, with_every, reward_every_word and top give for a query of words
        (an Or of terms, as typing makes), without merging every matching paper's scores or heaping
        them: each word's papers are read best first (kept in that order), each paper seen scored
        whole, until the `limit`th best scores more than any paper not seen yet can (the threshold
        algorithm: every word's score at the depth read, the adjacency bonus and the every-word
        factor at their most; the word being typed, `typed`, at its best completion's). Counts are
        the sizes of the words' sets of papers. None for any other query (Whoosh's ranking, or
        rank, answers it). Scores are added in the order rank adds them, so they are the same
        floats and ties break alike."""
        if not 0 < limit <= TOP_WORDS_LIMIT:
            return None
        if type(query) is wq.Term:
            terms = [query]
        elif type(query) is wq.Or and query.boost == 1.0:
            terms = list(query.subqueries)
        else:
            return None
        if not terms or any(type(term) is not wq.Term or term.boost != 1.0 for term in terms):
            return None
        if clauses is not None:
            claused = [(_word_key(terms[at]), number) for number, clause in enumerate(clauses) for at in clause]
            if len(dict(claused)) != len(set(claused)):
                return None  # a word in two clauses: its scores' papers are not one clause's
        self._check = check or _unlimited
        try:
            return self._top_words(query, terms, clauses, limit, allowed, all_words, typed)
        finally:
            self._check = _unlimited

    def _top_words(
        self,
        query: wq.Query,
        terms: list[wq.Term],
        clauses: tuple[tuple[int, ...], ...] | None,
        limit: int,
        allowed: set[int] | None,
        all_words: bool,
        typed: Typed | None,
    ) -> Top:
        leaves: list[tuple[str, str, dict[int, float]]] = []
        words = self._words(terms, leaves)
        of_key = dict(zip(dict.fromkeys(map(_word_key, terms)), words))
        units = self._units(list(of_key), words, typed)
        with_all = with_any = None
        every: frozenset[int] | None = None
        pairs: list[tuple[frozenset[int], dict[int, float], dict[int, float]]] = []
        if clauses:
            docs = []
            for clause in clauses:
                key = tuple(query.subqueries[at] for at in clause) if type(query) is wq.Or else (query,)
                found = self._word_docs.recall(key)
                if found is None:
                    keys = dict.fromkeys(_word_key(terms[at]) for at in clause)
                    found = self._word_docs.keep(key, frozenset().union(*(of_key[key] for key in keys)))
                docs.append(found)
            self._check()
            ordered = sorted(docs, key=len)
            every = ordered[0].intersection(*ordered[1:])
            # Words in no clause (a last letter typed, searched among authors only) match too.
            claused = {_word_key(terms[at]) for clause in clauses for at in clause}
            extra = [scores.keys() for key, scores in of_key.items() if key not in claused and scores]
            if allowed is not None:
                every = every.intersection(allowed)
                with_any = len(frozenset().union(*docs, *extra) & allowed)
            else:
                with_any = _union_size([*docs, *map(frozenset, extra)])
            with_all = len(every)
            total = with_all if all_words else with_any
            if type(query) is wq.Or:
                clause_words = [self._clause_word(query, clause, typed) for clause in clauses]
                for first, second in pairwise(clause_words):
                    if first is None or second is None or first[0] == second[0]:
                        continue
                    self._check()
                    together = self._together(first, second)
                    if together:
                        pairs.append((together, self.word_scores(*first), self.word_scores(*second)))
        else:
            matched = words[0].keys() if len(words) == 1 else frozenset().union(*words)
            total = len(matched) if allowed is None else len(allowed.intersection(matched))
        factor = 1 + EVERY_WORD if clauses and len(clauses) >= 2 else None
        clause_of = {_word_key(terms[at]): number for number, clause in enumerate(clauses or ()) for at in clause}
        key_at = list(of_key)
        in_clause: list[int | None] = []  # per unit, the clause all its words are of (None: none, or several)
        for unit in units:
            its = {clause_of.get(key_at[number]) for members in unit for number, _ in members}
            in_clause.append(its.pop() if len(its) == 1 else None)
        best = self._threshold(
            words, units, in_clause, pairs, every, factor, limit, allowed, all_words and every is not None
        )
        return Top(best, total, with_all, with_any, leaves)

    def _threshold(
        self,
        words: list[dict[int, float]],
        units: list[Unit],
        in_clause: list[int | None],
        pairs: list[tuple[frozenset[int], dict[int, float], dict[int, float]]],
        every: frozenset[int] | None,
        factor: float | None,
        limit: int,
        allowed: set[int] | None,
        all_words: bool,
    ) -> list[tuple[int, float]]:
        """The best `limit` papers by the threshold algorithm (top_words). Each round's papers not
        seen yet are scored together, a word at a time by map (a word's score is 0.0 where the paper
        lacks it: adding it leaves the sum as it was, so the floats are those of skipping it; the
        word being typed, `units`, adds its best completion's).

        The papers with every word (`every`), once fewer than twice those seen, are scored all at
        once: a paper not seen then lacks a word, so it gets no every-word factor (nor, with
        `all_words`, a place), and the bound falls by that factor: three words of which 83 papers
        have all three read 17,401 papers at 100,000 papers before, a few hundred now."""
        orders = [self._best_first(scores) if scores else [] for scores in words]
        depth = 0
        longest = max(map(len, orders), default=0)
        seen: set[int] = set()
        kept: list[tuple[float, int]] = []  # the best (score, -docnum), best first
        step = max(64, limit)
        gets = [scores.get for scores in words]
        every_doc = frozenset() if every is None else every
        every_seen = False  # every paper with every word scored
        while depth < longest:
            self._check()
            met = dict.fromkeys(chain.from_iterable(order[depth : depth + step] for order in orders))
            if (
                not every_seen
                and every is not None
                and (factor is not None or all_words)
                and len(every_doc) <= max(EVERY_AT_ONCE, 2 * len(seen))
            ):
                met.update(dict.fromkeys(every_doc))
                every_seen = True
            fresh = list(filterfalse(seen.__contains__, met))
            seen.update(fresh)
            if allowed is not None:
                fresh = list(filter(allowed.__contains__, fresh))
            if all_words:
                fresh = list(filter(every_doc.__contains__, fresh))
            if fresh:
                totals = [0.0] * len(fresh)
                for unit in units:
                    totals = list(map(add, totals, _unit_scores(unit, gets, fresh)))
                for together, first, second in pairs:
                    for number, doc in enumerate(fresh):
                        if doc in together:
                            totals[number] += ADJACENT * (first.get(doc, 0.0) + second.get(doc, 0.0))
                if factor is not None:
                    totals = [total * factor if doc in every_doc else total for total, doc in zip(totals, fresh)]
                items = list(zip(totals, map(neg, fresh)))
                if len(kept) == limit:
                    worst = kept[-1]
                    items = [item for item in items if item > worst]
                if items:
                    kept = sorted(kept + items, reverse=True)[:limit]
            depth += step
            if every_seen and all_words:
                break  # (the papers that may be listed are all scored)
            if len(kept) < limit:
                continue
            at = [scores[order[depth]] if depth < len(order) else 0.0 for scores, order in zip(words, orders)]
            # A completion not seen scores at most its words' at the depth.
            most = [max(sum(at[number] * share for number, share in members) for members in unit) for unit in units]
            bound = sum(most, 0.0)
            if every_seen:  # a paper not seen lacks some word's clause: the units of one clause left out
                clauses = set(in_clause) - {None}
                bound = max(
                    (sum((b for b, clause in zip(most, in_clause) if clause != left), 0.0) for left in clauses),
                    default=bound,
                )
            for _, first, second in pairs:
                bound += ADJACENT * (self._at_most(first, words, at) + self._at_most(second, words, at))
            if factor is not None and not every_seen:
                bound *= factor
            if kept[-1][0] > bound * (1 + 1e-9):  # no paper not seen can reach the last kept, nor tie it
                break
        return [(-negative, score) for score, negative in kept]

    @staticmethod
    def _at_most(scores: dict[int, float], words: list[dict[int, float]], at: list[float]) -> float:
        """The most a paper not seen yet can score in `scores`: the depth's score where they are one
        of the words' (the same object), else their best."""
        for number, word in enumerate(words):
            if word is scores:
                return at[number]
        return max(scores.values(), default=0.0)

    def _best_first(self, scores: dict[int, float]) -> Sequence[int]:
        """The papers of a word's scores, best first, kept while the scores are."""
        key = id(scores)
        kept = self._impacts.recall(key)
        if kept is not None and kept[0] is scores:
            return kept[1]
        order = best_first(scores)
        self._impacts.keep(key, (scores, order))
        return order

    # -- evaluation ---------------------------------------------------------------------------

    def _evaluate(
        self, node: wq.Query, leaves: list, top_parts: list[dict[int, float]] | None = None
    ) -> dict[int, float]:
        """Scores per doc; `top_parts` receives an Or's or an And's children's matches, in order."""
        if node is wq.NullQuery:
            return {}
        if type(node) is wq.Term:
            return self._words([node], leaves)[0]
        if type(node) is wq.Phrase:
            return self._phrase(node, leaves)
        if type(node) is wq.AndNot:
            scores = self._evaluate(node.a, leaves)
            excluded = self._evaluate(node.b, [])
            return {doc: s for doc, s in scores.items() if doc not in excluded}
        if type(node) is wq.And:
            parts = [self._evaluate(child, leaves) for child in node.subqueries]
            if top_parts is not None:
                top_parts.extend(parts)
            common = set(parts[0]).intersection(*parts[1:]) if parts else set()
            merged = {doc: sum(part[doc] for part in parts) for doc in common}
        else:
            merged = self._or(node, leaves, top_parts)
        if node.boost != 1.0:
            merged = {doc: score * node.boost for doc, score in merged.items()}
        return merged

    def _or(self, node: wq.Query, leaves: list, top_parts: list[dict[int, float]] | None) -> dict[int, float]:
        """An Or's scores: its terms (and its children that are only terms, as a prefix's or a fuzzy
        term's expansions are) grouped into words scored across fields; the rest added as they score."""
        children = node.subqueries
        terms_of = [_terms(child) for child in children]
        words = self._words([term for terms in terms_of if terms is not None for term in terms], leaves)
        parts: list[dict[int, float]] = []
        for child, terms in zip(children, terms_of):
            if terms is None:
                parts.append(self._evaluate(child, leaves))
            else:  # the papers this child matches in its own fields (the word may be in others too)
                own = self._own_matches(terms)
                parts.append(own[0] if len(own) == 1 else _union(own))
        if top_parts is not None:
            top_parts.extend(parts)
        keys = list(dict.fromkeys(_word_key(term) for terms in terms_of if terms is not None for term in terms))
        words = [_unit_dict(unit, words) for unit in self._units(keys, words, self._typed)]
        merged: dict[int, float] = {}
        for scores in [*words, *(part for part, terms in zip(parts, terms_of) if terms is None)]:
            get = merged.get
            for doc, score in scores.items():
                merged[doc] = get(doc, 0.0) + score
        return merged

    def _units(self, keys: list[tuple], words: list[dict[int, float]], typed: Typed | None) -> list[Unit]:
        """How the words (`keys`, their scores `words`) make the query's: each its own, but the word
        being typed's completions, one word together (the module's docstring), where two or more
        of them have papers. A completion's words count by idf(its group's most common) / its idf
        (1.0 for the most common, and for the word as typed: their scores as they are)."""
        units: list[Unit] = [[[(number, 1.0)]] for number in range(len(keys))]
        if not typed:
            return units
        at = {key: number for number, key in enumerate(keys)}
        completions = [[at[key] for key in keys if key in completion] for completion in typed]
        as_typed = set(completions[0])
        completions = [members for members in completions if any(words[number] for number in members)]
        grouped = sorted({number for members in completions for number in members})
        if len(completions) < 2:
            return units
        most = max(len(words[number]) for number in grouped)
        idf = _idf(most, self._doc_count)
        factor = {
            number: 1.0
            if number in as_typed or len(words[number]) in (0, most)
            else idf / _idf(len(words[number]), self._doc_count)
            for number in grouped
        }
        # (A word without papers adds 0.0 to each: left out, the sums are the same floats.)
        group: Unit = [[(number, factor[number]) for number in members if words[number]] for members in completions]
        first, taken = grouped[0], set(grouped)
        return [
            group if number == first else unit
            for number, unit in enumerate(units)
            if number not in taken or number == first
        ]

    def _words(self, terms: Sequence[wq.Term], leaves: list) -> list[dict[int, float]]:
        """The scores of the words the terms make: the terms with one text (and boost) are one word,
        scored once across the fields they name (see the module's docstring)."""
        fields_of: dict[tuple, list[str]] = {}
        for term in terms:
            fields_of.setdefault(_word_key(term), []).append(term.fieldname)
        words = []
        for (text, boost, _), fields in fields_of.items():
            self._check()
            scores = self.word_scores(text, tuple(sorted(set(fields))))
            leaves.append((fields[0], text, scores))
            words.append(scores if boost == 1.0 else {doc: score * boost for doc, score in scores.items()})
        return words

    def _own_matches(self, terms: Sequence[wq.Term]) -> list[dict[int, float]]:
        """Per text of an Or's child, the papers it has in the child's fields (keys only matter).

        Read from the words' cached scores over those fields, which the query's ranking just used
        (the child's fields are its word's, but for a word also typed in another field): a prefix's
        dozens of completions over five fields would thrash the small per-field cache, and each
        keystroke would read their postings again."""
        fields_of: dict[tuple, list[str]] = {}
        for term in terms:
            fields_of.setdefault((term.text, term.fieldname == "authors"), []).append(term.fieldname)
        return [self.word_scores(text, tuple(sorted(set(fields)))) for (text, _), fields in fields_of.items()]

    def _phrase(self, node: wq.Phrase, leaves: list) -> dict[int, float]:
        """A phrase scores the sum of its words' scores (in its field), in the papers where they are adjacent."""
        field = node.fieldname
        words = [self._reader.schema[field].to_bytes(word) for word in node.words]
        per_word = [self.word_scores(word, (field,)) for word in words]
        key = (field, *words)  # a phrase comes back at every keystroke typed after it
        found = self._pairs.recall(key)
        if found is None:
            candidates = set(per_word[0]).intersection(*per_word[1:]) if all(per_word) else set()
            found = self._pairs.keep(key, frozenset(self._adjacent(field, words, candidates)))
        for word, scores in zip(words, per_word):
            leaves.append((field, word, {doc: scores[doc] for doc in found}))
        return {doc: sum(word_scores[doc] for word_scores in per_word) * node.boost for doc in found}

    def _adjacent(self, field: str, words: list[bytes], candidates: Iterable[int]) -> list[int]:
        """The candidate papers where the words occur one right after another (a candidate need not
        have every word)."""
        found = []
        candidates = sorted(candidates)
        for number, (segment, offset) in enumerate(self._segments):
            end = offset + segment.doc_count_all()
            local = [doc - offset for doc in candidates[bisect_left(candidates, offset) : bisect_left(candidates, end)]]
            if not local:
                continue
            try:
                positions = [self._positions(number, segment, field, word, local) for word in words]
            except TermNotFound:  # a segment without one of the words
                continue
            for doc in local:
                if not all(doc in word_positions for word_positions in positions):
                    continue
                rest = [set(word_positions[doc]) for word_positions in positions[1:]]
                if any(all(start + i in later for i, later in enumerate(rest, 1)) for start in positions[0][doc]):
                    found.append(self._docnums[offset + doc])
        return found

    def _positions(self, number: int, segment, field: str, word: bytes, docs: list[int]) -> dict[int, list[int]]:
        """The word's positions in the given sorted docs of segment `number` that have it there, from
        its blocks decoded before, the blocks they are in not decoded yet decoded now and kept."""
        key = (number, field, word)
        blocks = self._blocks.recall(key)
        if blocks is None:
            matcher = segment.postings(field, word)
            if not isinstance(matcher, W3LeafMatcher):
                return _positions(matcher, docs, self._check)
            blocks = Blocks(matcher)
        try:
            return blocks.positions(docs, self._check)
        finally:
            self._blocks.keep(key, blocks)  # (weighed again: it may hold more blocks now)

    # -- adjacent words -----------------------------------------------------------------------

    def add_adjacency(
        self,
        query: wq.Query,
        ranked: Ranked,
        clauses: tuple[tuple[int, ...], ...],
        check: Callable[[], None] | None = None,
        typed: Typed | None = None,
    ) -> None:
        """Add the bonus for adjacent words (module docstring) to `ranked`, for a query of plain words
        (`clauses`: the top-level parts of each word, in the order typed; a word that expands to
        several terms, a prefix or a fuzzy term, takes no part; the word being typed, `typed`, as typed)."""
        words = [self._clause_word(query, clause, typed) for clause in clauses]
        self._check = check or _unlimited
        try:
            self._add_adjacency(ranked, words)
        finally:
            self._check = _unlimited

    def _add_adjacency(self, ranked: Ranked, words: list[tuple[bytes, tuple[str, ...]] | None]) -> None:
        for first, second in pairwise(words):
            if first is None or second is None or first[0] == second[0]:
                continue
            self._check()
            together = self._together(first, second)
            if not together:
                continue
            first_scores = self.word_scores(*first)
            second_scores = self.word_scores(*second)
            scores = ranked.scores
            for doc in together:
                if doc in scores:
                    scores[doc] += ADJACENT * (first_scores.get(doc, 0.0) + second_scores.get(doc, 0.0))

    def reward_every_word(self, ranked: Ranked, every: frozenset[int], words: int) -> None:
        """Multiply the scores of the papers in `every` (those with each of the query's `words` plain
        words, see with_every) by 1 + EVERY_WORD, for two words or more (module docstring)."""
        if words < 2:
            return
        scores, factor = ranked.scores, 1 + EVERY_WORD
        for doc in every:
            scores[doc] *= factor

    def _clause_word(
        self, query: wq.Query, clause: tuple[int, ...], typed: Typed | None = None
    ) -> tuple[bytes, tuple[str, ...]] | None:
        """The one text, and its text fields, a word of the query searches (of the word being typed
        and its completions, `typed`: the word as typed); None for anything else."""
        parts = [query.subqueries[at] for at in clause]
        if typed and len(typed) > 1 and all(type(part) is wq.Term for part in parts):
            keys = [_word_key(part) for part in parts]
            if not typed[0].isdisjoint(keys) and frozenset().union(*typed).issuperset(keys):
                parts = [part for part, key in zip(parts, keys) if key in typed[0]]
        if not all(type(part) is wq.Term and part.boost == 1.0 for part in parts):
            return None
        texts = {part.text for part in parts if part.fieldname in FIELD_WEIGHTS}
        if len(texts) != 1:
            return None
        fields = tuple(sorted({part.fieldname for part in parts if part.fieldname in FIELD_WEIGHTS}))
        return texts.pop(), fields

    def _together(self, first: tuple[bytes, tuple[str, ...]], second: tuple[bytes, tuple[str, ...]]) -> frozenset[int]:
        """The papers where `second` follows `first` right away in one of the text fields (each word
        given with the fields its clause searches)."""
        key = (first[0], second[0])
        found = self._pairs.recall(key)
        if found is not None:
            return found
        docs: set[int] = set()
        # The rarer word's papers in each field, among the other word's papers, are the candidates: a
        # common word's own scores in the field would take longer to compute than the positions to read.
        rare, other = (
            (first, second) if len(self.word_scores(*first)) <= len(self.word_scores(*second)) else (second, first)
        )
        for field in FIELD_WEIGHTS:
            candidates: Set[int] = self._field_tf(rare[0], field).keys()
            if not candidates:
                continue
            if field in other[1]:
                candidates = candidates & self.word_scores(*other).keys()
            else:
                candidates = candidates & self._field_tf(other[0], field).keys()
            if candidates:
                docs.update(self._adjacent(field, [first[0], second[0]], candidates))
        return self._pairs.keep(key, frozenset(docs))

    # -- per-word scores ----------------------------------------------------------------------

    def word_scores(self, text, fields: tuple[str, ...]) -> dict[int, float]:
        """One word's score in every paper that has it in any of `fields` (sorted), cached; a
        common word's read from its file when it has one (impacts.py), else computed and kept there."""
        key = (text, fields)
        scores = self._cache.recall(key)
        if scores is not None:
            return scores
        files = self._files
        stored = None if files is None else files.read(key)
        if stored is not None:
            docnums = self._docnums.__getitem__
            scores = dict(zip(map(docnums, stored[0]), stored[1]))
            # The file's int32 array as it is: a list of the docnums' shared ints, made in best-first
            # (random) order, cost 10-15 ms for a word in 60,000 papers (a cache miss per paper).
            order: Sequence[int] = stored[2]
        else:
            scores = self._compute(text, fields)
            if files is None or len(scores) < MIN_PAPERS:
                return self._cache.keep(key, scores)
            order = best_first(scores)
            files.write(key, scores, order)
        self._cache.keep(key, scores)
        self._impacts.keep(id(scores), (scores, order))
        return scores

    def _compute(self, text, fields: tuple[str, ...]) -> dict[int, float]:
        """BM25F (the module's docstring): the fields' length-normalised, weighted frequencies
        summed per paper, then saturated once, times the word's idf. Each step is a map over the
        papers (no faster than a loop, as measured: reading Whoosh's blocks and making the floats
        cost the time); each field's scores are kept, and added into one dict in the loop's order,
        so the floats are the loop's (0.0 + a field's value is that value)."""
        tf: dict[int, float] = {}
        for field in fields:  # each field's kept: two words standing together are looked for in them
            found = self._field_tf(text, field)
            docs = found.keys()
            tf.update(zip(docs, map(add, map(tf.get, docs, repeat(0.0)), found.values())))
        n = len(tf)
        if not n:
            return tf
        idf = log(1 + (self._doc_count - n + 0.5) / (n + 0.5))
        values = tf.values()
        saturated = map(truediv, map(mul, map(mul, repeat(idf), values), repeat(K1 + 1)), map(add, values, repeat(K1)))
        return dict(zip(tf.keys(), saturated))

    def _field_tf(self, text, field: str) -> dict[int, float]:
        """The word's weighted, length-normalised frequency in one field, per paper that has it there."""
        key = (text, field)
        cached = self._field_cache.recall(key)
        if cached is not None:
            return cached
        tf: dict[int, float] = {}
        for docs, values in self._field_parts(text, field):
            tf.update(zip(docs, values))
        return self._field_cache.keep(key, tf)

    def _field_parts(self, text, field: str) -> Iterator[tuple[Sequence[int], Iterable[float]]]:
        """The word's weight * frequency / (1 - B + B * length / mean) in one field, a postings block
        at a time: (docnums, values)."""
        weight = FIELD_WEIGHTS.get(field, AUTHORS_WEIGHT if field == "authors" else 1.0)
        denominators = self._denominators(field)
        docnums = self._docnums
        for number, (segment, offset) in enumerate(self._segments):
            self._check()
            lengths = self._segment_lengths(number, segment, field)
            if (number, field) in self._fieldless:
                continue  # (most lists have no keywords: a lookup each that finds nothing)
            try:
                postings = segment.postings(field, text)
            except TermNotFound:
                continue
            for ids, frequencies in _blocks(postings):
                docs = list(map(docnums.__getitem__, map(offset.__add__, ids) if offset else ids))
                divisors = map(denominators.__getitem__, map(lengths.__getitem__, ids))
                if isinstance(frequencies, float):
                    yield docs, map(truediv, repeat(weight * frequencies), divisors)
                else:
                    yield docs, map(truediv, map(mul, repeat(weight), frequencies), divisors)

    def _denominators(self, field: str) -> list[float]:
        """1 - B + B * length / mean for each of Whoosh's 256 stored lengths (a byte each)."""
        found = self._divisors.get(field)
        if found is None:
            norm = B / self._mean_length(field)
            base = 1 - B
            found = self._divisors[field] = [base + norm * length for length in _LENGTH_OF_BYTE]
        return found

    def _mean_length(self, field: str) -> float:
        """The field's mean length over the papers that have it (untitled papers do not shorten titles')."""
        mean = self._means.get(field)
        if mean is None:
            total = having = 0
            for number, (segment, _) in enumerate(self._segments):
                counts = Counter(self._segment_lengths(number, segment, field))
                total += sum(_LENGTH_OF_BYTE[byte] * count for byte, count in counts.items())
                having += sum(count for byte, count in counts.items() if byte)
            mean = self._means[field] = total / having if having else 1.0
        return mean

    def _segment_lengths(self, number: int, segment, field: str) -> bytes:
        """The segment's documents' stored lengths of the field, a byte each (field_length_bytes)."""
        key = (number, field)
        lengths = self._lengths.get(key)
        if lengths is None:
            lengths = self._lengths[key] = field_length_bytes(segment, field)
            if not lengths.strip(b"\0"):
                self._fieldless.add(key)
        return lengths


_LENGTH_OF_BYTE = [0, *map(byte_to_length, range(1, 256))]
"""Whoosh stores a document's field length as one byte, 0 for none."""


def field_lengths(segment, field: str) -> list[int]:
    """Every document's length of `field` in one segment (0 where it has none): what Whoosh's
    doc_field_length says, read from its lengths column in one go (one call per document took a
    second for the first query at 100,000 papers)."""
    return [_LENGTH_OF_BYTE[byte] for byte in field_length_bytes(segment, field)]


def field_length_bytes(segment, field: str) -> bytes:
    """Every document's stored length of `field` in one segment, as Whoosh keeps it: a byte each
    (_LENGTH_OF_BYTE says the length), 0 where the document has none."""
    count = segment.doc_count_all()
    if not count:  # an empty index's reader has no columns at all
        return b""
    column = segment._perdoc._cached_reader(f"_{field}_len", LENGTHS_COLUMN)
    if column is None:  # no document has the field
        return bytes(count)
    stored = bytes(column._dbfile.get(column._basepos, column._count))[:count]  # then the default
    return stored + bytes(count - len(stored))


def best_first(scores: dict[int, float]) -> list[int]:
    """A word's papers, best first, ties in the order of the scores' keys (docnum order)."""
    return sorted(scores, key=scores.__getitem__, reverse=True)


def score_files(indexes: Sequence, reader) -> ScoreFiles | None:
    """Where the reader's common words' scores are kept on disk (impacts.py), if anywhere."""
    salt = repr((K1, B, sorted(FIELD_WEIGHTS.items()), AUTHORS_WEIGHT))
    return ScoreFiles.beside(indexes, list(reader.leaf_readers()), salt)


def _unlimited() -> None:
    """No budget: never stops."""


def _blocks(matcher) -> Iterator[tuple[Sequence[int], Sequence[float] | float]]:
    """A term's postings a block at a time: (docnums, frequencies), the frequencies one float when
    the block's are all the same. Whoosh's on-disk blocks are read whole, their docnums
    delta-decoded at C speed (Whoosh's own reader decodes them in a Python generator)."""
    if isinstance(matcher, W3LeafMatcher):
        while matcher.is_active():
            matcher._read_data()
            ids, weights = matcher._data[0], matcher._data[1]
            yield (ids if matcher._byteids else list(accumulate(ids))), _frequencies(weights)
            matcher._next_block()
        return
    ids, weights = [], []
    while matcher.is_active():
        ids.append(matcher.id())
        weights.append(matcher.weight())
        matcher.next()
    yield ids, weights


def _frequencies(weights) -> Sequence[float] | float:
    """A block's stored weights as Whoosh's reader gives them: none stored means 1.0 each, one
    float means that for each (in a float32 array, so rounded to one)."""
    if weights is None:
        return 1.0
    if isinstance(weights, float):
        return array("f", (weights,))[0]
    return weights


def _positions(matcher, docs: list[int], check: Callable[[], None]) -> dict[int, list[int]]:
    """Each doc's positions of the term, for those of the given sorted docs that contain it.
    Whoosh's on-disk blocks are read only where a doc may be (a block's last docnum is in its
    header), and looked up by bisection (Whoosh's skip_to steps through a block a posting at a time)."""
    positions: dict[int, list[int]] = {}
    if not isinstance(matcher, W3LeafMatcher):
        for count, doc in enumerate(docs):
            if count % CHECK_EVERY == 0:
                check()
            if not matcher.is_active():
                break
            matcher.skip_to(doc)
            if matcher.is_active() and matcher.id() == doc:
                positions[doc] = matcher.value_as("positions")
        return positions
    decode = matcher.format.decode_as
    at, count = 0, len(docs)
    while at < count and matcher.is_active():
        if matcher._maxid >= docs[at]:
            check()
            matcher._read_data()
            ids = matcher._data[0] if matcher._byteids else list(accumulate(matcher._data[0]))
            matcher._read_values()
            values = matcher._values
            last = matcher._maxid
            while at < count and docs[at] <= last:
                doc = docs[at]
                found = bisect_left(ids, doc)
                if found < len(ids) and ids[found] == doc:
                    positions[doc] = decode("positions", values[found])
                at += 1
        matcher._next_block()
    return positions


def _terms(query: wq.Query) -> list[wq.Term] | None:
    """The terms a query is made of when it is one term, or an Or of only terms; else None."""
    if type(query) is wq.Term:
        return [query]
    if type(query) is wq.Or and query.boost == 1.0 and all(type(child) is wq.Term for child in query.subqueries):
        return list(query.subqueries)
    return None


def _word_key(term: wq.Term) -> tuple:
    """Terms with one key are one word: the same text and boost (the authors field apart: its
    terms are names as written, not stems)."""
    return (term.text, term.boost, term.fieldname == "authors")


def _union(parts: list[dict[int, float]]) -> dict[int, float]:
    """The papers any of the parts matches (for counting words: the scores do not matter)."""
    union: dict[int, float] = {}
    for part in parts:
        union.update(part)
    return union


def _union_size(sets: list[frozenset[int]]) -> int:
    """How many papers the sets hold together, without making their union: the largest's, and what
    each smaller one adds (the words of `graph neural net` hold 60,000 papers at 100,000: their
    union cost 2 ms a keystroke)."""
    ordered = sorted(sets, key=len, reverse=True)
    size = 0
    for at, papers in enumerate(ordered):
        for larger in ordered[:at]:
            if not papers:
                break
            papers = papers - larger  # (iterates the smaller: the one on the left, here)
        size += len(papers)
    return size


def _idf(papers: int, total: int) -> float:
    """A word's idf (the module's docstring), for one in `papers` of `total` papers."""
    return log(1 + (total - papers + 0.5) / (papers + 0.5))


def _unit_scores(unit: Unit, gets: list[Callable], docs: list[int]) -> Iterable[float]:
    """A word's scores (a `Unit`: its completions') in the docs, in the order `_unit_dict` adds them."""
    if len(unit) == 1 and len(unit[0]) == 1 and unit[0][0][1] == 1.0:
        return map(gets[unit[0][0][0]], docs, repeat(0.0))
    best: list[float] | None = None
    for members in unit:
        scores: Iterable[float] | None = None  # (0.0 + the first word's score is that score)
        for number, factor in members:
            found = map(gets[number], docs, repeat(0.0))
            found = found if factor == 1.0 else map(mul, found, repeat(factor))
            scores = found if scores is None else map(add, scores, found)
        if scores is not None:
            best = list(scores) if best is None else list(map(max, best, scores))
    return best or [0.0] * len(docs)


def _unit_dict(unit: Unit, words: list[dict[int, float]]) -> dict[int, float]:
    """A word's scores (a `Unit`) in every paper that has any of its completions."""
    if len(unit) == 1 and len(unit[0]) == 1 and unit[0][0][1] == 1.0:
        return words[unit[0][0][0]]
    docs = list(_union([words[number] for members in unit for number, _ in members]))
    gets = [scores.get for scores in words]
    return dict(zip(docs, _unit_scores(unit, gets, docs)))
