"""Where query terms occur in a text, using the index's own analyzer (so `compress` marks `compressing`)."""

from __future__ import annotations

from typing import Iterable

from search.schema import ANALYZER


def term_ranges(text: str, terms: Iterable[str]) -> list[tuple[int, int]]:
    """(start, end) character ranges of the words in text whose analysed form is one of terms."""
    wanted = {term.lower() for term in terms}
    if not wanted or not text:
        return []
    return [(token.startchar, token.endchar) for token in ANALYZER(text, chars=True) if token.text in wanted]
