"""Snapshots of the main screens at 80x24 and 140x40. Update only after reading the report:
pytest tests/tui/test_snapshots.py --snapshot-update"""

import pytest
from textual.widgets import Input

from tests.tui.conftest import settle
from tui.widgets.search_box import SearchBox

SIZES = {"80x24": (80, 24), "140x40": (140, 40)}


def prepared(*keys):
    async def run_before(pilot):
        app = pilot.app
        await settle(pilot, app)
        app.screen.query_one(SearchBox).cursor_blink = False
        for key in keys:
            await pilot.press(key)
            await settle(pilot, app)
        for box in app.screen.query(Input):  # a screen opened by the keys (help's filter) blinks too
            box.cursor_blink = False
        await settle(pilot, app)

    return run_before


@pytest.mark.parametrize("size", SIZES)
def test_start_screen(snap_compare, make_app, size):
    assert snap_compare(make_app(), terminal_size=SIZES[size], run_before=prepared())


@pytest.mark.parametrize("size", SIZES)
def test_search_results(snap_compare, make_app, size):
    assert snap_compare(make_app(), terminal_size=SIZES[size], run_before=prepared(*"kv cache"))


@pytest.mark.parametrize("size", SIZES)
def test_reader_open(snap_compare, make_app, size):
    keys = [*"bitstack", "enter", "enter"]
    assert snap_compare(make_app(), terminal_size=SIZES[size], run_before=prepared(*keys))


@pytest.mark.parametrize("size", SIZES)
def test_empty_state_and_did_you_mean(snap_compare, make_app, size):
    assert snap_compare(make_app(), terminal_size=SIZES[size], run_before=prepared(*"wasserstien "))


@pytest.mark.parametrize("size", SIZES)
def test_help_screen(snap_compare, make_app, size):
    assert snap_compare(make_app(), terminal_size=SIZES[size], run_before=prepared("down", "question_mark"))
