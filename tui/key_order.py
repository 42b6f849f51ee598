"""Keys handled one at a time: a key goes to the focus (or screen) that the key before it left, also
when keys arrive in a burst."""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Awaitable, Callable
from typing import Any

from textual import events
from textual.app import App, ScreenStackError, UnknownModeError
from textual.message_pump import MessagePump
from textual.widget import Widget
from textual.widgets import Input, TextArea

STUCK_SECONDS = 2.0
"""A key on its way longer than this (its callback lost) no longer holds the keys behind it."""
WAIT_POLL = 0.01
"""While the screen says its keys wait (a search of what was typed not shown yet: `keys_wait`),
it is asked again this often."""
SETTLE_ROUNDS = 4
"""At most this many rounds through the screen's queue and the app's after a key, waiting for the
focus and the screen to stop changing (one round when the key changed neither)."""
BUSY_ROUNDS = 32
"""At most this many rounds in all while a widget of the screen still has messages queued (what the
key set off: the palette's enter submits, selects the command, closes and runs it, a message each)."""


class KeysInTurn:
    """Holds each key (or paste) that arrives while the key before it is still on its way, and sends
    it once that key's action has run and what the action asked for has taken effect.

    Textual sends a key to the focused widget's queue as soon as the app reads it; the key then
    bubbles through each parent's queue to the app, whose bindings (the screen's `/`, `t`, enter,
    esc...) run only when it arrives there. A key read behind it went to the focused widget before
    that: `/ y z` in one burst from the results copied a link (y, the results' key) instead of typing
    "yz" in the search box the slash focuses. Here a key is sent only after a callback has followed
    the key before it through the same queues (each queue runs its messages in order, so the
    callback arrives after the key), then after rounds through the screen's queue and the app's
    until the screen and the focus are the same two rounds running: a `focus()` is a callback on the
    app's queue, a pushed screen mounts and focuses its box in its own; and while the screen says
    its keys wait (`keys_wait`: results of what was typed not shown yet), it is asked again every
    WAIT_POLL seconds (esc, which acts on no listed paper, never waits for that). No key is let go on a time (but by the safety net, check_stuck)."""

    def __init__(self, app: App[Any], send: Callable[[events.Event], Awaitable[None]]) -> None:
        """`send`: Textual's own handling of a key the app has read (App.on_event)."""
        self._app = app
        self._send = send
        self._held: deque[events.Event] = deque()
        self._busy = False
        self._turn = 0
        """Which key is on its way: callbacks following an earlier one do nothing."""
        self._since = 0.0
        """When the key on its way was sent (check_stuck)."""

    @property
    def holding(self) -> int:
        """How many keys wait for the one before them."""
        return len(self._held)

    @property
    def pending(self) -> bool:
        """Whether a key is still on its way (or held): tests wait for this, not for time."""
        return self._busy or bool(self._held)

    async def arrived(self, event: events.Key | events.Paste) -> None:
        """The app read a key: send it now, or when the keys before it are done."""
        for key in esc_kept(event):
            await self._arrived(key)

    async def _arrived(self, event: events.Key | events.Paste) -> None:
        if self._busy:
            self._held.append(event)
        elif self._typed_in_place(event):
            await self._send(event)  # nothing to wait for after it: the next key may follow at once
        else:
            await self._dispatch(event)

    def _typed_in_place(self, event: events.Key | events.Paste) -> bool:
        """A character typed (or text pasted) into the focused text box: the box takes it and stops
        it, so it moves no focus and opens no screen, and the key after it needs no wait. (No
        character is a priority binding here, which the app would run before the box: a test
        holds that.) Typing a burst into the search box thus costs what it did: each key waiting
        for the one before would repaint the list after every character."""
        if isinstance(event, events.Key) and not event.is_printable:
            return False
        return isinstance(self._app.focused, (Input, TextArea))

    async def _dispatch(self, event: events.Event) -> None:
        self._busy = True
        self._turn += 1
        self._since = time.monotonic()
        app = self._app
        try:
            target: MessagePump = app.focused or app.screen
        except (ScreenStackError, UnknownModeError):  # no screen yet (or any more)
            target = app
        await self._send(event)
        self._follow(target, self._turn)

    def _follow(self, node: MessagePump, turn: int) -> None:
        """Let the key (sent to `node`'s queue or bubbling through it) go through `node`'s queue,
        then its parent's."""
        while not node.call_later(self._passed, node, turn):
            if node is self._app:  # the app is closing: no key will be handled any more
                return
            node = self._up(node)

    def _up(self, node: MessagePump) -> MessagePump:
        parent = node.parent if isinstance(node, Widget) else None
        return parent if isinstance(parent, MessagePump) else self._app

    async def _passed(self, node: MessagePump, turn: int) -> None:
        if turn != self._turn:
            return  # a key given up on (check_stuck): the keys after it went on without it
        if node is self._app:
            await self._settle(None, 0, turn)
        else:
            self._follow(self._up(node), turn)

    async def _settle(self, seen: tuple[object, object] | None, rounds: int, turn: int) -> None:
        """Runs in the app's queue: send the next key once the screen and focus stay put."""
        if turn != self._turn:
            return
        app = self._app
        try:
            now: tuple[object, object] = (app.screen, app.focused)
        except (ScreenStackError, UnknownModeError):
            now = (None, None)
        screen = now[0]
        if (now != seen and rounds < SETTLE_ROUNDS) or (rounds < BUSY_ROUNDS and _messages_queued(screen)):

            def back_to_the_app() -> None:
                app.call_later(self._settle, now, rounds + 1, turn)

            if not (isinstance(screen, MessagePump) and screen.call_later(back_to_the_app)):
                back_to_the_app()
            return
        keys_wait = getattr(now[0], "keys_wait", None)
        if callable(keys_wait) and keys_wait() and not self._leaving_next():
            # The screen's results are not yet those of what was typed: ask again soon (check_stuck
            # lets the keys go should they never come).
            app.set_timer(WAIT_POLL, lambda: app.call_later(self._settle, None, 0, turn))
            return
        await self._next()

    def _leaving_next(self) -> bool:
        """Whether the next key is esc: it goes back or leaves, acting on no listed paper, so it
        waits for no listing (leaving Recommended while it still ranks at 100,000 papers)."""
        key = self._held[0] if self._held else None
        return isinstance(key, events.Key) and key.key == "escape"

    async def _next(self) -> None:
        if self._held:
            await self._dispatch(self._held.popleft())
        else:
            self._busy = False

    async def check_stuck(self, now: float | None = None) -> None:
        """A safety net, never the way keys go: if the key on its way has not arrived after
        STUCK_SECONDS (a widget's queue dropped the callback following it), the keys held behind
        it go on without waiting for it, rather than the keyboard going dead. The app calls this
        on an interval."""
        now = time.monotonic() if now is None else now
        if self._busy and now - self._since > STUCK_SECONDS:
            self._turn += 1  # the lost key's callbacks, should they come after all, do nothing
            await self._next()


