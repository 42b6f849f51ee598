"""A user's bookmarks, notes and tags survive stray keys, closed dialogs and a second window.

Driven through the app's keys (Pilot). "Another window" is a second UserStore on the same database,
changing it behind the app's back, as a second iclr-reader would."""

from __future__ import annotations

import json

import pytest

from search import Bookmark, SearchEngine, bookmark_of, display_label
from search.user.store import UserStore
from tests.tui.conftest import WIDE, settle
from tui.app import ReaderApp
from tui.screens.bookmarks import BookmarksScreen
from tui.screens.dialogs import NoteDialog, TagsDialog
from tui.screens.paper_actions import ALREADY_BOOKMARKED, ALREADY_REMOVED, NOTHING_TO_UNDO, REMOVED_ELSEWHERE
from tui.widgets.results_list import BOOKMARK_MARKER, ResultsList


@pytest.fixture
def make_app(seed_engine):
    """The app over the bundled corpus, with a new UserStore on this test's data dir each time."""
    return lambda: ReaderApp(seed_engine, store=UserStore())


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


def paper(app, index=0):
    """The bookmark the app would make of the index-th paper (the first is selected by "down")."""
    return bookmark_of(app.engine.describe(app.engine.papers[index].id))


def label(bookmark):
    return display_label(bookmark, short=True)


def starred(app, index=0):
    """Whether the result row shows the bookmark marker."""
    return app.screen.query_one(ResultsList).row(index).plain.startswith(BOOKMARK_MARKER)


def keep(store, bookmark, note="", tags=()):
    """Bookmark a paper with a note and tags, as the user did earlier (or another window does now)."""
    store.add(bookmark)
    if note:
        store.set_note(bookmark.paper_id, note)
    if tags:
        store.set_tags(bookmark.paper_id, tags)


# -- removing keeps the user's writing, and u brings it back ----------------------------------


async def test_b_removes_a_bookmark_with_a_note_and_u_brings_back_note_and_tags(make_app, notes):
    app = make_app()
    first = paper(app)
    keep(app.store, first, "read section 3", ["to-read", "milp"])
    async with app.run_test(size=WIDE) as pilot:
        await settle(pilot, app)
        await pilot.press("down", "b")
        assert app.store.get(first.paper_id) is None
        assert not starred(app)
        assert notes[-1][0] == f"Removed bookmark: {label(first)} (its note and 2 tags are kept) — u to undo"
        await pilot.press("u")
        restored = app.store.get(first.paper_id)
        assert restored is not None
        assert (restored.note, restored.tags) == ("read section 3", ("to-read", "milp"))
        assert starred(app)
        assert notes[-1][0] == f"Restored bookmark: {label(first)} with its note and 2 tags"


async def test_u_undoes_a_removal_after_the_app_was_restarted(make_app, notes):
    app = make_app()
    first = paper(app)
    keep(app.store, first, "the proof in appendix B is wrong", ["check"])
    async with app.run_test(size=WIDE) as pilot:
        await settle(pilot, app)
        await pilot.press("down", "b")
        assert notes[-1][0] == f"Removed bookmark: {label(first)} (its note and 1 tag are kept) — u to undo"
    app.store.close()

    again = make_app()  # a new UserStore on the same data dir
    assert again.store.get(first.paper_id) is None
    async with again.run_test(size=WIDE) as pilot:
        await settle(pilot, again)
        await pilot.press("down", "u")
        restored = again.store.get(first.paper_id)
        assert restored is not None
        assert (restored.note, restored.tags) == ("the proof in appendix B is wrong", ("check",))
        assert starred(again)


async def test_u_with_nothing_to_undo_says_so(make_app, notes):
    app = make_app()
    async with app.run_test(size=WIDE) as pilot:
        await settle(pilot, app)
        await pilot.press("down", "u")
        assert notes[-1] == (NOTHING_TO_UNDO, "information")
        assert app.store.bookmarks() == []


async def test_d_in_the_bookmarks_screen_then_u_puts_it_back_in_its_place(make_app, notes):
    app = make_app()
    papers = [paper(app, index) for index in range(3)]
    for number, bookmark in enumerate(papers):
        keep(app.store, bookmark, f"note {number}", [f"tag{number}"])
    async with app.run_test(size=WIDE) as pilot:
        await settle(pilot, app)
        await pilot.press("down", "B")
        screen = app.screen
        assert isinstance(screen, BookmarksScreen)
        order = [b.paper_id for b in screen.shown]
        await pilot.press("j")
        middle = screen.current_bookmark()
        await pilot.press("d")
        assert middle.paper_id not in [b.paper_id for b in screen.shown] and len(screen.shown) == 2
        assert notes[-1][0] == f"Removed bookmark: {label(middle)} (its note and 1 tag are kept) — u to undo"
        await pilot.press("u")
        assert [b.paper_id for b in screen.shown] == order
        assert screen.current_bookmark().paper_id == middle.paper_id
        assert (screen.current_bookmark().note, screen.current_bookmark().tags) == (middle.note, middle.tags)
        assert "note 1" in str(screen.query_one("#bookmark-body").content)


