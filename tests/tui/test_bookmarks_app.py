"""Bookmarks, notes, tags, read marks, links and the clipboard, driven through the app's keys."""

from __future__ import annotations

import webbrowser

import pyperclip
import pytest

from search import bookmark_of, display_label
from search.corpus.loader import load_corpus
from search.engine import SearchEngine
from search.user.store import UserStore
from tests.tui.conftest import WIDE, settle
from tui.app import ReaderApp
from tui.screens.bookmarks import BookmarksScreen
from tui.screens.dialogs import LinkPicker, NoteDialog, TagsDialog
from tui.widgets.reader import ReaderPane
from tui.widgets.results_list import BOOKMARK_MARKER, ResultsList


@pytest.fixture
def notes(monkeypatch):
    """Every notification shown, as (message, severity)."""
    shown = []
    original = ReaderApp.notify

    def record(self, message, *args, **kwargs):
        shown.append((str(message), kwargs.get("severity", "information")))
        return original(self, message, *args, **kwargs)

    monkeypatch.setattr(ReaderApp, "notify", record)
    return shown


@pytest.fixture
def clipboard(monkeypatch):
    """pyperclip with a working backend that records what was copied."""
    copied = []
    monkeypatch.setattr(pyperclip, "copy", copied.append)
    return copied


@pytest.fixture
def no_clipboard_backend(monkeypatch):
    def fail(text):
        raise pyperclip.PyperclipException("no copy/paste mechanism")

    monkeypatch.setattr(pyperclip, "copy", fail)


class FakeBrowser(webbrowser.BackgroundBrowser):
    def __init__(self):
        super().__init__("fake-browser")
        self.opened = []

    def open(self, url, new=0, autoraise=True):
        self.opened.append(url)
        return True


def row_prompt(app, index):
    return app.screen.query_one(ResultsList).row(index)


async def select(pilot, app, query):
    await pilot.press(*query)
    await settle(pilot, app)
    await pilot.press("enter")


async def test_b_toggles_a_bookmark_with_marker_and_notification(make_app, notes):
    app = make_app()
    async with app.run_test(size=WIDE) as pilot:
        await settle(pilot, app)
        await select(pilot, app, "bitstack")
        await pilot.press("b")
        assert app.store.bookmarked_ids() == {app.screen.query_one(ResultsList).current_id}
        assert row_prompt(app, 0).plain.startswith(BOOKMARK_MARKER)
        assert (
            notes[-1][0]
            == "Bookmarked: BitStack: Any-Size Compression of Large Language Models in Variable Memory Environments"
        )
        await pilot.press("enter", "b")  # in the reader too
        assert app.store.bookmarked_ids() == set()
        assert (
            notes[-1][0]
            == "Removed bookmark: BitStack: Any-Size Compression of Large Language Models in Variable Memory Environments — u to undo"
        )


async def test_bookmarks_survive_a_restart(make_app):
    app = make_app()
    async with app.run_test(size=WIDE) as pilot:
        await settle(pilot, app)
        await pilot.press("down", "j", "b")
    app = make_app()
    async with app.run_test(size=WIDE) as pilot:
        await settle(pilot, app)
        rows = [row_prompt(app, i).plain[0] for i in range(3)]
        assert rows == [" ", BOOKMARK_MARKER, " "]


async def test_opened_papers_are_dimmed(make_app):
    app = make_app()
    async with app.run_test(size=WIDE) as pilot:
        await settle(pilot, app)
        assert not row_prompt(app, 1).style
        await pilot.press("down", "j", "enter")
        assert "dim" in str(row_prompt(app, 1).style)
        assert app.store.opened_ids() == {app.engine.papers[1].id}


async def test_note_dialog_saves_with_ctrl_s_and_bookmarks_the_paper(make_app):
    app = make_app()
    async with app.run_test(size=WIDE) as pilot:
        await settle(pilot, app)
        await pilot.press("down", "n")
        assert isinstance(app.screen, NoteDialog)
        await pilot.press(*"read section 3", "ctrl+s")
        await pilot.pause()
        paper_id = app.engine.papers[0].id
        assert app.store.get(paper_id).note == "read section 3"
        await pilot.press("n")
        assert app.screen.query_one("TextArea").text == "read section 3"
        await pilot.press("escape")
        assert app.store.get(paper_id).note == "read section 3"


