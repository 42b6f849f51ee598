"""Browsing a list as a reader does: whole titles, aligned rows, every match reachable, keys that
work where the focus is, the reader showing the user's own notes, and a split that is remembered."""

from __future__ import annotations

import json
import threading

import pytest
from rich.color import Color

from search import Bookmark, SearchEngine, load_corpus
from search.engine import QUICK_NOTICE
from search.user.store import UserStore
from tests.tui.conftest import WIDE, one_fast, settle, shown_status
from tui.app import ReaderApp
from tui.widgets.reader import ReaderPane
from tui.widgets.results_list import BOOKMARK_MARKER, ResultsList
from tui.widgets.search_box import SearchBox

NARROW = (80, 24)
SMALL = (60, 20)


def row_line(app, index: int) -> str:
    """What the terminal shows on the list's `index`-th line (border and scrollbar included)."""
    results = app.screen.query_one(ResultsList)
    region = results.region
    return screen_line(app, region.y + 1 + index)[region.x : region.right]


def screen_line(app, y: int) -> str:
    strips = app.screen._compositor.render_strips()
    return "".join(segment.text for segment in strips[y])


def footer(app) -> str:
    return screen_line(app, app.size.height - 1)


def write_list(path, records) -> str:
    path.write_text(json.dumps(records), encoding="utf-8")
    return str(path)


def long_titles(count: int, venue: str = "ICLR 2018", word: str = "graph") -> list[dict]:
    return [
        {
            "id": f"{venue[:4].lower()}-{n:04d}",
            "title": f"Paper {n:04d} on {word} learning with a title long enough to need more than seventy columns",
            "abstract": f"We study {word} learning, case {n}. Results improve over baselines.",
            "venue": venue,
            "status": "Reject" if n % 3 else "Poster",
        }
        for n in range(count)
    ]


def engine_of(tmp_path, *lists: list[dict]) -> SearchEngine:
    paths = [write_list(tmp_path / f"list{n}.json", records) for n, records in enumerate(lists)]
    engine = SearchEngine(load_corpus(paths), cache_dir=tmp_path / "cache")
    engine.ensure_index()
    return engine


async def test_a_row_shows_at_least_70_characters_of_its_title_at_140_columns(tmp_path):
    app = ReaderApp(engine_of(tmp_path, long_titles(5)), store=UserStore())
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(pilot, app)
        line = row_line(app, 1)
        title = "Paper 0001 on graph learning with a title long enough to need more than seventy columns"
        shown = line[line.index("Paper 0001") :].split("…")[0].rstrip("│ ")
        assert len(shown) >= 70 and title.startswith(shown.rstrip()), line


async def test_rows_keep_their_columns_with_bookmarks_and_two_venues(tmp_path):
    engine = engine_of(tmp_path, long_titles(3, "COLM 2025"), long_titles(3, "AISTATS 2024"))
    store = UserStore()
    app = ReaderApp(engine, store=store)
    async with app.run_test(size=WIDE) as pilot:
        await settle(pilot, app)
        starts = {row_line(app, n).index("Paper") for n in range(6)}
        assert len(starts) == 1  # "COLM 2025" and "AISTATS 2024" rows start their titles alike
        await pilot.press("tab", "b")  # the first bookmark must not move any title
        await settle(pilot, app)
        assert BOOKMARK_MARKER in row_line(app, 0)
        assert {row_line(app, n).index("Paper") for n in range(6)} == starts


async def test_one_loaded_list_spends_no_columns_on_its_venue(tmp_path):
    app = ReaderApp(engine_of(tmp_path, long_titles(3)), store=UserStore())
    async with app.run_test(size=WIDE) as pilot:
        await settle(pilot, app)
        assert "ICLR 2018" not in row_line(app, 0)


async def test_every_match_is_reachable_and_g_goes_to_the_last(tmp_path):
    app = ReaderApp(engine_of(tmp_path, long_titles(450)), store=UserStore())
    async with app.run_test(size=NARROW) as pilot:
        await settle(pilot, app)
        await pilot.press(*"graph", "enter")
        await settle(pilot, app)
        results = app.screen.query_one(ResultsList)
        assert "450 matches" in app.sub_title and "top" not in app.sub_title
        await pilot.press("G")
        await settle(pilot, app)
        assert len(results.paper_ids) == 450 == len(set(results.paper_ids))
        assert results.highlighted == 449
        assert app.screen.current_paper_id() == results.paper_ids[-1]


