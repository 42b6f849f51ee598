"""The result list: a virtualised OptionList of papers, one line each."""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual.binding import Binding
from textual.geometry import Size
from textual.message import Message
from textual.strip import Strip
from textual.style import Style as VisualStyle
from textual.visual import VisualType
from textual.widgets import OptionList
from textual.widgets.option_list import Option

from search import Row
from tui.render import headline_text

CODE_MARKER = "◆"
BOOKMARK_MARKER = "★"
ROW_CHARS = 500
"""A row shows at most this much of a headline (a title can be any length; a row is one line)."""
MAX_VENUE_WIDTH = 12
"""The venue column is as wide as the longest loaded venue ("AISTATS 2024"), at most this."""
PAGE = 500
"""Papers made into options at a time, more as the list is moved or scrolled through: an option
costs the interface thread ~8 µs, so listing all of 100,000 papers whenever the search is cleared
would stall it for most of a second."""


@dataclass(frozen=True)
class RowColors:
    """The markers' and the name's colours: dark themes take bright ones, light themes dark ones
    (yellow on white cannot be read)."""

    bookmark: Style
    code: Style
    name: Style

    @classmethod
    def for_theme(cls, dark: bool) -> RowColors:
        if dark:
            return cls(Style(color="yellow"), Style(color="cyan"), Style(bold=True, color="green"))
        return cls(Style(color="#8a4b00", bold=True), Style(color="#005f66"), Style(bold=True, color="#0b5a1f"))


DARK_ROWS = RowColors.for_theme(dark=True)


def venue_column_width(venues: Iterable[str | None]) -> int:
    """How wide the venue column is: 0 (no column) when every paper has the same venue or none,
    as there is nothing to tell apart; else the longest venue, at most MAX_VENUE_WIDTH."""
    distinct = {venue for venue in venues if venue}
    if len(distinct) < 2:
        return 0
    return min(MAX_VENUE_WIDTH, max(map(len, distinct)))


