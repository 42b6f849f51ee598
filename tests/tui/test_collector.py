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


class Paused:
    """A collector that makes a pass at each check (the user paused)."""

    def __init__(self) -> None:
        self.passes = 0

    def check(self) -> bool:
        self.passes += 1
        return True

    def paused(self) -> bool:
        return True


def test_each_pass_the_app_makes_hands_the_freed_memory_back():
    from search import SearchEngine, load_corpus
    from tui.app import ReaderApp
    from tui.preferences import Preferences

    engine = SearchEngine(load_corpus())
    released = []
    engine.release_memory = lambda: released.append(True) or True  # type: ignore[method-assign]
    app = ReaderApp(engine, preferences=Preferences())
    app._collector = Paused()  # type: ignore[assignment]
    app._saving_started = True  # (what a pause saves for the next start is not this test's)
    app._when_idle()
    app._when_idle()
    assert released == [True, True]


def test_the_engine_can_hand_freed_memory_back_here():
    """glibc's malloc_trim, where the tests run (Linux); a no-op elsewhere."""
    import sys

    from search import SearchEngine, load_corpus

    assert SearchEngine(load_corpus()).release_memory() is sys.platform.startswith("linux")
