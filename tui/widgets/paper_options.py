"""The OptionList that lists papers on the bookmarks and Recommended screens: its highlight stops at
the first and last rows, as the result list's does."""

from __future__ import annotations

from textual.widgets import OptionList


class PaperOptions(OptionList):
    """Textual's OptionList wraps round: j on the last bookmark went to the first, where the result
    list stays on its last paper. (These lists disable no option, so the last row is the last
    option.)"""

    def action_cursor_down(self) -> None:
        if self.highlighted is None or self.highlighted < self.option_count - 1:
            super().action_cursor_down()

    def action_cursor_up(self) -> None:
        if self.highlighted is None or self.highlighted > 0:
            super().action_cursor_up()
