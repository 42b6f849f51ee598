"""The Recommended screen: papers like the bookmarks, reached from the palette and the bookmarks screen."""

from __future__ import annotations

import pytest

from search import bookmark_of
from tests.tui.conftest import WIDE, settle
from tui.screens.bookmarks import BookmarksScreen
from tui.screens.main import MainScreen
from tui.screens.recommended import RecommendedScreen
from tui.widgets.reader import ReaderPane


def bitstack(engine) -> str:
    return next(paper.id for paper in engine.papers if engine.describe(paper.id).name == "BitStack")


def shown_text(screen) -> str:
    """What the screen's list and message say, as text."""
    from textual.widgets import OptionList, Static

    options = screen.query_one("#recommended-list", OptionList)
    rows = [str(options.get_option_at_index(i).prompt) for i in range(options.option_count)]
    message = screen.query_one("#recommended-message", Static)
    return "\n".join([str(message.render()) if message.display else "", *rows])


def held_after_the_first_bookmark(engine, monkeypatch):
    """Make `engine.recommend` stop after its first bookmark's papers until the returned event is
    set (the test looks at the screen meanwhile, then lets the rest come)."""
    import threading

    release = threading.Event()
    recommend = engine.recommend

    def slow_after_the_first(bookmarks, removed, limit, cancel=None, seconds=None, on_partial=None):
        def partial(result):
            on_partial(result)
            release.wait(30)

        return recommend(bookmarks, removed, limit, cancel, seconds, partial)

    monkeypatch.setattr(engine, "recommend", slow_after_the_first)
    return release


async def test_the_palette_opens_it_and_without_bookmarks_it_says_how_to_add_one(make_app):
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot, app)
        await pilot.press("ctrl+p", *"recommended")
        await settle(pilot, app)  # the palette's search is a worker
        await pilot.press("enter")
        await settle(pilot, app)
        assert isinstance(app.screen, RecommendedScreen)
        assert "No bookmarks yet" in shown_text(app.screen) and "Press b on a paper" in shown_text(app.screen)
        await pilot.press("escape")
        assert isinstance(app.screen, MainScreen)


@pytest.mark.parametrize("size", [(140, 40), (80, 24), (60, 20)], ids=["140x40", "80x24", "60x20"])
async def test_r_on_the_bookmarks_screen_lists_papers_like_them_and_enter_opens_one(make_app, seed_engine, size):
    """Enter reads the paper on the Recommended screen; esc goes back to its list, then to the
    bookmarks, then to the papers: opening a paper closes neither screen."""
    app = make_app()
    seed = bitstack(seed_engine)
    app.store.add(bookmark_of(seed_engine.describe(seed)))
    expected = seed_engine.recommend([seed], limit=3).hits[0].paper_id
    async with app.run_test(size=size) as pilot:
        await settle(pilot, app)
        await pilot.press("tab", "B")
        assert isinstance(app.screen, BookmarksScreen)
        await pilot.press("r")
        await settle(pilot, app)
        screen = app.screen
        assert isinstance(screen, RecommendedScreen)
        assert screen.shown[0] == expected and seed not in screen.shown
        first_row = shown_text(screen).split("\n")[1:3]
        assert first_row[1].strip().startswith("like: BitStack")
        await pilot.press("enter")
        await settle(pilot, app)
        assert app.screen is screen
        reader = screen.query_one(ReaderPane)
        assert reader.shown_id == expected and app.focused is reader
        assert reader.region.width > 0 and reader.region.height > 0  # on screen (all of it when narrow)
        assert expected in app.store.opened_ids()  # read, as a paper opened in the main reader is
        await pilot.press("escape")
        assert app.screen is screen and app.focused is screen.query_one("#recommended-list")
        assert screen.query_one("#recommended-list").region.width > 0
        await pilot.press("escape")
        assert isinstance(app.screen, BookmarksScreen)
        await pilot.press("escape")
        assert isinstance(app.screen, MainScreen)
        assert expected in app.screen.opened  # its row shows it read


