"""The result list: one line per paper, drawn with Textual's Line API from a list of paper ids."""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Callable, Hashable, Iterable
from dataclasses import dataclass

from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual import events
from textual.binding import Binding
from textual.cache import LRUCache
from textual.geometry import Region, Size
from textual.message import Message
from textual.scroll_view import ScrollView
from textual.strip import Strip
from textual.style import Style as VisualStyle

from search import Row
from tui.render import headline_text

CODE_MARKER = "◆"
BOOKMARK_MARKER = "★"
MARKED_MARKER = "✓"
"""In the column after the code marker: the paper is marked (space), for acting on several at once."""
ROW_CHARS = 500
"""A row shows at most this much of a headline (a title can be any length; a row is one line)."""
MAX_VENUE_WIDTH = 12
"""The venue column is as wide as the longest loaded venue ("AISTATS 2024"), at most this."""
MIN_TITLE_WIDTH = 50
"""Columns a row keeps for its title before the venue column takes any: in a narrow list the
venue shrinks, then goes, so titles stay readable."""
MIN_VENUE_WIDTH = 4
"""A venue column narrower than this says nothing ("IC…"): it is dropped instead."""
MORE_MARGIN = 50
"""Ask for the rest of a long result when the selection or the view comes this close to the end
of what is listed (or two screens, whichever is more)."""
CACHED_LINES = 1024
"""Lines kept drawn: a few screens' worth, so moving the selection redraws two lines, not all."""

MakeRow = Callable[[str, int], Text]
"""How a paper's row is made: (paper id, the columns the row has) -> one line of Rich Text. A maker
with a `key` attribute (hashable) makes the same row for a paper and a width as any earlier maker
with an equal key, so the rows it made are used again (the marks and the theme are not in it:
`forget_rows` when they change); one without makes its own."""


class KeyedRows:
    """A MakeRow with a key: what, besides the paper and the width, its rows show (the words
    highlighted, the figure column...). Rows made for one keystroke's results are used again for
    the next one's when its key is equal."""

    def __init__(self, make_row: MakeRow, key: Hashable) -> None:
        self.make_row = make_row
        self.key = key

    def __call__(self, paper_id: str, width: int) -> Text:
        return self.make_row(paper_id, width)


def _start(maker: tuple[int, MakeRow, object]) -> int:
    return maker[0]


def _row_key(make_row: MakeRow) -> object:
    key = getattr(make_row, "key", None)
    return object() if key is None else key


@dataclass(frozen=True)
class RowColors:
    """The markers' and the name's colours: dark themes take bright ones, light themes dark ones
    (yellow on white cannot be read)."""

    bookmark: Style
    code: Style
    name: Style
    mark: Style

    @classmethod
    def for_theme(cls, dark: bool) -> RowColors:
        if dark:
            return cls(
                Style(color="yellow"),
                Style(color="cyan"),
                Style(bold=True, color="green"),
                Style(bold=True, color="magenta"),
            )
        return cls(
            Style(color="#8a4b00", bold=True),
            Style(color="#005f66"),
            Style(bold=True, color="#0b5a1f"),
            Style(bold=True, color="#7a1f7a"),
        )


DARK_ROWS = RowColors.for_theme(dark=True)


def venue_column_width(venues: Iterable[str | None]) -> int:
    """How wide the venue column would like to be: 0 (no column) when every paper has the same
    venue or none, as there is nothing to tell apart; else the longest venue, at most MAX_VENUE_WIDTH."""
    distinct = {venue for venue in venues if venue}
    if len(distinct) < 2:
        return 0
    return min(MAX_VENUE_WIDTH, max(map(len, distinct)))


def venue_width_for(wanted: int, row_width: int) -> int:
    """The venue column's width in a row `row_width` columns wide: what it wants while the title keeps
    MIN_TITLE_WIDTH columns, narrower when it does not, none when narrower would say nothing."""
    if not wanted:
        return 0
    room = row_width - 3 - 1 - MIN_TITLE_WIDTH  # the markers' columns, the venue's trailing space
    width = min(wanted, room)
    return width if width >= MIN_VENUE_WIDTH else 0


FIGURE_WIDTHS = {"rating": 4, "citations": 5}
"""The figure column's width: a mean rating ("6.3", "10.0"), a citation count ("812", "11k")."""


