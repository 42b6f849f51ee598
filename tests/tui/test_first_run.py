"""The first-run guide (issue 38): the first start shows a short panel (what to type, the keys that
matter, how to get more lists, f1 for the rest); esc hides it, and it never shows again (kept in
config.toml). The program asks for it; tests of other things do not see it."""

from __future__ import annotations

import pytest

from search.user.store import UserStore
from tests.tui.conftest import one_fast, settle
from tui.app import ReaderApp
from tui.preferences import config_path
from tui.preferences import load as load_preferences
from tui.widgets.search_box import SearchBox


def guide_text(app) -> str | None:
    found = app.screen.query("#guide")
    return str(found.first().render()) if found else None


@pytest.mark.parametrize("size", one_fast([(140, 40), (80, 24), (60, 20)]))
async def test_the_first_start_shows_the_guide_and_esc_hides_it_for_good(seed_engine, size):
    app = ReaderApp(seed_engine, store=UserStore(), guide=True)
    async with app.run_test(size=size) as pilot:
        await settle(pilot, app)
        text = guide_text(app)
        assert text is not None
        assert text.startswith("Welcome! Type to search 38 papers")
        for words in ("enter read", "b bookmark", "y copy link", "r related", "ctrl+g", "get iclr2025", "f1", "esc"):
            assert words in text, words
        await pilot.press(*"graph")  # typing goes to the search box while the guide shows
        await settle(pilot, app)
        assert "4 matches" in app.sub_title
        await pilot.press("escape")
        await pilot.pause()
        assert guide_text(app) is None
        assert app.screen.query_one(SearchBox).value == "graph"  # esc hid the guide, nothing else
    assert load_preferences().preferences.guide_seen
    assert "guide_seen = true" in config_path().read_text(encoding="utf-8")
    again = ReaderApp(seed_engine, store=UserStore(), guide=True)
    async with again.run_test(size=size) as pilot:
        await settle(pilot, again)
        assert guide_text(again) is None


async def test_the_palette_hides_the_guide_too(seed_engine):
    app = ReaderApp(seed_engine, store=UserStore(), guide=True)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot, app)
        await pilot.press("ctrl+p", *"hide the guide")
        await pilot.pause()
        await pilot.press("enter")
        await pilot.pause()
        assert guide_text(app) is None
    assert load_preferences().preferences.guide_seen


async def test_apps_made_without_asking_show_no_guide(make_app):
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot, app)
        assert guide_text(app) is None


def test_the_first_start_opens_the_users_store_while_the_lists_load(tmp_path, monkeypatch):
    """A first start creates the user's store (about 40 ms of waiting for the disk): the program
    opens it in a thread of its own while the lists still load, not after them, and the app gets
    that store (bookmarks work). Before, run_app opened it after the load, in the main thread."""
    import gc
    import json
    import threading

    from search.corpus import loader
    from tui.cli import build_parser, papers
    from tui.store_access import StoreAccess

    opened_in: list[str] = []
    real_open = StoreAccess.open.__func__  # type: ignore[attr-defined]

    def open_store(cls):
        opened_in.append(threading.current_thread().name)
        return real_open(cls)

    monkeypatch.setattr(StoreAccess, "open", classmethod(open_store))
    opening_at_merge: list[bool] = []
    real_merge = loader.merge

    def merge(*args):  # the store's thread started by now: running, or done
        opening_at_merge.append(bool(opened_in) or any(t.name == "store" for t in threading.enumerate()))
        return real_merge(*args)

    monkeypatch.setattr(loader, "merge", merge)
    monkeypatch.setattr(gc, "freeze", lambda: None)  # (the program's: not this test process's objects)
    started: list[ReaderApp] = []
    monkeypatch.setattr(ReaderApp, "run", lambda self, *a, **k: started.append(self))
    path = tmp_path / "conf2024.json"
    path.write_text(json.dumps([{"id": "p1", "title": "A paper", "abstract": "Graphs and kernels. " * 8}]))
    assert papers.open_app(build_parser().parse_args(["--corpus", str(path)])) == 0
    assert opening_at_merge == [True] and opened_in == ["store"]
    assert started[0].store is not None and started[0].store_access.problem is None
