"""The core loop never crashes: scroll down the result list, then search again, every way a user
found to do it (each of these exited with DuplicateID on the OptionList-based list)."""

from __future__ import annotations

import dataclasses

import pytest

from tests.tui.conftest import one_fast, settle
from tests.tui.walk import assert_consistent, walk_corpus
from tui.app import ReaderApp
from tui.screens.choosers import Chooser
from tui.widgets.results_list import ResultsList
from tui.widgets.search_box import SearchBox

SIZES = [(140, 40), (80, 24)]


@pytest.fixture(scope="module")
def big_engine(tmp_path_factory):
    """1,200 papers in two lists, most of them "learning", some with code."""
    return walk_corpus(tmp_path_factory.mktemp("core-loop"))


def app_over(engine) -> ReaderApp:
    from search.user.store import UserStore

    return ReaderApp(engine, store=UserStore())


async def test_scrolling_down_the_bundled_list_then_searching_again(make_app):
    """80x24, the bundled list: down, j x20, /, g."""
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot, app)
        await pilot.press("down", *["j"] * 20)
        await settle(pilot, app)
        results = app.screen.query_one(ResultsList)
        assert results.highlighted == 20
        await pilot.press("slash", "g")
        await settle(pilot, app)
        assert app.screen.query_one(SearchBox).value == "g"
        assert app.screen.result is not None and app.screen.result.query == "g"
        assert results.highlighted == 0 and results.scroll_y == 0
        assert_consistent(app, "down j*20 / g")


@pytest.mark.parametrize("size", one_fast(SIZES))
async def test_the_last_of_a_long_result_then_back_to_every_paper(big_engine, size):
    """More matches than a page: learning, enter, G, esc, esc (the query cleared: every paper)."""
    app = app_over(big_engine)
    async with app.run_test(size=size) as pilot:
        await settle(pilot, app)
        await pilot.press(*"learning", "enter", "G")
        await settle(pilot, app)
        results = app.screen.query_one(ResultsList)
        total = app.screen.result.total
        assert total > 1000 and len(results.paper_ids) == total and results.highlighted == total - 1
        await pilot.press("escape", "escape")
        await settle(pilot, app)
        assert app.screen.query_one(SearchBox).value == ""
        assert len(results.paper_ids) == len(big_engine.papers) and results.highlighted == 0
        assert_consistent(app, "learning enter G esc esc")


@pytest.mark.parametrize("size", one_fast(SIZES))
async def test_all_words_after_going_to_the_last(big_engine, size):
    """`a` (match:all) after G."""
    app = app_over(big_engine)
    async with app.run_test(size=size) as pilot:
        await settle(pilot, app)
        await pilot.press(*"graph learning", "enter", "G")
        await settle(pilot, app)
        await pilot.press("a")
        await settle(pilot, app)
        assert "match:all" in app.screen.query_one(SearchBox).value
        assert app.screen.query_one(ResultsList).highlighted == 0
        assert_consistent(app, "graph learning enter G a")


@pytest.mark.parametrize("size", one_fast(SIZES))
async def test_related_papers_after_scrolling(big_engine, size):
    """`r` with the selection pages down the list."""
    app = app_over(big_engine)
    async with app.run_test(size=size) as pilot:
        await settle(pilot, app)
        await pilot.press(*"learning", "enter", "pagedown", "pagedown", "pagedown", "j")
        await settle(pilot, app)
        chosen = app.screen.current_paper_id()
        await pilot.press("r")
        await settle(pilot, app)
        assert app.screen.query_one(SearchBox).value.startswith("related:")
        assert chosen not in app.screen.query_one(ResultsList).paper_ids[:1]
        assert_consistent(app, "learning enter pagedown*3 j r")


@pytest.mark.parametrize("size", one_fast(SIZES))
async def test_a_filter_after_paging_down(big_engine, size):
    """ctrl+t, has:code, after pagedown."""
    app = app_over(big_engine)
    async with app.run_test(size=size) as pilot:
        await settle(pilot, app)
        await pilot.press("down", "pagedown", "pagedown", "ctrl+t")
        await settle(pilot, app)
        assert isinstance(app.screen, Chooser)
        app.screen.dismiss("has:code")  # as enter on its row does
        await settle(pilot, app)
        assert app.screen.query_one(SearchBox).value.strip() == "has:code"
        ids = app.screen.query_one(ResultsList).paper_ids
        assert ids and all(big_engine.row(paper_id).has_code for paper_id in ids)
        assert_consistent(app, "down pagedown*2 ctrl+t has:code")


async def test_results_of_a_query_the_box_no_longer_holds_are_never_shown(big_engine):
    """A result can reach the screen after the box changed but before the session heard of it."""
    from textual.widgets import Input

    from tui.messages import SessionFound
    from tui.search_session import FirstPage

    app = app_over(big_engine)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot, app)
        await pilot.press(*"graph")
        await settle(pilot, app)
        screen = app.screen
        box = screen.query_one(SearchBox)
        shown = list(screen.query_one(ResultsList).paper_ids)
        older = screen.session.request
        with box.prevent(Input.Changed):
            box.value = "graph kernel"  # typed; its Changed not handled yet
        late = big_engine.search(dataclasses.replace(older, text="memory"))
        screen.post_message(SessionFound(FirstPage(older, late)))  # the session's current request's answer
        await pilot.pause()
        assert screen.query_one(ResultsList).paper_ids == shown


async def test_a_new_query_while_deep_in_a_long_result_asks_for_nothing_more(big_engine):
    """learning, enter, G, then a new query: its first page is listed, not every match."""
    app = app_over(big_engine)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot, app)
        await pilot.press(*"learning", "enter", "G")
        await settle(pilot, app)
        results = app.screen.query_one(ResultsList)
        assert len(results.paper_ids) > 1000
        asked = []
        more = app.screen.session.more
        app.screen.session.more = lambda: asked.append(1) or more()
        await pilot.press("slash", "end", "space", "g")
        await settle(pilot, app)
        assert not asked and len(results.paper_ids) == 200 and results.more
        assert results.scroll_y == 0 and results.highlighted == 0


async def test_the_wheel_takes_the_hover_highlight_off_the_row_it_left(big_engine):
    app = app_over(big_engine)
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(pilot, app)
        results = app.screen.query_one(ResultsList)
        await pilot.hover(ResultsList, offset=(10, 5))
        assert results._hover == 4
        results.scroll_down(animate=False)
        await pilot.pause()
        assert results._hover is None