async def test_tags_dialog(make_app):
    app = make_app()
    async with app.run_test(size=WIDE) as pilot:
        await settle(pilot, app)
        await pilot.press("down", "t")
        assert isinstance(app.screen, TagsDialog)
        await pilot.press(*"to-read, milp ,  ", "enter")
        await pilot.pause()
        assert app.store.get(app.engine.papers[0].id).tags == ("to-read", "milp")


async def test_bookmarks_screen_filters_opens_and_removes(make_app, notes):
    app = make_app()
    async with app.run_test(size=WIDE) as pilot:
        await settle(pilot, app)
        await pilot.press("down", "b", "j", "j", "b", "j", "b")
        await pilot.press("B")
        screen = app.screen
        assert isinstance(screen, BookmarksScreen) and len(screen.shown) == 3
        await pilot.press("slash", *"t-jepa")
        assert [b.name for b in screen.shown] == ["T-JEPA"]
        await pilot.press("enter", "enter")
        await settle(pilot, app)
        assert not isinstance(app.screen, BookmarksScreen)
        assert isinstance(app.focused, ReaderPane)
        assert app.screen.query_one(ReaderPane).text.plain.startswith("T-JEPA")
        await pilot.press("B")
        await pilot.press("d")
        assert len(app.screen.shown) == 2 and len(app.store.bookmarks()) == 2
        assert notes[-1][0].startswith("Removed bookmark:")
        await pilot.press("escape")
        assert not isinstance(app.screen, BookmarksScreen)


async def test_a_bookmark_whose_corpus_is_not_loaded_still_shows(make_app, engine_for):
    app = make_app()
    async with app.run_test(size=WIDE) as pilot:
        await settle(pilot, app)
        await pilot.press("down", "b")
    other = ReaderApp(engine_for("An unrelated abstract about trees."), store=UserStore())
    async with other.run_test(size=WIDE) as pilot:
        await settle(pilot, other)
        await pilot.press("down", "B")
        assert other.screen.shown[0].name == "TRGNN"
        assert "TRGNN" in str(other.screen.query_one("#bookmark-body").content)
        await pilot.press("enter")
        assert isinstance(other.screen, BookmarksScreen)  # stays: shows the saved copy


async def test_y_copies_the_primary_link_to_the_system_clipboard(make_app, clipboard, notes):
    app = make_app()
    async with app.run_test(size=WIDE) as pilot:
        await settle(pilot, app)
        await select(pilot, app, "graphbridge")
        await pilot.press("y")
        assert clipboard == ["https://openreview.net/forum?id=gjRhw5S3A4"]
        assert notes[-1][0] == "Copied openreview.net/…id=gjRhw5S3A4 to the clipboard"


async def test_y_falls_back_to_osc52_without_a_clipboard_backend(make_app, no_clipboard_backend, notes, monkeypatch):
    monkeypatch.delenv("TMUX", raising=False)  # outside tmux: no word on letting it pass OSC 52 on
    app = make_app()
    async with app.run_test(size=WIDE) as pilot:
        await settle(pilot, app)
        await select(pilot, app, "trgnn")
        await pilot.press("y")
        assert app.clipboard == "https://openreview.net/forum?id=gyvYKLEm8t"
        assert notes[-1][0] == "Copied openreview.net/…id=gyvYKLEm8t via OSC 52"


async def test_Y_picks_a_numbered_link(make_app, clipboard):
    app = make_app()
    async with app.run_test(size=WIDE) as pilot:
        await settle(pilot, app)
        await select(pilot, app, "graphbridge")
        await pilot.press("Y")
        assert isinstance(app.screen, LinkPicker)
        await pilot.press("5")
        assert clipboard[-1].startswith("https://scholar.google.com/")
        assert not isinstance(app.screen, LinkPicker)


async def test_o_and_O_open_links_in_the_browser(make_app, monkeypatch):
    browser = FakeBrowser()
    monkeypatch.setattr(webbrowser, "get", lambda *a: browser)
    app = make_app()
    async with app.run_test(size=WIDE) as pilot:
        await settle(pilot, app)
        await select(pilot, app, "graphbridge")
        await pilot.press("o")
        await pilot.press("O", "3")
        assert browser.opened == [
            "https://openreview.net/forum?id=gjRhw5S3A4",
            app.engine.describe(app.screen.query_one(ResultsList).current_id).links[2].url,
        ]