async def test_b_bookmarks_a_recommended_paper_and_it_leaves_the_list(make_app, seed_engine):
    app = make_app()
    seed = bitstack(seed_engine)
    app.store.add(bookmark_of(seed_engine.describe(seed)))
    async with app.run_test(size=(60, 20)) as pilot:
        await settle(pilot, app)
        await pilot.press("ctrl+p", *"recommended")
        await settle(pilot, app)  # the palette's search is a worker
        await pilot.press("enter")
        await settle(pilot, app)
        screen = app.screen
        assert isinstance(screen, RecommendedScreen)
        first, second = screen.shown[:2]
        await pilot.press("b")
        await pilot.pause()
        assert first in app.store.bookmarked_ids()
        assert first not in screen.shown and screen.current_id() == second
        assert seed_engine.row(first).headline[:30] not in shown_text(screen)  # its row is gone too
        await pilot.press("escape")
        assert isinstance(app.screen, MainScreen)
        assert first in app.screen.bookmarked  # the main list shows it bookmarked


async def test_b_on_a_paper_opened_in_a_narrow_terminal_goes_back_to_the_list(make_app, seed_engine):
    app = make_app()
    app.store.add(bookmark_of(seed_engine.describe(bitstack(seed_engine))))
    async with app.run_test(size=(60, 20)) as pilot:
        await settle(pilot, app)
        await pilot.press("tab", "B", "r")
        await settle(pilot, app)
        screen = app.screen
        first, second = screen.shown[:2]
        await pilot.press("enter")
        assert screen.has_class("reading") and screen.query_one("#recommended-list").region.width == 0
        await pilot.press("b")  # the paper leaves the list: the list again, on the next one
        await pilot.pause()
        assert first in app.store.bookmarked_ids() and screen.current_id() == second
        assert not screen.has_class("reading") and app.focused is screen.query_one("#recommended-list")
        await pilot.press("escape")
        assert isinstance(app.screen, BookmarksScreen)


async def test_a_ranking_that_fails_says_so(make_app, seed_engine, monkeypatch):
    app = make_app()
    seed = bitstack(seed_engine)
    app.store.add(bookmark_of(seed_engine.describe(seed)))

    def broken(*args, **kwargs):
        raise OSError("disk gone")

    monkeypatch.setattr(seed_engine, "recommend", broken)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot, app)
        await pilot.press("ctrl+p", *"recommended")
        await settle(pilot, app)
        await pilot.press("enter")
        await settle(pilot, app)
        assert isinstance(app.screen, RecommendedScreen)
        assert "Could not rank papers like your bookmarks: OSError: disk gone" in shown_text(app.screen)
        await pilot.press("escape")
        assert isinstance(app.screen, MainScreen)


async def test_the_first_bookmarks_papers_show_while_the_rest_are_compared(make_app, seed_engine, monkeypatch):
    app = make_app()
    seed = bitstack(seed_engine)
    other = next(paper.id for paper in seed_engine.papers if paper.id != seed)
    for paper_id in (other, seed):  # seed is the newest
        app.store.add(bookmark_of(seed_engine.describe(paper_id)))
    release = held_after_the_first_bookmark(seed_engine, monkeypatch)
    async with app.run_test(size=WIDE) as pilot:
        await settle(pilot, app)
        await pilot.press("tab", "B", "r")
        screen = app.screen
        while not screen.shown:
            await pilot.pause(0.01)
        assert "Compared with 1 of 2 bookmarks so far" in shown_text(screen)
        assert "like: BitStack" in shown_text(screen)
        release.set()
        await settle(pilot, app)
        assert "so far" not in shown_text(screen) and screen.result.compared == 2


async def test_the_bookmarks_screens_palette_opens_it_and_esc_comes_back_there(make_app, seed_engine):
    app = make_app()
    app.store.add(bookmark_of(seed_engine.describe(bitstack(seed_engine))))
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot, app)
        await pilot.press("tab", "B", "ctrl+p", *"recommended")
        await settle(pilot, app)
        await pilot.press("enter")
        await settle(pilot, app)
        assert isinstance(app.screen, RecommendedScreen) and app.screen.shown
        await pilot.press("escape")
        assert isinstance(app.screen, BookmarksScreen)