async def test_scrolling_down_lists_the_rest_before_the_end_is_reached(tmp_path):
    app = ReaderApp(engine_of(tmp_path, long_titles(450)), store=UserStore())
    async with app.run_test(size=NARROW) as pilot:
        await settle(pilot, app)
        await pilot.press(*"graph", "enter")
        await settle(pilot, app)
        results = app.screen.query_one(ResultsList)
        listed = len(results.paper_ids)
        assert listed < 450
        for _ in range(12):
            await pilot.press("pagedown")
        await settle(pilot, app)
        assert len(results.paper_ids) == 450
        assert results.highlighted is not None and 0 < results.highlighted < 449  # where the user moved it


async def test_every_paper_of_a_big_list_is_reachable_though_only_shown_rows_are_made(tmp_path):
    """With no query every paper is listed, but a row is made only when it shows: clearing the
    search at 100,000 papers must not stall the keyboard."""
    papers = long_titles(450)
    app = ReaderApp(engine_of(tmp_path, papers), store=UserStore())
    async with app.run_test(size=NARROW) as pilot:
        await settle(pilot, app)
        made = []
        row = app.screen._row
        app.screen._row = lambda paper_id, *args: made.append(paper_id) or row(paper_id, *args)
        app.screen.query_one(ResultsList).forget_rows()  # (the first screen's rows are kept: made afresh)
        app.screen._show_all()
        await settle(pilot, app)
        results = app.screen.query_one(ResultsList)
        assert "450 papers" in app.sub_title
        assert results.paper_ids == [paper["id"] for paper in papers]
        assert 0 < len(set(made)) <= results.size.height  # only what the screen shows
        await pilot.press("down")  # from the search box to the list
        for _ in range(12):
            await pilot.press("pagedown")
        await settle(pilot, app)
        moved = results.highlighted
        assert moved is not None and 100 < moved < 449
        assert app.screen.current_paper_id() == papers[moved]["id"]
        assert f"Paper {moved:04d}" in row_line(app, moved - results.scroll_offset.y)
        await pilot.press("G")
        await settle(pilot, app)
        assert results.highlighted == 449 and app.screen.current_paper_id() == "iclr-0449"
        await pilot.press("g")
        await settle(pilot, app)
        assert results.highlighted == 0


async def test_scrolling_a_big_list_with_the_wheel_reaches_its_last_paper(tmp_path):
    app = ReaderApp(engine_of(tmp_path, long_titles(450)), store=UserStore())
    async with app.run_test(size=NARROW) as pilot:
        await settle(pilot, app)
        results = app.screen.query_one(ResultsList)
        for _ in range(30):
            results.scroll_end(animate=False, immediate=True)
            await pilot.pause()
        lines = results.size.height
        assert "Paper 0449" in row_line(app, lines - 1)
        assert results.highlighted == 0  # the wheel moves the view, not the selection


async def test_a_bookmark_far_down_a_big_list_is_selected_when_opened(tmp_path):
    engine = engine_of(tmp_path, long_titles(450))
    store = UserStore()
    store.add(Bookmark("iclr-0400", None, engine.row("iclr-0400").headline))
    app = ReaderApp(engine, store=store)
    async with app.run_test(size=NARROW) as pilot:
        await settle(pilot, app)
        await pilot.press("down", "B")
        await settle(pilot, app)
        app.screen.dismiss("iclr-0400")  # as enter on its row does
        await settle(pilot, app)
        results = app.screen.query_one(ResultsList)
        assert results.highlighted == 400
        assert app.screen.current_paper_id() == "iclr-0400"
        await pilot.press("escape")  # from the paper (over the list, at 80 columns) back to the list
        await settle(pilot, app)
        assert results.highlighted == 400
        line = row_line(app, 400 - results.scroll_offset.y)
        assert "Paper 0400" in line and BOOKMARK_MARKER in line


async def test_the_footer_shows_the_keys_that_work_where_the_focus_is(make_app):
    app = make_app()
    async with app.run_test(size=NARROW) as pilot:
        await settle(pilot, app)
        await pilot.press(*"kv cache")
        await settle(pilot, app)
        typing = footer(app)
        assert "^b Bookmark" in typing and "^y Copy link" in typing and "^r Related" in typing
        assert " b Bookmark" not in typing and "q Quit" not in typing  # b and q are typed here
        await pilot.press("enter")
        await settle(pilot, app)
        browsing = footer(app)
        for shown in ("b Bookmark", "y Copy link", "r Related", "/ Search", "Help", "q Quit"):
            assert shown in browsing, browsing
        assert "^b" not in browsing