def esc_kept(event: events.Key | events.Paste) -> list[events.Key | events.Paste]:
    """Esc and the letter after it, where the terminal's reader made them one alt+letter.

    In the terminal's plain keyboard protocol alt+g is sent as esc then g, so Textual's reader
    (textual/_xterm_parser.py) takes an esc followed by a character read with it, or within
    ESCDELAY (100 ms), as alt+character. A busy app reads its input late: esc then "graph" typed
    in the search box came as alt+g, r, a, p, h, and alt+g typed a "g", the esc lost ("language
    modelgraph"). No key of the app is an alt+character, so such a key is the esc and the
    character. (Under the kitty keyboard protocol alt+g has no character here, and esc is never
    ambiguous.)"""
    if not isinstance(event, events.Key) or event.character is None or len(event.character) != 1:
        return [event]
    character = event.character
    if event.key not in (f"alt+{character}", f"alt+shift+{character.lower()}"):
        return [event]
    return [events.Key("escape", "\x1b"), events.Key(character, character)]


def _messages_queued(screen: object) -> bool:
    """Whether a widget of the screen has messages still to handle: the key's own (a message it
    posted, one that message posted...) are among them."""
    if not isinstance(screen, Widget):
        return False
    return any(node.message_queue_size for node in screen.walk_children(with_self=True))
