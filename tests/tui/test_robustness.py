"""The app under abuse: tiny terminals, resizes while typing, 500 fast keystrokes, and every bound key
pressed in every screen with nothing selected. Any exception inside the app fails the test."""

from __future__ import annotations

import random

import pytest
from textual import events

from tests.tui.conftest import one_fast, settle
from tui.app import ReaderApp
from tui.screens.bookmarks import BookmarksScreen
from tui.screens.choosers import Chooser, NameDialog, SavedSearches
from tui.screens.dialogs import LinkPicker, NoteDialog, TagsDialog
from tui.screens.help import HelpScreen
from tui.screens.main import MainScreen
from tui.widgets.reader import ReaderPane
from tui.widgets.results_list import ResultsList
from tui.widgets.search_box import SearchBox

QUITS = {"q", "ctrl+q", "ctrl+c"}
BINDING_OWNERS = [
    ReaderApp,
    MainScreen,
    BookmarksScreen,
    HelpScreen,
    Chooser,
    SavedSearches,
    NameDialog,
    NoteDialog,
    TagsDialog,
    LinkPicker,
    ResultsList,
    ReaderPane,
    SearchBox,
]


def every_bound_key() -> list[str]:
    """Our bindings and the ones inherited from Textual's classes (Input, OptionList, Screen, App)."""
    keys: dict[str, None] = {}
    for owner in BINDING_OWNERS:
        for klass in owner.__mro__:
            for binding in vars(klass).get("BINDINGS", []):
                key = binding.key if hasattr(binding, "key") else binding[0]
                for one in key.split(","):
                    keys[one.strip()] = None
    keys["ctrl+p"] = None  # the command palette, bound outside BINDINGS
    return [key for key in keys if key not in QUITS]


def assert_healthy(app, after: str = "") -> None:
    assert app.is_running and app._exception is None, f"after {after!r}: {app._exception!r}"


async def press_everything(pilot, app, back_to) -> None:
    """Press each key, then bring the app back to the same screen for the next one."""
    depth = len(app.screen_stack)
    for key in every_bound_key():
        await pilot.press(key)
        await pilot.pause()  # and render what it did
        assert_healthy(app, key)
        while len(app.screen_stack) > depth:
            app.pop_screen()
            await pilot.pause()
        await back_to()


@pytest.mark.slow  # every key from three places: the random walk's short run covers the fast loop
@pytest.mark.parametrize("focus", ["search", "results", "reader"])
async def test_every_key_on_an_empty_result_list(make_app, focus):
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot, app)
        await pilot.press(*"qqzzxxyy")
        await settle(pilot, app)
        assert app.screen.query_one(ResultsList).paper_ids == []

        async def back_to():
            screen = app.screen
            box = screen.query_one(SearchBox)
            if box.value != "qqzzxxyy":
                box.value = "qqzzxxyy"
                await settle(pilot, app)
            target = {"search": box, "results": screen.query_one(ResultsList), "reader": screen.query_one(ReaderPane)}
            if app.focused is not target[focus]:  # already there: nothing to wait for
                target[focus].focus()
                await pilot.pause()

        await back_to()
        await press_everything(pilot, app, back_to)
        assert_healthy(app)


@pytest.mark.slow
@pytest.mark.parametrize(
    "make_screen",
    [
        lambda app: BookmarksScreen(set(), app.store_access),
        lambda app: HelpScreen(),
        lambda app: Chooser("Pick", []),
        lambda app: SavedSearches(app.store, []),
        lambda app: NameDialog(""),
        lambda app: NoteDialog("headline", ""),
        lambda app: TagsDialog("headline", ()),
        lambda app: LinkPicker("Pick", ()),
    ],
    ids=["bookmarks", "help", "chooser", "saved-searches", "name", "note", "tags", "link-picker"],
)
async def test_every_key_in_every_other_screen_with_nothing_in_it(make_app, make_screen):
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot, app)
        await app.push_screen(make_screen(app))
        await pilot.pause()
        kind = type(app.screen)

        async def back_to():
            if not isinstance(app.screen, kind):
                await app.push_screen(make_screen(app))
                await pilot.pause()

        await press_everything(pilot, app, back_to)
        assert_healthy(app)


@pytest.mark.parametrize("size", one_fast([(40, 10), (20, 5)], fast=(20, 5)))
async def test_tiny_terminals(make_app, size):
    app = make_app()
    async with app.run_test(size=size) as pilot:
        await settle(pilot, app)
        await pilot.press(*"kv cache")
        await settle(pilot, app)
        await pilot.press(
            "enter", "enter", "j", "space", "escape", "B", "escape", "question_mark", "escape", "ctrl+t", "escape"
        )
        await settle(pilot, app)
        assert_healthy(app)
        assert app.screen.query_one(ResultsList).paper_ids  # still searching and listing


