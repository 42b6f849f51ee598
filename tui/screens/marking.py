"""Several papers at once: space marks the highlighted paper, `*` every match, esc clears; while papers
are marked, b, t, y, Y, o and the palette's export act on all of them instead of the highlighted one."""

from __future__ import annotations

from abc import abstractmethod

from textual.binding import Binding

from search import Bookmark, SearchEngine, bookmark_of, export, markdown_citation, primary_link
from tui.clipboard import open_url
from tui.screens.choosers import Chooser
from tui.screens.dialogs import TagsDialog
from tui.screens.paper_actions import PaperActions
from tui.wording import counted

MARK_BINDINGS = [
    Binding("space", "toggle_mark", "Mark", show=False),
    Binding("asterisk", "mark_all", "Mark all", show=False, key_display="*"),
]
CONFIRM_ABOVE = 100
"""Marking more matches than this at once asks first."""
OPEN_AT_ONCE = 10
"""o opens at most this many marked papers' links (a browser tab each); more are refused with a word."""
FORMAT_NAMES = {"bibtex": "BibTeX", "markdown": "Markdown", "csv": "CSV", "json": "JSON"}


class MarkedActions(PaperActions[None]):
    """The main screen's marks. The screen sets `engine`, keeps `marked` and implements the abstract
    methods; the paper actions it inherits act on the marked papers while there are any."""

    engine: SearchEngine
    marked: dict[str, None]
    """The marked papers' ids, in the order they were marked (a dict: ordered, no duplicates)."""

    @abstractmethod
    def highlighted_id(self) -> str | None:
        """The paper highlighted in the list (not a bookmark pinned over it)."""

    @abstractmethod
    def every_match(self) -> list[str]:
        """Every paper the query matches (or every paper, without one), listed yet or not."""

    @abstractmethod
    def marks_changed(self, moved_on: bool = False) -> None:
        """Redraw the rows and the header's count; with `moved_on`, move the selection down a row."""

    # -- marking ------------------------------------------------------------------------------

    def action_toggle_mark(self) -> None:
        paper_id = self.highlighted_id()
        if paper_id is None:
            return
        if paper_id in self.marked:
            del self.marked[paper_id]
        else:
            self.marked[paper_id] = None
        self.marks_changed(moved_on=True)

    def action_mark_all(self) -> None:
        ids = self.every_match()
        if not ids:
            return
        if len(ids) <= CONFIRM_ABOVE:
            self._mark(ids)
            return

        def confirmed(answer: str | None) -> None:
            if answer == "mark":
                self._mark(ids)

        what = counted(len(ids), "match")
        self.app.push_screen(
            Chooser(f"Mark all {what}?", [(f"Mark all {what}", "mark"), ("Cancel", "cancel")]), confirmed
        )

    def _mark(self, ids: list[str]) -> None:
        self.marked.update(dict.fromkeys(ids))
        self.marks_changed()
        self.notify(f"{counted(len(self.marked), 'paper')} marked · esc clears", timeout=3)

    def clear_marks(self) -> bool:
        """Esc: unmark every paper; False when none was marked."""
        if not self.marked:
            return False
        self.marked.clear()
        self.marks_changed()
        self.notify("Marks cleared", timeout=2)
        return True

    def _marked_papers(self) -> list[Bookmark]:
        """The marked papers as the store keeps them (with their note and tags) or as they are now."""
        ids = list(self.marked)
        ok, stored = self.store_access.call(self, lambda store: [store.get(paper_id) for paper_id in ids], quiet=True)
        kept = stored if ok and stored is not None else [None] * len(ids)
        return [found or bookmark_of(self.engine.describe(paper_id)) for paper_id, found in zip(ids, kept, strict=True)]

    # -- acting on them -----------------------------------------------------------------------

    def action_toggle_bookmark(self) -> None:
        if not self.marked:
            super().action_toggle_bookmark()
            return
        papers = self._marked_papers()
        new = [paper for paper in papers if not self.shows_bookmarked(paper.paper_id)]
        if not new:
            self.notify(f"The {counted(len(papers), 'marked paper')} are bookmarked already", timeout=3)
            return

        def add_all(store) -> None:
            for paper in new:
                store.add(paper)

        ok, _ = self.store_access.call(self, add_all)
        if not ok:
            return
        self.notify(f"Bookmarked {counted(len(new), 'marked paper')}", markup=False, timeout=3)
        self.bookmarks_changed(new[0].paper_id)

    def action_edit_tags(self) -> None:
        if not self.marked:
            super().action_edit_tags()
            return
        count = counted(len(self.marked), "marked paper")

        def save(tags: list[str] | None) -> None:
            if tags:
                self._add_tags(tags)

        self.app.push_screen(TagsDialog(f"{count} (added to their tags)", ()), save)

    def _add_tags(self, tags: list[str]) -> None:
        papers = self._marked_papers()

        def tag_all(store) -> None:
            for paper in papers:
                now = store.get(paper.paper_id)
                kept = now.tags if now is not None else ()
                final = [*kept, *(tag for tag in tags if tag not in kept)]
                store.set_tags(paper.paper_id, final, paper=paper if now is None else None)

        ok, _ = self.store_access.call(self, tag_all)
        if ok:
            self.notify(f"Tagged {counted(len(papers), 'marked paper')}: {', '.join(tags)}", markup=False, timeout=4)
            self.bookmarks_changed(papers[0].paper_id)

    def action_copy_link(self) -> None:
        if not self.marked:
            super().action_copy_link()
            return
        papers = self._marked_papers()
        urls = [primary_link(paper.links).url for paper in papers if paper.links]
        self.copy_to_clipboard("\n".join(urls) + "\n", f"{counted(len(urls), 'link')} (one per line)")

    def action_pick_copy_link(self) -> None:
        if not self.marked:
            super().action_pick_copy_link()
            return
        papers = self._marked_papers()
        lines = [f"- {markdown_citation(paper)}" for paper in papers]
        self.copy_to_clipboard("\n".join(lines) + "\n", f"{counted(len(lines), 'paper')} as a Markdown list")

    def action_open_link(self) -> None:
        if not self.marked:
            super().action_open_link()
            return
        papers = [paper for paper in self._marked_papers() if paper.links]
        if len(papers) > OPEN_AT_ONCE:
            self.notify(
                f"{counted(len(papers), 'marked paper')}: o opens at most {OPEN_AT_ONCE} at once "
                "(y copies all their links)",
                severity="warning",
                timeout=5,
            )
            return
        problems = [problem for paper in papers if (problem := open_url(self.app, primary_link(paper.links).url))]
        if problems:
            self.notify(f"Could not open every link: {problems[0]}", severity="warning", markup=False)
        else:
            self.notify(f"Opened {counted(len(papers), 'link')}", timeout=3)

    def export_marked(self, fmt: str) -> None:
        """The palette's "Export marked papers": the marked papers (else the selected one) in one of
        the export formats, copied."""
        papers = self._marked_papers() if self.marked else [paper for paper in [self._selected()] if paper]
        if papers:
            self.copy_to_clipboard(export(papers, fmt), f"{counted(len(papers), 'paper')} as {FORMAT_NAMES[fmt]}")
