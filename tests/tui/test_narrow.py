"""Narrow terminals: the match count always in the header, titles before the venue column, and
dialogs whose hint line and choices stay on screen."""

from __future__ import annotations

import pytest

from search.user.store import UserStore
from tests.tui.conftest import one_fast, settle
from tests.tui.test_browsing import engine_of, long_titles, row_line, screen_line
from tui.app import ReaderApp
from tui.widgets.results_list import ResultsList

SMALL_SIZES = [(80, 24), (60, 20)]


def screen_text(app) -> str:
    return "\n".join(screen_line(app, y) for y in range(app.size.height))


@pytest.fixture(scope="module")
def three_lists(tmp_path_factory):
    """120 papers in three lists with their venues, indexed once for the module."""
    return engine_of(
        tmp_path_factory.mktemp("narrow"),
        long_titles(40, "ICLR 2018"),
        long_titles(40, "AISTATS 2024", word="tree"),
        long_titles(40, "COLM 2025", word="memory"),
    )


@pytest.mark.parametrize("width", one_fast([140, 80, 60, 40], fast=40))
async def test_the_header_always_shows_the_match_count(three_lists, width):
    app = ReaderApp(three_lists, store=UserStore())
    async with app.run_test(size=(width, 20)) as pilot:
        await settle(pilot, app)
        await pilot.press(*"graph learning with a title long enough to need more columns")
        await settle(pilot, app)
        header = screen_line(app, 0)
        assert "120 matches · 40 with all" in header, header


@pytest.mark.parametrize("width", [140, 60])
async def test_the_venue_column_gives_way_to_titles(three_lists, width):
    app = ReaderApp(three_lists, store=UserStore())
    async with app.run_test(size=(width, 20)) as pilot:
        await settle(pilot, app)
        line = row_line(app, 0)
        title = line[line.index("Paper") :].split("…")[0].rstrip("│ ")
        if width == 140:
            assert "ICLR 2018" in line and len(title) >= 50, line
        else:  # one pane of 56 columns: the venue goes, the title keeps all but the markers' columns
            assert "ICLR 2018" not in line, line
            assert len(title) >= app.screen.query_one(ResultsList).scrollable_content_region.width - 4, line


@pytest.mark.parametrize("size", one_fast(SMALL_SIZES, fast=(60, 20)))
async def test_the_get_picker_keeps_its_hint_line_on_screen(make_app, size):
    app = make_app()
    async with app.run_test(size=size) as pilot:
        await settle(pilot, app)
        await pilot.press("ctrl+g")
        await settle(pilot, app)
        shown = screen_text(app)
        assert "Get a list" in shown and "enter get" in shown and "esc" in shown, shown


@pytest.mark.parametrize("size", one_fast(SMALL_SIZES, fast=(60, 20)))
async def test_the_filter_menu_shows_its_sort_orders_and_hint(tmp_path, size):
    statuses = [  # many statuses, as real lists have
        {**record, "status": f"Status {n % 9}"} for n, record in enumerate(long_titles(60))
    ]
    app = ReaderApp(engine_of(tmp_path, statuses), store=UserStore())
    async with app.run_test(size=size) as pilot:
        await settle(pilot, app)
        await pilot.press("ctrl+t")
        await settle(pilot, app)
        shown = screen_text(app)
        for order in ("sort:relevance", "sort:order", "sort:name", "match:all"):
            assert order in shown, shown
        assert "esc cancel" in shown, shown
