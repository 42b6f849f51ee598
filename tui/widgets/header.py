"""The app's header line: its name and what the screen shows, with the match count always in view."""

from __future__ import annotations

from rich.cells import cell_len
from rich.text import Text
from textual.app import RenderResult
from textual.widget import Widget

from tui.wording import Title


class AppHeader(Widget):
    """One line: "iclr-reader — iclr2025 · 12 matches for “kv cache”", centred. It changes on every
    keystroke, so it only repaints itself (its size never changes: no layout); in a narrow terminal
    the app's name goes first, then the query is cut, then the lists, never the count."""

    DEFAULT_CSS = """
    AppHeader {
        dock: top;
        width: 100%;
        height: 1;
        background: $panel;
        color: $foreground;
        content-align: center middle;
    }
    """

    NAME_SEPARATOR = " — "

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self._title: Title | str = ""

    def show(self, title: Title | str) -> None:
        """Show this title after the app's name."""
        self._title = title
        self.refresh()

    @property
    def line(self) -> str:
        """What the header shows at its width now."""
        width = max(0, self.size.width - 2)  # a column of margin each side
        name, title = self.app.title, self._title
        whole = f"{name}{self.NAME_SEPARATOR}{title}" if str(title) else name
        if cell_len(whole) <= width:
            return whole
        if isinstance(title, Title):
            return title.fitted(width, cell_len)
        return str(title) if cell_len(str(title)) <= width else str(title)[: max(0, width - 1)] + "…"

    def on_click(self) -> None:
        self.app.action_command_palette()  # as a click on Textual's header icon does

    def render(self) -> RenderResult:
        line = self.line
        name = self.app.title
        text = Text(no_wrap=True, overflow="ellipsis", end="")
        if line.startswith(name + self.NAME_SEPARATOR) or line == name:
            text.append(name)
            line = line[len(name) :]
        text.append(line, style="dim")
        return text