async def test_ctrl_b_in_the_search_box_bookmarks_the_highlighted_result(make_app):
    app = make_app()
    async with app.run_test(size=WIDE) as pilot:
        await settle(pilot, app)
        await pilot.press(*"kv cache")
        await settle(pilot, app)
        first = app.screen.current_paper_id()
        await pilot.press("ctrl+b")
        await settle(pilot, app)
        assert app.store.get(first) is not None
        assert app.screen.query_one(SearchBox).value == "kv cache"  # nothing typed into the query
        assert app.focused is app.screen.query_one(SearchBox)


async def test_the_reader_shows_the_bookmark_its_tags_and_note(make_app, seed_engine):
    app = make_app()
    paper = seed_engine.papers[0]
    app.store.add(Bookmark(paper.id, "SCBench", "headline", note="Read section 4 first.", tags=("kv", "to-read")))
    async with app.run_test(size=WIDE) as pilot:
        await settle(pilot, app)
        reader = app.screen.query_one(ReaderPane)
        shown = str(reader.query_one("#bookmark").content)
        assert "★ Bookmarked" in shown and "kv, to-read" in shown and "Read section 4 first." in shown
        await pilot.press("enter", "down")  # to the list, and the next paper
        await settle(pilot, app)
        assert app.screen.current_paper_id() != paper.id
        assert not reader.query_one("#bookmark").has_class("active")  # the next paper is not bookmarked


async def test_z_shows_the_list_alone_and_enter_opens_a_paper_over_it(make_app):
    app = make_app()
    async with app.run_test(size=WIDE) as pilot:
        await settle(pilot, app)
        await pilot.press("tab", "z")
        await settle(pilot, app)
        results, reader = app.screen.query_one(ResultsList), app.screen.query_one(ReaderPane)
        assert results.outer_size.width == WIDE[0] and not reader.display
        await pilot.press("enter")
        await settle(pilot, app)
        assert reader.display and not results.display
        await pilot.press("escape")
        await settle(pilot, app)
        assert results.display and results.outer_size.width == WIDE[0]


async def test_brackets_resize_the_split_and_the_next_start_keeps_it(make_app):
    app = make_app()
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(pilot, app)
        before = app.screen.query_one(ResultsList).size.width
        await pilot.press("tab", "right_square_bracket", "right_square_bracket")
        await pilot.pause()
        wider = app.screen.query_one(ResultsList).size.width
        assert wider >= before + 12  # two steps of 5% of 140 columns
        # and quitting at once (before the split is saved on its timer) still keeps it
    again = make_app()
    async with again.run_test(size=(140, 40)) as pilot:
        await settle(pilot, again)
        assert again.screen.query_one(ResultsList).size.width == wider


async def test_an_unknown_list_is_told_in_the_app_not_swallowed(make_app):
    app = make_app()
    async with app.run_test(size=WIDE) as pilot:
        await settle(pilot, app)
        await pilot.press(*"list:nope ")
        await settle(pilot, app)
        status = shown_status(app)
        assert "no list named 'nope'" in status


async def test_a_query_typed_while_indexing_lists_quick_matches_then_ranked_results(tmp_path, monkeypatch):
    engine = SearchEngine(load_corpus([write_list(tmp_path / "l.json", long_titles(30))]), cache_dir=tmp_path / "c")
    release = threading.Event()
    build = engine.ensure_index

    def slow_build(*args, **kwargs):  # the build reports 12 of 30 papers, then waits for the test
        kwargs["on_progress"](12, 30)
        release.wait(10)
        return build(*args, **kwargs)

    monkeypatch.setattr(engine, "ensure_index", slow_build)
    app = ReaderApp(engine, store=UserStore())
    async with app.run_test(size=WIDE) as pilot:
        await pilot.pause()
        await pilot.press(*"graph")
        await pilot.pause()
        screen = app.screen
        for _ in range(100):  # the quick search's thread (the build waits for the test)
            if screen.result is not None:
                break
            await pilot.pause(0.05)
        assert not engine.ready
        status = shown_status(app)
        assert "(40%)" in status and "quick matches by word; ranked results when it finishes" in status
        quick = screen.result  # found by scanning the papers' text, before the index exists
        assert quick is not None and quick.notice == QUICK_NOTICE and quick.total == 30
        assert screen.query_one(ResultsList).paper_ids == [hit.paper_id for hit in quick.hits]
        release.set()
        await settle(pilot, app)
        assert engine.ready and screen.result is not quick
        assert screen.result.total == 30 and screen.result.notice != QUICK_NOTICE


