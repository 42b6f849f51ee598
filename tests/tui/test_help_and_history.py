"""The help screen (keys and the query language, at every terminal size), the link picker in a small
terminal, and the search box's history of queries the user paused on or left."""

from __future__ import annotations

import re

import pytest
from textual.app import App, ComposeResult
from textual.geometry import Region

from search.query import facets, parse
from tests.tui.conftest import one_fast, settle
from tui.screens.dialogs import LinkPicker
from tui.screens.help import HelpScreen
from tui.widgets import search_box
from tui.widgets.results_list import ResultsList
from tui.widgets.search_box import SearchBox

SIZES = {"140x40": (140, 40), "80x24": (80, 24), "60x20": (60, 20)}


def lines_of(widget) -> list[str]:
    """The widget's text as laid out on screen, one string per line (all of it, scrolled or not)."""
    width, height = widget.size
    return [strip.text.rstrip() for strip in widget.render_lines(Region(0, 0, width, height))]


async def open_help(pilot, app, filter_text=""):
    await settle(pilot, app)
    await pilot.press("down", "question_mark")
    assert isinstance(app.screen, HelpScreen)
    if filter_text:
        await pilot.press(*filter_text)
    await pilot.pause()
    return lines_of(app.screen.query_one("#help-keys"))


# -- help ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("size", one_fast(SIZES))
async def test_help_descriptions_read_as_sentences_at_every_size(make_app, size):
    """At 60x20 the action column was 11 wide, one word per line; each short description must
    now fit on one line next to its key."""
    app = make_app()
    async with app.run_test(size=SIZES[size]) as pilot:
        lines = await open_help(pilot, app)
        for key, description in [("/  ctrl+f", "Focus the search box"), ("tab  shift+tab", "Next / previous pane")]:
            assert any(key in line and description in line for line in lines), (key, lines[:12])


@pytest.mark.parametrize("size", one_fast(SIZES))
async def test_help_shows_the_query_language(make_app, size):
    app = make_app()
    async with app.run_test(size=SIZES[size]) as pilot:
        text = "\n".join(await open_help(pilot, app))
    for typed in ['"exact phrase"', "compress*", "transformr~", "title:graph", "graph NOT neural", "related:ID"]:
        assert typed in text


async def test_the_help_filter_finds_query_language_entries(make_app):
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        text = "\n".join(await open_help(pilot, app, "fuzzy"))
        assert "transformr~" in text and "ctrl+f" not in text
        await pilot.press(*(["backspace"] * 5), *"has:")
        await pilot.pause()
        text = "\n".join(lines_of(app.screen.query_one("#help-keys")))
        assert "has:code" in text and "-has:code" in text  # the filters
        assert "ctrl+t" in text  # and the key that toggles them
        assert "ctrl+f" not in text


async def test_a_filter_that_matches_nothing_says_so(make_app):
    app = make_app()
    async with app.run_test(size=(60, 20)) as pilot:
        lines = await open_help(pilot, app, "qqzz")
    assert lines[0] == "Nothing matches “qqzz”."


def test_the_help_names_every_facet_and_field_the_query_language_has():
    """A facet or field added to the engine without a help entry fails here."""
    from tui.keys import QUERY_SYNTAX

    text = " ".join(f"{typed} {description}" for _, typed, description in QUERY_SYNTAX)
    names = re.search(r"\(([a-z|]+)\):", facets.FACET.pattern).group(1).split("|")
    assert {"list", "venue", "status", "has", "is", "sort", "related"} <= set(names)
    for name in names:
        assert f"{name}:" in text, name
    values = [("has", facets.HAS), ("is", facets.IS), ("sort", facets.SORTS), ("match", getattr(facets, "MATCHES", ()))]
    for name, choices in values:
        for choice in choices:
            assert f"{name}:{choice}" in text, f"{name}:{choice}"
    fields = [*parse.SEARCH_FIELDS, *(alias for aliases in parse.FIELD_ALIASES.values() for alias in aliases)]
    for field in fields:
        assert f"{field}:" in text, field


async def test_arrow_keys_scroll_the_help_while_the_filter_has_the_focus(make_app):
    app = make_app()
    async with app.run_test(size=(60, 20)) as pilot:
        await open_help(pilot, app)
        scroll = app.screen.query_one("#help-scroll")
        await pilot.press("pagedown", "down")
        await pilot.pause()
        assert scroll.scroll_y > 0
        await pilot.press(*"x")  # typing still filters
        assert app.screen.query_one("#help-filter").value == "x"


# -- the link picker in a small terminal -------------------------------------------------------


