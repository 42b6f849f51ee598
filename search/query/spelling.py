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

A word the index knows may still be a typo that some paper shares: `transfomer` is in one abstract,
`transformer` in 1,616. A word as plausibly misspelt as above that is rare (in at most RARE_PAPERS
papers, or one in RARE_SHARE) while its nearest spelling is in COMMON_FACTOR times as many papers is
searched as both (`widened`): the typed form keeps its own matches, each counted as if it had
the common spelling (its rarity alone would put a typo's one paper above the hundreds with the
word meant).
"""

from __future__ import annotations

import re
from bisect import bisect_left
from collections.abc import Iterator, Sequence
from heapq import nlargest
from math import log
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


RARE_PAPERS = 3
"""A word in at most this many papers (or RARE_SHARE's share) may be a typo that papers share."""
RARE_SHARE = 2000
"""... or in at most one paper in this many (a large library holds more copies of a typo)."""
COMMON_FACTOR = 20
"""A rare word's nearest spelling must be in this many times as many papers to be searched too."""


class Widened(NamedTuple):
    """A query with its rare words also searched as their common spellings."""

    text: str
    """The query to search: each such word replaced by a group of the two forms."""
    pairs: tuple[tuple[str, str], ...]
    """(typed, also searched), in the query's order."""


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

    def widened(self, text: str, budget: Budget | None = None) -> Widened | None:
        """The text with each rare word that has a far more common spelling (see the module's
                docstring) searched as both, if any has one; None otherwise. Words the index does not know
                are left to `correct` (but one only in authors' names or keywords may be a typo the titles and
        abstracts lack); at most MAX_CORRECTIONS rare words are looked up."""
        reader = self._reader
        rare = max(RARE_PAPERS, reader.doc_count() // RARE_SHARE)
        changes: list[tuple[int, int, str]] = []
        pairs: list[tuple[str, str]] = []
        tried = 0
        for match in _PLAIN_WORD.finditer(text):
            word = match.group()
            if match.group(1) or not _misspelt(word):
                continue
            papers = self._papers_with(word)
            if papers > rare or (not papers and not _known(reader, word)):
                continue  # common; or unknown, which `correct` corrects
            if tried >= MAX_CORRECTIONS:
                break
            tried += 1
            common = self._nearest_common(word, budget)
            if common is None or self._papers_with(common) < COMMON_FACTOR * max(papers, 1):
                continue
            if set(stems(common)) & set(stems(word)):
                continue  # the same word to the index
            weight = _idf(self._papers_with(common), reader.doc_count()) / _idf(max(papers, 1), reader.doc_count())
            changes.append((match.start(), match.end(), f"({word}^{min(1.0, weight):.3f} OR {common})"))
            pairs.append((word, common))
        return Widened(_replaced(text, changes), tuple(pairs)) if changes else None

    def _nearest_common(self, word: str, budget: Budget | None) -> str | None:
        """word's nearest spelling (see _closest), remembered like an unknown word's."""
        key = "\0" + word  # kept apart from the unknown words' corrections
        if key not in self._nearest:
            if budget is not None:
                budget.check()
            if len(self._nearest) >= CACHED_CORRECTIONS:
                self._nearest.clear()
            self._nearest[key] = self._closest(word)
        return self._nearest[key]

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

    def completing(self, typing: str) -> list[str]:
        """The word being typed and its most common completions (none under 3 letters): never an
        unbounded prefix query."""
        return [typing] if len(typing) < 3 else [typing, *self._completions(typing)]

    @staticmethod
    def completed(typing: str, words: list[str]) -> str:
        """The word being typed, or `words` (it and its completions: `completing`), as a group to
        search (scoring.py scores them as one word: `Typed`)."""
        if len(typing) < 3:
            return typing
        return "(" + " OR ".join(words) + ")"

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


def _idf(papers: int, total: int) -> float:
    """A word's inverse document frequency as scoring.py counts it: a boost of idf(common) / idf(rare)
    makes a paper with the rare form score as one with the common form."""
    return log(1 + (total - papers + 0.5) / (papers + 0.5))


def _misspelt(word: str) -> bool:
    """Whether a word as typed may be a typo (see the module's docstring), before asking the index."""
    return MIN_CORRECTED <= len(word) <= MAX_FUZZY_LENGTH and word.isalpha() and word.islower()


def _known(reader, word: str) -> bool:
    terms = stems(word)
    return not terms or any(reader.doc_frequency(field, term) for term in terms for field in SEARCH_FIELDS)