async def test_the_highlight_starts_on_the_best_paper_once_every_bookmark_is_compared(
    make_app, seed_engine, monkeypatch
):
    """Rows stream in (the first bookmark's papers, then the whole ranking): the highlight the user
    has not moved is on row 1 of the whole ranking, not on the paper that came first."""
    app = make_app()
    seed = bitstack(seed_engine)

    def best_changes(other: str) -> bool:
        """Whether the whole ranking (seed is the newest) has another paper first than seed's alone."""
        partials: list = []
        whole = seed_engine.recommend([seed, other], [], 100, None, None, partials.append)
        return bool(partials and partials[0].hits and whole.hits) and partials[0].hits[0] != whole.hits[0]

    other = next(paper.id for paper in seed_engine.papers if paper.id != seed and best_changes(paper.id))
    for paper_id in (other, seed):
        app.store.add(bookmark_of(seed_engine.describe(paper_id)))
    release = held_after_the_first_bookmark(seed_engine, monkeypatch)
    async with app.run_test(size=WIDE) as pilot:
        await settle(pilot, app)
        await pilot.press("tab", "B", "r")
        screen = app.screen
        while not screen.shown:
            await pilot.pause(0.01)
        streamed_first = screen.current_id()
        release.set()
        await settle(pilot, app)
        assert screen.shown[0] != streamed_first
        assert screen.current_id() == screen.shown[0]


async def test_the_header_counts_the_papers_left_after_b(make_app, seed_engine):
    from tui.widgets.header import AppHeader

    app = make_app()
    app.store.add(bookmark_of(seed_engine.describe(bitstack(seed_engine))))
    async with app.run_test(size=WIDE) as pilot:
        await settle(pilot, app)
        await pilot.press("tab", "B", "r")
        await settle(pilot, app)
        screen = app.screen
        before = len(screen.shown)
        assert f"{before} papers" in screen.query_one(AppHeader).line
        await pilot.press("b")
        await pilot.pause()
        assert len(screen.shown) == before - 1
        assert f"{before - 1} papers" in screen.query_one(AppHeader).line


def four_bookmarks(app, engine) -> None:
    """BitStack the newest, so the first ranking shown is its papers'."""
    seed = bitstack(engine)
    others = [paper.id for paper in engine.papers if paper.id != seed][:3]
    for paper_id in [*others, seed]:
        app.store.add(bookmark_of(engine.describe(paper_id)))


async def test_a_j_while_bookmarks_are_compared_stays_on_its_paper_to_the_end(make_app, seed_engine, monkeypatch):
    """Rankings come after 1, 2 and 4 bookmarks: a j on the first stayed on its paper through the
    second, then the third put the highlight back on row 1."""
    from tests.tui.conftest import keys_done
    from tests.tui.test_typing_order import burst

    app = make_app()
    four_bookmarks(app, seed_engine)
    release = held_after_the_first_bookmark(seed_engine, monkeypatch)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot, app)
        await pilot.press("tab", "B", "r")
        screen = app.screen
        while not screen.shown:
            await pilot.pause(0.01)
        burst(app, "j")
        await keys_done(pilot, app)
        moved_to = screen.current_id()
        assert moved_to == screen.shown[1]
        release.set()
        await settle(pilot, app)
        assert screen.result.compared == 4
        assert screen.current_id() == moved_to


async def test_a_j_typed_right_after_r_moves_in_the_first_papers_shown(make_app, seed_engine, monkeypatch):
    """r j in one burst: the j waits for the first ranking (it moved in the empty list before)."""
    from tests.tui.conftest import keys_done
    from tests.tui.test_typing_order import burst

    app = make_app()
    four_bookmarks(app, seed_engine)
    release = held_after_the_first_bookmark(seed_engine, monkeypatch)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot, app)
        await pilot.press("tab")
        burst(app, "B", "r", "j")
        await keys_done(pilot, app)
        screen = app.screen
        assert isinstance(screen, RecommendedScreen)
        moved_to = screen.current_id()
        assert moved_to == screen.shown[1]
        release.set()
        await settle(pilot, app)
        assert screen.current_id() == moved_to
