"""The reader pane: one paper's metadata, rendered abstract and numbered links, scrollable."""

from __future__ import annotations

from collections.abc import Iterable

from rich.text import Text
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.widgets import Static

from search import Description
from tui.render import paper_text


class ReaderPane(VerticalScroll):
    """Scrolls like less: space/shift+space page, j/k line, g/G ends."""

    BINDINGS = [
        Binding("space", "page_down", "Page down", show=False),
        Binding("shift+space", "page_up", "Page up", show=False),
        Binding("j", "scroll_down", "Down", show=False),
        Binding("k", "scroll_up", "Up", show=False),
        Binding("g", "scroll_home", "Top", show=False),
        Binding("G", "scroll_end", "Bottom", show=False),
    ]

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.text = Text()
        """What the reader currently shows (also handy for tests)."""
        self._shown: tuple[str | None, tuple[str, ...]] | None = None

    def compose(self):
        yield Static(id="paper")

    def show(self, description: Description | None, terms: Iterable[str] = ()) -> None:
        terms = tuple(terms)
        shown = (description.paper.id if description else None, terms)
        if shown == self._shown:
            return  # same paper, same highlights: nothing to redraw
        self._shown = shown
        body = self.query_one("#paper", Static)
        if description is None:
            self.text = Text("No paper selected.", style="dim")
        else:
            self.text = paper_text(description, terms)
        body.update(self.text)
        self.scroll_home(animate=False)
