"""The reader pane: one paper's metadata, rendered abstract and numbered links, scrollable."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable

from rich.text import Text
from textual import work
from textual.binding import Binding
from textual.message import Message
from textual.widgets import Static

from search import Bookmark, Description, Paper
from tui.render import bookmark_state_text, converting_text, paper_text
from tui.widgets.in_turn_scroll import InTurnScroll
from tui.widgets.results_list import RowColors

INLINE_CHARS = 5_000
"""Abstracts up to this long, with up to INLINE_MARKUP markup characters, are converted and laid out
at once (milliseconds: every real abstract is, the longest has 2,742 characters and 209 markup
characters). Longer ones are converted in a thread: the reader says so until the text is ready."""
INLINE_MARKUP = 500
SHOWN_CHARS = 10_000
"""The reader shows at most this much of an abstract (and of each metadata line): Textual lays the
whole text out on the interface's thread, about 1 s per 80,000 characters. iclr-reader show prints
all of it."""
_MARKUP = re.compile(r"[\\$*_`{}^~\[\]]")


def converts_quickly(abstract: str) -> bool:
    """True when converting and laying out the abstract cannot keep the interface waiting."""
    return len(abstract) <= INLINE_CHARS and len(_MARKUP.findall(abstract)) <= INLINE_MARKUP


class ReaderPane(InTurnScroll):
    """Scrolls like less: space/shift+space page, j/k line, g/G ends."""

    DEFAULT_CSS = """
    ReaderPane #bookmark { display: none; margin-bottom: 1; }
    ReaderPane #bookmark.active { display: block; }
    """

    BINDINGS = [
        Binding("space", "page_down", "Page down", show=False),
        Binding("shift+space", "page_up", "Page up", show=False),
        Binding("j", "scroll_down", "Down", show=False),
        Binding("k", "scroll_up", "Up", show=False),
        Binding("g", "scroll_home", "Top", show=False),
        Binding("G", "scroll_end", "Bottom", show=False),
    ]

    class Converted(Message):
        """A long abstract's text is ready (made in the conversion thread)."""

        def __init__(self, key: tuple[str, tuple[str, ...]], text: Text | None) -> None:
            super().__init__()
            self.key = key
            self.text = text

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.text = Text()
        """What the reader currently shows (also handy for tests)."""
        self._shown: tuple[str | None, tuple[str, ...]] | None = None
        self._wanted: tuple[Paper, Callable[[str], Description], tuple[str, ...]] | None = None
        """The newest long abstract to show, while the conversion thread works on it (or another)."""
        self._converting: tuple[str, tuple[str, ...]] | None = None
        """What the conversion thread is working on; one conversion at a time, the newest waits."""

    def compose(self):
        yield Static(id="bookmark")
        yield Static(id="paper")

    def show_bookmark(self, bookmark: Bookmark | None, keep_place: bool = True) -> None:
        """The paper's bookmark state, tags and note above it (none: the line is hidden). With
        `keep_place` (the same paper as before), a reader scrolled down stays on the lines it showed:
        the block growing or shrinking above them scrolls by as much, so `b` at the links does not
        make them jump."""
        line = self.query_one("#bookmark", Static)
        if bookmark is None and not line.has_class("active"):
            return  # hidden and staying so: updating it would lay the screen out for nothing
        star = RowColors.for_theme(self.app.current_theme.dark).bookmark
        paper = self.query_one("#paper", Static)
        scrolled, above = self.scroll_y, paper.virtual_region.y
        line.update(bookmark_state_text(bookmark, star) if bookmark else "")
        line.set_class(bookmark is not None, "active")
        if keep_place and scrolled > 0:

            def keep() -> None:
                self.scroll_to(y=scrolled + paper.virtual_region.y - above, animate=False, immediate=True)

            self.call_after_refresh(keep)

    @property
    def shown_id(self) -> str | None:
        """The id of the paper the reader shows (or is converting to show); None for none."""
        return self._shown[0] if self._shown else None

    @property
    def converting(self) -> bool:
        """True while a long abstract is being converted for the reader."""
        return self._converting is not None

    def show(self, description: Description | None, terms: Iterable[str] = ()) -> None:
        terms = tuple(terms)
        self._wanted = None
        shown = (description.paper.id if description else None, terms)
        if shown == self._shown:
            return  # same paper, same highlights: nothing to redraw
        if description is None:
            self._display(shown, Text("No paper selected.", style="dim"))
        else:
            self._display(shown, paper_text(description, terms, SHOWN_CHARS))

    def show_paper(
        self,
        paper: Paper | None,
        describe: Callable[[str], Description],
        terms: Iterable[str] = (),
        bookmark: Bookmark | None = None,
    ) -> None:
        """Show a paper, converting its abstract with `describe` (the engine's, cached per paper),
        with its bookmark's tags and note above it when it is bookmarked.

        A long abstract is converted off the interface's thread: the reader shows the paper's
        metadata and "Converting…" until it is ready, and only the newest selection is shown."""
        terms = tuple(terms)
        self.show_bookmark(bookmark if paper is not None else None, paper is not None and paper.id == self.shown_id)
        if paper is None or converts_quickly(paper.abstract):
            self.show(describe(paper.id) if paper else None, terms)
            return
        key = (paper.id, terms)
        if key == self._shown:
            return  # shown already, or being converted (and wanted)
        self._wanted = (paper, describe, terms)
        self._display(key, converting_text(paper, SHOWN_CHARS))
        if self._converting is None:
            self._start_conversion()

    def _display(self, key: tuple[str | None, tuple[str, ...]], text: Text) -> None:
        self._shown = key
        self.text = text
        self.query_one("#paper", Static).update(text)
        self.scroll_home(animate=False)

    def _start_conversion(self) -> None:
        assert self._wanted is not None
        paper, describe, terms = self._wanted
        self._converting = (paper.id, terms)
        self._convert(paper.id, describe, terms)

    @work(thread=True, group="reader", exit_on_error=False)
    def _convert(self, paper_id: str, describe: Callable[[str], Description], terms: tuple[str, ...]) -> None:
        try:
            text: Text | None = paper_text(describe(paper_id), terms, SHOWN_CHARS)
        except Exception:  # noqa: BLE001 - conversion never raises; an unknown paper shows nothing new
            text = None
        self.post_message(self.Converted((paper_id, terms), text))

    def on_reader_pane_converted(self, message: Converted) -> None:
        message.stop()
        self._converting = None
        wanted = self._wanted
        if wanted is None:
            return  # a short abstract (or none) was selected meanwhile and is shown
        paper, _, terms = wanted
        if (paper.id, terms) != message.key:
            self._start_conversion()  # the selection moved on: convert the newest one
            return
        self._wanted = None
        self._display(message.key, message.text or Text("This paper cannot be shown.", style="dim"))
