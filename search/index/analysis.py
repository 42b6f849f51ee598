"""Text fields that index in one pass: the same terms, positions and weights as Whoosh's own
analyzer chain, without its token-by-token generators (a fifth of the indexing time).

Whoosh's query parser still runs the field's analyzer (STEMMING), and the word stems used for
correction, related papers and highlighting come from here, so the two must agree exactly;
tests/search/test_analysis.py compares them on every real abstract."""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterator
from itertools import pairwise
from pickle import dumps
from unicodedata import combining, normalize

from whoosh.analysis import STOP_WORDS, Filter, RegexTokenizer, StemFilter, StopFilter
from whoosh.fields import TEXT
from whoosh.system import pack_uint

from search.index.stemmer import stem

_MARKS = "\u0300-\u036f"
"""Combining accents: inside a word written decomposed ("Kreı\u0306n"), they are part of it."""
_WORDS = re.compile(rf"\w(?:\.?[\w{_MARKS}])+|[^\W\d_](?=-[^\W_])|(?<=[^\W_]-)[^\W\d_]")
"""A term of the text fields: Whoosh's token pattern (word characters, single dots inside:
"S2DNet", "e.g", "v1.2.3") of two characters or more, or a single letter joined by a hyphen to a
word ("k-means", "t-SNE", "U-Net", "top-k"). Other single letters are not terms, as with Whoosh's
default minimum size, so they take no position either."""
_ASCII_WORDS = re.compile(r"[A-Za-z0-9_](?:\.?[A-Za-z0-9_])+|[A-Za-z](?=-[A-Za-z0-9])|(?<=[A-Za-z0-9]-)[A-Za-z]")
"""`_WORDS` for ASCII text (most abstracts): the same terms, found in two thirds of the time."""
_NAME_WORDS = re.compile(rf"\w[\w{_MARKS}]*(?:\.?\w[\w{_MARKS}]*)*")
"""Whoosh's default token pattern (its group made non-capturing): the names field keeps every word."""
_TERMS: dict[str, str] = {}
"""word as written -> term ("" for a stop word), for the stemmed fields."""
_BYTE_TERMS: dict[str, bytes] = {}
"""word as written -> term as UTF-8 bytes (b"" for a stop word): what the index is given."""
_MAX_TERMS = 500_000
_ENCODINGS: dict[tuple[int, ...], bytes] = {}
_MAX_ENCODINGS = 200_000

_UNDECOMPOSED = str.maketrans(
    {"ı": "i", "ø": "o", "Ø": "O", "ł": "l", "Ł": "L", "đ": "d", "Đ": "D", "æ": "ae", "œ": "oe"}
)
"""Letters people type without their stroke that Unicode does not decompose."""
_STROKED = frozenset(map(chr, _UNDECOMPOSED))


def folded(word: str) -> str:
    """A word lower-cased with its accents, ligatures and compatibility forms undone ("Schrödinger"
    -> "schrodinger", "signiﬁcant" -> "significant"), so that a query typed in plain ASCII finds it."""
    if word.isascii():
        return word.lower()
    plain = normalize("NFKD", word)
    chars = set(plain)  # translating is slow (a lookup per character): only for what is there
    marks = {ord(char): None for char in chars if combining(char)}
    if marks:
        plain = plain.translate(marks)
    if not chars.isdisjoint(_STROKED):
        plain = plain.translate(_UNDECOMPOSED)
    return plain.lower()


class FoldFilter(Filter):
    """Whoosh's side of `folded`: in place of its LowercaseFilter."""

    def __call__(self, tokens):
        for token in tokens:
            token.text = folded(token.text)
            yield token


STEMMING = (
    RegexTokenizer(_WORDS)
    | FoldFilter()
    | StopFilter(STOP_WORDS, minsize=1)  # (the pattern leaves out single letters; a word may fold to "")
    | StemFilter(stem)
)
"""Shared by indexing, querying and highlighting so all three agree on what a term is."""
LOWERCASE = RegexTokenizer(_NAME_WORDS) | FoldFilter() | StopFilter(frozenset(), minsize=1)
"""For names: every word kept as written, only folded."""


