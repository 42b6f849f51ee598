"""A key that moves the focus or opens a screen, with more keys behind it in the same burst: those
keys go where the first sent the focus (tui/key_order.py), as they do one at a time. Every burst is
queued before the app handles its first key, so nothing here depends on timing."""

from __future__ import annotations

import asyncio
import threading

import pytest
from textual import events
from textual._xterm_parser import XTermParser
from textual.command import CommandPalette
from textual.widgets import Input

from tests.tui.conftest import settle
from tests.tui.test_typing_order import burst
from tui.key_order import esc_kept
from tui.screens.choosers import NameDialog
from tui.screens.dialogs import TagsDialog
from tui.screens.help import HelpScreen
from tui.screens.main import MainScreen
from tui.widgets.reader import ReaderPane
from tui.widgets.results_list import ResultsList
from tui.widgets.search_box import SearchBox


async def test_slash_then_letters_type_in_the_search_box_not_the_results(make_app):
    """The tester's burst from the results: `/ y z` copied a link (y) instead of typing "yz"."""
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot, app)
        await pilot.press("tab")
        assert isinstance(app.focused, ResultsList)
        box = app.screen.query_one(SearchBox)
        burst(app, "/", "y", "z")
        await settle(pilot, app)
        assert app.focused is box
        assert box.value == "yz"
        assert not app.screen.has_class("list-only")  # z (the results' list-only key) did not act


async def test_a_dialog_opened_by_a_key_gets_the_keys_typed_after_it(make_app):
    """ctrl+s (save search) then a name, in one burst from the search box."""
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot, app)
        await pilot.press(*"graph")
        await settle(pilot, app)
        burst(app, "ctrl+s", "ctrl+u", *"mine")
        await settle(pilot, app)
        assert isinstance(app.screen, NameDialog)
        assert app.screen.query_one("#name", Input).value == "mine"
        main = next(screen for screen in app.screen_stack if isinstance(screen, MainScreen))
        assert main.query_one(SearchBox).value == "graph"


async def test_the_tags_dialog_gets_the_tags_typed_after_t(make_app):
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot, app)
        await pilot.press("tab")
        burst(app, "t", *"abc")
        await settle(pilot, app)
        assert isinstance(app.screen, TagsDialog)
        assert app.screen.query_one("#tags", Input).value == "abc"


async def test_help_then_its_filter_then_esc_then_a_search(make_app):
    """f1 opens help, letters filter it, esc closes it, and the keys after esc reach the main screen."""
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot, app)
        await pilot.press("tab")
        burst(app, "f1", *"tag")
        await settle(pilot, app)
        assert isinstance(app.screen, HelpScreen)
        assert app.screen.query_one("#help-filter", Input).value == "tag"
        burst(app, "escape", "/", *"net")
        await settle(pilot, app)
        assert isinstance(app.screen, MainScreen)
        assert app.screen.query_one(SearchBox).value == "net"


async def test_esc_closing_a_dialog_then_keys_reach_the_screen_below(make_app):
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot, app)
        await pilot.press("tab", "t")
        await settle(pilot, app)
        assert isinstance(app.screen, TagsDialog)
        burst(app, "escape", "/", *"gan")
        await settle(pilot, app)
        assert isinstance(app.screen, MainScreen)
        assert app.screen.query_one(SearchBox).value == "gan"


def read_at_once(app, data: str) -> None:
    """Queue the keys Textual's terminal reader makes of `data` read in one go (as a busy app reads
    what was typed while it worked), the end of input standing for the pause after it."""
    parser = XTermParser()
    for event in [*parser.feed(data), *parser.feed("")]:
        event.set_sender(app)
        app.post_message(event)


@pytest.mark.parametrize("word", ["graph", "Graph"])
async def test_esc_read_with_the_word_after_it_still_clears_the_search_box(make_app, word):
    """The tester's session: "language model", esc, "graph neural net" gave "language modelgraph
    neural net" when the app read esc and g together (the reader made them alt+g, which typed g)."""
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot, app)
        await pilot.press(*"language", "space", *"model")
        await settle(pilot, app)
        read_at_once(app, "\x1b" + word)
        await settle(pilot, app)
        assert app.screen.query_one(SearchBox).value == word


def test_alt_and_a_key_with_no_character_is_left_alone():
    """Only a key the reader made of esc and a character is split: alt+delete stays alt+delete."""
    key = events.Key("alt+delete", None)
    assert esc_kept(key) == [key]
    assert [k.key for k in esc_kept(events.Key("alt+shift+g", "G"))] == ["escape", "G"]


async def test_keys_one_at_a_time_are_not_held(make_app):
    """With no burst, nothing waits: each key has gone through before the next is read."""
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot, app)
        await pilot.press("tab", "/", *"ab")
        await settle(pilot, app)
        assert app.screen.query_one(SearchBox).value == "ab"
        assert app._keys.holding == 0


async def test_keys_after_enter_go_to_the_paper_opened_not_the_list(make_app):
    """enter opens the highlighted paper in the reader: j after it scrolls the paper, the list's
    selection stays on the paper opened."""
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot, app)
        await pilot.press("tab")
        results = app.screen.query_one(ResultsList)
        opened = results.current_id
        burst(app, "enter", "j", "j")
        await settle(pilot, app)
        assert isinstance(app.focused, ReaderPane)
        assert results.current_id == opened


def test_no_character_is_a_priority_binding():
    """KeysInTurn sends a character typed into a text box at once (the box takes it): a priority
    binding on a character would run in the app before the box and could move the focus."""
    import re
    from pathlib import Path

    from textual.app import App

    tui = Path(__file__).resolve().parents[2] / "tui"
    bound = [
        match.group(1)
        for path in tui.rglob("*.py")
        for match in re.finditer(r'Binding\(\s*"([^"]+)"[^)]*priority=True', path.read_text(encoding="utf-8"))
    ]
    bound += [binding.key for binding in App.BINDINGS if getattr(binding, "priority", False)]
    assert bound and all(len(key) > 1 and key not in {"space"} for keys in bound for key in keys.split(",")), bound


