"""ReaderApp: wiring only. The main screen does the work; the engine comes in through the constructor."""

from __future__ import annotations

from typing import Iterable

from textual.app import App, SystemCommand
from textual.binding import Binding
from textual.screen import Screen

from search.engine import SearchEngine
from tui.screens.help import HelpScreen
from tui.screens.main import MainScreen


class ReaderApp(App[int]):
    """A full-screen reader for paper abstracts."""

    CSS_PATH = "app.tcss"
    TITLE = "iclr-reader"
    BINDINGS = [
        Binding("ctrl+q", "quit", "Quit", show=False, priority=True),
    ]

    def __init__(self, engine: SearchEngine, query: str | None = None) -> None:
        super().__init__()
        self.engine = engine
        self.initial_query = query

    def on_mount(self) -> None:
        self.push_screen(MainScreen(self.engine, self.initial_query))

    def action_help(self) -> None:
        if not isinstance(self.screen, HelpScreen):
            self.push_screen(HelpScreen())

    def get_system_commands(self, screen: Screen) -> Iterable[SystemCommand]:
        yield from super().get_system_commands(screen)
        if isinstance(screen, MainScreen):
            yield SystemCommand("Search", "Focus the search box (/)", screen.action_focus_search)
            yield SystemCommand("Open paper", "Open the selected paper in the reader (enter)", screen.action_open_paper)
            yield SystemCommand("Results", "Go to the result list", screen.action_focus_results)
            yield SystemCommand("Clear search", "Show every paper in corpus order", screen.action_clear_search)
        yield SystemCommand("Help", "Show every key binding (?)", self.action_help)


def run_app(engine: SearchEngine, query: str | None = None) -> int:
    """Run the app until the user quits; the terminal is restored even after an error."""
    app = ReaderApp(engine, query)
    app.run()
    return app.return_code or 0
