"""A seeded random walk of the app's own keys over 1,200 papers, at three terminal sizes, checking
after every few keys that the app runs, the header's count is what the list can reach, no row
appears twice and the reader shows the selected paper. ICLR_READER_WALK_KEYS=N walks N keys a
seed and size (default 300); ICLR_READER_WALK_SEEDS=a,b,c picks the seeds."""

from __future__ import annotations

import os
import random
import webbrowser

import pytest

from search import SourceError
from search.user.store import UserStore
from tests.tui.walk import random_keys, walk, walk_corpus
from tui import clipboard
from tui.app import ReaderApp
from tui.screens import getting

SIZES = [(140, 40), (80, 24), (60, 20)]
KEYS_PER_WALK = int(os.environ.get("ICLR_READER_WALK_KEYS", "300"))
SEEDS = [int(seed) for seed in os.environ.get("ICLR_READER_WALK_SEEDS", "1,2").split(",")]


@pytest.fixture(scope="module")
def walk_engine(tmp_path_factory):
    return walk_corpus(tmp_path_factory.mktemp("walk"))


@pytest.fixture
def offline(monkeypatch):
    """No browser, clipboard or network: what o, y and ctrl+g reach is a notice."""

    class NoBrowser(webbrowser.BaseBrowser):
        def open(self, url, new=0, autoraise=True):
            return True

    def no_network(request, on_progress=None, **kwargs):
        raise SourceError(f"{request.spec}: offline in the random walk")

    monkeypatch.setattr(webbrowser, "get", lambda *args: NoBrowser())
    monkeypatch.setattr(clipboard.pyperclip, "copy", lambda text: None)
    monkeypatch.setattr(getting, "get_list", no_network)


@pytest.mark.slow
@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("size", SIZES, ids=lambda size: f"{size[0]}x{size[1]}")
async def test_a_random_walk_of_the_apps_keys_keeps_it_consistent(walk_engine, offline, seed, size):
    app = ReaderApp(walk_engine, store=UserStore())
    keys = random_keys(random.Random(seed * 1000 + size[0]), KEYS_PER_WALK)
    async with app.run_test(size=size) as pilot:
        await walk(app, pilot, keys)


async def test_a_short_walk(walk_engine, offline):
    """The fast loop's (make check) share of the walk: 100 keys at 80x24."""
    app = ReaderApp(walk_engine, store=UserStore())
    async with app.run_test(size=(80, 24)) as pilot:
        await walk(app, pilot, random_keys(random.Random(7), 100))