async def test_resizing_while_typing(make_app):
    app = make_app()
    sizes = [(140, 40), (20, 5), (80, 24), (40, 10), (99, 30), (100, 30), (200, 60)]
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot, app)
        for index, ch in enumerate("graph neural network"):
            app._driver.send_message(events.Key("space" if ch == " " else ch, ch))
            await pilot.resize_terminal(*sizes[index % len(sizes)])
        await settle(pilot, app)
        assert_healthy(app)
        assert app.screen.result.query == "graph neural network"


@pytest.mark.slow
async def test_500_fast_keystrokes_end_on_the_last_query(make_app):
    app = make_app()
    rng = random.Random(7)
    alphabet = 'abcdefghijklmnopqrstuvwxyz      *~"()-:'
    typed = ""
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot, app)
        for _ in range(500):
            if typed and rng.random() < 0.15:
                # Textual runs a bound key (backspace) after printable keys already queued behind it,
                # so let it land before the next character, as it would for a person typing.
                await pilot.press("backspace")
                typed = typed[:-1]
            else:
                ch = rng.choice(alphabet)
                app._driver.send_message(events.Key("space" if ch == " " else ch, ch))
                typed += ch
        await settle(pilot, app)
        await pilot.pause(0.3)
        await settle(pilot, app)
        assert_healthy(app)
        box = app.screen.query_one(SearchBox)
        assert box.value == typed
        if typed.strip():
            assert app.screen.result is not None and app.screen.result.query == " ".join(typed.split())


async def test_an_unwritable_cache_still_opens_and_searches_with_a_notice(tmp_path, monkeypatch):
    from search.corpus.loader import load_corpus
    from search.engine import SearchEngine
    from search.user.store import UserStore

    blocker = tmp_path / "cache"
    blocker.write_text("a file where the cache dir should be")
    shown = []
    original = ReaderApp.notify
    monkeypatch.setattr(
        ReaderApp,
        "notify",
        lambda self, message, *a, **k: shown.append(str(message)) or original(self, message, *a, **k),
    )
    app = ReaderApp(SearchEngine(load_corpus(), blocker), store=UserStore())
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot, app)
        await pilot.press(*"bitstack")
        await settle(pilot, app)
        assert_healthy(app)
        assert any("index kept in memory" in message for message in shown)
        assert app.screen.result.total == 1


def test_the_pilot_looks_for_idle_in_the_slices_the_suite_sets():
    """tests/conftest.py shortens the slices Textual's pilot sleeps in while it waits for the app to
    go idle; this fails when Textual renames the module globals its wait reads at each call."""
    from textual import _wait

    from tests.conftest import PILOT_IDLE_SLICE

    assert _wait.SLEEP_GRANULARITY == PILOT_IDLE_SLICE
    assert _wait.SLEEP_IDLE == PILOT_IDLE_SLICE / 20
    assert {"SLEEP_GRANULARITY", "SLEEP_IDLE"} <= set(_wait.wait_for_idle.__code__.co_names)


def test_a_size_parametrised_test_runs_one_size_in_the_fast_loop_and_every_size_in_make_test():
    from tests.tui.conftest import one_fast

    first, *others = one_fast([(140, 40), (80, 24), (60, 20)])
    assert first == (140, 40) and [other.values for other in others] == [((80, 24),), ((60, 20),)]
    assert all([mark.name for mark in other.marks] == ["slow"] for other in others)
    chosen = one_fast([140, 80, 60, 40], fast=40)
    assert chosen[3] == 40 and all(value.marks[0].name == "slow" for value in chosen[:3])


async def test_a_cache_folder_that_cannot_be_written_is_told_once_at_start(tmp_path, monkeypatch, seed_engine, notices):
    """The index already built (no build to fail): the app still says the cache cannot be written,
    once, and works from memory. A cold build's own "index kept in memory" is not said again."""
    from search.corpus.loader import load_corpus
    from search.engine import SearchEngine
    from search.user.store import UserStore
    from tui import app as app_module

    (tmp_path / "file").write_text("a file where the cache folder's parent should be")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "file" / "cache"))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    started: list[ReaderApp] = []
    monkeypatch.setattr(ReaderApp, "run", lambda self, *a, **k: started.append(self))
    monkeypatch.setattr(seed_engine, "save_for_next_start", lambda: None)
    app_module.run_app(seed_engine)  # what the program starts: it looks at the user's cache folder
    problem = started[0].cache_problem
    assert problem is not None and "Cannot write" in problem and "kept in memory" in problem
    assert app_module.cache_problem(tmp_path / "writable") is None

    for engine in (seed_engine, SearchEngine(load_corpus(), tmp_path / "file" / "cache")):
        notices.clear()
        app = ReaderApp(engine, store=UserStore(tmp_path / "store"), cache_problem=problem)
        async with app.run_test(size=(100, 30)) as pilot:
            await settle(pilot, app)
            await pilot.press(*"bitstack")
            await settle(pilot, app)
            assert_healthy(app)
            assert app.screen.result.total == 1
        said = [notice for notice in notices if "Cannot write" in notice or "kept in memory" in notice]
        assert said == [problem]