async def test_quick_matches_that_come_after_the_index_opened_never_replace_ranked_results(tmp_path, monkeypatch):
    engine = SearchEngine(load_corpus([write_list(tmp_path / "l.json", long_titles(30))]), cache_dir=tmp_path / "c")
    built, scanned = threading.Event(), threading.Event()
    build, quick = engine.ensure_index, engine.quick_search

    def slow_build(*args, **kwargs):
        built.wait(10)
        return build(*args, **kwargs)

    def late_scan(*args, **kwargs):  # the scan ends only after the index has opened
        scanned.wait(10)
        return quick(*args, **kwargs)

    monkeypatch.setattr(engine, "ensure_index", slow_build)
    monkeypatch.setattr(engine, "quick_search", late_scan)
    app = ReaderApp(engine, store=UserStore())
    async with app.run_test(size=WIDE) as pilot:
        await pilot.pause()
        await pilot.press(*"graph")
        await pilot.pause()
        built.set()
        for _ in range(100):
            if app.screen.result is not None:
                break
            await pilot.pause(0.05)
        ranked = app.screen.result
        assert engine.ready and ranked is not None and ranked.notice != QUICK_NOTICE
        scanned.set()
        await settle(pilot, app)
        assert app.screen.result is ranked  # the late quick matches were dropped
        assert "Quick matches" not in shown_status(app)


async def test_the_filter_menu_offers_the_statuses_the_list_has(tmp_path):
    app = ReaderApp(engine_of(tmp_path, long_titles(9)), store=UserStore())
    async with app.run_test(size=WIDE) as pilot:
        await settle(pilot, app)
        await pilot.press("ctrl+t")
        await settle(pilot, app)
        menu = app.screen
        offered = [option.id for option in menu.query_one("OptionList").options]
        assert "status:reject" in offered and "status:poster" in offered
        assert "status:oral" not in offered and "has:code" not in offered  # nothing here has them


def contrast(one: Color, two: Color) -> float:
    """WCAG contrast ratio of two colours."""

    def luminance(color: Color) -> float:
        def channel(value: int) -> float:
            c = value / 255
            return c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4

        r, g, b = color.get_truecolor()
        return 0.2126 * channel(r) + 0.7152 * channel(g) + 0.0722 * channel(b)

    high, low = sorted((luminance(one), luminance(two)), reverse=True)
    return (high + 0.05) / (low + 0.05)


async def test_the_light_theme_keeps_the_selected_rows_name_and_star_legible(make_app, seed_engine):
    app = make_app()
    paper = seed_engine.papers[0]
    app.store.add(Bookmark(paper.id, "SCBench", "headline"))
    async with app.run_test(size=WIDE) as pilot:
        app.theme = "textual-light"
        await settle(pilot, app)
        await pilot.press("tab")  # the list focused: its selected row in the cursor's colours
        await settle(pilot, app)
        results = app.screen.query_one(ResultsList)
        strips = app.screen._compositor.render_strips()
        segments = strips[results.region.y + 1]
        for char in (BOOKMARK_MARKER, "S"):  # the star and the first letter of the name "SCBench"
            segment = next(s for s in segments if char in s.text)
            style = segment.style
            assert contrast(style.color, style.bgcolor) >= 3.0, (char, style)


async def test_opening_a_bookmark_keeps_the_query(make_app, seed_engine):
    app = make_app()
    scbench = seed_engine.search("kv cache").hits[0].paper_id
    inside = seed_engine.paper(scbench)
    outside = next(paper for paper in seed_engine.papers if "cache" not in paper.abstract.lower())
    for paper in (inside, outside):
        app.store.add(Bookmark(paper.id, None, seed_engine.row(paper.id).headline))
    async with app.run_test(size=WIDE) as pilot:
        await settle(pilot, app)
        await pilot.press(*"kv cache", "enter")
        await settle(pilot, app)
        listed = list(app.screen.query_one(ResultsList).paper_ids)
        assert inside.id in listed and outside.id not in listed
        for paper in (outside, inside):  # one not among the results, then one that is
            await pilot.press("B")
            await settle(pilot, app)
            app.screen.dismiss(paper.id)  # as enter on its row does
            await settle(pilot, app)
            main = app.screen
            assert main.query_one(SearchBox).value == "kv cache"
            assert main.query_one(ResultsList).paper_ids == listed
            assert main.current_paper_id() == paper.id  # the paper actions act on it
            assert main.query_one(ReaderPane).text.plain.startswith(seed_engine.paper(paper.id).title or "")
            await pilot.press("escape")
            await settle(pilot, app)


