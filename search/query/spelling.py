"""Spelling: correcting words no paper contains, and completing the word being typed.

Both read the index's vocabulary (every word of 3+ letters in the titles and abstracts, with the
number of papers it occurs in), kept beside the index as a side file.

A word is corrected only when it is plausibly misspelt: typed in lower case (a capital marks a name,
an acronym or a pasted title: GAN, Wigner, Fire), of MIN_CORRECTED letters or more (gan, vae, bert
are real words the corpus may lack), without digits, outside explicit syntax (quotes, field:, *,
?, ~, ranges), and unknown to the index. Its correction is the nearest vocabulary word the index
finds with the same first letter (a typo rarely starts a word; and the look-up stays fast), within
near_edits (an edit: inserting, deleting or changing a letter, or swapping two neighbouring ones),
and among those the one in most papers. Only a query typed by hand (MAX_TYPED_WORDS words or
fewer) is searched corrected, with a notice saying so; a longer one (pasted text) is searched as typed and
the correction only offered.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from collections.abc import Iterator, Sequence
from heapq import nlargest
from typing import NamedTuple

from whoosh.automata.fsa import find_all_matches
from whoosh.automata.lev import levenshtein_automaton
from whoosh.spelling import ListCorrector

from search.index.analysis import stems
from search.query.budget import MAX_CORRECTIONS, MAX_FUZZY_DISTANCE, MAX_FUZZY_LENGTH, Budget
from search.query.parse import OPERATORS, SEARCH_FIELDS, WORD

COMPLETIONS = 4
"""While a word is being typed, it also matches its few most common completions (of other stems)."""
MIN_CORRECTED = 5
"""Shorter words are never corrected: gan, vae, bert, mlp are words, not typos of gap, vie, best."""
MAX_TYPED_WORDS = 4
"""A query of at most this many words was typed by a person: its corrections are searched. A
longer one was pasted (a title, a sentence): it is searched as typed and its corrections offered."""
LONG_WORD = 8
"""Words of this many letters may be corrected by two edits; shorter ones by one."""
CACHED_CORRECTIONS = 1024
"""Unknown words whose nearest spelling is kept: the same words come back on every keystroke."""
_FOUND_IN = ("title", "abstract")
"""Where a correction must occur: a word of the papers' own text."""
_PROTECTED = r'"[^"]*"?|\[[^\]]*\]?|\{[^}]*\}?|(?<!\w)\w+:\([^)]*\)?'
"""Explicit syntax whose words are never rewritten: "phrases", [ranges], {ranges}, field:(groups)."""
_PLAIN_WORD = re.compile(rf"({_PROTECTED})|(?<![\w:*?~^])[^\W\d_]+(?![\w:*?~^])")
"""Words that are not field names, fuzzy terms, wildcards or boosted (the ones correction may
touch), or a protected span (group 1), which is left alone."""


class Correction(NamedTuple):
    """A query with its misspelt words replaced, and whether to search it (`sure`: a short query
    typed by hand) or only offer it."""

    text: str
    sure: bool
    changes: tuple[tuple[int, int, str], ...]
    """(start, end, replacement) in the text corrected, in order: to correct a longer text that
    starts with it (the whole query, of which the first words were searched)."""

    def applied(self, text: str) -> str:
        """`text`, which starts with the text corrected, with the same corrections."""
        return _replaced(text, self.changes)