async def test_o_without_a_browser_says_so(make_app, monkeypatch, notes):
    def none(*args):
        raise webbrowser.Error("could not locate runnable browser")

    monkeypatch.setattr(webbrowser, "get", none)
    app = make_app()
    async with app.run_test(size=WIDE) as pilot:
        await settle(pilot, app)
        await pilot.press("down", "o")
        assert "no web browser is available" in notes[-1][0] and notes[-1][1] == "warning"


@pytest.mark.parametrize(
    "command, expected",
    [
        ("copy abstract", "Tripartite graph representation"),
        ("copy bibtex", "@inproceedings{"),
        ("copy markdown", "[Learning to Select Nodes in Branch and Bound with Sufficient Tree Representation]("),
    ],
)
async def test_palette_copies_abstract_bibtex_and_markdown(make_app, clipboard, command, expected):
    app = make_app()
    async with app.run_test(size=WIDE) as pilot:
        await settle(pilot, app)
        await pilot.press("down", "ctrl+p", *command)
        await pilot.pause(0.3)
        await pilot.press("enter")
        await pilot.pause()
        assert expected in clipboard[-1]


async def test_unusable_store_keeps_the_app_working(make_app, notes):
    from tui.app import ReaderApp

    app = ReaderApp(
        make_app().engine, store=None, store_problem="cannot create the data dir /ro: Read-only file system"
    )
    async with app.run_test(size=WIDE) as pilot:
        await settle(pilot, app)
        await pilot.press("down", "b")
        assert any("Read-only file system" in message for message, _ in notes)
        await pilot.press("B")
        assert not isinstance(app.screen, BookmarksScreen)


async def test_a_corrupt_database_is_moved_aside_and_the_user_is_told(make_app, notes, isolated_dirs):
    data = isolated_dirs / "xdg_data_home" / "iclr-reader"
    data.mkdir(parents=True)
    (data / "user.sqlite3").write_bytes(b"garbage, not sqlite" * 50)
    app = make_app()
    async with app.run_test(size=WIDE) as pilot:
        await settle(pilot, app)
        assert any("nothing in it could be read; it was kept as" in message for message, _ in notes)
        await pilot.press("down", "b")
        assert len(app.store.bookmarks()) == 1
    assert any(p.name.startswith("user.sqlite3.corrupt-") for p in data.iterdir())


async def bookmark_three(pilot, app):
    """Bookmark the first three papers in corpus order and open the bookmarks screen."""
    await settle(pilot, app)
    await pilot.press("down", "b", "j", "b", "j", "b", "B")
    await pilot.pause()
    assert isinstance(app.screen, BookmarksScreen) and len(app.screen.shown) == 3


async def test_g_and_G_go_to_the_first_and_last_bookmark(make_app):
    app = make_app()
    async with app.run_test(size=WIDE) as pilot:
        await bookmark_three(pilot, app)
        screen = app.screen
        first, last = screen.shown[0], screen.shown[-1]
        await pilot.press("G")
        assert screen.current_bookmark() == last
        assert str(screen.query_one("#bookmark-body").content).startswith(last.title)
        await pilot.press("g")
        assert screen.current_bookmark() == first
        await pilot.press("end", "home")
        assert screen.current_bookmark() == first
        await pilot.press("slash", *"gG")  # in the filter box they are letters
        assert screen.query_one("#bookmark-filter").value == "gG"


async def test_opening_a_bookmark_answers_with_its_paper_id(make_app, seed_engine):
    app = make_app()
    async with app.run_test(size=WIDE) as pilot:
        await settle(pilot, app)
        await pilot.press("down", "b", "j", "b")
        chosen = []
        await app.push_screen(BookmarksScreen({p.id for p in seed_engine.papers}, app.store_access), chosen.append)
        await pilot.pause()
        await pilot.press("G", "enter")
        await pilot.pause()
        assert chosen == [app.store.bookmarks()[-1].paper_id]


