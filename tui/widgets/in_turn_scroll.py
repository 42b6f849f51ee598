"""A VerticalScroll whose line and page keys each go on from where the key before them is going, so a
burst of keys scrolls as far as the same keys one at a time."""

from __future__ import annotations

from textual.actions import SkipAction
from textual.containers import VerticalScroll


class InTurnScroll(VerticalScroll):
    """Textual's `scroll_down` reckons its line from the scroll under way when the key acts, but
    moves only after the next refresh, so every key before that refresh reckons from the same line:
    ten `j` in one burst scrolled the abstract five lines. Here each key moves the scroll's target
    at once (the motion may still be animated), and the next key starts from there."""

    def scroll_lines(self, lines: float, animate: bool = True) -> None:
        self.scroll_to(y=self.scroll_target_y + lines, animate=animate, immediate=True)

    def scroll_pages(self, pages: int, animate: bool = True) -> None:
        self.scroll_lines(pages * self.scrollable_content_region.height, animate)

    def action_scroll_down(self) -> None:
        self._vertical()
        self.scroll_lines(1)

    def action_scroll_up(self) -> None:
        self._vertical()
        self.scroll_lines(-1)

    def action_page_down(self) -> None:
        self._vertical()
        self.scroll_pages(1)

    def action_page_up(self) -> None:
        self._vertical()
        self.scroll_pages(-1)

    def _vertical(self) -> None:
        """Nothing to scroll: the key goes on to the screen's bindings, as Textual's does."""
        if not self.allow_vertical_scroll:
            raise SkipAction()
