"""The bar between the result list and the reader: drag it with the mouse to share the width."""

from __future__ import annotations

from textual import events
from textual.message import Message
from textual.widget import Widget


class Splitter(Widget):
    """One column wide; dragging it posts Dragged with the list's new share of the screen width."""

    DEFAULT_CSS = """
    Splitter {
        width: 1;
        height: 1fr;
        color: $foreground-muted;
    }
    Splitter:hover, Splitter.-dragging {
        color: $accent;
        background: $boost;
    }
    """

    class Dragged(Message):
        """The list should take `percent` of the screen's width."""

        def __init__(self, percent: int) -> None:
            super().__init__()
            self.percent = percent

    def render(self) -> str:
        # Blank beside the panes' own borders, with a grip in the middle to show it can be dragged.
        return "\n".join("⁞" if row == self.size.height // 2 else " " for row in range(self.size.height))

    def on_mouse_down(self, event: events.MouseDown) -> None:
        self.capture_mouse()
        self.add_class("-dragging")
        event.stop()

    def on_mouse_move(self, event: events.MouseMove) -> None:
        if self.has_class("-dragging") and self.screen.size.width:
            self.post_message(self.Dragged(round(100 * event.screen_x / self.screen.size.width)))

    def on_mouse_up(self, event: events.MouseUp) -> None:
        if self.has_class("-dragging"):
            self.release_mouse()
            self.remove_class("-dragging")
            event.stop()
