"""Your library in the app: the "Library" view (every loaded list with its source, size and date; keys
to search only it, update it, remove it and undo that), and what the main screen does for it and for
the "Get a list…" picker's lists already in the library: update (a conditional request, as `get
--update`), remove (kept aside until the next removal, so `u` brings it back) and reload.

The network and the loading run in a worker, as a download does; the main screen is told with
LibraryChanged and searches the new engine."""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.message import Message
from textual.widgets import OptionList, ProgressBar, Static
from textual.widgets.option_list import Option
from textual.worker import get_current_worker

from search import (
    BUNDLED_LIST,
    Library,
    ReaderError,
    SearchEngine,
    forget_index,
    load_corpus,
    parse_request,
    paths,
    quoted,
    shown,
    update_list,
    without_facet,
)
from tui import wording
from tui.screens.choosers import Chooser
from tui.screens.dialogs import DIALOG_CSS, LIST_CSS, ListDialog
from tui.screens.getting import ListGetting
from tui.widgets.search_box import SearchBox
from tui.wording import counted

LIBRARY_HELP = "enter search only it · r update · d remove · u undo remove · esc close"


@dataclass(frozen=True)
class LibraryRow:
    """One loaded list as the Library view and the picker show it."""

    name: str
    papers: int
    source: str
    """paperlists, openreview, arxiv, file (added with `add`), bundled, or opened (--corpus)."""
    date: str | None
    """When it was downloaded (or its file last changed), YYYY-MM-DD; None when unknown."""
    in_library: bool
    downloaded: bool

    def describe(self) -> str:
        """3,704 papers · paperlists · 2025-06-01"""
        return " · ".join(part for part in (counted(self.papers, "paper"), self.source, self.date) if part)


def library_rows(engine: SearchEngine) -> list[LibraryRow]:
    """Every loaded list, in corpus order, with what the library says of it (read now)."""
    library = Library()
    files = {path.parent.name: path for path in library.files()}
    rows = []
    for name, count in engine.list_counts().items():
        path = files.get(name)
        if path is not None:
            origin = library.origin(name)
            source = origin.kind if origin is not None else "file"
            date = origin.fetched_at[:10] if origin is not None else _file_date(path)
            rows.append(LibraryRow(name, count, source, date, True, origin is not None))
        else:
            source = "bundled" if name == BUNDLED_LIST else "opened with --corpus"
            rows.append(LibraryRow(name, count, source, None, False, False))
    return rows


def _file_date(path: Path) -> str | None:
    try:
        return time.strftime("%Y-%m-%d", time.gmtime(path.stat().st_mtime))
    except OSError:
        return None


class LibraryScreen(ListDialog[tuple[str, str] | None]):
    """The loaded lists; answers (what to do, list name): search, update, remove or undo."""

    DEFAULT_CSS = DIALOG_CSS.format(name="LibraryScreen") + LIST_CSS.format(name="LibraryScreen")
    BINDINGS = [
        Binding("escape", "cancel", "Close"),
        Binding("r", "act('update')", "Update", show=False),
        Binding("d,delete", "act('remove')", "Remove", show=False),
        Binding("u", "undo", "Undo remove", show=False),
    ]

    def __init__(self, rows: list[LibraryRow], removed: list[str]) -> None:
        super().__init__()
        self.rows = rows
        self.removed = removed

    def compose(self) -> ComposeResult:
        with Vertical():
            total = counted(len(self.rows), "list")
            yield Static(Text(f"Library: {total} loaded", no_wrap=True, overflow="ellipsis"), classes="dialog-title")
            yield OptionList(*(self._option(row) for row in self.rows), id="library")
            undo = f" · u brings back {', '.join(map(shown, self.removed))}" if self.removed else ""
            yield Static(Text(LIBRARY_HELP + undo), classes="dialog-help")

    @staticmethod
    def _option(row: LibraryRow) -> Option:
        prompt = Text(shown(row.name), style="bold")
        prompt.append(f"  {row.describe()}", style="dim")
        return Option(prompt, id=row.name)

    def _highlighted(self) -> LibraryRow | None:
        index = self.query_one(OptionList).highlighted
        return self.rows[index] if index is not None and index < len(self.rows) else None

    @on(OptionList.OptionSelected, "#library")
    def chosen(self, event: OptionList.OptionSelected) -> None:
        self.dismiss(("search", self.rows[event.option_index].name))

    def action_act(self, what: str) -> None:
        row = self._highlighted()
        if row is None:
            return
        if not row.in_library:
            self.notify(f"{shown(row.name)} is {row.source}, not in your library: nothing to {what}", timeout=4)
        elif what == "update" and not row.downloaded:
            self.notify(f"{shown(row.name)} was added from a file: there is nothing to update it from", timeout=4)
        else:
            self.dismiss((what, row.name))

    def action_undo(self) -> None:
        if not self.removed:
            self.notify("Nothing to undo: no list has been removed.", timeout=3)
            return
        self.dismiss(("undo", self.removed[-1]))

    def action_cancel(self) -> None:
        self.dismiss(None)


class LibraryChanged(Message):
    """A list was updated, removed or brought back: search `engine` (None: nothing changed) and say `notice`."""

    def __init__(self, engine: SearchEngine | None, notice: str, problem: bool = False) -> None:
        super().__init__()
        self.engine = engine
        self.notice = notice
        self.problem = problem


