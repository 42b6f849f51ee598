"""The cycle collector's full passes, made while the user pauses rather than while they type.

The papers and the index are put out of the collector's sight once loaded (gc.freeze, at start and
when the index is open). With so few long-lived objects left in view, CPython's rule for a full pass
(a quarter more objects than survived the last one) starts one every few keystrokes, and each
stalls the interface: 45-85 ms at 100,000 papers (freeing the cyclic garbage of the searches and
repaints before it, 10,000-30,000 objects). So while the app runs, automatic full passes are off
(the young generations are collected as before) and the app makes one when no key or mouse event
has come for IDLE seconds after some input, and at the latest LONGEST seconds after the last one,
so garbage never piles up."""

from __future__ import annotations

import gc
import time

IDLE = 1.0
"""Seconds without input before a full pass."""
LONGEST = 30.0
"""Seconds after a full pass when the next is made even without a pause."""
_NEVER = 1 << 30


class IdleCollector:
    def __init__(self) -> None:
        self._threshold: tuple[int, int, int] | None = None
        self._last_input = self._last_pass = time.monotonic()
        self._used = False
        """Input came since the last pass (an idle app makes one only every LONGEST seconds)."""

    def start(self) -> None:
        """Automatic full passes off until `stop`."""
        if self._threshold is None:
            self._threshold = gc.get_threshold()
            gc.set_threshold(self._threshold[0], self._threshold[1], _NEVER)

    def stop(self) -> None:
        """CPython's own full passes again (the app has quit; tests run many apps in one process)."""
        if self._threshold is not None:
            gc.set_threshold(*self._threshold)
            self._threshold = None

    def input(self) -> None:
        self._last_input = time.monotonic()
        self._used = True

    def paused(self) -> bool:
        """No input for IDLE seconds."""
        return time.monotonic() - self._last_input >= IDLE

    def check(self) -> bool:
        """Make a full pass if the user has paused after some input, or LONGEST seconds after the
        last pass whatever happened (typing on, or work in the background with no input); whether
        it did."""
        due = time.monotonic() - self._last_pass >= LONGEST
        if not (due or (self._used and self.paused())):
            return False
        gc.collect()
        self._last_pass, self._used = time.monotonic(), False
        return True
