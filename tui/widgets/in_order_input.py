"""Text boxes (an Input, a TextArea) whose editing keys act in the order they were typed, also
when keys arrive in a burst."""

from __future__ import annotations

from textual.events import Key
from textual.widgets import Input, TextArea


class InOrderKeys:
    """Runs a text box's own bound keys (ctrl+u, backspace, left, enter, ...) as they arrive, in order with
    the characters typed around them.

    Input types a character as soon as its key arrives, but Textual runs a bound key's action only
    once the key has bubbled up to the app, a trip through the screen's and the app's queues. While
    the app is busy (a search being shown) keys arrive in bursts, and characters queued behind a
    bound key reach the box before that key's action runs: ctrl+u then "list" cleared "graphl" and
    left "ist", backspace deleted the letter typed after it (Textualize/textual#6605). The focused
    widget's bindings come first in the app's lookup (priority bindings were looked up before the
    key was sent here), so running them here does what the app would do, only in order; a key none
    of them takes bubbles up as before (esc to the screen, tab to the app)."""

    async def _on_key(self, event: Key) -> None:
        if event.is_printable:
            return  # the box types it (its own handler runs next)
        for binding in self._bindings.key_to_bindings.get(event.key, ()):  # type: ignore[attr-defined]
            if not binding.priority and await self.app.run_action(binding.action, self):  # type: ignore[attr-defined]
                event.stop()  # (Input's own handler still runs: it restarts the cursor's blink)
                return


class InOrderInput(InOrderKeys, Input):
    """The Input every one-line text box of the app is."""


class InOrderTextArea(InOrderKeys, TextArea):
    """The TextArea of the note dialog: backspace and the arrows act before the characters typed
    after them (enter and tab are typed by TextArea itself, as characters are)."""
