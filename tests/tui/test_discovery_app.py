"""Related papers, the list picker, filter toggles and saved searches, driven through the app's keys."""

from __future__ import annotations

import pytest
from textual.widgets import OptionList

from search.user.store import UserStore
from tests.tui.conftest import WIDE, settle
from tui.app import ReaderApp
from tui.screens.choosers import Chooser, NameDialog, SavedSearches
from tui.widgets.reader import ReaderPane
from tui.widgets.results_list import ResultsList
from tui.widgets.search_box import SearchBox


@pytest.fixture
def two_lists(engine_over):
    return engine_over(
        {
            "iclr2024.json": [
                {
                    "id": "a",
                    "title": "Zebra Graph Networks",
                    "abstract": "Graph neural networks for zebra stripes.",
                    "status": "Oral",
                    "github": "https://github.com/a/a",
                },
                {
                    "id": "b",
                    "title": "Apple Graph Networks",
                    "abstract": "Graph neural networks for apple orchards.",
                    "status": "Poster",
                },
                {
                    "id": "c",
                    "title": "Mango Trees",
                    "abstract": "Decision trees for mango harvests.",
                    "status": "Poster",
                },
            ],
            "nips2023.json": [
                {"id": "d", "title": "Banana Graph Networks", "abstract": "Graph neural networks for banana stripes."},
            ],
        }
    )


def ids(app):
    return app.screen.query_one(ResultsList).paper_ids


def box(app):
    return app.screen.query_one(SearchBox)


async def test_header_names_the_lists_and_the_picker_searches_one(two_lists):
    app = ReaderApp(two_lists, store=UserStore())
    async with app.run_test(size=WIDE) as pilot:
        await settle(pilot, app)
        assert app.sub_title == "iclr2024, nips2023 · 4 papers"
        await pilot.press(*"graph")
        await settle(pilot, app)
        assert sorted(ids(app)) == ["a", "b", "d"]
        await pilot.press("ctrl+l")
        assert isinstance(app.screen, Chooser)
        await pilot.press("3")  # [1] all lists, [2] iclr2024, [3] nips2023
        await settle(pilot, app)
        assert box(app).value == "graph list:nips2023 " and ids(app) == ["d"]
        await pilot.press(*"banana")  # typing goes on as a new word
        await settle(pilot, app)
        assert box(app).value == "graph list:nips2023 banana" and ids(app) == ["d"]
        await pilot.press(*["backspace"] * 7)
        await pilot.press("ctrl+l", "1")
        await settle(pilot, app)
        assert box(app).value == "graph " and len(ids(app)) == 3


async def test_filter_menu_toggles_facets_in_the_query(two_lists):
    app = ReaderApp(two_lists, store=UserStore())
    async with app.run_test(size=WIDE) as pilot:
        await settle(pilot, app)
        await pilot.press(*"graph", "ctrl+t", "1")  # has:code
        await settle(pilot, app)
        assert box(app).value == "graph has:code " and ids(app) == ["a"]
        await pilot.press("ctrl+t", "1")  # again: off
        await settle(pilot, app)
        assert box(app).value == "graph " and len(ids(app)) == 3
        await pilot.press("ctrl+t", "7")  # sort:name (the orders come before the statuses)
        await settle(pilot, app)
        assert ids(app) == ["b", "d", "a"]  # Apple, Banana, Zebra
        await pilot.press("escape", "escape")
        await pilot.press(*"status:oral")
        await settle(pilot, app)
        assert ids(app) == ["a"]


async def test_is_unread_follows_what_was_opened(two_lists):
    app = ReaderApp(two_lists, store=UserStore())
    async with app.run_test(size=WIDE) as pilot:
        await settle(pilot, app)
        await pilot.press(*"graph", "enter", "enter")  # to the results, open the first paper
        await settle(pilot, app)
        opened = app.screen.query_one(ReaderPane).text.plain.split("\n")[0]
        await pilot.press("slash", "ctrl+t", "3")  # is:unread
        await settle(pilot, app)
        assert box(app).value == "graph is:unread " and len(ids(app)) == 2
        assert all(not two_lists.row(pid).headline.startswith(opened) for pid in ids(app))


async def test_r_shows_related_papers_which_open_like_any_result(two_lists):
    app = ReaderApp(two_lists, store=UserStore())
    async with app.run_test(size=WIDE) as pilot:
        await settle(pilot, app)
        await pilot.press(*"zebra", "enter", "r")
        await settle(pilot, app)
        assert box(app).value == "related:a "
        assert ids(app)[0] == "d"  # zebra stripes ~ banana stripes, closer than apples
        assert "a" not in ids(app) and "related to “Zebra Graph Networks”" in app.sub_title
        await pilot.press("enter")
        await settle(pilot, app)
        assert app.screen.query_one(ReaderPane).text.plain.startswith("Banana Graph Networks")


async def test_save_and_recall_searches_with_number_keys_and_the_palette(two_lists):
    store = UserStore()
    app = ReaderApp(two_lists, store=store)
    async with app.run_test(size=WIDE) as pilot:
        await settle(pilot, app)
        await pilot.press(*"graph list:iclr2024", "ctrl+s")
        assert isinstance(app.screen, NameDialog)
        await pilot.press("ctrl+u", *"iclr graphs", "enter")
        await pilot.press("escape")  # clear the query
        await pilot.press(*"mango", "ctrl+s", "enter")  # default name: the query
        await settle(pilot, app)
        assert store.saved_searches() == [("iclr graphs", "graph list:iclr2024"), ("mango", "mango")]
        await pilot.press("escape", "tab", "S")
        assert isinstance(app.screen, SavedSearches)
        await pilot.press("1")
        await settle(pilot, app)
        assert box(app).value == "graph list:iclr2024 " and sorted(ids(app)) == ["a", "b"]
        await pilot.press("S", "d")  # delete "iclr graphs": "mango" becomes [1]
        assert store.saved_searches() == [("mango", "mango")]
        shown = app.screen.query_one(OptionList).get_option_at_index(0).prompt
        assert str(shown).startswith("[1] mango")  # renumbered after the delete
        await pilot.press("1")
        await settle(pilot, app)
        assert box(app).value == "mango " and ids(app) == ["c"]
        store.save_search("iclr graphs", "graph list:iclr2024")
        commands = [command.title for command in app.get_system_commands(app.screen)]
        assert "Saved search: iclr graphs" in commands


async def test_saved_searches_survive_a_restart(two_lists, tmp_path):
    UserStore().save_search("stripes", "stripes")
    app = ReaderApp(two_lists, store=UserStore())
    async with app.run_test(size=WIDE) as pilot:
        await settle(pilot, app)
        await pilot.press("tab", "S", "enter")
        await settle(pilot, app)
        assert box(app).value == "stripes " and sorted(ids(app)) == ["a", "d"]


async def test_with_many_lists_the_header_counts_them_and_the_picker_names_them(engine_over):
    engine = engine_over(
        {f"conf{year}.json": [{"id": f"p{year}", "abstract": f"Paper of {year}."}] for year in range(2020, 2025)}
    )
    app = ReaderApp(engine, store=UserStore())
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot, app)
        assert app.sub_title == "5 lists · 5 papers"
        await pilot.press("ctrl+l")
        assert [label for label, _ in app.screen.choices][1:] == [f"conf{year} · 1 paper" for year in range(2020, 2025)]
