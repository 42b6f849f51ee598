"""The app driven like a user would: keys in, what the widgets show out."""

from __future__ import annotations

import time

from textual.command import CommandPalette

from tests.tui.conftest import WIDE, settle, shown_status
from tui.screens.help import HelpScreen
from tui.widgets.reader import ReaderPane
from tui.widgets.results_list import ResultsList
from tui.widgets.search_box import SearchBox

NARROW = (80, 24)


def names(app):
    results = app.screen.query_one(ResultsList)
    return [app.engine.row(pid).name for pid in results.paper_ids]


def reader_text(app) -> str:
    return app.screen.query_one(ReaderPane).text.plain


def status(app) -> str:
    return shown_status(app)


async def type_query(pilot, app, text):
    await pilot.press(*list(text))
    await settle(pilot, app)


async def test_starts_with_every_paper_in_corpus_order_and_search_focused(make_app, seed_engine):
    app = make_app()
    async with app.run_test(size=WIDE) as pilot:
        await settle(pilot, app)
        results = app.screen.query_one(ResultsList)
        assert results.paper_ids == [p.id for p in seed_engine.papers]
        assert app.sub_title == "iclr2025 · 38 papers"
        assert isinstance(app.focused, SearchBox)
        assert reader_text(app).startswith("Learning to Select Nodes in Branch and Bound")


async def test_a_start_saves_what_it_parsed_once_the_user_pauses(tmp_path, monkeypatch):
    """The first frame and the typing do not wait for the next start's caches: the app writes them
    when no key has come for a moment."""
    from search import SearchEngine, paths
    from search.user.store import UserStore
    from tui import collector
    from tui.app import ReaderApp

    monkeypatch.setattr(collector, "IDLE", 0.2)
    path = tmp_path / "list.txt"
    path.write_text("TEST 2024 list\n\nFirst abstract on graphs.\n\nSecond abstract on kernels.\n", encoding="utf-8")
    engine = SearchEngine.from_paths([path], save_later=True)
    saved = paths.cache_dir() / "corpus"
    assert not list(saved.glob("*.bin"))
    app = ReaderApp(engine, store=UserStore())
    async with app.run_test(size=WIDE) as pilot:
        await settle(pilot, app)
        assert app.sub_title == "list · 2 papers"
        deadline = time.monotonic() + 10
        while not list(saved.glob("*.bin")) and time.monotonic() < deadline:
            await pilot.pause(0.05)
        assert len(list(saved.glob("*.bin"))) == 1


async def test_typing_updates_results_after_each_keystroke(make_app):
    app = make_app()
    async with app.run_test(size=WIDE) as pilot:
        await settle(pilot, app)
        await type_query(pilot, app, "bitst")
        assert names(app) == ["BitStack"]  # the word being typed matches as a prefix
        await type_query(pilot, app, "ack")
        assert names(app) == ["BitStack"]
        assert app.sub_title == "iclr2025 · 1 match for “bitstack”"


async def test_kv_cache_finds_scbench_first_and_highlights_terms(make_app):
    app = make_app()
    async with app.run_test(size=WIDE) as pilot:
        await settle(pilot, app)
        await type_query(pilot, app, "kv cache")
        assert names(app)[0] == "SCBench"
        assert app.sub_title == "iclr2025 · “kv cache”: 2 matches · 1 with all words (a)"
        reader = app.screen.query_one(ReaderPane).text
        highlighted = {reader.plain[s.start : s.end].lower() for s in reader.spans if "yellow" in str(s.style)}
        assert {"kv", "cache"} <= highlighted


async def test_outdated_results_are_never_shown(make_app, seed_engine):
    from search import SearchRequest
    from tui.messages import SessionFound
    from tui.search_session import FirstPage

    app = make_app()
    async with app.run_test(size=WIDE) as pilot:
        await settle(pilot, app)
        await type_query(pilot, app, "climate")
        before = names(app)
        late = FirstPage(SearchRequest("clim"), seed_engine.search("memory"))  # an older query's, arriving late
        app.screen.post_message(SessionFound(late))
        await pilot.pause()
        assert names(app) == before == ["ClimaGen"]


async def test_did_you_mean_empty_state_and_syntax_hint(make_app):
    app = make_app()
    async with app.run_test(size=WIDE) as pilot:
        await settle(pilot, app)
        await type_query(pilot, app, "wasserstien ")
        assert names(app) == ["PAWL"]
        assert "No papers contain “wasserstien”; showing results for “wasserstein”" in status(app)
        await pilot.press("escape")
        await type_query(pilot, app, "qqzzxxyy ")
        assert names(app) == []
        assert "Nothing matches “qqzzxxyy”" in status(app)
        assert "No paper selected" in reader_text(app)
        await pilot.press("escape")
        await type_query(pilot, app, '"kv cache')
        assert names(app)[0] == "SCBench"
        assert "Hint: unbalanced quote" in status(app)


