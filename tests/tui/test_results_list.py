"""The result list draws again only the lines whose paper, row or selection changed when a new
result is shown (a keystroke's repaint was mostly the list's lines), and the screen shows the new
result all the same."""

from __future__ import annotations

from rich.text import Text
from textual.app import App, ComposeResult

from tui.widgets.results_list import KeyedRows, ResultsList

HEIGHT = 10


def row_maker(marked: str = ""):
    """Rows that read "<id> title", with `marked` (a paper id) shown as "<id> title NEW"."""

    def make(paper_id: str, width: int) -> Text:
        return Text(f"{paper_id} title" + (" NEW" if paper_id == marked else ""), no_wrap=True, end="")

    return make


class ListApp(App):
    CSS = "ResultsList { height: 100%; }"

    def compose(self) -> ComposeResult:
        yield ResultsList()


def screen_lines(app: App) -> list[str]:
    """The list's lines as painted on the screen."""
    results = app.query_one(ResultsList)
    region = results.content_region
    update = app.screen._compositor.render_update(full=True)
    lines = ["".join(chop.text for chop in chops) for chops in update.strips]  # type: ignore[attr-defined]
    return [line[region.x : region.right].rstrip() for line in lines[region.y : region.bottom]]


async def drawn_after(app, pilot, paper_ids: list[str], maker) -> list[int]:
    """Show `paper_ids` and let it paint: the indexes of the lines the list drew."""
    results = app.query_one(ResultsList)
    drawn: list[int] = []
    render_line = results.render_line

    def recording(y: int):
        drawn.append(y)
        return render_line(y)

    results.render_line = recording  # type: ignore[method-assign]
    try:
        results.show(paper_ids, maker)
        await pilot.pause()
        await pilot.pause()
    finally:
        del results.render_line
    return sorted(set(drawn))


async def test_a_result_whose_visible_rows_are_the_same_draws_no_line_again():
    app = ListApp()
    async with app.run_test(size=(60, HEIGHT)) as pilot:
        ids = [f"p{number}" for number in range(50)]
        app.query_one(ResultsList).show(ids, row_maker())
        await pilot.pause()
        # the same first screen, more papers after it (a longer result): nothing on screen changed
        assert await drawn_after(app, pilot, [*ids, "p50", "p51"], row_maker()) == []
        assert screen_lines(app)[:3] == ["p0 title", "p1 title", "p2 title"]
        # (and the waits are long enough for a paint: one row that reads otherwise is drawn)
        assert await drawn_after(app, pilot, ids, row_maker(marked="p1")) == [1]


async def test_only_the_lines_that_changed_are_drawn_and_the_screen_shows_them():
    app = ListApp()
    async with app.run_test(size=(60, HEIGHT)) as pilot:
        ids = [f"p{number}" for number in range(50)]
        app.query_one(ResultsList).show(ids, row_maker())
        await pilot.pause()
        swapped = list(ids)
        swapped[4], swapped[5] = ids[5], ids[4]  # two papers swap places
        drawn = await drawn_after(app, pilot, swapped, row_maker(marked="p2"))  # and a row reads otherwise
        assert drawn == [2, 4, 5]
        shown = screen_lines(app)
        assert shown[2] == "p2 title NEW" and shown[4] == "p5 title" and shown[5] == "p4 title"
        assert shown[3] == "p3 title" and shown[6] == "p6 title"


async def test_a_shorter_result_blanks_the_lines_past_its_end():
    app = ListApp()
    async with app.run_test(size=(60, HEIGHT)) as pilot:
        ids = [f"p{number}" for number in range(50)]
        app.query_one(ResultsList).show(ids, row_maker())
        await pilot.pause()
        await drawn_after(app, pilot, ids[:3], row_maker())
        shown = screen_lines(app)
        assert shown[:3] == ["p0 title", "p1 title", "p2 title"] and not any(shown[3:])


async def test_after_scrolling_down_a_new_result_is_drawn_from_its_top():
    app = ListApp()
    async with app.run_test(size=(60, HEIGHT)) as pilot:
        results = app.query_one(ResultsList)
        ids = [f"p{number}" for number in range(50)]
        results.show(ids, row_maker())
        await pilot.pause()
        results.focus()
        await pilot.press("pagedown", "pagedown")
        await pilot.pause()
        assert round(results.scroll_y) > 0
        await drawn_after(app, pilot, ids, row_maker())
        assert results.scroll_y == 0 and results.highlighted == 0
        assert screen_lines(app)[:2] == ["p0 title", "p1 title"]


