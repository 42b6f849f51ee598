"""When the app makes the cycle collector's full passes (tui/collector.py): after a pause in the
input, or at the latest LONGEST seconds after the last one, never in the middle of typing. The
clock is the test's own, so a busy machine cannot make a pause where none was."""

from __future__ import annotations

import pytest

from tui import collector


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def monotonic(self) -> float:
        return self.now


@pytest.fixture
def clock(monkeypatch) -> Clock:
    fake = Clock()
    monkeypatch.setattr(collector, "time", fake)
    return fake


def test_typing_on_makes_no_pass_until_it_pauses(clock):
    idle = collector.IdleCollector()
    for _ in range(5):
        clock.now += collector.IDLE / 10  # keystrokes a tenth of a pause apart
        idle.input()
        assert not idle.check()
    clock.now += collector.IDLE
    assert idle.check()
    assert not idle.check()  # nothing typed since: no second pass


def test_a_pass_comes_at_the_latest_every_longest_seconds(clock):
    """Typing without a pause, or work in the background with no input at all."""
    typing, untouched = collector.IdleCollector(), collector.IdleCollector()
    typing.input()
    assert not typing.check() and not untouched.check()
    while clock.now < 1000.0 + collector.LONGEST:
        clock.now += collector.IDLE / 2
        typing.input()
        if clock.now < 1000.0 + collector.LONGEST:
            assert not typing.check() and not untouched.check()
    assert typing.check() and untouched.check()
