"""A full screen of text that scrolls (statistics, reviews): a title line above a scrolling body, the
reader's keys to move through it, esc (or the key that opened it, or q) back."""

from __future__ import annotations

from textual.binding import Binding
from textual.screen import Screen

from tui.widgets.in_turn_scroll import InTurnScroll


class TextPage(Screen[None]):
    """A title line (class `page-title`) above one InTurnScroll holding the body (`page-body`).
    Subclasses bind their own keys to `close` and compose the title and body."""

    DEFAULT_CSS = """
    TextPage { background: $surface; }
    TextPage .page-title { height: 1; padding: 0 1; background: $panel; text-style: bold; }
    TextPage .page-body { padding: 0 1; }
    """

    BINDINGS = [
        Binding("j,down", "scroll('down')", "Down", show=False),
        Binding("k,up", "scroll('up')", "Up", show=False),
        Binding("space,pagedown", "scroll('page_down')", "Page down", show=False),
        Binding("pageup", "scroll('page_up')", "Page up", show=False),
        Binding("g,home", "scroll('home')", "Top", show=False),
        Binding("G,end", "scroll('end')", "Bottom", show=False),
    ]

    def action_scroll(self, where: str) -> None:
        scroll = self.query_one(InTurnScroll)
        {
            "down": lambda: scroll.scroll_lines(1),
            "up": lambda: scroll.scroll_lines(-1),
            "page_down": lambda: scroll.scroll_pages(1),
            "page_up": lambda: scroll.scroll_pages(-1),
            "home": scroll.scroll_home,
            "end": scroll.scroll_end,
        }[where]()

    def action_close(self) -> None:
        self.dismiss(None)
