"""When the app makes the cycle collector's full passes (tui/collector.py): after a pause in the
input, or at the latest LONGEST seconds after the last one, never in the middle of typing."""

from __future__ import annotations

import time

from tui import collector


def test_typing_on_makes_no_pass_until_it_pauses(monkeypatch):
    monkeypatch.setattr(collector, "IDLE", 0.05)
    idle = collector.IdleCollector()
    for _ in range(5):
        idle.input()
        assert not idle.check()
    time.sleep(0.06)
    assert idle.check()
    assert not idle.check()  # nothing typed since: no second pass


def test_a_pass_comes_at_the_latest_every_longest_seconds(monkeypatch):
    """Typing without a pause, or work in the background with no input at all."""
    monkeypatch.setattr(collector, "LONGEST", 0.05)
    typing, untouched = collector.IdleCollector(), collector.IdleCollector()
    typing.input()
    assert not typing.check() and not untouched.check()
    time.sleep(0.06)
    typing.input()
    assert typing.check() and untouched.check()
