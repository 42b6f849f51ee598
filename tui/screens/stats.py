"""The statistics screen: the current query's papers (or every loaded paper) as terminal charts,
the same drawing and numbers as `iclr-reader stats QUERY` (tui/stats_view.py)."""

from __future__ import annotations

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.events import Resize
from textual.widgets import Static

from search import SearchEngine, SearchRequest, Stats
from tui.screens.page import TextPage
from tui.stats_view import stats_text
from tui.widgets.in_turn_scroll import InTurnScroll


class StatsScreen(TextPage):
    """Statistics of a query's papers; esc (or s, q) goes back."""

    BINDINGS = [Binding("escape,s,q", "close", "Back")]

    def __init__(self, engine: SearchEngine, request: SearchRequest) -> None:
        super().__init__()
        self.engine = engine
        self.request = request
        """The result list's own request: the same papers as the header counts."""
        self.query_text = request.text
        self.stats: Stats | None = None
        """The numbers shown, once counted (also handy for tests)."""

    @property
    def scope(self) -> str:
        return f"query: {self.query_text}" if self.query_text.strip() else "every loaded paper"

    def compose(self) -> ComposeResult:
        yield Static(
            Text(f"Statistics · {self.scope} · esc: back", no_wrap=True, overflow="ellipsis"),
            id="stats-title",
            classes="page-title",
        )
        with InTurnScroll(id="stats-scroll"):
            yield Static(Text("Counting…", style="dim"), id="stats-body", classes="page-body")

    def on_mount(self) -> None:
        self._count()

    @work(thread=True, exclusive=True, exit_on_error=False)
    def _count(self) -> None:
        try:
            stats = self.engine.stats(self.request)
        except Exception as error:  # noqa: BLE001 - a failed count is said on the screen, never a crash
            self.app.call_from_thread(self._show_problem, str(error) or type(error).__name__)
            return
        self.app.call_from_thread(self._show, stats)

    def _show(self, stats: Stats) -> None:
        self.stats = stats
        self._draw()

    def _show_problem(self, problem: str) -> None:
        self.query_one("#stats-body", Static).update(Text(f"The statistics could not be counted: {problem}"))

    def _draw(self) -> None:
        if self.stats is None:
            return
        width = max(40, self.size.width - 4)
        self.query_one("#stats-body", Static).update(stats_text(self.stats, width, self.scope))

    def on_resize(self, event: Resize) -> None:
        self._draw()