async def test_ctrl_z_searches_a_corrected_query_as_typed_until_it_changes(make_app):
    app = make_app()
    async with app.run_test(size=WIDE) as pilot:
        await settle(pilot, app)
        search = app.screen.query_one(SearchBox)
        await type_query(pilot, app, "grpah ")
        corrected = names(app)
        assert corrected and status(app) == (
            "No papers contain “grpah”; showing results for “graph”. ctrl+z: search “grpah” as typed."
        )
        await pilot.press("ctrl+z")
        await settle(pilot, app)
        assert search.value == "grpah " and names(app) == []
        assert status(app) == "Nothing matches “grpah”. Did you mean “graph”? ctrl+z: search that."
        app.screen.set_defaults(sort="name")  # the same query searched again: still as typed
        await settle(pilot, app)
        assert names(app) == []
        await type_query(pilot, app, "neural")  # a changed query is corrected again
        assert status(app).startswith("No papers contain “grpah”; showing results for “graph neural”")
        assert names(app)


async def test_ctrl_z_takes_the_spelling_offered(make_app):
    app = make_app()
    async with app.run_test(size=WIDE) as pilot:
        await settle(pilot, app)
        search = app.screen.query_one(SearchBox)
        await type_query(pilot, app, "grpah ")
        await pilot.press("ctrl+z")  # as typed: nothing, and "graph" offered
        await settle(pilot, app)
        await pilot.press("ctrl+z")
        await settle(pilot, app)
        assert search.value == "graph" and status(app) == ""
        assert names(app) and app.sub_title.endswith("for “graph”")
        await pilot.press("escape")
        pasted = "compressing large language models in variable memory envirnoments"
        await type_query(pilot, app, pasted)
        assert names(app)[0] == "BitStack"  # searched as typed: a long query is only offered a spelling
        assert status(app) == (
            "Did you mean “compressing large language models in variable memory environments”? ctrl+z: search that."
        )
        await pilot.press("ctrl+z")
        await settle(pilot, app)
        assert search.value == "compressing large language models in variable memory environments"
        assert names(app)[0] == "BitStack" and status(app) == ""
        await pilot.press("ctrl+z")  # nothing to undo or take: the key changes nothing
        await settle(pilot, app)
        assert search.value == "compressing large language models in variable memory environments"


async def test_keyboard_navigation_open_and_back(make_app):
    app = make_app()
    async with app.run_test(size=WIDE) as pilot:
        await settle(pilot, app)
        results = app.screen.query_one(ResultsList)
        await pilot.press("down")
        assert app.focused is results and results.highlighted == 0
        await pilot.press("j", "j", "down")
        assert results.highlighted == 3
        await pilot.press("k")
        assert results.highlighted == 2
        await pilot.press("G")
        assert results.highlighted == 37
        await pilot.press("g")
        assert results.highlighted == 0
        await pilot.press("end")
        assert results.highlighted == 37
        await pilot.press("home", "pagedown")
        assert results.highlighted > 5
        await pilot.press("pageup")
        assert results.highlighted == 0
        await pilot.press("j", "enter")
        assert isinstance(app.focused, ReaderPane)
        assert reader_text(app).startswith("PortLLM: Personalizing")
        await pilot.press("escape")
        assert app.focused is results
        await pilot.press("l")
        assert isinstance(app.focused, ReaderPane)
        await pilot.press("escape", "escape")
        assert isinstance(app.focused, SearchBox)


async def test_enter_in_search_goes_to_results_and_esc_clears_the_query(make_app):
    app = make_app()
    async with app.run_test(size=WIDE) as pilot:
        await settle(pilot, app)
        await type_query(pilot, app, "graph")
        await pilot.press("enter")
        assert isinstance(app.focused, ResultsList)
        await pilot.press("escape")
        assert isinstance(app.focused, SearchBox)
        await pilot.press("escape")
        await settle(pilot, app)
        assert app.focused.value == "" and len(names(app)) == 38


async def test_tab_cycles_panes(make_app):
    app = make_app()
    async with app.run_test(size=WIDE) as pilot:
        await settle(pilot, app)
        await pilot.press("tab")
        assert isinstance(app.focused, ResultsList)
        await pilot.press("tab")
        assert isinstance(app.focused, ReaderPane)
        await pilot.press("tab")
        assert isinstance(app.focused, SearchBox)
        await pilot.press("shift+tab")
        assert isinstance(app.focused, ReaderPane)