def figure_width_for(figure: str | None, row_width: int) -> int:
    """The figure column's width in a row `row_width` columns wide: none when the title would keep
    fewer than MIN_TITLE_WIDTH columns (the figure goes before the title gets narrow)."""
    if figure not in FIGURE_WIDTHS:
        return 0
    width = FIGURE_WIDTHS[figure]
    return width if row_width - 3 - (width + 1) >= MIN_TITLE_WIDTH else 0


def figure_text(figure: str | None, rating: float | None, citations: int | None) -> str:
    """A row's figure: its mean rating to one decimal, or its citations (thousands as "11k");
    "" when the paper has none."""
    if figure == "rating":
        return f"{rating:.1f}" if rating is not None else ""
    if figure == "citations" and citations is not None:
        return str(citations) if citations < 10_000 else f"{citations // 1000}k"
    return ""


def row_text(
    row: Row,
    venue: str | None,
    terms: Iterable[str] = (),
    bookmarked: bool = False,
    opened: bool = False,
    venue_width: int = 0,
    colors: RowColors = DARK_ROWS,
    figure: str = "",
    figure_width: int = 0,
    marked: bool = False,
) -> Text:
    """One result row in fixed columns: bookmark, code link, mark, a figure (the mean rating or the
    citations, when `figure_width`), venue (when `venue_width`), headline with its name
    highlighted. Every column is always there, blank when empty, so titles line up whatever is
    bookmarked, marked or loaded; opened papers are dimmed."""
    text = Text(no_wrap=True, overflow="ellipsis", end="", style=Style(dim=True) if opened else "")
    text.append(BOOKMARK_MARKER if bookmarked else " ", style=colors.bookmark)
    text.append(CODE_MARKER if row.has_code else " ", style=colors.code)
    if marked:
        text.append(MARKED_MARKER, style=colors.mark)
    else:
        text.append(" ")
    if figure_width:
        text.append(figure[:figure_width].rjust(figure_width), style=colors.code)
        text.append(" ")
    if venue_width:
        shown = venue or ""
        shown = shown if len(shown) <= venue_width else shown[: venue_width - 1] + "…"
        text.append(shown.ljust(venue_width), style=Style(dim=True))
        text.append(" ")
    headline = row.headline if len(row.headline) <= ROW_CHARS else row.headline[: ROW_CHARS - 1] + "…"
    text.append_text(headline_text(row.name, headline, terms, colors.name))
    return text