def count_layouts(app: App) -> list[object]:
    """A list that grows by one with each layout of the screen from now on."""
    layouts: list[object] = []
    app.screen.screen_layout_refresh_signal.subscribe(app.screen, layouts.append)
    return layouts


def long_rows(paper_id: str, width: int) -> Text:
    return Text(f"{paper_id} " + "a long title " * 10, no_wrap=True, overflow="ellipsis", end="")


async def test_the_scrollbar_comes_and_goes_in_one_layout_and_the_rows_take_its_width():
    """When a keystroke's result is longer or shorter than the view, the scrollbar comes or goes:
    one layout of the screen (8-14 ms), not one with the old scrollbar and a second to place it."""
    app = ListApp()
    async with app.run_test(size=(60, HEIGHT)) as pilot:
        results = app.query_one(ResultsList)
        ids = [f"p{number}" for number in range(50)]
        results.show(ids, long_rows)
        await pilot.pause()
        await pilot.pause()
        assert results.show_vertical_scrollbar
        with_bar = screen_lines(app)[0]
        for shown, bar in ((ids[:3], False), (ids, True), (ids[:2], False)):
            layouts = count_layouts(app)
            results.show(shown, long_rows)
            for _ in range(4):
                await pilot.pause()
            assert len(layouts) == 1, (len(shown), layouts)
            assert results.show_vertical_scrollbar == bar and results.vertical_scrollbar.display == bar
            first = screen_lines(app)[0]
            assert first.endswith("…") and len(first) == (len(with_bar) if bar else 60) and len(with_bar) < 60


async def test_a_paper_shown_again_elsewhere_in_the_list_is_not_drawn_again():
    """A line is kept by what it shows (its row, its style, the width), not by its place: a
    keystroke that moves the papers on screen down a line draws only the new one."""
    app = ListApp()
    async with app.run_test(size=(60, HEIGHT)) as pilot:
        results = app.query_one(ResultsList)
        ids = [f"p{number}" for number in range(50)]
        maker = row_maker()
        results.show(ids, maker)
        await pilot.pause()
        drawn: list[str] = []
        draw = results._draw
        results._draw = lambda row, *args: drawn.append(row.plain) or draw(row, *args)  # type: ignore[method-assign]
        results.show(["new", *ids], maker)
        await pilot.pause()
        await pilot.pause()
        # the new first line, and the two whose selection changed (p0 was highlighted, "new" is)
        assert sorted(drawn) == ["new title", "p0 title"]
        assert screen_lines(app)[:3] == ["new title", "p0 title", "p1 title"]


async def test_rows_of_a_maker_with_the_same_key_are_not_made_again():
    """The screen's rows say what they show besides the paper (the words highlighted, ...): the
    next keystroke's rows with the same key are the ones made already; marks changed forget them."""
    app = ListApp()
    async with app.run_test(size=(60, HEIGHT)) as pilot:
        results = app.query_one(ResultsList)
        ids = [f"p{number}" for number in range(50)]
        made: list[str] = []

        def maker(key: object, marked: str = "") -> KeyedRows:
            make = row_maker(marked)
            return KeyedRows(lambda paper_id, width: made.append(paper_id) or make(paper_id, width), key)

        results.show(ids, maker(("graph",)))
        await pilot.pause()
        assert made
        made.clear()
        results.show(ids[1:], maker(("graph",)))
        await pilot.pause()
        assert made == [f"p{HEIGHT}"]  # only the paper that came into view
        results.show(ids, maker(("graphs",)))
        await pilot.pause()
        assert len(made) > HEIGHT // 2  # another key: made afresh
        made.clear()
        results.forget_rows()
        results.show(ids, maker(("graphs",), marked="p1"))
        await pilot.pause()
        await pilot.pause()
        assert len(made) >= HEIGHT - 1
        assert screen_lines(app)[1] == "p1 title NEW"


async def test_a_mark_changed_on_a_paper_not_listed_forgets_its_kept_row():
    app = ListApp()
    async with app.run_test(size=(60, HEIGHT)) as pilot:
        results = app.query_one(ResultsList)
        ids = [f"p{number}" for number in range(50)]
        made: list[str] = []
        make = row_maker()
        maker = KeyedRows(lambda paper_id, width: made.append(paper_id) or make(paper_id, width), "same")
        results.show(ids, maker)
        await pilot.pause()
        results.show(ids[20:], maker)  # p0 is not listed now
        await pilot.pause()
        results.refresh_row("p0")  # (its bookmark changed)
        made.clear()
        results.show(ids, maker)
        await pilot.pause()
        assert "p0" in made
