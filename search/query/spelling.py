"""Spelling: correcting words the index has never seen, and completing the word being typed.

Both read the index's vocabulary (every word of 3+ letters in the titles and abstracts, with the
number of papers it occurs in), kept beside the index as a side file.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from collections.abc import Iterator
from heapq import nlargest

from whoosh.automata.fsa import find_all_matches
from whoosh.automata.lev import levenshtein_automaton
from whoosh.spelling import ListCorrector

from search.index.analysis import stems
from search.query.budget import MAX_CORRECTIONS, MAX_FUZZY_DISTANCE, MAX_FUZZY_LENGTH, Budget
from search.query.parse import OPERATORS, SEARCH_FIELDS

COMPLETIONS = 4
"""While a word is being typed, it also matches its few most common completions."""
# Words that are not field names, fuzzy terms or prefixes: the ones spelling correction may touch.
_PLAIN_WORD = re.compile(r"(?<![\w:*~])[^\W\d_]+(?![\w:*~])")


class Speller:
    """Corrections and completions from one index's vocabulary."""

    def __init__(self, reader, words: list[str], counts: list[int]) -> None:
        """`words`: the sorted vocabulary; `counts`: in how many papers each occurs."""
        self._reader = reader
        self._words = words
        self._counts = counts
        self.corrector = VocabularyCorrector(words)
        """Fuzzy look-ups over the vocabulary (the parser bounds fuzzy terms with it too)."""

    def correct(self, text: str, budget: Budget | None = None) -> str | None:
        """Replace words the index has never seen with their closest spelling, if any (the first
        MAX_CORRECTIONS of them: each walks the vocabulary)."""
        reader = self._reader
        changed = False
        tried = 0

        def fix(match: re.Match[str]) -> str:
            nonlocal changed, tried
            word = match.group()
            if not _correctable(word) or _known(reader, word) or tried >= MAX_CORRECTIONS:
                return word
            tried += 1
            if budget is not None:
                budget.check()
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

    def completed(self, typing: str) -> str:
        """The word being typed, or its most common completions: never an unbounded prefix query."""
        if len(typing) < 3:
            return typing
        return "(" + " OR ".join([typing, *self._completions(typing)]) + ")"

    def _closest(self, reader, word: str, maxdist: int) -> str | None:
        """The nearest vocabulary word, nearer edits first, then the one in most abstracts."""
        best: tuple[int, int, str] | None = None
        for distance in range(1, maxdist + 1):
            for candidate in self.corrector.suggest(word, limit=20, maxdist=distance, prefix=1):
                frequency = max((reader.doc_frequency("abstract", stem) for stem in stems(candidate)), default=0)
                key = (distance, -frequency, candidate)
                if candidate != word and frequency and (best is None or key < best):
                    best = key
            if best is not None:
                return best[2]
        return None


class VocabularyCorrector(ListCorrector):
    """Whoosh's ListCorrector over a sorted word list, without its Skipper's bugs: it indexes past
    the end of the list (an IndexError for an empty vocabulary, or once it has been called more
    often than the list is long) and skips the list's first word; and never beyond
    MAX_FUZZY_DISTANCE (the automaton grows exponentially with the distance)."""

    def _suggestions(self, text: str, maxdist: int, prefix: int) -> Iterator[tuple[int, str]]:
        words = self.wordlist
        if not words or not text:
            return

        def next_word(candidate: str) -> str | None:
            """The first word at or after candidate, in the list's order."""
            at = bisect_left(words, candidate)
            return words[at] if at < len(words) else None

        seen = set()
        for distance in range(1, min(maxdist, MAX_FUZZY_DISTANCE) + 1):
            automaton = levenshtein_automaton(text, distance, prefix).to_dfa()
            for suggestion in find_all_matches(automaton, next_word):
                if suggestion not in seen:
                    seen.add(suggestion)
                    yield -distance, suggestion


def word_being_typed(text: str) -> str | None:
    """The plain word at the end of text, when the user has not yet typed a space after it."""
    match = re.search(r"(?:^|[\s(])([^\W\d_]{2,})$", text)
    if not match or text.count('"') % 2 or match.group(1).upper() in OPERATORS:
        return None
    return match.group(1)


def _correctable(word: str) -> bool:
    return 3 <= len(word) <= MAX_FUZZY_LENGTH and word.upper() not in OPERATORS and word.isalpha()


def _known(reader, word: str) -> bool:
    terms = stems(word)
    return not terms or any(reader.doc_frequency(field, term) for term in terms for field in SEARCH_FIELDS)
