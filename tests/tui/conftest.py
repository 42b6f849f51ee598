"""App fixtures: a ReaderApp over the bundled corpus (index built once per session) and a helper to settle it."""

from __future__ import annotations

import asyncio
import contextlib
import time

import pytest
from textual.worker import WorkerCancelled

from search.corpus.loader import load_corpus
from search.engine import SearchEngine
from search.user.store import UserStore
from tui.app import ReaderApp

WIDE = (110, 30)
"""The size of an app test that wants the list and the reader side by side (two panes from 100
columns, tui.screens.main.NARROW_WIDTH) but is not about the size: 3,300 cells to draw where 140x40
has 5,600, a sixth less CPU for the tests that use it. A test about 140 columns says (140, 40)."""


def one_fast(values, fast=None) -> list:
    """Parameters for a test that checks the same thing at several terminal sizes: `fast` (the first
    value unless given) runs in the fast loop (`make check`), every other is marked slow, so `make
    test` runs them all. Test ids are unchanged (a snapshot's file name is its test's id)."""
    values = list(values)
    fast = values[0] if fast is None else fast
    return [value if value == fast else pytest.param(value, marks=pytest.mark.slow) for value in values]


async def keys_done(pilot, app) -> None:
    """Wait until every key sent (a burst queued at once) has reached where it acts: the app holds
    each key until the one before it has (tui/key_order.py), so a burst ends later than it is sent."""
    read = asyncio.Event()
    app.call_later(read.set)  # queued behind the keys: once it runs, the app has read them all
    await read.wait()
    while getattr(app, "keys_pending", False):
        await asyncio.sleep(0.005)
    await pilot.pause()


async def settle(pilot, app) -> None:
    """Wait until the workers (index, downloads) and the search session have finished, their
    messages are handled and the reader has caught up with typing. Cancellations the app makes on
    purpose (a newer query, a new list) are part of settling, not failures; nothing here depends
    on how fast the machine is, only on the app going quiet.

    The app runs while settle waits (asyncio.sleep hands the loop to its message pumps and timers):
    the waits for a busy session and the reader's timer poll with plain sleeps, as pilot.pause would
    also check every widget's queue and the screen's refresh each 5-10 ms (a tenth of the app tests'
    CPU); one pause after them handles what they finished with."""
    for _ in range(3):
        await keys_done(pilot, app)
        with contextlib.suppress(WorkerCancelled):
            await app.workers.wait_for_complete()
        sessions = [screen.session for screen in app.screen_stack if hasattr(screen, "session")]
        while any(session.busy for session in sessions):
            await asyncio.sleep(0.005)
        await pilot.pause()
    deadline = time.monotonic() + 10  # the reader's timer is 0.15 s: generous for a busy machine
    if getattr(app.screen, "reader_waiting", False):
        while getattr(app.screen, "reader_waiting", False) and time.monotonic() < deadline:
            await asyncio.sleep(0.01)
        await pilot.pause()


@pytest.fixture
def make_app(seed_engine):
    def factory(query=None, engine=None):
        return ReaderApp(engine or seed_engine, store=UserStore(), query=query)

    return factory


@pytest.fixture
def engine_for(tmp_path):
    """An engine over a small corpus written from the given abstracts."""

    def factory(*abstracts):
        path = tmp_path / "corpus.txt"
        path.write_text("TEST 2024 list\n\n" + "\n\n".join(abstracts) + "\n", encoding="utf-8")
        return SearchEngine(load_corpus([path]), cache_dir=tmp_path / "cache")

    return factory


@pytest.fixture
def notices(monkeypatch):
    """Every notification's message, in order."""
    shown: list[str] = []
    original = ReaderApp.notify

    def record(self, message, *args, **kwargs):
        shown.append(str(message))
        return original(self, message, *args, **kwargs)

    monkeypatch.setattr(ReaderApp, "notify", record)
    return shown


STATUS_EDGE = "▊▁▎ "
"""The search box's lower edge (a tall border) around a status shown on it."""


def shown_status(app) -> str:
    """The status as the screen shows it: on the search box's lower edge when it fits there, else on
    the line (or lines, joined) under the box; "" for none."""
    screen = app.screen
    strips = screen._compositor.render_strips()

    def line(y: int) -> str:
        return "".join(segment.text for segment in strips[y])

    edge = line(screen.query_one("#search").region.bottom - 1).strip(STATUS_EDGE)
    status = screen.query_one("#status").region
    below = " ".join(line(y).strip() for y in range(status.y, status.bottom))
    return edge or below