def row_text(
    row: Row,
    venue: str | None,
    terms: Iterable[str] = (),
    bookmarked: bool = False,
    opened: bool = False,
    venue_width: int = 0,
    colors: RowColors = DARK_ROWS,
) -> Text:
    """One result row in fixed columns: bookmark, code link, venue (when `venue_width`), headline
    with its name highlighted. Every column is always there, blank when empty, so titles line up
    whatever is bookmarked or loaded; opened papers are dimmed."""
    text = Text(no_wrap=True, overflow="ellipsis", end="", style=Style(dim=True) if opened else "")
    text.append(BOOKMARK_MARKER if bookmarked else " ", style=colors.bookmark)
    text.append(CODE_MARKER if row.has_code else " ", style=colors.code)
    text.append(" ")
    if venue_width:
        shown = venue or ""
        shown = shown if len(shown) <= venue_width else shown[: venue_width - 1] + "…"
        text.append(shown.ljust(venue_width), style=Style(dim=True))
        text.append(" ")
    headline = row.headline if len(row.headline) <= ROW_CHARS else row.headline[: ROW_CHARS - 1] + "…"
    text.append_text(headline_text(row.name, headline, terms, colors.name))
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
    """Papers in the current order; the highlighted one is shown in the reader.

    `paper_ids` are listed, but made into options PAGE at a time, as the selection or the scroll
    nears the last one made (or `G` asks for the last). A long result also comes a page at a time:
    when the selection nears the end of `paper_ids` (or `G`) while `more` is set, the list posts
    WantMore and the screen extends it."""

    BINDINGS = [
        Binding("j", "cursor_down", "Down", show=False),
        Binding("k", "cursor_up", "Up", show=False),
        Binding("g", "first", "First", show=False),
        Binding("G", "last", "Last", show=False),
        Binding("l", "select", "Open", show=False),
        Binding("enter", "select", "Open"),
    ]

    class WantMore(Message):
        """The selection is near the end of the listed papers and more match: list them; with
        `to_last`, the user asked for the very last one (G, end)."""

        def __init__(self, to_last: bool) -> None:
            super().__init__()
            self.to_last = to_last

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.paper_ids: list[str] = []
        self.more = False
        """More papers match than are listed (set by the screen with each list)."""
        self._asked = False
        self._makers: list[tuple[int, Callable[[str], Text]]] = []
        """(first index, how its rows are made) for each run of paper_ids given to show or extend."""

    def show(self, paper_ids: list[str], make_row: Callable[[str], Text], more: bool = False) -> None:
        """Replace the list; the first paper is highlighted."""
        self.paper_ids = paper_ids
        self.more, self._asked = more, False
        self._makers = [(0, make_row)]
        self.set_options(PaperOption(paper_id, make_row) for paper_id in paper_ids[:PAGE])
        if paper_ids:
            self.highlighted = 0

    def extend(self, paper_ids: list[str], make_row: Callable[[str], Text], more: bool = False) -> None:
        """List these papers after the ones listed; the selection stays where it is."""
        self._makers.append((len(self.paper_ids), make_row))
        self.paper_ids = self.paper_ids + paper_ids
        self.more, self._asked = more, False
        self.list_to(self.option_count + 1)

    def list_to(self, count: int) -> None:
        """Make options of at least the first `count` papers (a page more than made, at least)."""
        made = self.option_count
        if count <= made or made >= len(self.paper_ids):
            return
        end = min(len(self.paper_ids), max(count, made + PAGE))
        starts = [start for start, _ in self._makers]
        options = []
        for index in range(made, end):
            make_row = self._makers[bisect_right(starts, index) - 1][1]
            options.append(PaperOption(self.paper_ids[index], make_row))
        self.add_options(options)

    def validate_highlighted(self, highlighted: int | None) -> int | None:
        if highlighted is not None:
            self.list_to(highlighted + 1)  # a paper further down than made so far (bookmarks, G)
        return super().validate_highlighted(highlighted)

    def watch_highlighted(self, highlighted: int | None) -> None:
        super().watch_highlighted(highlighted)
        if highlighted is None:
            return
        margin = max(50, 2 * self.size.height)
        self.list_to(highlighted + margin)
        if highlighted >= len(self.paper_ids) - margin:
            self._want_more(to_last=False)

    def watch_scroll_y(self, old: float, new: float) -> None:
        super().watch_scroll_y(old, new)
        self.list_to(int(new) + 2 * max(50, self.size.height))  # scrolled with the wheel or the bar

    def action_last(self) -> None:
        self.list_to(len(self.paper_ids))
        super().action_last()
        self._want_more(to_last=True)

    def _want_more(self, to_last: bool) -> None:
        if self.more and (to_last or not self._asked):
            self._asked = True
            self.post_message(self.WantMore(to_last))

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
            # The list's box is the pane's whatever its length, so a new length needs no layout of the
            # screen (20 ms, after most keystrokes): only the scrollbar, whose showing or hiding does
            # lay out (Textual's own reactive).
            self.set_reactive(ResultsList.virtual_size, size)
            self._scroll_update(size)
            self.refresh()

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        return len(self.options)

    def _get_option_render(self, option: Option, style: VisualStyle) -> list[Strip]:
        """A row's line, drawn from its Rich Text straight to segments.

        OptionList turns each prompt into Textual Content and lays it out as a paragraph (0.45 ms a
        row, most of the repaint after each keystroke). A row is one line of no-wrap Text, so it is
        cut to the width, padded and styled over the row's base style: what that pipeline draws for
        one line, in a third of the time (tests/tui/test_browsing.py compares the two)."""
        padding = self.get_component_styles("option-list--option").padding
        width = self.scrollable_content_region.width - self._get_left_gutter_width()
        key = (option, style, padding)  # emptied on resize, as OptionList does
        if (strips := self._option_render_cache.get(key)) is None:
            prompt = option.prompt
            if not isinstance(prompt, Text):
                return super()._get_option_render(option, style)
            base = style.rich_style + Style.from_meta({"option": self._option_to_index[option]})
            inner = max(0, width - padding.left - padding.right)
            if prompt.cell_len > inner:
                prompt = prompt.copy()
                prompt.truncate(inner, overflow="ellipsis")
            segments = [Segment(" " * padding.left)] if padding.left else []
            segments.extend(prompt.render(self.app.console, end=""))
            strips = [Strip(segments).extend_cell_length(width).apply_style(base)]
            self._option_render_cache[key] = strips
        return strips

    def get_content_width(self, container: Size, viewport: Size) -> int:
        return container.width

    @property
    def current_id(self) -> str | None:
        index = self.highlighted
        if index is None or not 0 <= index < len(self.paper_ids):
            return None
        return self.paper_ids[index]
