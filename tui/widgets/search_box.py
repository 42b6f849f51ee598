"""The search box: an Input that remembers this session's queries (up/down) and hands off to the list."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from textual.binding import Binding
from textual.events import Blur
from textual.message import Message
from textual.timer import Timer

from tui.widgets.in_order_input import InOrderInput

PAUSE_SECONDS = 1.5
"""A query left this long without typing (while it has results) goes into the history: the user
stopped to read its results, so it is one to come back to."""


class SearchBox(InOrderInput):
    """Up recalls earlier queries; down walks back, and past the newest goes to the results.

    The history keeps the queries the user paused on (PAUSE_SECONDS without typing, while the
    query has results) or left the box with (enter, down, tab, a click elsewhere), never the same
    one twice in a row, and not the prefixes typed on the way to a longer query."""

    BINDINGS = [
        Binding("up", "history_back", "Earlier query", show=False),
        Binding("down", "history_forward", "Results", show=False),
    ]

    @dataclass
    class Leave(Message):
        """The user wants to move from the search box to the results."""

    def __init__(self, has_results: Callable[[str], bool] | None = None, **kwargs) -> None:
        """`has_results(query)`: whether the query's results are shown, so a pause on a query that
        finds nothing is not remembered; without it every paused-on query is."""
        super().__init__(**kwargs)
        self.history: list[str] = []
        self.has_results = has_results
        self._position: int | None = None
        """Index into history while recalling; None when editing a fresh query."""
        self._recalling = False
        """True while the box is given a recalled query (that is not the user typing)."""
        self._pause_timer: Timer | None = None
        """Runs from the last keystroke until the pause is long enough to remember the query."""
        self._newest_paused = False
        """Whether the newest history entry was remembered by a pause alone (so it may be a prefix
        on the way to a longer query, which then replaces it)."""

    def refresh(self, *regions, repaint: bool = True, layout: bool = False, recompose: bool = False):
        # The box has a fixed size (3 rows, full width), so typing never changes the screen's layout;
        # Input asks for one on every keystroke: 0.6 more layouts a keystroke without this, each 8-14
        # ms at 10,745 papers (measured over the benchmark's typed queries).
        return super().refresh(*regions, repaint=repaint, layout=False, recompose=recompose)

    def watch_value(self, value: str) -> None:
        """Every edit restarts the pause; a recalled query is already in the history."""
        self._stop_pause_timer()
        if not self._recalling and value.strip():
            self._pause_timer = self.set_timer(PAUSE_SECONDS, self.typing_paused)

    def typing_paused(self) -> None:
        """Typing has paused: remember the query if it shows results."""
        self._pause_timer = None
        query = self.value.strip()
        if query and (self.has_results is None or self.has_results(self.value)):
            self.remember(paused=True)

    def remember(self, paused: bool = False) -> None:
        """Add the current query to this session's history: not the same one twice in a row, and a
        query typed on from the newest paused-on one replaces it (`paused`: remembered by a pause,
        not by the user leaving the box)."""
        self._stop_pause_timer()
        self._position = None
        query = self.value.strip()
        if not query:
            return
        newest = self.history[-1] if self.history else None
        if query == newest:
            self._newest_paused = self._newest_paused and paused
            return
        if newest is not None and self._newest_paused and query.startswith(newest):
            self.history[-1] = query
        else:
            self.history.append(query)
        self._newest_paused = paused

    def on_blur(self, event: Blur) -> None:
        """Leaving the box (tab, a click elsewhere, another screen) keeps the query, as enter does."""
        self.remember()

    def _stop_pause_timer(self) -> None:
        if self._pause_timer is not None:
            self._pause_timer.stop()
            self._pause_timer = None

    def action_history_back(self) -> None:
        if not self.history:
            return
        if self._position is None:
            self.remember()
            self._position = len(self.history) - 1
            if self.history[-1] == self.value.strip() and self._position > 0:
                self._position -= 1
        elif self._position > 0:
            self._position -= 1
        self._recall()

    def action_history_forward(self) -> None:
        if self._position is None or self._position >= len(self.history) - 1:
            self.remember()
            self.post_message(self.Leave())
            return
        self._position += 1
        self._recall()

    def _recall(self) -> None:
        assert self._position is not None
        self._recalling = True
        try:
            self.value = self.history[self._position]
        finally:
            self._recalling = False
        self.cursor_position = len(self.value)

    async def action_submit(self) -> None:
        self.remember()
        self.post_message(self.Leave())
