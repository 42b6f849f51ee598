"""The help screen: every key binding, with a filter box."""

from __future__ import annotations

from rich.table import Table
from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Input, Static

from tui.keys import KEYS
from tui.widgets.results_list import BOOKMARK_MARKER, CODE_MARKER


def keys_table(filter_text: str = "") -> Table:
    """The key table, limited to rows containing every word of filter_text."""
    words = filter_text.lower().split()
    table = Table(box=None, expand=True, show_header=True, header_style="bold", pad_edge=False)
    table.add_column("Where", style="dim", no_wrap=True)
    table.add_column("Keys", style="bold cyan", no_wrap=True)
    table.add_column("Action", ratio=1)
    for where, keys, action in KEYS:
        row = f"{where} {keys} {action}".lower()
        if all(word in row for word in words):
            table.add_row(Text(where), Text(keys), Text(action))
    return table


class HelpScreen(ModalScreen[None]):
    """Keys and markers; type to filter, esc to close."""

    DEFAULT_CSS = """
    HelpScreen { align: center middle; }
    HelpScreen > Vertical {
        width: 90%; max-width: 100; height: 90%; max-height: 36;
        border: round $primary; background: $surface; padding: 0 1;
    }
    HelpScreen #help-filter { margin-bottom: 1; }
    HelpScreen #help-legend { color: $text-muted; margin-top: 1; height: auto; }
    """

    BINDINGS = [
        Binding("escape", "dismiss", "Close"),
        Binding("f1", "dismiss", "Close", show=False),
        Binding("question_mark", "dismiss", "Close", show=False),
    ]

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(Text("iclr-reader — keys", style="bold"))
            yield Input(placeholder="Filter keys…", id="help-filter")
            with VerticalScroll():
                yield Static(keys_table(), id="help-keys")
            legend = Text(f"{CODE_MARKER} has a code link   {BOOKMARK_MARKER} bookmarked   esc closes this help")
            yield Static(legend, id="help-legend")

    @on(Input.Changed, "#help-filter")
    def filter_keys(self, event: Input.Changed) -> None:
        self.query_one("#help-keys", Static).update(keys_table(event.value))
