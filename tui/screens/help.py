"""The help screen: every key binding and the query language, with a filter box."""

from __future__ import annotations

from dataclasses import dataclass

from rich.console import Console, ConsoleOptions, Group, RenderResult
from rich.table import Table
from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.events import Resize
from textual.screen import ModalScreen
from textual.widgets import Input, Static

from tui.keys import KEYS, QUERY_SYNTAX
from tui.widgets.in_order_input import InOrderInput
from tui.widgets.in_turn_scroll import InTurnScroll
from tui.widgets.results_list import BOOKMARK_MARKER, CODE_MARKER, MARKED_MARKER

SECTIONS = (
    ("Keys", KEYS),
    ("Query language: type these in the search box", QUERY_SYNTAX),
)
"""The help's sections: a title, and (group, what to press or type, what it does) rows."""
STACKED_BELOW = 48
"""Narrower than this, each entry's description goes on its own line under what to press or type."""
MAX_TERM_WIDTH = 18
"""The widest the first column gets (a longer entry wraps in it)."""
COMPACT_BELOW = (70, 30)
"""A terminal narrower or lower than this gets the help full-screen, with a one-line filter box."""


Entry = tuple[str, str]
"""What to press or type, and what it does."""


def filtered(filter_text: str) -> list[tuple[str, dict[str, list[Entry]]]]:
    """Each section's entries that contain every word of filter_text (in their section, group,
    keys or text), by group; sections and groups with none are left out."""
    words = filter_text.lower().split()
    found = []
    for title, rows in SECTIONS:
        groups: dict[str, list[Entry]] = {}  # in the order each group first appears in the section
        for group, term, description in rows:
            kept = groups.setdefault(group, [])
            if all(word in f"{title} {group} {term} {description}".lower() for word in words):
                kept.append((term, description))
        shown = {group: entries for group, entries in groups.items() if entries}
        if shown:
            found.append((title, shown))
    return found


@dataclass
class HelpText:
    """The help's text for a filter, laid out for the width it gets: two columns (what to press or
    type, what it does), or one above the other in a narrow terminal."""

    filter_text: str = ""

    @property
    def row_count(self) -> int:
        """How many entries the filter leaves."""
        return sum(len(entries) for _, groups in filtered(self.filter_text) for entries in groups.values())

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        sections = filtered(self.filter_text)
        if not sections:
            yield Text(f"Nothing matches “{self.filter_text.strip()}”.", style="dim")
            return
        width = options.max_width
        longest = max(len(term) for _, groups in sections for entries in groups.values() for term, _ in entries)
        term_width = min(longest, MAX_TERM_WIDTH, width // 3)
        parts: list[Text | Table] = []
        for number, (title, groups) in enumerate(sections):
            parts.append(Text(("\n" if number else "") + title, style="bold reverse"))
            for index, (group, entries) in enumerate(groups.items()):
                parts.append(Text(("\n" if index else "") + group, style="bold"))
                parts.append(entries_table(entries, term_width, stacked=width < STACKED_BELOW))
        yield Group(*parts)


def entries_table(entries: list[Entry], term_width: int, stacked: bool) -> Table:
    """One group's entries in two columns (the first as wide in every group, so they line up), or
    with each description under its entry."""
    table = Table(box=None, show_header=False, pad_edge=False, expand=True, padding=(0, 2, 0, 0))
    if stacked:
        table.add_column(ratio=1)
        for term, description in entries:
            table.add_row(Text.assemble((term, "bold cyan"), "\n  ", description))
    else:
        table.add_column(width=term_width, style="bold cyan", overflow="fold")
        table.add_column(ratio=1)
        for term, description in entries:
            table.add_row(Text(term), Text(description))
    return table


class HelpScreen(ModalScreen[None]):
    """Keys, the query language and the list's markers; type to filter, esc to close."""

    DEFAULT_CSS = """
    HelpScreen { align: center middle; }
    HelpScreen > Vertical {
        width: 90%; max-width: 100; height: 90%; max-height: 40;
        border: round $primary; background: $surface; padding: 0 1;
    }
    HelpScreen #help-title { text-style: bold; }
    HelpScreen #help-filter { margin-bottom: 1; }
    HelpScreen #help-legend { color: $text-muted; height: 1; }
    HelpScreen.compact > Vertical { width: 100%; max-width: 100%; height: 100%; max-height: 100%; }
    HelpScreen.compact #help-filter { border: none; height: 1; padding: 0 1; margin: 0 0 1 0; }
    """

    BINDINGS = [
        Binding("escape", "dismiss", "Close"),
        Binding("f1", "dismiss", "Close", show=False),
        Binding("question_mark", "dismiss", "Close", show=False),
        # The filter box keeps the focus; these scroll the help under it.
        Binding("down", "scroll_help(1)", "Scroll", show=False),
        Binding("up", "scroll_help(-1)", "Scroll", show=False),
        Binding("pagedown", "scroll_help_page(1)", "Page", show=False),
        Binding("pageup", "scroll_help_page(-1)", "Page", show=False),
    ]

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(Text("iclr-reader — keys and query language", no_wrap=True), id="help-title")
            yield InOrderInput(placeholder="Filter: a key, a word (fuzzy, has:, bookmark)…", id="help-filter")
            with InTurnScroll(id="help-scroll"):
                yield Static(HelpText(), id="help-keys")
            legend = Text(
                f"{CODE_MARKER} code link · {BOOKMARK_MARKER} bookmarked · {MARKED_MARKER} marked · esc closes",
                no_wrap=True,
            )
            yield Static(legend, id="help-legend")

    def on_mount(self) -> None:
        self._fit(self.app.size.width, self.app.size.height)

    def on_resize(self, event: Resize) -> None:
        self._fit(event.size.width, event.size.height)

    def _fit(self, width: int, height: int) -> None:
        min_width, min_height = COMPACT_BELOW
        self.set_class(width < min_width or height < min_height, "compact")

    def action_scroll_help(self, lines: int) -> None:
        self.query_one("#help-scroll", InTurnScroll).scroll_lines(lines, animate=False)

    def action_scroll_help_page(self, pages: int) -> None:
        self.query_one("#help-scroll", InTurnScroll).scroll_pages(pages, animate=False)

    @on(Input.Changed, "#help-filter")
    def filter_keys(self, event: Input.Changed) -> None:
        self.query_one("#help-keys", Static).update(HelpText(event.value))
        self.query_one("#help-scroll", InTurnScroll).scroll_home(animate=False)