class LibraryActions(ListGetting):
    """The main screen's library: the Library view, and update, remove and undo for a list in it."""

    def action_library(self) -> None:
        self.app.push_screen(LibraryScreen(library_rows(self.engine), Library().removed()), self._library_chosen)

    def _library_chosen(self, answer: tuple[str, str] | None) -> None:
        if answer is None:
            return
        what, name = answer
        if what == "search":
            box = self.query_one(SearchBox)
            rest = without_facet(box.value, "list")
            text = f"{rest} list:{quoted(name)} "
            box.value = " ".join(text.split()) + " "
            box.cursor_position = len(box.value)
            box.focus()
        else:
            self.library_action(what, name)

    def action_get_list(self) -> None:
        """ctrl+g: the picker, with the lists already in the library marked; choosing one of those
        offers to update or remove it rather than failing to download it again."""
        if self.downloading is not None:
            self.notify(f"Already getting {self.downloading}; one list at a time.", severity="warning", markup=False)
            return
        from tui.screens.get_list import GetListScreen  # loaded when first opened, not before the first frame

        held = {row.name: row for row in library_rows(self.engine) if row.in_library}

        def chosen(spec: str | None) -> None:
            try:  # the name the list would take: neurips2024 is nips2024
                row = held.get(parse_request(spec).name) if spec else None
            except ReaderError:
                row = None  # _chosen says what is wrong with it
            if row is None:
                self._chosen(spec)
            else:
                self._offer(row)

        self.app.push_screen(GetListScreen({name: row.describe() for name, row in held.items()}), chosen)

    def _offer(self, row: LibraryRow) -> None:
        """A list the library has: update it, remove it, or leave it."""
        choices: list[tuple[Text | str, str]] = []
        if row.downloaded:
            choices.append(("Update it (downloaded again only if it changed)", "update"))
        choices += [("Remove it from your library (u in the Library view brings it back)", "remove"), ("Cancel", "")]

        def chosen(what: str | None) -> None:
            if what:
                self.library_action(what, row.name)

        self.app.push_screen(Chooser(f"{shown(row.name)} is in your library: {row.describe()}", choices), chosen)

    def library_action(self, what: str, name: str) -> None:
        """Update, remove or bring back (undo) a list of the library."""
        if self.downloading is not None:
            self.notify(f"Already getting {self.downloading}; one list at a time.", severity="warning", markup=False)
            return
        sources = list(self.engine.corpus.sources)
        try:
            if what == "remove":
                library = Library()
                for purged in library.purge_removed():  # the removal before can no longer be undone
                    forget_index(paths.cache_dir() / "index", str(purged))
                path = library.remove(name, keep=True)
                sources = [source for source in sources if Path(source).parent != path.parent]
                notice = f"Removed {shown(name)} from your library · u in the Library view (palette) brings it back"
            elif what == "undo":
                path = Library().restore(name)
                sources.append(str(path))
                notice = f"Brought back {shown(name)}"
            elif what == "update":
                self.downloading = name
                self.set_status(f"Asking whether {shown(name)} changed…")
                self.query_one("#progress", ProgressBar).update(total=None, progress=0)
                self._update(name, tuple(sources))
                return
            else:
                return
        except ReaderError as error:
            self.notify(str(error), title=f"Could not {what} {shown(name)}", severity="error", markup=False)
            return
        self.downloading = name
        self.set_status(f"Loading the lists without {shown(name)}…" if what == "remove" else f"Loading {shown(name)}…")
        self._reload(tuple(sources), notice)

    @work(thread=True, exclusive=True, group="download", exit_on_error=False)
    def _reload(self, sources: tuple[str, ...], notice: str) -> None:
        try:
            engine = SearchEngine(load_corpus(list(sources), skip_broken=True, keep=True))
        except Exception as error:  # noqa: BLE001 - a notice, never a crash
            self.post_message(LibraryChanged(None, f"Could not load the lists: {error}", problem=True))
            return
        if not get_current_worker().is_cancelled:
            self.post_message(LibraryChanged(engine, notice))

    @work(thread=True, exclusive=True, group="download", exit_on_error=False)
    def _update(self, name: str, sources: tuple[str, ...]) -> None:
        worker = get_current_worker()
        try:
            got = update_list(name, cancel=lambda: worker.is_cancelled)
            if worker.is_cancelled:
                return
            if not got.changed:
                self.post_message(LibraryChanged(None, f"{shown(got.name)}: unchanged (checked {got.host})"))
                return
            folder = got.path.parent
            kept = [source for source in sources if Path(source).parent != folder]
            engine = SearchEngine(load_corpus([*kept, str(got.path)], skip_broken=True, keep=True))
        except ReaderError as error:
            if not worker.is_cancelled:
                self.post_message(LibraryChanged(None, f"Could not update {shown(name)}: {error}", problem=True))
            return
        except Exception as error:  # noqa: BLE001 - a notice, never a crash, whatever the server sent
            if not worker.is_cancelled:
                text = " ".join(str(error).split())[:200]
                self.post_message(LibraryChanged(None, f"Could not update {shown(name)}: {text}", problem=True))
            return
        self.post_message(LibraryChanged(engine, wording.list_updated(got.name, got.papers)))

    def on_library_changed(self, message: LibraryChanged) -> None:
        self.downloading = None
        self.query_one("#progress", ProgressBar).remove_class("active")
        self.set_status("")
        if message.problem:
            self.notify(message.notice, severity="error", markup=False, timeout=10)
        else:
            self.notify(message.notice, markup=False, timeout=6)
        if message.engine is not None:
            self.engine_changed(message.engine)


__all__ = ["LibraryActions", "LibraryChanged", "LibraryRow", "LibraryScreen", "library_rows"]
