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

from whoosh.analysis import STOP_WORDS, StandardAnalyzer, StemmingAnalyzer
from whoosh.analysis.tokenizers import default_pattern
from whoosh.fields import TEXT
from whoosh.lang.porter import stem
from whoosh.system import pack_uint

_WORDS = re.compile(default_pattern.pattern.replace("(\\.", "(?:\\."), default_pattern.flags)
"""Whoosh's token pattern with its group made non-capturing, so findall returns whole matches."""
_MIN_WORD = 2
"""StopFilter's default minsize: shorter words are dropped along with stop words."""
_STEMS: dict[str, str] = {}
_MAX_STEMS = 500_000
_ENCODINGS: dict[tuple[int, ...], bytes] = {}
_MAX_ENCODINGS = 200_000

STEMMING = StemmingAnalyzer()
"""Shared by indexing, querying and highlighting so all three agree on what a term is."""
LOWERCASE = StandardAnalyzer(stoplist=None)
"""For names: every word kept as written, only lower-cased."""


class FastText(TEXT):
    """A positional text field, stemmed with stop words removed (StemmingAnalyzer) or only
    lower-cased (StandardAnalyzer without a stop list)."""

    def __init__(self, stemmed: bool = True, field_boost: float = 1.0) -> None:
        super().__init__(analyzer=STEMMING if stemmed else LOWERCASE, field_boost=field_boost)
        self.stemmed = stemmed

    def index(self, value, **kwargs):
        """(term bytes, frequency, weight, encoded positions) per distinct term, as TEXT.index gives."""
        first, terms = analysed(value, self.stemmed)
        positions: defaultdict[str, list[int]] = defaultdict(list)
        for offset, term in enumerate(terms, first):
            positions[term].append(offset)
        boost = self.format.field_boost
        for term, found in positions.items():
            yield term.encode("utf-8"), len(found), len(found) * boost, _encoded(found)


def analysed(text: str, stemmed: bool) -> tuple[int, list[str]]:
    """The position of the first term and the terms in order (later positions follow on by one,
    as StopFilter renumbers them)."""
    words = [word.lower() for word in _WORDS.findall(text)]
    if not stemmed:
        return 0, words
    first = next((index for index, word in enumerate(words) if _kept(word)), None)
    if first is None:
        return 0, []
    stems = _STEMS  # inlined lookups: this runs for every word of every paper indexed
    return first, [
        stems.get(word) or _stem(word) for word in words[first:] if len(word) >= _MIN_WORD and word not in STOP_WORDS
    ]


def stems(text: str) -> list[str]:
    """The terms the stemming analyzer makes of text, in order (for query words and related papers)."""
    return analysed(text, stemmed=True)[1]


def stemmed_spans(text: str) -> Iterator[tuple[int, int, str]]:
    """(start, end, term) for each word the stemming analyzer keeps, as it gives them with chars=True."""
    for match in _WORDS.finditer(text):
        word = match.group().lower()
        if _kept(word):
            yield match.start(), match.end(), _stem(word)


def _kept(word: str) -> bool:
    return len(word) >= _MIN_WORD and word not in STOP_WORDS


def _stem(word: str) -> str:
    term = _STEMS.get(word)
    if term is None:
        if len(_STEMS) > _MAX_STEMS:
            _STEMS.clear()
        term = _STEMS[word] = stem(word)
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