async def test_the_rest_of_an_older_result_never_lands_in_a_newer_list(tmp_path):
    from search import SearchRequest
    from tui.messages import SessionFound
    from tui.search_session import More

    engine = engine_of(tmp_path, long_titles(450), long_titles(300, "COLM 2025", word="memory"))
    app = ReaderApp(engine, store=UserStore())
    async with app.run_test(size=NARROW) as pilot:
        await settle(pilot, app)
        await pilot.press(*"graph")
        await settle(pilot, app)
        screen = app.screen
        older, request = screen.result, screen.session.request
        everything = engine.search(SearchRequest("graph", limit=1000))
        await pilot.press(*["backspace"] * 5, *"memory")
        await settle(pilot, app)
        listed = list(screen.query_one(ResultsList).paper_ids)
        screen.post_message(SessionFound(More(request, older, everything)))  # as a slow search would, too late
        await settle(pilot, app)
        assert screen.query_one(ResultsList).paper_ids == listed
        assert all("memory" in engine.paper(pid).abstract for pid in listed)


async def test_a_default_order_from_the_preferences_keeps_completing_the_word_being_typed(tmp_path):
    from tui.preferences import Preferences

    app = ReaderApp(engine_of(tmp_path, long_titles(30)), store=UserStore(), preferences=Preferences(sort="name"))
    async with app.run_test(size=WIDE) as pilot:
        await settle(pilot, app)
        await pilot.press(*"gra")  # "gra" is the start of "graph": it matches while typed
        await settle(pilot, app)
        result = app.screen.result
        assert result is not None and result.total == 30 and "sort:" not in result.query
        ids = app.screen.query_one(ResultsList).paper_ids
        headlines = [engine_row.headline for engine_row in map(app.engine.row, ids)]
        assert headlines == sorted(headlines, key=str.casefold)


async def test_maximize_gives_the_list_the_whole_width(make_app):
    app = make_app()
    async with app.run_test(size=WIDE) as pilot:
        await settle(pilot, app)
        results = app.screen.query_one(ResultsList)
        app.screen.maximize(results)  # the palette's "Maximize" with the list focused
        await settle(pilot, app)
        assert results.outer_size.width == WIDE[0]
        app.screen.minimize()
        await settle(pilot, app)
        assert results.outer_size.width < WIDE[0] and app.screen.query_one(ReaderPane).display


async def test_the_bookmarks_screen_follows_a_theme_change(make_app, seed_engine):
    app = make_app()
    paper = seed_engine.papers[0]
    app.store.add(Bookmark(paper.id, "SCBench", "headline"))
    async with app.run_test(size=WIDE) as pilot:
        await settle(pilot, app)
        await pilot.press("tab", "B")
        await settle(pilot, app)
        app.theme = "textual-light"  # while the bookmarks screen is open
        await settle(pilot, app)
        rows = app.screen.query_one("#bookmark-list")
        strips = app.screen._compositor.render_strips()
        star = next(s for s in strips[rows.region.y + 1] if BOOKMARK_MARKER in s.text)
        assert contrast(star.style.color, star.style.bgcolor) >= 3.0, star.style


async def test_closed_bookmarks_screens_are_freed(make_app, seed_engine):
    """Each opening watched the app's theme, and the app kept the watcher (and the screen, with a
    set of every paper's id) until the theme next changed: a long session kept every one closed
    (24 after a long walk, tests/perf/longwalk.py)."""
    import gc
    import weakref

    app = make_app()
    app.store.add(Bookmark(seed_engine.papers[0].id, "SCBench", "headline"))
    async with app.run_test(size=WIDE) as pilot:
        closed = []
        for action in ("show_bookmarks", "show_bookmarks", "show_bookmarks"):
            getattr(app.screen, f"action_{action}")()
            await settle(pilot, app)
            assert type(app.screen).__name__ != "MainScreen"
            closed.append(weakref.ref(app.screen))
            await pilot.press("escape")
            await settle(pilot, app)
        gc.collect()
        assert [type(ref()).__name__ for ref in closed if ref() is not None] == []