# -- dialogs change nothing until saved -------------------------------------------------------


async def test_n_then_esc_leaves_no_bookmark_and_saving_bookmarks_with_the_note(make_app, notes):
    app = make_app()
    first = paper(app)
    async with app.run_test(size=WIDE) as pilot:
        await settle(pilot, app)
        await pilot.press("down", "n")
        assert isinstance(app.screen, NoteDialog)
        assert app.store.bookmarked_ids() == set()  # opening bookmarks nothing
        await pilot.press("escape")
        assert not isinstance(app.screen, NoteDialog)
        assert app.store.bookmarked_ids() == set()
        assert not starred(app)
        await pilot.press("n", *"read section 3", "ctrl+s")
        await pilot.pause()
        stored = app.store.get(first.paper_id)
        assert stored is not None and stored.note == "read section 3"
        assert starred(app)
        assert notes[-1][0] == f"Bookmarked with the note: {label(first)}"


async def test_t_then_esc_leaves_no_bookmark(make_app):
    app = make_app()
    async with app.run_test(size=WIDE) as pilot:
        await settle(pilot, app)
        await pilot.press("down", "t")
        assert isinstance(app.screen, TagsDialog)
        assert app.store.bookmarked_ids() == set()
        await pilot.press("escape")
        assert not isinstance(app.screen, TagsDialog)
        assert app.store.bookmarked_ids() == set()


async def test_saving_an_empty_note_adds_no_bookmark(make_app, notes):
    app = make_app()
    async with app.run_test(size=WIDE) as pilot:
        await settle(pilot, app)
        await pilot.press("down", "n", "ctrl+s")
        await pilot.pause()
        assert not isinstance(app.screen, NoteDialog)
        assert app.store.bookmarked_ids() == set()
        assert "Nothing saved" in notes[-1][0]


async def test_esc_in_the_note_dialog_asks_before_throwing_away_what_was_typed(make_app):
    app = make_app()
    first = paper(app)
    async with app.run_test(size=WIDE) as pilot:
        await settle(pilot, app)
        await pilot.press("down", "n", *"a long careful note", "escape")
        dialog = app.screen
        assert isinstance(dialog, NoteDialog)  # still open, text kept
        assert dialog.query_one("TextArea").text == "a long careful note"
        assert "esc again discards" in str(dialog.query_one(".dialog-help").content)
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert app.store.get(first.paper_id).note == "a long careful note"
        await pilot.press("n", *" more", "escape", "escape")  # esc twice: discarded on purpose
        assert not isinstance(app.screen, NoteDialog)
        assert app.store.get(first.paper_id).note == "a long careful note"


async def test_ctrl_q_in_a_note_dialog_with_unsaved_writing_warns_before_quitting(make_app):
    app = make_app()
    async with app.run_test(size=WIDE) as pilot:
        await settle(pilot, app)
        await pilot.press("down", "n", *"half a thought", "ctrl+q")
        await pilot.pause()
        assert app.is_running and isinstance(app.screen, NoteDialog)  # the first ctrl+q only warns
        assert "ctrl+q again quits" in str(app.screen.query_one(".dialog-help").content)
        await pilot.press("ctrl+q")
        await pilot.pause()
        assert not app.is_running  # the second one quits, as asked


async def test_undo_remove_is_in_the_command_palette(make_app):
    app = make_app()
    async with app.run_test(size=WIDE) as pilot:
        await settle(pilot, app)
        titles = [command.title for command in app.get_system_commands(app.screen)]
        assert "Undo remove bookmark" in titles


# -- another window changed the store: act on what it holds now --------------------------------


async def test_b_on_a_stale_screen_keeps_another_windows_bookmark_and_note(make_app, notes):
    app = make_app()
    first = paper(app)
    async with app.run_test(size=WIDE) as pilot:
        await settle(pilot, app)
        await pilot.press("down")
        assert not starred(app)  # this window shows it not bookmarked...
        other = UserStore()
        keep(other, first, "written in the other window", ["theirs"])  # ...the other bookmarks it
        await pilot.press("b")
        stored = app.store.get(first.paper_id)
        assert stored is not None
        assert (stored.note, stored.tags) == ("written in the other window", ("theirs",))
        assert app.store.removed() == []
        assert notes[-1][0] == ALREADY_BOOKMARKED
        assert starred(app)  # redrawn to what the store holds
        other.close()


async def test_b_on_a_stale_screen_does_not_bring_back_a_bookmark_removed_elsewhere(make_app, notes):
    app = make_app()
    first = paper(app)
    keep(app.store, first, "mine")
    async with app.run_test(size=WIDE) as pilot:
        await settle(pilot, app)
        await pilot.press("down")
        assert starred(app)
        other = UserStore()
        other.remove(first.paper_id)
        await pilot.press("b")  # meant: remove it; it is already gone
        assert app.store.get(first.paper_id) is None
        assert notes[-1][0] == ALREADY_REMOVED
        assert not starred(app)
        await pilot.press("u")  # and the other window's removal can still be undone here
        assert app.store.get(first.paper_id).note == "mine"
        other.close()


