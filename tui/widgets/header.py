"""The app header, whose title changes on every keystroke (it shows the match count)."""

from __future__ import annotations

from textual.app import App, ComposeResult
from textual.widgets import Header
from textual.widgets._header import HeaderClock, HeaderClockSpace, HeaderIcon, HeaderTitle


class OneLineTitle(HeaderTitle):
    def update(self, content="", *, layout: bool = True) -> None:
        # One full-width line: a new title never changes the layout, so skip the screen relayout.
        super().update(content, layout=False)


class AppHeader(Header):
    def show_sub_title(self, text: str) -> None:
        """Set the app's sub-title without Textual's whole-screen repaint: only this line changes."""
        self.app.set_reactive(App.sub_title, text)
        self.query_one(OneLineTitle).update(self.format_title())

    def compose(self) -> ComposeResult:
        yield HeaderIcon().data_bind(Header.icon)
        yield OneLineTitle()
        yield HeaderClock().data_bind(Header.time_format) if self._show_clock else HeaderClockSpace()