class Speller:
    """Corrections and completions from one index's vocabulary."""

    def __init__(self, reader, words: list[str], counts: list[int]) -> None:
        """`words`: the sorted vocabulary; `counts`: in how many papers each occurs."""
        self._reader = reader
        self._words = words
        self._counts = counts
        self._nearest: dict[str, str | None] = {}
        """Unknown word -> its correction (None: none near enough), at most CACHED_CORRECTIONS."""
        self.corrector = VocabularyCorrector(words)
        """Fuzzy look-ups over the vocabulary (the parser bounds fuzzy terms with it too)."""

    def correct(self, text: str, budget: Budget | None = None, sure: bool = True) -> Correction | None:
        """The text with its plausibly misspelt words (see the module's docstring) replaced by their
        nearest spelling, if any has one; only the first MAX_CORRECTIONS unknown words are looked
        up (each walks the vocabulary, unless looked up before). `sure`: the query was typed by
        hand (see typed_by_hand), so the correction may be searched instead."""
        reader = self._reader
        changes: list[tuple[int, int, str]] = []
        tried = 0
        for match in _PLAIN_WORD.finditer(text):
            word = match.group()
            if match.group(1) or not _misspelt(word) or _known(reader, word):
                continue
            if tried >= MAX_CORRECTIONS:
                break
            tried += 1
            if word in self._nearest:
                best = self._nearest[word]
            else:
                if budget is not None:
                    budget.check()
                best = self._closest(word)
                if len(self._nearest) >= CACHED_CORRECTIONS:
                    self._nearest.clear()
                self._nearest[word] = best
            if best is not None:
                changes.append((match.start(), match.end(), best))
        return Correction(_replaced(text, changes), sure, tuple(changes)) if changes else None

    def _completions(self, prefix: str, limit: int = COMPLETIONS) -> list[str]:
        """The words starting with prefix that occur in the most papers, one for each stem other
        than the prefix's own (`flow` completes to flower, never to flows or flowing)."""
        prefix = prefix.lower()
        start = bisect_left(self._words, prefix)
        end = bisect_left(self._words, prefix + "\uffff", start)
        best = nlargest(4 * limit + 1, range(start, end), key=self._counts.__getitem__)
        seen = set(stems(prefix))
        completions = []
        for word in (self._words[i] for i in best):
            terms = stems(word)
            if not terms or seen.intersection(terms):
                continue
            seen.update(terms)
            completions.append(word)
            if len(completions) == limit:
                break
        return completions

    def misspelt_already(self, typing: str) -> bool:
        """Whether the word being typed may be a typo (see the module's docstring) that no vocabulary
        word starts with: whatever is typed next, it stays one, so it may be corrected now."""
        if not _misspelt(typing):
            return False
        at = bisect_left(self._words, typing)
        return not (at < len(self._words) and self._words[at].startswith(typing))

    def completed(self, typing: str) -> str:
        """The word being typed, or its most common completions: never an unbounded prefix query."""
        if len(typing) < 3:
            return typing
        return "(" + " OR ".join([typing, *self._completions(typing)]) + ")"

    def _closest(self, word: str) -> str | None:
        """The vocabulary word within near_edits of word that the index finds, the nearest first,
        then the one in most papers: one walk of the vocabulary."""
        allowed = near_edits(word)
        best: tuple[int, int, str] | None = None
        for candidate in self._near(word, allowed):
            distance = edits(word, candidate)
            if not 0 < distance <= allowed:
                continue
            frequency = self._papers_with(candidate)
            key = (distance, -frequency, candidate)
            if frequency and (best is None or key < best):
                best = key
        return None if best is None else best[2]

    def _papers_with(self, word: str) -> int:
        """In how many papers the index finds word, in their titles or their abstracts (the larger
        count): 0 for a word of the vocabulary it never finds."""
        reader = self._reader
        return max((reader.doc_frequency(field, term) for term in stems(word) for field in _FOUND_IN), default=0)

    def _near(self, word: str, distance: int) -> Iterator[str]:
        """Vocabulary words within `distance` insertions, deletions and substitutions of word that
        start with its letter (one automaton), and those one swap of neighbouring letters away."""
        words = self._words
        yield from self.corrector.within(word, distance, 1)
        for at in range(len(word) - 1):
            if word[at] != word[at + 1]:
                swapped = word[:at] + word[at + 1] + word[at] + word[at + 2 :]
                found = bisect_left(words, swapped)
                if found < len(words) and words[found] == swapped:
                    yield swapped


