"""Actions on the selected paper, shared by the main and bookmarks screens: bookmark, note, tags, links."""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import Callable
from dataclasses import replace
from typing import TypeVar

from textual.binding import Binding
from textual.screen import Screen

from search import Bookmark, Link, Paper, bibtex_entry, display_label, markdown_citation, primary_link
from tui.clipboard import TERMINAL, copied_notice, copy_text, open_url, short_url, tmux_hint
from tui.screens.dialogs import LinkPicker, NoteDialog, TagsDialog
from tui.store_access import StoreAccess

ResultT = TypeVar("ResultT")

PAPER_BINDINGS = [
    Binding("b", "toggle_bookmark", "Bookmark"),
    Binding("u", "undo_remove", "Undo remove", show=False),
    Binding("n", "edit_note", "Note", show=False),
    Binding("t", "edit_tags", "Tags", show=False),
    Binding("y", "copy_link", "Copy link"),
    Binding("Y", "pick_copy_link", "Copy which link", show=False),
    Binding("o", "open_link", "Open link", show=False),
    Binding("O", "pick_open_link", "Open which link", show=False),
]

ALREADY_BOOKMARKED = "Already bookmarked in another window — nothing changed"
ALREADY_REMOVED = "Already removed in another window — nothing changed"
NOTHING_TO_UNDO = "Nothing to undo: no bookmark has been removed."
REMOVED_ELSEWHERE = "This bookmark was removed in another window: u brings it back with its note and tags."
UNDO_TIMEOUT = 8
"""Seconds a removal's notice stays: long enough to read that u undoes it."""


def writing(bookmark: Bookmark) -> str:
    """The user's own writing on a bookmark, in words: "its note and 2 tags", "its 1 tag", or ""."""
    parts = []
    if bookmark.note:
        parts.append("note")
    if bookmark.tags:
        parts.append(f"{len(bookmark.tags)} tag{'' if len(bookmark.tags) == 1 else 's'}")
    return f"its {' and '.join(parts)}" if parts else ""


def removed_notice(bookmark: Bookmark) -> str:
    """What went, that the user's writing is kept, and how to get it back."""
    label = display_label(bookmark, short=True)
    words = writing(bookmark)
    if not words:
        return f"Removed bookmark: {label} — u to undo"
    verb = "are" if " and " in words or len(bookmark.tags) > 1 else "is"
    return f"Removed bookmark: {label} ({words} {verb} kept) — u to undo"


def restored_notice(bookmark: Bookmark) -> str:
    words = writing(bookmark)
    return f"Restored bookmark: {display_label(bookmark, short=True)}" + (f" with {words}" if words else "")


def merged_tags(before: tuple[str, ...], edited: list[str], now: tuple[str, ...]) -> list[str]:
    """The user's edit (`before` -> `edited`) applied to the tags the store has `now`, so tags another
    window added or removed meanwhile are neither lost nor brought back."""
    if tuple(now) == tuple(before):
        return edited
    dropped = set(before) - set(edited)
    added = [tag for tag in edited if tag not in before and tag not in now]
    return [tag for tag in now if tag not in dropped] + added


