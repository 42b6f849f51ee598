"""The result list: a virtualised OptionList of papers, one line each."""

from __future__ import annotations

from collections.abc import Callable, Iterable

from rich.style import Style
from rich.text import Text
from textual.binding import Binding
from textual.geometry import Size
from textual.visual import VisualType
from textual.widgets import OptionList
from textual.widgets.option_list import Option

from search import Row
from tui.render import headline_text

CODE_MARKER = "◆"
BOOKMARK_MARKER = "★"
ROW_CHARS = 500
"""A row shows at most this much of a headline (a title can be any length; a row is one line)."""


def row_text(
    row: Row, venue: str | None, terms: Iterable[str] = (), bookmarked: bool | None = None, opened: bool = False
) -> Text:
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
    headline = row.headline if len(row.headline) <= ROW_CHARS else row.headline[: ROW_CHARS - 1] + "…"
    text.append_text(headline_text(row.name, headline, terms))
    return text


class PaperOption(Option):
    """An option whose row is built the first time it is shown: 10,000 rows cost nothing up front."""

    def __init__(self, paper_id: str, make_row: Callable[[str], Text]) -> None:
        super().__init__("", id=paper_id)
        self._paper_id = paper_id
        self._make_row: Callable[[str], Text] | None = make_row

    @property
    def prompt(self) -> VisualType:
        if self._make_row is not None:
            self._prompt = self._make_row(self._paper_id)
            self._make_row = None
        return self._prompt

    def _set_prompt(self, prompt: VisualType) -> None:
        self._make_row = None
        super()._set_prompt(prompt)


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
        self.set_options(PaperOption(paper_id, make_row) for paper_id in paper_ids)
        if paper_ids:
            self.highlighted = 0

    def _update_lines(self) -> None:
        """Line bookkeeping without rendering: every row is exactly one line (no-wrap Text).

        OptionList measures each option's height by rendering it, which takes over a second for
        10,000 papers; rows here never wrap, so each option is one line."""
        if not self.scrollable_content_region:
            return
        cache = self._line_cache
        start = cache.lines[-1][0] + 1 if cache.lines else 0
        for index in range(start, len(self.options)):
            cache.index_to_line[index] = len(cache.lines)
            cache.heights[index] = 1
            cache.lines.append((index, 0))
        width = self.scrollable_content_region.width - self._get_left_gutter_width()
        size = Size(width, len(cache.lines))
        if size != self.virtual_size:
            self.virtual_size = size
            self._scroll_update(size)

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        return len(self.options)

    def get_content_width(self, container: Size, viewport: Size) -> int:
        return container.width

    @property
    def current_id(self) -> str | None:
        index = self.highlighted
        if index is None or not 0 <= index < len(self.paper_ids):
            return None
        return self.paper_ids[index]