@pytest.mark.parametrize("size", one_fast([(140, 40), (60, 20)]))
async def test_each_row_is_its_text_cut_to_the_list_and_the_selection_stands_out(make_app, size):
    """Every row, plain, bookmarked, opened (dimmed), with matched words and cut to the width, shows
    exactly its text; the selected row alone is drawn in the cursor's colours."""
    app = make_app()
    async with app.run_test(size=size) as pilot:
        await settle(pilot, app)
        screen = app.screen
        results = screen.query_one(ResultsList)
        await pilot.press(*"graph learning", "enter")
        await settle(pilot, app)
        ids = results.paper_ids
        assert len(ids) >= 3
        screen.opened, screen.bookmarked = {ids[1]}, {ids[2]}
        results.refresh_rows()
        await settle(pilot, app)
        width = results.scrollable_content_region.width
        strips = screen._compositor.render_strips()
        backgrounds = []
        for n, paper_id in enumerate(ids[: results.scrollable_content_region.height]):
            row = screen._row(paper_id, width, screen.result.terms)
            if row.cell_len > width:
                row.truncate(width, overflow="ellipsis")
            assert row_line(app, n)[1 : 1 + width].rstrip() == row.plain.rstrip(), n
            left = results.region.x + 1  # (the border)
            segments = strips[results.region.y + 1 + n].crop(left, left + width)
            backgrounds.append({s.style.bgcolor for s in segments if s.style and s.text.strip()})
        assert BOOKMARK_MARKER in row_line(app, 2)
        assert len(backgrounds[0]) == 1 and backgrounds[0].isdisjoint(backgrounds[1] | backgrounds[2])


async def test_a_result_of_another_length_keeps_the_scrollbar_right_without_laying_out_the_screen(tmp_path):
    """The list's length changes with nearly every keystroke: its scrollbar shows exactly while the
    list is longer than the pane, and the rows are as wide as what is left; only when the scrollbar
    comes or goes does the screen need laying out again (a layout costs a keystroke 8-14 ms)."""
    app = ReaderApp(engine_of(tmp_path, long_titles(450), long_titles(30, "ICML 2019", "tree")), store=UserStore())
    async with app.run_test(size=NARROW) as pilot:
        await settle(pilot, app)
        results = app.screen.query_one(ResultsList)
        layouts = []  # what the list asks of the screen
        refresh = results.refresh
        results.refresh = lambda *regions, **kwargs: layouts.append(kwargs.get("layout")) or refresh(*regions, **kwargs)

        async def search(query: str) -> tuple[bool, int]:
            """Whether the scrollbar shows, and the column of the first row's ellipsis."""
            app.screen.query_one(SearchBox).value = query
            await settle(pilot, app)
            assert len(results.paper_ids) == min(200, app.screen.result.total) > 0, query
            return results.show_vertical_scrollbar, row_line(app, 0).index("…")

        long_list = await search("graph")
        assert long_list[0] and len(results.paper_ids) == 200
        layouts.clear()
        assert await search("tree") == long_list and len(results.paper_ids) == 30  # still longer than the pane
        assert layouts and not any(layouts)  # repainted, not laid out
        scrolled, ellipsis = await search("0001")  # two papers: no scrollbar, the rows one scrollbar wider
        assert not scrolled and ellipsis > long_list[1]
        assert await search("graph") == long_list


async def test_a_bookmark_made_by_another_instance_shows_when_the_list_is_shown_again(tmp_path):
    """Rows are kept from one keystroke to the next; marks re-read from the store that changed
    them are drawn all the same."""
    store = UserStore()
    app = ReaderApp(engine_of(tmp_path, long_titles(30)), store=store)
    async with app.run_test(size=NARROW) as pilot:
        await settle(pilot, app)
        assert BOOKMARK_MARKER not in row_line(app, 1)
        store.add(Bookmark("iclr-0001", None, "headline"))  # as another instance would
        app.screen._show_all()  # every paper again (as an emptied search box shows them), the marks re-read
        await settle(pilot, app)
        assert BOOKMARK_MARKER in row_line(app, 1) and BOOKMARK_MARKER not in row_line(app, 2)


async def test_a_status_that_stays_one_line_shows_new_words_without_laying_out_the_screen(tmp_path):
    """A status line shown (too long for the search box's edge) whose words change while a word is
    typed on keeps its size: no layout of the screen; one that comes, goes or wraps lays it out."""
    app = ReaderApp(engine_of(tmp_path, long_titles(30)), store=UserStore())
    async with app.run_test(size=NARROW) as pilot:
        await settle(pilot, app)
        screen = app.screen
        status = screen.query_one("#status")
        line = NARROW[0] - 2  # (the status line's padding)
        screen.set_status("Showing results for graph ".ljust(line, "."))
        await settle(pilot, app)
        layouts: list[object] = []
        screen.screen_layout_refresh_signal.subscribe(screen, layouts.append)
        screen.set_status("Showing results for graphs ".ljust(line, "."))
        await settle(pilot, app)
        assert not layouts
        assert screen_line(app, status.region.y).strip() == "Showing results for graphs ".ljust(line, ".")
        screen.set_status("words " * 20)  # two lines at 80 columns: laid out
        await settle(pilot, app)
        assert layouts and status.region.height == 2
        layouts.clear()
        screen.set_status("")
        await settle(pilot, app)
        assert layouts and not status.has_class("active")