class PaperActions(Screen[ResultT]):
    """A screen that can say which paper is selected (as a Bookmark snapshot) and acts on it.

    The screen sets `store_access` and `bookmarked` in its constructor and implements
    `current_bookmark`."""

    store_access: StoreAccess
    """The user store (or why there is none), passed in by whoever made the screen."""

    bookmarked: set[str]
    """The papers this screen shows as bookmarked, as of its last read of the store. Actions compare
    it with the store, so a screen that is out of date never undoes another window's change."""

    @abstractmethod
    def current_bookmark(self) -> Bookmark | None:
        """The selected paper, with its stored note and tags when it is bookmarked."""

    def bookmarks_changed(self, paper_id: str) -> None:
        """Called after a bookmark, note or tags changed, so the screen can redraw."""

    def shows_bookmarked(self, paper_id: str) -> bool:
        """Whether this screen shows the paper as bookmarked right now (not what the store says)."""
        return paper_id in self.bookmarked

    def loaded_paper(self, paper_id: str) -> Paper | None:
        """The paper as a loaded list has it (None: not loaded here), for what only the list says."""
        engine = getattr(self, "engine", None)
        return engine.by_id.get(paper_id) if engine is not None else None

    def _selected(self) -> Bookmark | None:
        bookmark = self.current_bookmark()
        if bookmark is None:
            self.notify("No paper selected.", severity="warning")
        return bookmark

    # -- bookmarks ----------------------------------------------------------------------------

    def action_toggle_bookmark(self) -> None:
        bookmark = self._selected()
        if bookmark is None:
            return
        shown = self.shows_bookmarked(bookmark.paper_id)
        ok, result = self.store_access.call(self, lambda store: store.toggle(bookmark, shown=shown))
        if not ok or result is None:
            return
        if not result.changed:
            self.notify(ALREADY_BOOKMARKED if result.bookmarked else ALREADY_REMOVED, markup=False, timeout=5)
        elif result.bookmarked:
            self.notify(f"Bookmarked: {display_label(bookmark, short=True)}", markup=False, timeout=3)
        else:
            self.notify(removed_notice(result.removed or bookmark), markup=False, timeout=UNDO_TIMEOUT)
        self.bookmarks_changed(bookmark.paper_id)

    def action_undo_remove(self) -> None:
        """Bring back the most recently removed bookmark with its note and tags (kept in the store, so
        this works after a restart and for a removal made in another window)."""
        ok, restored = self.store_access.call(self, lambda store: store.restore())
        if not ok:
            return
        if restored is None:
            self.notify(NOTHING_TO_UNDO, timeout=3)
            return
        self.notify(restored_notice(restored), markup=False, timeout=4)
        self.bookmarks_changed(restored.paper_id)

    # -- notes and tags -----------------------------------------------------------------------

    def _editing(self) -> tuple[Bookmark, Bookmark | None] | None:
        """The selected paper as the store has it now, to start a dialog from: (the bookmark to add
        when saving, the stored bookmark or None). Opening a dialog changes nothing in the store."""
        selected = self._selected()
        if selected is None:
            return None
        paper_id = selected.paper_id
        ok, stored = self.store_access.call(self, lambda store: store.get(paper_id))
        if not ok:
            return None
        shown = self.shows_bookmarked(paper_id)
        if stored is None and shown:
            # The screen still shows it, with a note the dialog would not have: say where it went.
            self.notify(REMOVED_ELSEWHERE, markup=False, timeout=UNDO_TIMEOUT)
            self.bookmarks_changed(paper_id)
            return None
        if stored is not None and not shown:
            self.bookmarks_changed(paper_id)  # bookmarked in another window: show it
        return stored or replace(selected, note="", tags=()), stored

    def action_edit_note(self) -> None:
        editing = self._editing()
        if editing is None:
            return
        paper, stored = editing

        def save(note: str | None) -> None:
            if note is not None:
                self._save_note(paper, stored, note)

        self.app.push_screen(NoteDialog(paper.headline, stored.note if stored else ""), save)

    def _save_note(self, paper: Bookmark, stored: Bookmark | None, note: str) -> None:
        """Save the dialog's note over the store's note as it is now (`stored`: when the dialog opened)."""
        paper_id = paper.paper_id
        before = stored.note if stored else ""
        ok, now = self.store_access.call(self, lambda store: store.get(paper_id))
        if not ok:
            return
        text, warning = note, ""
        if now is not None and now.note not in (before, note):
            # Another window changed the note while this dialog was open: keep both, lose nothing.
            text = "\n\n".join(part for part in (note, now.note) if part)
            warning = (
                "The note was changed in another window meanwhile: both versions are kept."
                if note
                else "The note was not cleared: another window changed it meanwhile."
            )
        if now is None and not text:
            self.notify("Nothing saved: the note is empty and the paper is not bookmarked.", timeout=3)
            return
        ok, added = self.store_access.call(
            self, lambda store: store.set_note(paper_id, text, paper=replace(paper, note=text) if text else None)
        )
        if not ok:
            return
        if warning:
            self.notify(warning, severity="warning", markup=False, timeout=6)
        elif added:
            self.notify(self._added_notice(paper, stored, "the note"), markup=False, timeout=4)
        else:
            self.notify("Note saved." if text else "Note cleared.", timeout=3)
        self.bookmarks_changed(paper_id)

    def action_edit_tags(self) -> None:
        editing = self._editing()
        if editing is None:
            return
        paper, stored = editing

        def save(tags: list[str] | None) -> None:
            if tags is not None:
                self._save_tags(paper, stored, tags)

        self.app.push_screen(TagsDialog(paper.headline, stored.tags if stored else ()), save)

    def _save_tags(self, paper: Bookmark, stored: Bookmark | None, tags: list[str]) -> None:
        """Apply the dialog's change to the store's tags as they are now (`stored`: when it opened)."""
        paper_id = paper.paper_id
        before = stored.tags if stored else ()
        ok, now = self.store_access.call(self, lambda store: store.get(paper_id))
        if not ok:
            return
        final = merged_tags(before, tags, now.tags if now is not None else before)
        if now is None and not final:
            self.notify("Nothing saved: no tags and the paper is not bookmarked.", timeout=3)
            return
        ok, added = self.store_access.call(
            self,
            lambda store: store.set_tags(paper_id, final, paper=replace(paper, tags=tuple(final)) if final else None),
        )
        if not ok:
            return
        shown = ", ".join(final) or "none"
        if now is not None and final != tags:
            self.notify(
                f"Tags were changed in another window meanwhile; both changes kept: {shown}",
                severity="warning",
                markup=False,
                timeout=6,
            )
        elif added:
            self.notify(self._added_notice(paper, stored, f"tags ({shown})"), markup=False, timeout=4)
        else:
            self.notify(f"Tags: {shown}", markup=False, timeout=3)
        self.bookmarks_changed(paper_id)

    @staticmethod
    def _added_notice(paper: Bookmark, stored: Bookmark | None, what: str) -> str:
        """Said when saving a note or tags bookmarked the paper."""
        label = display_label(paper, short=True)
        if stored is not None:  # bookmarked when the dialog opened: another window removed it since
            return f"Bookmarked again with {what} (another window had removed it): {label}"
        return f"Bookmarked with {what}: {label}"

    # -- links and clipboard ------------------------------------------------------------------

    def copy_to_clipboard(self, text: str, what: str) -> None:
        method = copy_text(self.app, text)
        hint = None
        if method == TERMINAL and not getattr(self.app, "told_tmux", False):
            hint = tmux_hint()  # said the first time only: the same words at every copy would be noise
            self.app.told_tmux = True  # type: ignore[attr-defined]
        self.notify(copied_notice(what, method, hint), markup=False, timeout=8 if hint else 4)

    def action_copy_link(self) -> None:
        bookmark = self._selected()
        if bookmark is not None and bookmark.links:
            link = primary_link(bookmark.links)
            self.copy_to_clipboard(link.url, short_url(link.url))

    def action_pick_copy_link(self) -> None:
        self._pick_link("Copy which link?", lambda link: self.copy_to_clipboard(link.url, short_url(link.url)))

    def action_open_link(self) -> None:
        bookmark = self._selected()
        if bookmark is not None and bookmark.links:
            self.open_in_browser(primary_link(bookmark.links))

    def action_pick_open_link(self) -> None:
        self._pick_link("Open which link?", self.open_in_browser)

    def open_in_browser(self, link: Link) -> None:
        problem = open_url(self.app, link.url)
        if problem:
            self.notify(
                f"Could not open {short_url(link.url)}: {problem}. Press y to copy it instead.",
                severity="warning",
                markup=False,
            )
        else:
            self.notify(f"Opened {short_url(link.url)}", markup=False, timeout=3)

    def _pick_link(self, title: str, then: Callable[[Link], None]) -> None:
        bookmark = self._selected()
        if bookmark is None or not bookmark.links:
            return

        def picked(link: Link | None) -> None:
            if link is not None:
                then(link)

        self.app.push_screen(LinkPicker(title, bookmark.links), picked)

    def action_copy_abstract(self) -> None:
        bookmark = self._selected()
        if bookmark is not None:
            self.copy_to_clipboard(bookmark.abstract, "the abstract")

    def action_copy_bibtex(self) -> None:
        bookmark = self._selected()
        if bookmark is not None:
            paper = self.loaded_paper(bookmark.paper_id)  # the venue's own entry, when its list has one
            self.copy_to_clipboard(bibtex_entry(bookmark, paper), "the BibTeX entry")

    def action_copy_markdown(self) -> None:
        bookmark = self._selected()
        if bookmark is not None:
            self.copy_to_clipboard(markdown_citation(bookmark), "the Markdown citation")