async def test_slash_and_ctrl_f_focus_search(make_app):
    app = make_app()
    async with app.run_test(size=WIDE) as pilot:
        await settle(pilot, app)
        await pilot.press("down", "slash")
        assert isinstance(app.focused, SearchBox) and app.focused.value == ""
        await pilot.press("tab", "tab", "ctrl+f")
        assert isinstance(app.focused, SearchBox)


async def test_reader_renders_latex_and_pages_with_space(make_app):
    app = make_app()
    async with app.run_test(size=(140, 20)) as pilot:
        await settle(pilot, app)
        await type_query(pilot, app, "bitstack")
        await pilot.press("enter", "enter")
        text = reader_text(app)
        assert "BitStack" in text and "capability to availability" in text
        assert "\\" not in text and "$" not in text
        reader = app.screen.query_one(ReaderPane)
        styles = {(text[s.start : s.end], str(s.style)) for s in reader.text.spans}
        assert ("capability", "italic") in styles
        await pilot.press("space")  # a page scrolls in frames: not one frame on a busy machine
        await pilot.wait_for_scheduled_animations()
        await pilot.pause()
        assert reader.scroll_y > 0
        await pilot.press("shift+space")
        await pilot.wait_for_scheduled_animations()
        await pilot.pause()
        assert reader.scroll_y == 0


async def test_help_screen_lists_keys_and_filters(make_app):
    app = make_app()
    async with app.run_test(size=WIDE) as pilot:
        await settle(pilot, app)
        await pilot.press("down", "question_mark")
        assert isinstance(app.screen, HelpScreen)
        table = app.screen.query_one("#help-keys").content
        assert table.row_count > 15
        await pilot.press(*"page")
        assert 0 < app.screen.query_one("#help-keys").content.row_count < table.row_count
        await pilot.press("escape")
        assert not isinstance(app.screen, HelpScreen)
        await pilot.press("f1")
        assert isinstance(app.screen, HelpScreen)


async def test_command_palette_offers_the_apps_commands(make_app):
    app = make_app()
    async with app.run_test(size=WIDE) as pilot:
        await settle(pilot, app)
        await pilot.press("ctrl+p")
        assert isinstance(app.screen, CommandPalette)
        await pilot.press(*"open paper")
        await pilot.pause(0.3)
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(app.focused, ReaderPane)


async def test_q_quits_but_types_in_the_search_box(make_app):
    app = make_app()
    async with app.run_test(size=WIDE) as pilot:
        await settle(pilot, app)
        await pilot.press("q")
        assert app.focused.value == "q" and app.is_running
        await pilot.press("enter", "q")
        await pilot.pause()
        assert not app.is_running


async def test_up_and_down_recall_earlier_queries(make_app):
    app = make_app()
    async with app.run_test(size=WIDE) as pilot:
        await settle(pilot, app)
        box = app.screen.query_one(SearchBox)
        await type_query(pilot, app, "kv cache")
        await pilot.press("enter", "slash")
        await type_query(pilot, app, "graph")
        await pilot.press("up")
        assert box.value == "kv cache"
        await pilot.press("down")
        assert box.value == "graph"
        await pilot.press("down")
        assert isinstance(app.focused, ResultsList)


async def test_narrow_terminal_reader_takes_the_screen(make_app):
    app = make_app()
    async with app.run_test(size=NARROW) as pilot:
        await settle(pilot, app)
        results = app.screen.query_one(ResultsList)
        reader = app.screen.query_one(ReaderPane)
        assert results.display and not reader.display
        await pilot.press("down", "enter")
        assert reader.display and not results.display
        await pilot.press("escape")
        assert results.display and not reader.display and app.focused is results


async def test_wide_terminal_shows_list_and_reader_side_by_side(make_app):
    app = make_app()
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(pilot, app)
        results = app.screen.query_one(ResultsList)
        reader = app.screen.query_one(ReaderPane)
        assert results.display and reader.display
        assert 0.55 < results.outer_size.width / 140 < 0.65  # the list gets 60%: titles are readable


async def test_resizing_never_crashes(make_app):
    app = make_app()
    async with app.run_test(size=WIDE) as pilot:
        await settle(pilot, app)
        await pilot.press("down", "enter")
        for size in ((80, 24), (20, 5), (40, 10), (200, 60), (99, 30), (100, 30)):
            await pilot.resize_terminal(*size)
            await pilot.pause()
        assert app.is_running


async def test_query_option_opens_with_query_typed(make_app):
    app = make_app(query="kv cache")
    async with app.run_test(size=WIDE) as pilot:
        await settle(pilot, app)
        assert app.screen.query_one(SearchBox).value == "kv cache"
        assert names(app)[0] == "SCBench"