async def test_a_key_whose_way_is_lost_does_not_hold_the_keyboard_for_good(make_app):
    """The safety net: were the callback following a key dropped, the keys behind it would wait
    for ever; check_stuck (on a 1 s interval in the app, called here with a late clock) lets them go."""
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot, app)
        await pilot.press("tab")
        results = app.screen.query_one(ResultsList)
        results.call_later = lambda *args, **kwargs: True  # the callback is "queued", and never runs
        burst(app, "j", "/", *"ok")
        read = asyncio.Event()
        app.call_later(read.set)
        await read.wait()
        assert app.keys_pending and app._keys.holding == 3
        del results.call_later
        app.call_later(app._keys.check_stuck, float("inf"))
        await settle(pilot, app)
        assert not app.keys_pending
        assert app.screen.query_one(SearchBox).value == "ok"


def held_search(monkeypatch, engine, text: str) -> tuple[threading.Event, threading.Event]:
    """Make the engine's search of `text` wait until the first event is set; the second is set once
    it has begun (the test reads the keys behind it meanwhile)."""
    held, searching = threading.Event(), threading.Event()
    search = engine.search

    def slow_search(request, cancel=None):
        if getattr(request, "text", request) == text:
            searching.set()
            held.wait(30)
        return search(request, cancel)

    monkeypatch.setattr(engine, "search", slow_search)
    return held, searching


async def test_keys_after_enter_wait_for_the_results_of_what_was_typed(make_app, monkeypatch):
    """The tester's burst `kernel` enter j b bookmarked the second paper of the list shown before
    the search (the unfiltered list): j and b now act once the query's results are shown. The
    search of the whole word is held back until the keys are read, so nothing depends on timing."""
    from tui import key_order

    monkeypatch.setattr(key_order, "STUCK_SECONDS", 3600.0)  # the safety net never fires here
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot, app)
        screen = app.screen
        results = screen.query_one(ResultsList)
        before = list(results.paper_ids)
        held, searching = held_search(monkeypatch, screen.session.engine, "diffusion")
        burst(app, *"diffusion", "enter", "j", "b")
        while not searching.is_set():
            await asyncio.sleep(0.005)
        for _ in range(5):
            await pilot.pause()  # the keys behind enter are read meanwhile
        assert not app.store.bookmarks()  # b waits for the results (the old code had bookmarked before[1])
        held.set()
        await settle(pilot, app)
        assert results.paper_ids != before and results.highlighted == 1
        marked = [paper_id for paper_id in results.paper_ids if screen.shows_bookmarked(paper_id)]
        assert marked == [results.paper_ids[1]]
        assert before[1] not in marked and [bookmark.paper_id for bookmark in app.store.bookmarks()] == marked


async def test_esc_after_enter_goes_back_without_waiting_for_the_results(make_app, monkeypatch):
    """Keys after enter wait for the results of what was typed (the test above), but esc acts on no
    listed paper: it goes back to the search box at once, the search still running."""
    from tui import key_order

    monkeypatch.setattr(key_order, "STUCK_SECONDS", 3600.0)  # the safety net never fires here
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot, app)
        held, searching = held_search(monkeypatch, app.screen.session.engine, "diffusion")
        burst(app, *"diffusion", "enter", "escape")
        try:
            while not searching.is_set():
                await asyncio.sleep(0.005)
            for _ in range(5):
                await pilot.pause()
            assert isinstance(app.focused, SearchBox)  # the old code held esc in the list
        finally:
            held.set()
        await settle(pilot, app)
        assert isinstance(app.focused, SearchBox) and app.focused.value == "diffusion"


async def test_keys_after_r_move_in_the_related_list(make_app):
    """r (related papers) searches `related:<id>`: j j behind it in one burst move in that list, as
    they do one at a time, not in the list before it."""
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot, app)
        await pilot.press("tab")
        results = app.screen.query_one(ResultsList)
        burst(app, "r", "j", "j")
        await settle(pilot, app)
        assert app.screen.query_one(SearchBox).value.startswith("related:")
        assert results.highlighted == 2


async def test_keys_after_a_palette_command_that_opens_another_palette_reach_the_new_one(make_app):
    """The tester's burst ctrl+p `theme` enter `nord` showed "ord": the n went to the palette that enter
    was closing (enter submits, selects the command, closes the palette and runs the command: a
    message each, queued one after another in the palette's widgets)."""
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot, app)
        burst(app, "ctrl+p", *"theme", "enter", *"nord")
        await settle(pilot, app)
        assert isinstance(app.screen, CommandPalette)
        assert app.screen.query_one(Input).value == "nord"
        await pilot.press("enter")
        await settle(pilot, app)
        assert app.theme == "nord"


async def test_a_burst_of_j_in_the_reader_scrolls_a_line_each(make_app):
    """Ten j in one burst in the paper opened scrolled five lines: each j reckoned its line before
    the one before it had moved (Textual scrolls after the next refresh)."""
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot, app)
        await pilot.press("tab", "enter")
        await settle(pilot, app)
        reader = app.screen.query_one(ReaderPane)
        assert app.focused is reader and reader.max_scroll_y > 12
        burst(app, *"j" * 10)
        await settle(pilot, app)
        await pilot.wait_for_scheduled_animations()
        assert reader.scroll_y == 10
        burst(app, *"k" * 3)
        await settle(pilot, app)
        await pilot.wait_for_scheduled_animations()
        assert reader.scroll_y == 7