class ResultsList(ScrollView, can_focus=True):
    """Papers in the current order, one line each; the highlighted one is shown in the reader.

    Its model is `paper_ids` and the `highlighted` index, nothing else: a line is drawn when it is
    on screen (`render_line`), from the paper's row made then, so a list of 100,000 papers costs
    what its visible lines cost. A long result comes a page at a time: when the selection or the
    view nears the end of `paper_ids` while `more` is set (or on `G`), the list posts WantMore and
    the screen extends it."""

    DEFAULT_CSS = """
    ResultsList {
        overflow-x: hidden;
        overflow-y: auto;
        color: $foreground;
        background: $surface;
        & > .results-list--highlighted {
            color: $foreground;
            background: $block-cursor-blurred-background;
            text-style: $block-cursor-blurred-text-style;
        }
        &:focus {
            background-tint: $foreground 5%;
            & > .results-list--highlighted {
                color: $block-cursor-foreground;
                background: $block-cursor-background;
                text-style: $block-cursor-text-style;
            }
        }
        & > .results-list--hover {
            background: $block-hover-background;
        }
    }
    """

    COMPONENT_CLASSES = {"results-list--row", "results-list--highlighted", "results-list--hover"}
    """`results-list--row`: every row; `--highlighted`: the selected one; `--hover`: under the mouse."""

    BINDINGS = [
        Binding("up,k", "cursor_up", "Up", show=False),
        Binding("down,j", "cursor_down", "Down", show=False),
        Binding("pageup", "page_up", "Page up", show=False),
        Binding("pagedown", "page_down", "Page down", show=False),
        Binding("home,g", "first", "First", show=False),
        Binding("end,G", "last", "Last", show=False),
        Binding("l", "select", "Open", show=False),
        Binding("enter", "select", "Open"),
    ]

    class _PaperMessage(Message):
        def __init__(self, results: ResultsList, index: int) -> None:
            super().__init__()
            self.results = results
            self.index = index
            self.paper_id = results.paper_ids[index]

        @property
        def control(self) -> ResultsList:
            return self.results

    class Highlighted(_PaperMessage):
        """The selection moved to `paper_id` (at `index`)."""

    class Selected(_PaperMessage):
        """The user opened `paper_id` (enter, l, a click)."""

    class WantMore(Message):
        """The selection or the view is near the end of the listed papers and more match: list them;
        with `to_last`, the user asked for the very last one (G, end)."""

        def __init__(self, to_last: bool) -> None:
            super().__init__()
            self.to_last = to_last

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.paper_ids: list[str] = []
        self._highlighted: int | None = None
        self.more = False
        """More papers match than are listed (set with each list)."""
        self._asked = False
        self._makers: list[tuple[int, MakeRow, object]] = []
        """(first index, how its rows are made, their key) for each run of paper_ids given to show or
        extend."""
        self._rows: LRUCache[tuple[object, str, int], Text] = LRUCache(CACHED_LINES)
        """(its maker's key, paper id, width) -> its row."""
        self._lines: LRUCache[tuple, Strip] = LRUCache(CACHED_LINES)
        """What a line shows (its row's text, spans and style, the line's style, the width) -> the line
        drawn: a paper listed again for the next keystroke, at another place or with other words
        highlighted elsewhere in the list, is not drawn again."""
        self._hover: int | None = None
        self._forgotten = False
        """The rows were forgotten since the last show: the next one draws every line."""
        self._painting: tuple[int, VisualStyle, VisualStyle, VisualStyle] | None = None
        """While the list paints: its width and the rows' styles (plain, highlighted, hovered)."""

    # -- the model ----------------------------------------------------------------------------

    def show(self, paper_ids: list[str], make_row: MakeRow, more: bool = False) -> None:
        """Replace the list, scrolled to the top; the first paper is highlighted (no message: the
        caller knows what it listed).

        Only the lines that show something else are drawn again: while a word is typed, the
        papers on screen often stay where they were (a keystroke's repaint was a third of its
        cost, the list's lines most of it)."""
        before = None if self._forgotten else self._on_screen()
        self._forgotten = False
        self.paper_ids = list(paper_ids)
        self._asked = True  # (nothing is asked for while the view moves to the top of the new list)
        self._makers = [(0, make_row, _row_key(make_row))]
        self._highlighted = 0 if self.paper_ids else None
        self._hover = None
        self.scroll_to(y=0, animate=False, immediate=True)
        laid_out = self._length_changed(repaint=False)
        self.more, self._asked = more, False
        after = None if laid_out or before is None else self._on_screen()
        if after is None or len(after) != len(before):  # type: ignore[arg-type]
            self.refresh()
            return
        # One refresh for each run of changed lines, not one a line.
        changed = [y for y, (old, new) in enumerate(zip(before, after)) if old != new]  # type: ignore[arg-type]
        start = 0
        for end, y in enumerate(changed, 1):
            if end == len(changed) or changed[end] != y + 1:
                self.refresh_lines(changed[start], y - changed[start] + 1)
                start = end

    def _on_screen(self) -> list[tuple] | None:
        """What each line of the view shows, from the top of the list (a paper's id, its row and
        whether it is highlighted; None past the end); None when the view is not at the top or has
        no size (every line is drawn again then)."""
        height = self.scrollable_content_region.height
        width = self.scrollable_content_region.width
        if not self.is_mounted or not height or not width or round(self.scroll_y) != 0:
            return None
        shown: list[tuple] = []
        for index in range(height):
            if index >= len(self.paper_ids):
                shown.append((None,))
                continue
            paper_id = self.paper_ids[index]
            row = self._row(index, paper_id, width)
            shown.append((paper_id, row.plain, row._spans, row.style, index == self._highlighted, index == self._hover))
        return shown

    def extend(self, paper_ids: list[str], make_row: MakeRow, more: bool = False) -> None:
        """List these papers after the ones listed; the selection stays where it is."""
        if paper_ids:
            self._makers.append((len(self.paper_ids), make_row, _row_key(make_row)))
            self.paper_ids.extend(paper_ids)
        self.more, self._asked = more, False
        self._length_changed()
        self.refresh()

    def refresh_row(self, paper_id: str) -> None:
        """Draw this paper's row again (a bookmark or read mark changed)."""
        self.forget_rows()  # (also when not listed: a row kept for a later result would show the old mark)
        if paper_id in self.paper_ids:
            self.refresh()  # (the rows made are a few screens' worth: made again as they show)

    def refresh_rows(self) -> None:
        """Draw every row again (the theme's colours or the marks changed)."""
        self.forget_rows()
        self.refresh()

    def forget_rows(self) -> None:
        """Forget the rows made (what they show changed: a mark, the theme, the list's papers), without
        drawing them again yet: the next `show` or refresh makes them afresh."""
        self._rows.clear()
        self._lines.clear()
        self._forgotten = True  # what the screen shows is not what the rows made now would show

    @property
    def highlighted(self) -> int | None:
        """The index of the selected paper in paper_ids, None when the list is empty."""
        return self._highlighted

    @highlighted.setter
    def highlighted(self, index: int | None) -> None:
        self.move_to(index)

    @property
    def current_id(self) -> str | None:
        index = self._highlighted
        return None if index is None else self.paper_ids[index]

    def move_to(self, index: int | None) -> None:
        """Select the paper at `index` (clamped to the list), scroll it into view and say so."""
        if not self.paper_ids or index is None:
            return
        index = max(0, min(len(self.paper_ids) - 1, index))
        old, self._highlighted = self._highlighted, index
        self._scroll_into_view(index)
        if old != index:
            for line in (old, index):
                if line is not None:
                    self.refresh_line(line)
            self.post_message(self.Highlighted(self, index))
        if index >= len(self.paper_ids) - self._margin():
            self._want_more(to_last=False)

    def _margin(self) -> int:
        return max(MORE_MARGIN, 2 * self.size.height)

    def _want_more(self, to_last: bool) -> None:
        if self.more and (to_last or not self._asked):
            self._asked = True
            self.post_message(self.WantMore(to_last))

    def _length_changed(self, repaint: bool = True) -> bool:
        """The list's scrollable height is its number of papers. A new length lays out the screen only
        when the scrollbar comes or goes; otherwise the scrollbar repaints, and the list too unless
        not `repaint` (the caller repaints what changed). (Textual lays out the whole screen for any
        new virtual size: 8-14 ms a time at 10,745 papers, measured, on a third of the benchmark's
        keystrokes.) True when the screen is laid out (everything is drawn again)."""
        size = Size(0, len(self.paper_ids))  # (rows are cut to the width: the list never scrolls sideways)
        if size == self.virtual_size:
            return False
        height = self.scrollable_content_region.height
        scrollbar = self.show_vertical_scrollbar
        if not self.is_mounted or not height:
            self.virtual_size = size  # a layout: the list has no size yet
            return True
        if scrollbar != (size.height > height):
            # The scrollbar comes or goes: one layout. Set plainly, the new size would lay the screen
            # out with the old scrollbar, find it must come or go, and lay it out again (two layouts
            # of 8-14 ms each on a word's first letters, measured); said here, the one layout places
            # it and finds nothing more to change (test_scrollbar_comes_and_goes_in_one_layout).
            self.set_reactive(ResultsList.virtual_size, size)
            self.show_vertical_scrollbar = not scrollbar
            self.vertical_scrollbar.display = not scrollbar
            self.refresh(layout=True)
            return True
        self.set_reactive(ResultsList.virtual_size, size)
        if scrollbar:
            bar = self.vertical_scrollbar
            bar.window_virtual_size = size.height
            bar.window_size = height
        if self.scroll_y > self.max_scroll_y:
            self.scroll_to(y=self.max_scroll_y, animate=False)
            repaint = True
        if repaint:
            self.refresh()
        return False

    def _scroll_into_view(self, index: int) -> None:
        height = self.scrollable_content_region.height
        top = round(self.scroll_y)
        if index < top:
            self.scroll_to(y=index, animate=False, immediate=True)
        elif height and index >= top + height:
            self.scroll_to(y=index - height + 1, animate=False, immediate=True)

    # -- keys and mouse -----------------------------------------------------------------------

    def action_cursor_up(self) -> None:
        if self._highlighted is not None:
            self.move_to(self._highlighted - 1)

    def action_cursor_down(self) -> None:
        if self._highlighted is not None:
            self.move_to(self._highlighted + 1)

    def action_page_up(self) -> None:
        if self._highlighted is not None:
            self.move_to(self._highlighted - max(1, self.scrollable_content_region.height))

    def action_page_down(self) -> None:
        if self._highlighted is not None:
            self.move_to(self._highlighted + max(1, self.scrollable_content_region.height))

    def action_first(self) -> None:
        self.move_to(0)

    def action_last(self) -> None:
        self.move_to(len(self.paper_ids) - 1)
        self._want_more(to_last=True)

    def action_select(self) -> None:
        if self._highlighted is not None:
            self.post_message(self.Selected(self, self._highlighted))

    def _index_at(self, event: events.MouseEvent) -> int | None:
        offset = event.get_content_offset(self)
        if offset is None:
            return None
        index = round(self.scroll_y) + offset.y
        return index if 0 <= index < len(self.paper_ids) else None

    def on_click(self, event: events.Click) -> None:
        index = self._index_at(event)
        if index is not None:
            self.move_to(index)
            self.action_select()

    def on_mouse_move(self, event: events.MouseMove) -> None:
        self._set_hover(self._index_at(event))

    def on_leave(self, event: events.Leave) -> None:
        self._set_hover(None)

    def _set_hover(self, index: int | None) -> None:
        if index != self._hover:
            for line in (self._hover, index):
                if line is not None:
                    self.refresh_line(line)
            self._hover = index

    def watch_scroll_y(self, old: float, new: float) -> None:
        super().watch_scroll_y(old, new)
        self._set_hover(None)  # the rows moved under the pointer: the next mouse move says where it is
        if round(new) + self.scrollable_content_region.height >= len(self.paper_ids) - self._margin():
            self._want_more(to_last=False)  # scrolled near the end with the wheel or the bar

    def on_resize(self, event: events.Resize) -> None:
        if self._highlighted is not None:
            self._scroll_into_view(self._highlighted)

    # -- drawing ------------------------------------------------------------------------------

    def _paint_styles(self) -> tuple[int, VisualStyle, VisualStyle, VisualStyle]:
        """The list's width and the rows' styles: plain, highlighted, hovered."""
        return (
            self.scrollable_content_region.width,
            self.get_visual_style("results-list--row"),
            self.get_visual_style("results-list--row", "results-list--highlighted"),
            self.get_visual_style("results-list--row", "results-list--hover"),
        )

    def render_lines(self, crop: Region) -> list[Strip]:
        # The width and the rows' styles looked up once a paint, not once a line (a sixth of the
        # list's paint CPU, profiled over the benchmark's typed queries).
        self._painting = self._paint_styles()
        try:
            return super().render_lines(crop)
        finally:
            self._painting = None

    def render_line(self, y: int) -> Strip:
        index = round(self.scroll_y) + y
        width, row_style, highlighted, hover = self._painting or self._paint_styles()
        if not 0 <= index < len(self.paper_ids):
            return Strip.blank(width, row_style.rich_style)
        style = highlighted if index == self._highlighted else hover if index == self._hover else row_style
        row = self._row(index, self.paper_ids[index], width)
        key = (row.plain, tuple(row.spans), row.style, style, width)
        line = self._lines.get(key)
        if line is None:
            line = self._lines[key] = self._draw(row, style.rich_style, width)
        return line

    def row(self, index: int) -> Text:
        """The row of the paper at `index`, as it shows at the list's width now."""
        return self._row(index, self.paper_ids[index], self.scrollable_content_region.width)

    def _row(self, index: int, paper_id: str, width: int) -> Text:
        makers = self._makers
        _, make_row, maker_key = makers[bisect_right(makers, index, key=_start) - 1]
        key = (maker_key, paper_id, width)
        row = self._rows.get(key)
        if row is None:
            row = self._rows[key] = make_row(paper_id, width)
        return row

    def _draw(self, row: Text, base: Style, width: int) -> Strip:
        """A row's line: its Rich Text cut to the width with an ellipsis, padded, over `base`."""
        if row.cell_len > width:
            row = row.copy()
            row.truncate(width, overflow="ellipsis")
        segments: list[Segment] = list(row.render(self.app.console, end=""))
        return Strip(segments).extend_cell_length(width).apply_style(base)
