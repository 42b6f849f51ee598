"""The search box: an Input that remembers this session's queries (up/down) and hands off to the list."""

from __future__ import annotations

from dataclasses import dataclass

from textual.binding import Binding
from textual.message import Message
from textual.widgets import Input


class SearchBox(Input):
    """Up recalls earlier queries; down walks back, and past the newest goes to the results."""

    BINDINGS = [
        Binding("up", "history_back", "Earlier query", show=False),
        Binding("down", "history_forward", "Results", show=False),
    ]

    @dataclass
    class Leave(Message):
        """The user wants to move from the search box to the results."""

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.history: list[str] = []
        self._position: int | None = None
        """Index into history while recalling; None when editing a fresh query."""

    def refresh(self, *regions, repaint: bool = True, layout: bool = False, recompose: bool = False):
        # The box has a fixed size (3 rows, full width), so typing never changes the screen's layout;
        # Input asks for one on every keystroke, and a relayout costs more than the search itself.
        return super().refresh(*regions, repaint=repaint, layout=False, recompose=recompose)

    def remember(self) -> None:
        """Add the current query to this session's history (no immediate duplicates)."""
        query = self.value.strip()
        if query and (not self.history or self.history[-1] != query):
            self.history.append(query)
        self._position = None

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
        self.value = self.history[self._position]
        self.cursor_position = len(self.value)

    async def action_submit(self) -> None:
        self.remember()
        self.post_message(self.Leave())