@pytest.mark.parametrize("size", one_fast([WIDE, NARROW]))
async def test_a_status_coming_or_going_lays_the_screen_out_once(tmp_path, size):
    """The status line (a status too long for the search box's edge) coming or going moves the panes below it: one
    layout of the screen. Textual gave the panes, the splitter and the scrollbars their new virtual
    sizes after it, and laid the screen out a second time for them (4-14 ms, finding nothing to
    change), on the next keystroke when typing fast."""
    app = ReaderApp(engine_of(tmp_path, long_titles(60)), store=UserStore())
    async with app.run_test(size=size) as pilot:
        await settle(pilot, app)
        screen = app.screen
        panes = screen.query_one("#panes")
        layouts: list[object] = []
        screen.screen_layout_refresh_signal.subscribe(screen, layouts.append)
        line = size[0] - 2  # too long for the search box's edge, one status line
        for text in (
            "Nothing matches “fe”. ".ljust(line, "."),
            "",
            "No papers contain “wassersti”. ".ljust(line, "."),
            "",
        ):
            height = panes.region.height
            layouts.clear()
            screen.set_status(text)
            await settle(pilot, app)
            assert len(layouts) == 1, text
            assert panes.region.height == height + (-1 if text else 1)
            assert screen_line(app, panes.region.y - 1).strip() == text or not text


@pytest.mark.parametrize("size", one_fast([(140, 40), NARROW, (60, 20)]))
async def test_a_status_that_fits_the_search_boxs_edge_shows_there_whole_and_moves_nothing(tmp_path, size):
    """Nothing matches, a correction, a hint: said on the search box's lower edge when it fits there
    (a line always on screen), so the panes keep their place and the screen is not laid out (10-35
    ms of CPU at 10,745 papers on the keystrokes that match nothing, measured). A status of the
    edge's whole width is shown whole; one a column longer goes to the status line, as before."""
    app = ReaderApp(engine_of(tmp_path, long_titles(60)), store=UserStore())
    async with app.run_test(size=size) as pilot:
        await settle(pilot, app)
        screen = app.screen
        panes = screen.query_one("#panes").region
        layouts: list[object] = []
        screen.screen_layout_refresh_signal.subscribe(screen, layouts.append)
        room = size[0] - 6  # (the box's corners, a cell of its edge and a space each side)
        for text in (
            "Nothing matches “fe”.",
            "Hint: unbalanced quote.",
            "No papers contain “x”. ".ljust(room, "."),
            "",
        ):
            screen.set_status(text)
            await settle(pilot, app)
            assert shown_status(app) == text
            assert not layouts and screen.query_one("#panes").region == panes, text
        screen.set_status("No papers contain “x”. ".ljust(room + 1, "."))
        await settle(pilot, app)
        assert shown_status(app) == "No papers contain “x”. ".ljust(room + 1, ".")
        assert layouts and screen.query_one("#panes").region.y == panes.y + 1  # the status line


async def test_a_status_on_the_edge_that_no_longer_fits_after_a_resize_moves_to_the_status_line(tmp_path):
    app = ReaderApp(engine_of(tmp_path, long_titles(60)), store=UserStore())
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(pilot, app)
        text = "No papers contain “wasserstien”; showing results for “wasserstein”. ctrl+z: search as typed."
        app.screen.set_status(text)
        await settle(pilot, app)
        assert shown_status(app) == text
        await pilot.resize_terminal(*NARROW)
        await settle(pilot, app)
        assert shown_status(app) == text  # on two lines under the box
        await pilot.resize_terminal(140, 40)
        await settle(pilot, app)
        assert shown_status(app) == text and not app.screen.query_one("#status").region


