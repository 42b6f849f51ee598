"""How the command line words counts and lays out its id columns, in one place, so every command
says "1 paper", "2 matches" and "1,467 papers" the same way."""

from __future__ import annotations

from collections.abc import Iterable

from tui.wording import counted

__all__ = ["counted", "id_width", "left_out"]


def left_out(skipped: int, duplicates: int) -> str:
    """What loading a list left out, as a clause for `add` and `get`: "; 1 record without an abstract
    skipped, 3 duplicates merged", or "" when nothing was."""
    parts = []
    if skipped:
        parts.append(f"{counted(skipped, 'record')} without an abstract skipped")
    if duplicates:
        parts.append(f"{counted(duplicates, 'duplicate')} merged")
    return "; " + ", ".join(parts) if parts else ""


def id_width(ids: Iterable[str]) -> int:
    """The width of an id column: the longest id, so the text after it starts in one column even
    when lists with ids of different lengths (OpenReview forums, hashes, BibTeX keys) are mixed."""
    return max((len(paper_id) for paper_id in ids), default=0)