class FastText(TEXT):
    """A positional text field, stemmed with stop words removed (STEMMING) or only folded
    (LOWERCASE). Fields are weighted by the ranking (search/query/scoring.py), not here. A word the
    analyzer splits (`k-means`, `self-supervised`) is searched as its parts (Whoosh's default):
    searched as a phrase, pasted titles found their paper less often (the abstract may split the
    words differently or use one of them)."""

    def __init__(self, stemmed: bool = True) -> None:
        super().__init__(analyzer=STEMMING if stemmed else LOWERCASE)
        self.stemmed = stemmed

    def index(self, value, **kwargs):
        """(term bytes, frequency, weight, encoded positions) per distinct term, as TEXT.index gives."""
        for term, found in _positions(value, self.stemmed).items():
            yield term, len(found), float(len(found)), _encoded(found)

    def add_postings(self, value: str, paper: int, terms: dict[bytes, list]) -> int:
        """What `index` gives, added straight to a writer's postings (writer.py): each term's list
        is flat, (paper, weight, encoded positions) after (paper, weight, ...). Returns the field's
        length (its number of terms). One pass, no generator or tuple per term: a build makes a
        million of these postings for the 10,745 real papers."""
        single = _SINGLE
        length = 0
        for term, found in _positions(value, self.stemmed).items():
            count = len(found)
            length += count
            if count == 1:
                weight = 1.0
                encoded = single.get(found[0]) or _encoded(found)
            else:
                weight = float(count)
                encoded = _encoded(found)
            postings = terms.get(term)
            if postings is None:
                terms[term] = [paper, weight, encoded]
            else:
                postings += (paper, weight, encoded)
        return length


def _positions(text: str, stemmed: bool) -> dict[bytes, list[int]]:
    """Each term's positions in the text, the terms as UTF-8 bytes in the order they first occur
    (what `analysed` gives, grouped)."""
    if not stemmed:
        first, names = analysed(text, stemmed=False)
        found: list[bytes] = [name.encode("utf-8") for name in names]
    else:
        words = (_ASCII_WORDS if text.isascii() else _WORDS).findall(text)
        terms = list(map(_BYTE_TERMS.get, words))  # most words were seen before: one C-level pass
        if None in terms:
            terms = [_byte_term(word) if term is None else term for term, word in zip(terms, words)]
        first = 0
        for first, term in enumerate(terms):  # noqa: B007 - the first kept word's index is wanted
            if term:
                break
        else:
            return {}
        found = list(filter(None, terms))  # stop words are b""
    positions: defaultdict[bytes, list[int]] = defaultdict(list)
    for offset, term in enumerate(found, first):
        positions[term].append(offset)
    return positions


def analysed(text: str, stemmed: bool) -> tuple[int, list[str]]:
    """The position of the first term and the terms in order (later positions follow on by one,
    as StopFilter renumbers them)."""
    if not stemmed:
        # An ASCII text folds as its words do (lower-cased): one call, not one per word.
        names = _NAME_WORDS.findall(text.lower()) if text.isascii() else list(map(folded, _NAME_WORDS.findall(text)))
        first = next((index for index, name in enumerate(names) if name), 0)
        return first, [name for name in names[first:] if name]
    terms = _TERMS  # inlined lookups: this runs for every word of every paper indexed
    found = [terms[word] if word in terms else _term(word) for word in _WORDS.findall(text)]
    kept = next((index for index, term in enumerate(found) if term), None)
    if kept is None:
        return 0, []
    return kept, [term for term in found[kept:] if term]


def stems(text: str) -> list[str]:
    """The terms the stemming analyzer makes of text, in order (for query words and related papers)."""
    return analysed(text, stemmed=True)[1]


def stemmed_spans(text: str) -> Iterator[tuple[int, int, str]]:
    """(start, end, term) for each word the stemming analyzer keeps, as it gives them with chars=True."""
    for match in _WORDS.finditer(text):
        term = _term(match.group())
        if term:
            yield match.start(), match.end(), term


def _term(word: str) -> str:
    """The stemmed fields' term for a word as written: folded, "" for a stop word, else stemmed."""
    term = _TERMS.get(word)
    if term is None:
        if len(_TERMS) > _MAX_TERMS:
            _TERMS.clear()
        plain = folded(word)
        term = _TERMS[word] = "" if not plain or plain in STOP_WORDS else stem(plain)
    return term


def _byte_term(word: str) -> bytes:
    """`_term` as UTF-8 bytes (b"" for a stop word), kept for the next time the word is indexed."""
    if len(_BYTE_TERMS) > _MAX_TERMS:
        _BYTE_TERMS.clear()
    term = _BYTE_TERMS[word] = _term(word).encode("utf-8")
    return term


def _encoded(positions: list[int]) -> bytes:
    """whoosh.formats.Positions.encode: a count, then the pickled gaps between positions.

    Most terms occur once or twice in a field, so the same few encodings recur across papers."""
    key = tuple(positions)
    encoded = _ENCODINGS.get(key)
    if encoded is None:
        if len(_ENCODINGS) > _MAX_ENCODINGS:
            _ENCODINGS.clear()
        gaps = [positions[0], *(after - before for before, after in pairwise(positions))]
        encoded = _ENCODINGS[key] = pack_uint(len(gaps)) + dumps(gaps, 2)
    return encoded


_SINGLE = {position: _encoded([position]) for position in range(1024)}
"""The encodings of a single position, looked up without a tuple (most terms occur once in a field)."""
