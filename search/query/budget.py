"""What one search may cost, and how it stops: a time budget and a cancel event, checked between steps.

Every multi-term feature of the query language is bounded on its own (fuzzy edit distance, the
words a prefix, wildcard, range or fuzzy term expands to, their total over the query, the number of
words searched and corrected), so that no single query can walk the whole lexicon or build a huge
automaton. What is left (many long posting lists, a leading wildcard over a big lexicon, a sloppy
phrase over common words) is stopped by the time budget, checked cooperatively between expansion
and scoring steps; the app's search worker also cancels a search when the user types on or quits.

Past a bound the search goes on with less and says so (a hint in the result's notice); past the
time budget or when cancelled it stops, with a hint and whatever it had finished.
"""

from __future__ import annotations

import threading
import time

from search.models import SEARCH_SECONDS

MAX_FUZZY_DISTANCE = 2
"""`word~N` is capped at this edit distance: from 3 up, the Levenshtein automaton grows
exponentially (`transformer~7` took 18 s and 440 MB on 38 papers) and matches mostly noise."""
MAX_FUZZY_LENGTH = 64
"""Longer words are searched as they are: their automaton grows with their length."""
MAX_EXPANSIONS = 24
"""The most frequent words one prefix, wildcard, range or fuzzy term is searched with (per field)."""
SCANNED_EXPANSIONS = 4 * MAX_EXPANSIONS
"""Matching words looked at before picking the most frequent: a short prefix like `a*` matches
thousands."""
MAX_EXPANDED_TERMS = 240
"""Terms all of a query's multi-term parts expand to together (`ge*` over five fields is ~120):
beyond it, further wildcards, fuzzy terms and ranges are left out."""
MAX_QUERY_WORDS = 64
"""Words searched of a longer query (a pasted abstract): the first ones."""
MAX_QUERY_CHARS = 1000
"""Characters searched of a longer query (whole words, up to this many): a single 100,000-letter
word once took minutes in the parser and the spelling automata."""
MAX_CORRECTIONS = 8
"""Unknown words one query has spelling-corrected (each costs an automaton walk of the vocabulary)."""
CHECK_EVERY = 256
"""While scanning a lexicon or postings, the budget is checked once per this many items."""


def shortened(text: str, budget: Budget) -> str:
    """The query cut to its first MAX_QUERY_CHARS characters (never in the middle of a word when
    it has several), with a hint."""
    if len(text) <= MAX_QUERY_CHARS:
        return text
    head = text[:MAX_QUERY_CHARS]
    if not text[MAX_QUERY_CHARS].isspace() and len(head.split()) > 1:
        head = head.rsplit(None, 1)[0]
    budget.hint(f"a long query: searched its first {len(head):,} characters")
    return head


class SearchStopped(Exception):
    """Raised inside a search when its budget ran out or it was cancelled; the runner turns it into
    a result with a hint."""

    def __init__(self, hint: str, cancelled: bool = False) -> None:
        super().__init__(hint)
        self.hint = hint
        self.cancelled = cancelled


class Budget:
    """One search's limits: a deadline (None: no time limit) and a cancel event, plus the hints
    collected while bounding it."""

    def __init__(self, seconds: float | None = SEARCH_SECONDS, cancel: threading.Event | None = None) -> None:
        self.seconds = seconds
        self.deadline = None if seconds is None else time.monotonic() + seconds
        self.cancel = cancel
        self.expanded_terms = 0
        """Terms the query's multi-term parts expanded to so far (MAX_EXPANDED_TERMS)."""
        self.expanding = False
        """True once a multi-term part was expanded: the advice when time runs out."""
        self._hints: dict[str, list[str]] = {}

    def check(self) -> None:
        """Raise SearchStopped when cancelled or past the deadline."""
        if self.cancel is not None and self.cancel.is_set():
            raise SearchStopped("search cancelled", cancelled=True)
        if self.deadline is not None and time.monotonic() > self.deadline:
            advice = "try fewer wildcards, fuzzy terms or ranges" if self.expanding else "try fewer words"
            raise SearchStopped(f"search stopped after {self.seconds:g} s; {advice}")

    def hint(self, text: str, item: str | None = None) -> None:
        """Tell the user a bound was applied, each hint once. With `item`, text is a template whose
        `{items}` names every item given for it (`a*, b* match too many words; ...`) and whose
        `{s}` is "es" for one item (matches) and "" for more (match)."""
        items = self._hints.setdefault(text, [])
        if item is not None and item not in items:
            items.append(item)

    @property
    def hints(self) -> list[str]:
        return [
            template.format(items=", ".join(items), s="es" if len(items) == 1 else "") if items else template
            for template, items in self._hints.items()
        ]