async def test_bookmark_rows_are_laid_out_like_result_rows(make_app):
    app = make_app()
    async with app.run_test(size=WIDE) as pilot:
        await settle(pilot, app)
        await select(pilot, app, "graphbridge")
        await pilot.press("b")
        result_row = row_prompt(app, 0).plain
        await pilot.press("B")
        await pilot.pause()
        bookmark_row = str(app.screen.query_one("#bookmark-list").get_option_at_index(0).prompt)
        assert bookmark_row == result_row  # the same columns: titles line up as on the main screen
        assert bookmark_row.startswith(f"{BOOKMARK_MARKER}◆ GraphBridge: Towards")


async def test_bookmarks_in_a_narrow_terminal(make_app, engine_for):
    """Below 100 columns the list takes the screen, one line per bookmark, as the main screen's;
    a saved copy replaces the list until esc."""
    app = make_app()
    async with app.run_test(size=WIDE) as pilot:
        await settle(pilot, app)
        await pilot.press("down", "b")
    other = ReaderApp(engine_for("An unrelated abstract about trees."), store=UserStore())
    async with other.run_test(size=(80, 24)) as pilot:
        await settle(pilot, other)
        await pilot.press("down", "B")
        await pilot.pause()
        screen = other.screen
        options, view = screen.query_one("#bookmark-list"), screen.query_one("#bookmark-view")
        assert options.display and not view.display
        assert options.size.width > 70 and options.virtual_size.height == 1
        await pilot.press("enter")  # its list is not loaded: the saved copy
        await pilot.pause()
        assert view.display and not options.display and other.focused is view
        await pilot.press("escape")
        await pilot.pause()
        assert options.display and not view.display and other.focused is options
        await pilot.press("d")  # nothing left: the screen says so instead of an empty list
        await pilot.pause()
        assert view.display and "No bookmarks yet" in str(screen.query_one("#bookmark-body").content)


async def test_bookmarks_from_two_venues_line_up(make_app, tmp_path):
    app = make_app()
    async with app.run_test(size=WIDE) as pilot:
        await settle(pilot, app)
        await pilot.press("down", "b")
    corpus = tmp_path / "neurips.txt"
    corpus.write_text("NeurIPS 2024 list\n\nTreeNet: an unrelated abstract about trees.\n", encoding="utf-8")
    other = ReaderApp(SearchEngine(load_corpus([corpus]), cache_dir=tmp_path / "cache"), store=UserStore())
    async with other.run_test(size=WIDE) as pilot:
        await settle(pilot, other)
        await pilot.press("down", "b", "B")
        await pilot.pause()
        options = other.screen.query_one("#bookmark-list")
        rows = [str(options.get_option_at_index(i).prompt) for i in range(2)]
        labels = [display_label(bookmark) for bookmark in other.screen.shown]
        assert {b.venue for b in other.screen.shown} == {"ICLR 2025", "NeurIPS 2024"}
        assert rows[0].index(labels[0]) == rows[1].index(labels[1])  # the titles start in one column


async def test_a_filter_that_hides_every_bookmark_says_so_not_that_there_are_none(make_app, seed_engine):
    """The tester's 'XlearY' over 6 bookmarks: '6 bookmarks, 0 shown' above, 'No bookmarks yet' beside."""
    app = make_app()
    for paper in seed_engine.papers[:3]:
        app.store.add(bookmark_of(seed_engine.describe(paper.id)))
    async with app.run_test(size=WIDE) as pilot:
        await settle(pilot, app)
        await pilot.press("tab", "B", "slash", *"XlearY")
        await pilot.pause()
        body = str(app.screen.query_one("#bookmark-body").content)
        assert "No bookmark matches the filter." in body and "No bookmarks yet" not in body


async def test_the_bookmark_list_stops_at_its_ends_as_the_result_list_does(make_app, seed_engine):
    """j on the last bookmark went round to the first (and k on the first to the last); the result
    list stays on its last paper."""
    app = make_app()
    for paper in seed_engine.papers[:3]:
        app.store.add(bookmark_of(seed_engine.describe(paper.id)))
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot, app)
        await pilot.press("tab", "G", "j", "down")
        await settle(pilot, app)
        results = app.screen.query_one(ResultsList)
        assert results.highlighted == len(results.paper_ids) - 1
        await pilot.press("B")
        await settle(pilot, app)
        options = app.screen.query_one("#bookmark-list")
        await pilot.press("G", "j", "down")
        assert options.highlighted == 2
        await pilot.press("g", "k", "up")
        assert options.highlighted == 0
