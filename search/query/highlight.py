"""Where query terms occur in a text, using the index's own analyzer (so `compress` marks `compressing`)."""

from __future__ import annotations

from collections.abc import Iterable

from search.index.analysis import stemmed_spans


def term_ranges(text: str, terms: Iterable[str]) -> list[tuple[int, int]]:
    """(start, end) character ranges of the words in text whose analysed form is one of terms."""
    wanted = {term.lower() for term in terms}
    if not wanted or not text:
        return []
    return [(start, end) for start, end, term in stemmed_spans(text) if term in wanted]