async def test_mouse_click_selects_a_result(make_app):
    app = make_app()
    async with app.run_test(size=WIDE) as pilot:
        await settle(pilot, app)
        await pilot.click(ResultsList, offset=(10, 3))
        await pilot.pause()
        assert app.screen.query_one(ResultsList).highlighted == 2
        assert reader_text(app).startswith("T-JEPA")


async def test_abstract_text_is_never_parsed_as_markup(engine_for):
    from tui.app import ReaderApp

    engine = engine_for("We propose [bold]NotBold[/bold] and [link=https://evil]x[/link] \x1b[31mred\x1b[0m.")
    app = ReaderApp(engine)
    async with app.run_test(size=WIDE) as pilot:
        await settle(pilot, app)
        text = reader_text(app)
        assert "[bold]NotBold[/bold]" in text and "[link=https://evil" in text and "[/link]" in text
        assert "\x1b" not in text


async def test_progress_is_shown_while_the_index_builds(engine_for):
    from tui.app import ReaderApp
    from tui.messages import IndexProgress

    engine = engine_for(*[f"Abstract number {i} about graphs and trees." for i in range(300)])
    app = ReaderApp(engine)
    progress_seen = []
    async with app.run_test(
        size=WIDE, message_hook=lambda m: isinstance(m, IndexProgress) and progress_seen.append(m)
    ) as pilot:
        assert len(app.screen.query_one(ResultsList).paper_ids) == 300  # the list is there before the index
        await settle(pilot, app)
        assert progress_seen and progress_seen[-1].done == 300
        assert not app.screen.query_one("#progress").has_class("active")
        await type_query(pilot, app, "number")
        assert app.sub_title.startswith("corpus · 300 matches")


async def test_fast_typing_runs_one_search_at_a_time_and_shows_the_last_query(make_app, seed_engine, monkeypatch):
    from textual import events

    calls = []
    original = seed_engine.search

    def counting(request, cancel=None):
        calls.append(request.text)
        time.sleep(0.03)  # as slow as a search over a large corpus
        return original(request, cancel)

    monkeypatch.setattr(seed_engine, "search", counting)
    app = make_app()
    async with app.run_test(size=WIDE) as pilot:
        await settle(pilot, app)
        for ch in "graph neural network":
            app._driver.send_message(events.Key("space" if ch == " " else ch, ch))
        await settle(pilot, app)
        await pilot.pause(0.2)
        await settle(pilot, app)
        assert app.screen.result.query == "graph neural network"
        assert calls[-1] == "graph neural network"
        assert len(calls) <= len("graph neural network")  # never a storm of repeated searches


async def test_the_collectors_full_passes_wait_for_a_pause(make_app, monkeypatch):
    """A full pass of the cycle collector stalls the interface (45-85 ms at 100,000 papers): while
    the app runs, none starts in the middle of typing, however much was made; the app makes one
    once the user pauses."""
    import gc

    from tui import collector

    before = gc.get_threshold()
    app = make_app()
    async with app.run_test(size=WIDE) as pilot:
        await settle(pilot, app)
        # However slow a busy machine makes the typing, it is never a pause here (nor LONGEST's due);
        # the app checks every half second as it does (its timer was set when it started).
        monkeypatch.setattr(collector, "IDLE", 3600.0)
        monkeypatch.setattr(collector, "LONGEST", 3600.0)
        passes = gc.get_stats()[2]["collections"]
        made = [[] for _ in range(300_000)]  # enough new objects for CPython's own rule to start one
        await type_query(pilot, app, "graph")
        assert gc.get_stats()[2]["collections"] == passes
        del made
        monkeypatch.setattr(collector, "IDLE", 0.1)
        deadline = time.monotonic() + 10
        while gc.get_stats()[2]["collections"] == passes and time.monotonic() < deadline:
            await pilot.pause(0.05)
        assert gc.get_stats()[2]["collections"] > passes
    assert gc.get_threshold() == before


async def test_a_rare_typo_also_searched_says_so_and_ctrl_z_searches_it_as_typed(make_app, engine_over):
    from tests.search.test_spelling import _transformer_lists

    engine = engine_over(_transformer_lists())
    app = make_app(engine=engine)
    async with app.run_test(size=NARROW) as pilot:
        await settle(pilot, app)
        search = app.screen.query_one(SearchBox)
        await type_query(pilot, app, "sparse transfomer ")
        results = app.screen.query_one(ResultsList)
        assert results.paper_ids[0] == "meant"
        assert status(app) == (
            "Also searched “transformer” for “transfomer”. ctrl+z: search “sparse transfomer” as typed."
        )
        await pilot.press("ctrl+z")
        await settle(pilot, app)
        assert search.value == "sparse transfomer " and results.paper_ids[0] == "typo"
        assert status(app) == ""