async def test_d_on_a_bookmark_removed_in_another_window_says_so(make_app, notes):
    app = make_app()
    first, second = paper(app, 0), paper(app, 1)
    keep(app.store, first, "first note")
    keep(app.store, second)
    async with app.run_test(size=WIDE) as pilot:
        await settle(pilot, app)
        await pilot.press("down", "B")
        screen = app.screen
        gone = screen.current_bookmark()
        other = UserStore()
        other.remove(gone.paper_id)
        await pilot.press("d")
        assert notes[-1][0] == ALREADY_REMOVED
        assert [b.paper_id for b in screen.shown] == [b.paper_id for b in app.store.bookmarks()]
        assert len(screen.shown) == 1
        other.close()


async def test_a_note_edited_in_two_windows_keeps_both_versions(make_app, notes):
    app = make_app()
    first = paper(app)
    keep(app.store, first, "first")
    async with app.run_test(size=WIDE) as pilot:
        await settle(pilot, app)
        await pilot.press("down", "n")
        other = UserStore()
        other.set_note(first.paper_id, "from the other window")
        await pilot.press("end", *" and more", "ctrl+s")
        await pilot.pause()
        note = app.store.get(first.paper_id).note
        assert "first and more" in note and "from the other window" in note
        assert notes[-1][1] == "warning" and "both versions are kept" in notes[-1][0]
        other.close()


async def test_tags_edited_in_two_windows_keep_both_changes(make_app, notes):
    app = make_app()
    first = paper(app)
    keep(app.store, first, tags=["a", "b"])
    async with app.run_test(size=WIDE) as pilot:
        await settle(pilot, app)
        await pilot.press("down", "t")
        other = UserStore()
        other.set_tags(first.paper_id, ["a", "b", "c"])
        await pilot.press("end", *", d", "enter")
        await pilot.pause()
        assert app.store.get(first.paper_id).tags == ("a", "b", "c", "d")
        assert notes[-1][1] == "warning"
        other.close()


async def test_a_note_saved_after_another_window_removed_the_bookmark_is_kept(make_app, notes):
    app = make_app()
    first = paper(app)
    keep(app.store, first, "draft")
    async with app.run_test(size=WIDE) as pilot:
        await settle(pilot, app)
        await pilot.press("down", "n")
        other = UserStore()
        other.remove(first.paper_id)
        await pilot.press("end", *", finished", "ctrl+s")
        await pilot.pause()
        stored = app.store.get(first.paper_id)
        assert stored is not None and stored.note == "draft, finished"
        assert notes[-1][0] == f"Bookmarked again with the note (another window had removed it): {label(first)}"
        assert starred(app)
        other.close()


async def test_n_on_a_bookmark_removed_in_another_window_says_where_it_went(make_app, notes):
    app = make_app()
    first = paper(app)
    keep(app.store, first, "my note")
    async with app.run_test(size=WIDE) as pilot:
        await settle(pilot, app)
        await pilot.press("down")
        assert starred(app)
        other = UserStore()
        other.remove(first.paper_id)
        await pilot.press("n")
        assert not isinstance(app.screen, NoteDialog)  # an empty dialog would hide the note
        assert notes[-1][0] == REMOVED_ELSEWHERE
        assert app.store.bookmarked_ids() == set()
        await pilot.press("u")
        assert app.store.get(first.paper_id).note == "my note"
        other.close()


async def test_b_removes_a_bookmark_made_under_the_papers_other_id(tmp_path, notes):
    """The same paper in two lists is one row, kept under one id; a bookmark made under the other id
    (in another list, before they were merged) shows on that row, and `b` there removes it."""
    abstract = "A study of merged records across two conference lists, with enough words to be recognised."
    first, second = tmp_path / "a.json", tmp_path / "b.json"
    same = {"abstract": abstract, "title": "Merged paper", "site": "https://openreview.net/forum?id=F1"}
    first.write_text(json.dumps([{"id": "kept-id", **same}]))
    second.write_text(json.dumps([{"id": "other-id", **same}]))
    engine = SearchEngine.from_paths([first, second])
    assert engine.canonical("other-id") == "kept-id"
    store = UserStore()
    keep(store, Bookmark(paper_id="other-id", headline="Merged paper"), "n")
    app = ReaderApp(engine, store=UserStore())
    async with app.run_test(size=WIDE) as pilot:
        await settle(pilot, app)
        await pilot.press("down")
        assert starred(app)
        await pilot.press("b")
        await pilot.pause()
        assert store.bookmarked_ids() == set() and [b.paper_id for b in store.removed()] == ["other-id"]
        assert notes[-1][0].startswith("Removed bookmark: Merged paper (its note is kept)")
        assert not starred(app)