class VocabularyCorrector(ListCorrector):
    """Whoosh's ListCorrector over a sorted word list, without its Skipper's bugs: it indexes past
    the end of the list (an IndexError for an empty vocabulary, or once it has been called more
    often than the list is long) and skips the list's first word; and never beyond
    MAX_FUZZY_DISTANCE (the automaton grows exponentially with the distance)."""

    def _suggestions(self, text: str, maxdist: int, prefix: int) -> Iterator[tuple[int, str]]:
        seen = set()
        for distance in range(1, min(maxdist, MAX_FUZZY_DISTANCE) + 1):
            for suggestion in self.within(text, distance, prefix):
                if suggestion not in seen:
                    seen.add(suggestion)
                    yield -distance, suggestion

    def within(self, text: str, distance: int, prefix: int) -> Iterator[str]:
        """The words within `distance` insertions, deletions and substitutions of text that share
        its first `prefix` letters, in the list's order: one walk of one automaton."""
        words = self.wordlist
        if not words or not text:
            return

        def next_word(candidate: str) -> str | None:
            """The first word at or after candidate, in the list's order."""
            at = bisect_left(words, candidate)
            return words[at] if at < len(words) else None

        automaton = levenshtein_automaton(text, min(distance, MAX_FUZZY_DISTANCE), prefix).to_dfa()
        yield from find_all_matches(automaton, next_word)


_FIELD_NAME = re.compile(r"(?<![^\s(])-?\w+:")


def typed_by_hand(query: str) -> bool:
    """Whether a query is short enough to have been typed by a person (MAX_TYPED_WORDS words,
    AND/OR/NOT not counted), whose corrections may be searched instead of it."""
    words = WORD.findall(_FIELD_NAME.sub(" ", query))  # `title:memory` is one word typed, not two
    return sum(1 for word in words if word not in OPERATORS) <= MAX_TYPED_WORDS


def near_edits(word: str) -> int:
    """How many edits a correction of word may make: 1 under LONG_WORD letters, else 2."""
    return 2 if len(word) >= LONG_WORD else 1


def edits(a: str, b: str) -> int:
    """The edits from a to b: insertions, deletions, substitutions and swaps of neighbouring letters
    (optimal string alignment distance)."""
    previous2: list[int] = []
    previous = list(range(len(b) + 1))
    for i in range(1, len(a) + 1):
        current = [i] + [0] * len(b)
        for j in range(1, len(b) + 1):
            cost = 0 if a[i - 1] == b[j - 1] else 1
            current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
            if i > 1 and j > 1 and a[i - 1] == b[j - 2] and a[i - 2] == b[j - 1]:
                current[j] = min(current[j], previous2[j - 2] + 1)
        previous2, previous = previous, current
    return previous[len(b)]


def word_being_typed(text: str) -> str | None:
    """The plain word at the end of text, when the user has not yet typed a space after it."""
    match = re.search(r"(?:^|[\s(])([^\W\d_]{2,})$", text)
    if not match or text.count('"') % 2 or match.group(1).upper() in OPERATORS:
        return None
    return match.group(1)


def _replaced(text: str, changes: Sequence[tuple[int, int, str]]) -> str:
    """text with each (start, end, replacement) of changes (in order, not overlapping) made."""
    for start, end, replacement in reversed(changes):
        text = text[:start] + replacement + text[end:]
    return text


def _misspelt(word: str) -> bool:
    """Whether a word as typed may be a typo (see the module's docstring), before asking the index."""
    return MIN_CORRECTED <= len(word) <= MAX_FUZZY_LENGTH and word.isalpha() and word.islower()


def _known(reader, word: str) -> bool:
    terms = stems(word)
    return not terms or any(reader.doc_frequency(field, term) for term in terms for field in SEARCH_FIELDS)
