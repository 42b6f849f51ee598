"""A hang detector for property tests: not a speed limit (typical cases take milliseconds)."""

from __future__ import annotations

import signal
from contextlib import contextmanager

HANG_SECONDS = 60


@contextmanager
def hang_guard(seconds: int = HANG_SECONDS):
    def hung(signum, frame):
        raise TimeoutError(f"still running after {seconds} s: a hang, not slowness")

    previous = signal.signal(signal.SIGALRM, hung)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)
