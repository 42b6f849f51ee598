"""Actions on the selected paper, shared by the main and bookmarks screens: bookmark, note, tags, links."""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import Callable
from typing import TypeVar

from textual.binding import Binding
from textual.screen import Screen

from search import Bookmark, Link, bibtex_entry, display_label, markdown_citation, primary_link
from tui.clipboard import copy_text, open_url
from tui.screens.dialogs import LinkPicker, NoteDialog, TagsDialog
from tui.store_access import StoreAccess

ResultT = TypeVar("ResultT")

PAPER_BINDINGS = [
    Binding("b", "toggle_bookmark", "Bookmark"),
    Binding("n", "edit_note", "Note", show=False),
    Binding("t", "edit_tags", "Tags", show=False),
    Binding("y", "copy_link", "Copy link"),
    Binding("Y", "pick_copy_link", "Copy which link", show=False),
    Binding("o", "open_link", "Open link", show=False),
    Binding("O", "pick_open_link", "Open which link", show=False),
]


class PaperActions(Screen[ResultT]):
    """A screen that can say which paper is selected (as a Bookmark snapshot) and acts on it.

    The screen sets `store_access` in its constructor and implements `current_bookmark`."""

    store_access: StoreAccess
    """The user store (or why there is none), passed in by whoever made the screen."""

    @abstractmethod
    def current_bookmark(self) -> Bookmark | None:
        """The selected paper, with its stored note and tags when it is bookmarked."""

    def bookmarks_changed(self, paper_id: str) -> None:
        """Called after a bookmark, note or tags changed, so the screen can redraw."""

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
        ok, now_bookmarked = self.store_access.call(self, lambda store: store.toggle(bookmark))
        if ok:
            verb = "Bookmarked" if now_bookmarked else "Removed bookmark"
            self.notify(f"{verb}: {display_label(bookmark, short=True)}", markup=False, timeout=3)
            self.bookmarks_changed(bookmark.paper_id)

    def _stored_or_added(self) -> Bookmark | None:
        """The selected paper's bookmark; notes and tags belong to bookmarks, so it is added if needed."""
        bookmark = self._selected()
        if bookmark is None:
            return None
        ok, stored = self.store_access.call(self, lambda store: store.get(bookmark.paper_id))
        if not ok or stored is not None:
            return stored
        ok, _ = self.store_access.call(self, lambda store: store.add(bookmark))
        if not ok:
            return None
        self.notify(f"Bookmarked: {display_label(bookmark, short=True)}", markup=False, timeout=3)
        self.bookmarks_changed(bookmark.paper_id)
        return bookmark

    def action_edit_note(self) -> None:
        bookmark = self._stored_or_added()
        if bookmark is None:
            return

        def save(note: str | None) -> None:
            if note is None:
                return
            ok, _ = self.store_access.call(self, lambda store: store.set_note(bookmark.paper_id, note))
            if ok:
                self.notify("Note saved." if note else "Note cleared.", timeout=3)
                self.bookmarks_changed(bookmark.paper_id)

        self.app.push_screen(NoteDialog(bookmark.headline, bookmark.note), save)

    def action_edit_tags(self) -> None:
        bookmark = self._stored_or_added()
        if bookmark is None:
            return

        def save(tags: list[str] | None) -> None:
            if tags is None:
                return
            ok, _ = self.store_access.call(self, lambda store: store.set_tags(bookmark.paper_id, tags))
            if ok:
                self.notify(f"Tags: {', '.join(tags) or 'none'}", markup=False, timeout=3)
                self.bookmarks_changed(bookmark.paper_id)

        self.app.push_screen(TagsDialog(bookmark.headline, bookmark.tags), save)

    # -- links and clipboard ------------------------------------------------------------------

    def copy_to_clipboard(self, text: str, what: str) -> None:
        method = copy_text(self.app, text)
        self.notify(f"Copied {what} to the {method}.", markup=False, timeout=4)

    def action_copy_link(self) -> None:
        bookmark = self._selected()
        if bookmark is not None and bookmark.links:
            link = primary_link(bookmark.links)
            self.copy_to_clipboard(link.url, link.url)

    def action_pick_copy_link(self) -> None:
        self._pick_link("Copy which link?", lambda link: self.copy_to_clipboard(link.url, link.url))

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
                f"Could not open {link.url}: {problem}. Press y to copy it instead.", severity="warning", markup=False
            )
        else:
            self.notify(f"Opened {link.url}", markup=False, timeout=3)

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
            self.copy_to_clipboard(bibtex_entry(bookmark), "the BibTeX entry")

    def action_copy_markdown(self) -> None:
        bookmark = self._selected()
        if bookmark is not None:
            self.copy_to_clipboard(markdown_citation(bookmark), "the Markdown citation")
