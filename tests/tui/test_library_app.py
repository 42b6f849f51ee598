"""Lists in the app (issue 38): the ctrl+g picker marks the lists already in the library and offers to
update (a conditional request) or remove them; the palette's Library view lists every loaded list
with its source, size and date, searches only one, updates, removes and brings a removed one back.
Every download is from the local server the tests start."""

from __future__ import annotations

import re

import pytest
from textual.widgets import OptionList

from search import Library, SearchEngine, UserStore
from tests.sources.server import records
from tests.tui.conftest import one_fast, settle
from tests.tui.test_get_cli import serve_list
from tui.app import ReaderApp
from tui.cli import main
from tui.screens.choosers import Chooser
from tui.screens.get_list import GetListScreen
from tui.screens.library_view import LibraryScreen
from tui.widgets.search_box import SearchBox

DAY = r"\d{4}-\d\d-\d\d"


@pytest.fixture
def library_app(server, capsys):
    """The app over the bundled list and nips2024 (12 papers), got from the local server first."""
    serve_list(server, "nips2024", records(12, "n"))
    assert main(["get", "nips2024"]) == 0
    capsys.readouterr()
    return ReaderApp(SearchEngine.from_paths(), store=UserStore())


async def wait_until(pilot, app, condition, rounds: int = 400) -> None:
    for _ in range(rounds):
        if condition():
            return
        await pilot.pause(0.05)
    raise AssertionError("the app never got there")


def nips_papers(app) -> int:
    return sum(paper_id.startswith("n") and paper_id[1:].isdigit() for paper_id in app.screen.engine.by_id)


def option_texts(screen) -> list[str]:
    options = screen.query_one(OptionList)
    return [str(options.get_option_at_index(index).prompt) for index in range(options.option_count)]


@pytest.mark.parametrize("size", one_fast([(140, 40), (80, 24), (60, 20)]))
async def test_the_picker_marks_a_list_you_have_and_updates_it_only_if_it_changed(server, library_app, notices, size):
    app = library_app
    async with app.run_test(size=size) as pilot:
        await settle(pilot, app)
        await pilot.press("ctrl+g", *"nips 2024")
        await pilot.pause()
        assert isinstance(app.screen, GetListScreen)
        first = option_texts(app.screen)[0]
        assert re.fullmatch(rf"NeurIPS 2024  nips2024  ✓ in your library · 12 papers · paperlists · {DAY}", first)
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(app.screen, Chooser) and app.screen.title_text.startswith("nips2024 is in your library")
        await pilot.press("1")  # update: the server says 304
        await wait_until(pilot, app, lambda: any("unchanged" in notice for notice in notices))
        host = server.url.removeprefix("http://")
        assert notices[-1] == f"nips2024: unchanged (checked {host})"
        assert server.seen[-1].headers.get("if-none-match") == '"v1"'  # a conditional request
        serve_list(server, "nips2024", records(13, "n"), etag='"v2"')
        await pilot.press("ctrl+g", *"neurips2024", "enter")  # typed as people say it: the same list
        await pilot.pause()
        assert isinstance(app.screen, Chooser) and app.screen.title_text.startswith("nips2024 is in your library")
        await pilot.press("1")
        await wait_until(pilot, app, lambda: nips_papers(app) == 13)
        await settle(pilot, app)
        assert "nips2024: updated, 13 papers (indexed now)" in notices


async def test_remove_from_the_picker_and_bring_it_back_from_the_library_view(library_app, notices):
    app = library_app
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot, app)
        assert nips_papers(app) == 12
        await pilot.press("ctrl+g", *"nips2024", "enter", "2")  # remove
        await wait_until(pilot, app, lambda: nips_papers(app) == 0)
        await settle(pilot, app)
        assert Library().find("nips2024") is None
        assert notices[-1].startswith("Removed nips2024 from your library")
        await pilot.press("ctrl+p", *"library")
        await pilot.pause()
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(app.screen, LibraryScreen)
        assert "u brings back nips2024" in str(app.screen.query_one(".dialog-help").content)
        await pilot.press("u")
        await wait_until(pilot, app, lambda: nips_papers(app) == 12)
        await settle(pilot, app)
        assert Library().find("nips2024") is not None and notices[-1] == "Brought back nips2024"
        await pilot.press("ctrl+f", *"list:nips2024 quokka3")
        await settle(pilot, app)
        assert "1 match" in app.sub_title


@pytest.mark.parametrize("size", one_fast([(140, 40), (80, 24), (60, 20)]))
async def test_the_library_view_lists_every_list_and_searches_only_one(library_app, notices, size):
    app = library_app
    async with app.run_test(size=size) as pilot:
        await settle(pilot, app)
        await pilot.press("ctrl+p", *"library")
        await pilot.pause()
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(app.screen, LibraryScreen)
        rows = option_texts(app.screen)
        assert rows[0] == "iclr2025  38 papers · bundled"
        assert re.fullmatch(rf"nips2024  12 papers · paperlists · {DAY}", rows[1])
        await pilot.press("r")  # the bundled list: nothing to update, the view stays
        await pilot.pause()
        assert isinstance(app.screen, LibraryScreen) and "iclr2025 is bundled" in notices[-1]
        await pilot.press("down", "enter")
        await settle(pilot, app)
        assert app.screen.query_one(SearchBox).value == "list:nips2024 "
        assert app.sub_title.startswith("iclr2025, nips2024 · 12 matches")
