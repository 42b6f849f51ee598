"""Actions on the selected paper, shared by the main and bookmarks screens: bookmark, note, tags, links."""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from textual.binding import Binding

from search import Bookmark, Link, StoreError, UserStore, bibtex_entry, markdown_citation, primary_link
from tui.clipboard import copy_text, open_url
from tui.screens.dialogs import LinkPicker, NoteDialog, TagsDialog

T = TypeVar("T")

PAPER_BINDINGS = [
    Binding("b", "toggle_bookmark", "Bookmark"),
    Binding("n", "edit_note", "Note", show=False),
    Binding("t", "edit_tags", "Tags", show=False),
    Binding("y", "copy_link", "Copy link"),
    Binding("Y", "pick_copy_link", "Copy which link", show=False),
    Binding("o", "open_link", "Open link", show=False),
    Binding("O", "pick_open_link", "Open which link", show=False),
]


def short_label(bookmark: Bookmark) -> str:
    """How a notification names a paper: its title, else its method name, else its headline."""
    return bookmark.title or bookmark.name or bookmark.headline


class PaperActions:
    """Mixed into a Screen that can say which paper is selected (as a Bookmark snapshot)."""

    def current_bookmark(self) -> Bookmark | None:
        """The selected paper, with its stored note and tags when it is bookmarked."""
        raise NotImplementedError

    def bookmarks_changed(self, paper_id: str) -> None:
        """Called after a bookmark, note or tags changed, so the screen can redraw."""

    # -- store access -------------------------------------------------------------------------

    @property
    def store(self) -> UserStore | None:
        return self.app.store  # type: ignore[attr-defined]

    def store_call(self, action: Callable[[], T]) -> tuple[bool, T | None]:
        """Run a store operation: (True, result), or (False, None) after telling the user why not."""
        if self.store is None:
            self.notify(self.app.store_problem or "Bookmarks are unavailable.", severity="warning", markup=False)  # type: ignore[attr-defined]
            return False, None
        try:
            return True, action()
        except StoreError as error:
            self.notify(str(error), title="Could not save", severity="error", markup=False)
            return False, None

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
        ok, now_bookmarked = self.store_call(lambda: self.store.toggle(bookmark))
        if ok:
            verb = "Bookmarked" if now_bookmarked else "Removed bookmark"
            self.notify(f"{verb}: {short_label(bookmark)}", markup=False, timeout=3)
            self.bookmarks_changed(bookmark.paper_id)

    def _stored_or_added(self) -> Bookmark | None:
        """The selected paper's bookmark; notes and tags belong to bookmarks, so it is added if needed."""
        bookmark = self._selected()
        if bookmark is None:
            return None
        ok, stored = self.store_call(lambda: self.store.get(bookmark.paper_id))
        if not ok or stored is not None:
            return stored
        ok, _ = self.store_call(lambda: self.store.add(bookmark))
        if not ok:
            return None
        self.notify(f"Bookmarked: {short_label(bookmark)}", markup=False, timeout=3)
        self.bookmarks_changed(bookmark.paper_id)
        return bookmark

    def action_edit_note(self) -> None:
        bookmark = self._stored_or_added()
        if bookmark is None:
            return

        def save(note: str | None) -> None:
            if note is None:
                return
            ok, _ = self.store_call(lambda: self.store.set_note(bookmark.paper_id, note))
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
            ok, _ = self.store_call(lambda: self.store.set_tags(bookmark.paper_id, tags))
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
        self.app.push_screen(LinkPicker(title, bookmark.links), lambda link: link and then(link))

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
