"""The result list: a virtualised OptionList of papers, one line each."""

from __future__ import annotations

from typing import Callable, Iterable

from rich.style import Style
from rich.text import Text
from textual.binding import Binding
from textual.widgets import OptionList
from textual.widgets.option_list import Option

from search.engine import Row
from tui.render import headline_text

CODE_MARKER = "◆"
BOOKMARK_MARKER = "★"


def row_text(row: Row, venue: str | None, terms: Iterable[str] = (), bookmarked: bool | None = None, opened: bool = False) -> Text:
    """One result row: markers, the venue and the headline with its name highlighted.

    `bookmarked` is None when there are no bookmarks at all (no column); opened papers are dimmed."""
    text = Text(no_wrap=True, overflow="ellipsis", end="", style=Style(dim=True) if opened else "")
    if bookmarked is not None:
        text.append(BOOKMARK_MARKER if bookmarked else " ", style=Style(color="yellow"))
    text.append(CODE_MARKER if row.has_code else " ", style=Style(color="cyan"))
    text.append(" ")
    if venue:
        text.append(venue, style=Style(dim=True))
        text.append("  ")
    text.append_text(headline_text(row.name, row.headline, terms))
    return text


class ResultsList(OptionList):
    """Papers in the current order; the highlighted one is shown in the reader."""

    BINDINGS = [
        Binding("j", "cursor_down", "Down", show=False),
        Binding("k", "cursor_up", "Up", show=False),
        Binding("g", "first", "First", show=False),
        Binding("G", "last", "Last", show=False),
        Binding("l", "select", "Open", show=False),
        Binding("enter", "select", "Open"),
    ]

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.paper_ids: list[str] = []

    def show(self, paper_ids: list[str], make_row: Callable[[str], Text]) -> None:
        """Replace the list; the first paper is highlighted."""
        self.paper_ids = paper_ids
        self.set_options(Option(make_row(paper_id), id=paper_id) for paper_id in paper_ids)
        if paper_ids:
            self.highlighted = 0

    @property
    def current_id(self) -> str | None:
        index = self.highlighted
        if index is None or not 0 <= index < len(self.paper_ids):
            return None
        return self.paper_ids[index]