@pytest.mark.parametrize("query", ["zebra", "qq"])
async def test_results_are_laid_out_in_the_frame_that_paints_them(tmp_path, monkeypatch, query):
    """Results whose list loses its scrollbar (one paper, none) or that bring a status line: the
    frame painted next lays the screen out with them, also when a frame was already due (the typed
    letter's echo) as they were applied. The widgets asked for their layout when next idle, and a
    frame due before that painted the new list in the old geometry, then laid out a frame later:
    on the next keystroke when typing fast (2-4 keystrokes of the benchmark's 90 paid two layouts)."""
    zebra = {"id": "z1", "title": "Zebra crossings", "abstract": "Stripes."}
    app = ReaderApp(engine_of(tmp_path, [*long_titles(60), zebra]), store=UserStore())
    async with app.run_test(size=NARROW) as pilot:
        await settle(pilot, app)
        screen = app.screen
        assert screen.query_one(ResultsList).show_vertical_scrollbar
        screen.set_status("x" * 200)  # (a status line: its going is laid out too)
        await settle(pilot, app)
        layouts: list[object] = []
        screen.screen_layout_refresh_signal.subscribe(screen, layouts.append, immediate=True)
        frames: list[int] = []
        show = screen._show_result

        def show_with_a_frame_due(result) -> None:
            show(result)

            def frame() -> None:  # the frame that was due, painted as soon as the screen lets it
                before = len(layouts)
                screen._on_timer_update()
                frames.append(len(layouts) - before)

            screen.call_later(frame)

        monkeypatch.setattr(screen, "_show_result", show_with_a_frame_due)
        screen.query_one(SearchBox).value = query  # one paper, or none: the scrollbar and the status line go
        await settle(pilot, app)
        assert frames == [1]  # the results' frame laid the screen out
        assert not screen.query_one(ResultsList).show_vertical_scrollbar
        assert len(screen.query_one(ResultsList).paper_ids) == (query == "zebra")


async def test_showing_a_paper_without_a_bookmark_lays_nothing_out_for_the_hidden_bookmark_line(tmp_path):
    app = ReaderApp(engine_of(tmp_path, long_titles(30)), store=UserStore())
    async with app.run_test(size=NARROW) as pilot:
        await settle(pilot, app)
        reader = app.screen.query_one(ReaderPane)
        layouts: list[object] = []
        app.screen.screen_layout_refresh_signal.subscribe(app.screen, layouts.append)
        reader.show_bookmark(None)
        await settle(pilot, app)
        assert not layouts


async def test_quick_match_rows_mark_code_and_rating_as_ranked_rows_do(tmp_path, monkeypatch):
    """Rows shown while the index builds carry the code mark (◆) of a repository the abstract
    names, the bookmark star and the rating, as the rows of ranked results do."""
    from tui.widgets.results_list import CODE_MARKER

    records = [
        {
            "id": f"p{n}",
            "title": f"Graph paper {n}",
            "abstract": f"We study graph learning {n}."
            + (" Code: https://github.com/someone/graph" if n % 2 else "")
            + (" See http://gitlab.com/group/repo for data." if n == 2 else ""),
            "venue": "ICLR 2018",
            "rating": "6;7",
        }
        for n in range(6)
    ]
    engine = SearchEngine(load_corpus([write_list(tmp_path / "l.json", records)]), cache_dir=tmp_path / "c")
    release = threading.Event()
    build = engine.ensure_index

    def slow_build(*args, **kwargs):
        kwargs["on_progress"](1, 6)
        release.wait(10)
        return build(*args, **kwargs)

    monkeypatch.setattr(engine, "ensure_index", slow_build)
    store = UserStore(tmp_path / "store.db")
    store.add(Bookmark(paper_id="p1", headline="Graph paper 1"))
    app = ReaderApp(engine, store=store)
    async with app.run_test(size=WIDE) as pilot:
        await pilot.pause()
        await pilot.press(*"graph")
        screen = app.screen
        for _ in range(100):  # the quick search's thread (the build waits for the test)
            if screen.result is not None:
                break
            await pilot.pause(0.05)
        assert not engine.ready and screen.result.notice == QUICK_NOTICE
        ids = sorted(hit.paper_id for hit in screen.result.hits)
        quick = {paper_id: str(screen._row(paper_id, 100, (), "rating")) for paper_id in ids}
        release.set()
        await settle(pilot, app)
        assert engine.ready
        ranked = {paper_id: str(screen._row(paper_id, 100, (), "rating")) for paper_id in ids}
    assert quick == ranked
    assert [paper_id for paper_id in ids if CODE_MARKER in quick[paper_id]] == ["p1", "p2", "p3", "p5"]
    assert BOOKMARK_MARKER in quick["p1"] and all("6.5" in row for row in quick.values())


async def test_indexing_progress_shows_one_percentage(make_app):
    """The status line said "Indexing 200 of 10,744 papers (1%)" while the bar beside it said 2%
    (Textual rounds, the line floors): the bar now shows no number of its own."""
    from tui.messages import IndexProgress

    app = make_app()
    async with app.run_test(size=WIDE) as pilot:
        await settle(pilot, app)
        app.screen.post_message(IndexProgress(200, 10_744))
        await pilot.pause()
        shown = "\n".join(
            "".join(segment.text for segment in strip) for strip in app.screen._compositor.render_strips()
        )
        assert "Indexing 200 of 10,744 papers (1%)" in shown
        assert "2%" not in shown