async def test_the_link_picker_fits_a_60x20_terminal(make_app):
    app = make_app()
    async with app.run_test(size=(60, 20)) as pilot:
        await settle(pilot, app)
        await pilot.press(*"graphbridge")
        await settle(pilot, app)
        await pilot.press("enter", "Y")
        await pilot.pause()
        assert isinstance(app.screen, LinkPicker)
        dialog = app.screen.query_one("LinkPicker > Vertical")
        links = app.screen.query_one("#links")
        assert links.option_count == 6
        assert links.virtual_size.height == 6  # one line per link
        assert links.max_scroll_y == 0  # all of them in view
        assert str(links.get_option_at_index(1).prompt).startswith("[2] OpenReview page  openreview.net/forum")
        help_line = app.screen.query_one(".dialog-help")
        assert dialog.region.contains_region(help_line.region) and help_line.region.height == 1


# -- query history ------------------------------------------------------------------------------


@pytest.fixture
def no_pauses(monkeypatch):
    """Typing never pauses on its own: a test says when the user stopped (box.typing_paused())."""
    monkeypatch.setattr(search_box, "PAUSE_SECONDS", 3600)


@pytest.fixture
def quick_pauses(monkeypatch):
    monkeypatch.setattr(search_box, "PAUSE_SECONDS", 0.05)


async def type_in(pilot, app, text):
    await pilot.press(*text)
    await settle(pilot, app)


async def test_a_query_paused_on_is_recalled_without_pressing_enter(make_app, quick_pauses):
    app = make_app()
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(pilot, app)
        box = app.screen.query_one(SearchBox)
        await type_in(pilot, app, "kv cache")
        await pilot.pause(0.3)  # the user reads the results
        await pilot.press("escape")  # clears the query
        await type_in(pilot, app, "graph")
        await pilot.pause(0.3)
        await pilot.press("up")
        assert box.value == "kv cache"
        await pilot.press("down")
        assert box.value == "graph"


async def test_prefixes_typed_on_the_way_are_not_recorded(make_app, no_pauses):
    app = make_app()
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(pilot, app)
        box = app.screen.query_one(SearchBox)
        await type_in(pilot, app, "kv cache")
        assert box.history == []  # typing without a pause records nothing
        box.typing_paused()
        assert box.history == ["kv cache"]
        await pilot.press("escape")
        await type_in(pilot, app, "gra")  # a slow typist stops half way
        box.typing_paused()
        await type_in(pilot, app, "ph neural")
        box.typing_paused()
        await pilot.press("enter")
        assert box.history == ["kv cache", "graph neural"]


async def test_a_recall_in_progress_is_not_disturbed_by_the_pause(make_app, quick_pauses):
    app = make_app()
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(pilot, app)
        box = app.screen.query_one(SearchBox)
        for query in ("kv cache", "graph", "bitstack"):
            await type_in(pilot, app, query)
            await pilot.press("enter", "slash", "escape")
        await pilot.press("up", "up")
        assert box.value == "graph"
        await pilot.pause(0.3)  # longer than a pause: reading the recalled query's results
        await pilot.press("up")
        assert box.value == "kv cache"
        assert box.history == ["kv cache", "graph", "bitstack"]


async def test_leaving_the_box_records_the_query_once(make_app, no_pauses):
    app = make_app()
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(pilot, app)
        box = app.screen.query_one(SearchBox)
        await type_in(pilot, app, "graph")
        box.typing_paused()
        await pilot.press("tab")
        assert isinstance(app.focused, ResultsList)
        await pilot.press("slash")
        await pilot.press("down")  # to the results again: still one entry
        await pilot.press("slash", "escape")
        await type_in(pilot, app, "kv cache")
        await pilot.press("tab")  # tab alone records it
        assert box.history == ["graph", "kv cache"]


class BoxApp(App[None]):
    """A search box alone, whose queries have results unless they contain a z."""

    def compose(self) -> ComposeResult:
        yield SearchBox(has_results=lambda query: "z" not in query)


async def test_a_pause_on_a_query_without_results_is_not_recorded(quick_pauses):
    app = BoxApp()
    async with app.run_test() as pilot:
        box = app.query_one(SearchBox)
        await pilot.press(*"zzqq")
        await pilot.pause(0.3)
        assert box.history == []
        await pilot.press("home", "delete", "delete")
        await pilot.pause(0.3)
        assert box.history == ["qq"]
        await pilot.press("enter")  # a query the user confirms is kept, results or not
        await pilot.press(*"zz", "enter")
        assert box.history == ["qq", "zzqq"]
