"""The main screen: search box, result list and reader. Owns the index and search workers."""

from __future__ import annotations

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.events import Resize
from textual.screen import Screen
from textual.widgets import Footer, Header, Input, ProgressBar, Static
from textual.worker import Worker, WorkerState, get_current_worker

from search.engine import SearchEngine
from search.models import SearchResult
from tui.messages import IndexFailed, IndexProgress, IndexReady, SearchFinished
from tui.widgets.reader import ReaderPane
from tui.widgets.results_list import ResultsList, row_text
from tui.widgets.search_box import SearchBox

RESULT_LIMIT = 500
"""Results fetched per query; the header always says when there are more matches than shown."""
NARROW_WIDTH = 100
"""Below this many columns the reader takes the whole screen when a paper is opened."""


class MainScreen(Screen):
    """Search as you type, browse the ranked list, read the selected abstract."""

    BINDINGS = [
        Binding("slash", "focus_search", "Search", key_display="/"),
        Binding("ctrl+f", "focus_search", "Search", show=False),
        Binding("escape", "back", "Back"),
        Binding("question_mark", "app.help", "Help", key_display="?"),
        Binding("f1", "app.help", "Help", show=False),
        Binding("q", "app.quit", "Quit"),
        Binding("h", "close_reader", "Back", show=False),
    ]

    def __init__(self, engine: SearchEngine, query: str | None = None) -> None:
        super().__init__()
        self.engine = engine
        self.initial_query = query or ""
        self.result: SearchResult | None = None
        """Results of the query in the search box; None while there is no query (corpus order)."""
        self.shown_query = ""

    def compose(self) -> ComposeResult:
        yield Header()
        yield SearchBox(placeholder="Search papers: words, \"phrases\", prefix*, fuzzy~, title:…, AND/OR/NOT", id="search")
        yield Static(id="status")
        yield ProgressBar(id="progress", show_eta=False)
        with Horizontal(id="panes"):
            yield ResultsList(id="results")
            yield ReaderPane(id="reader")
        yield Footer()

    def on_mount(self) -> None:
        self._apply_width(self.app.size.width)
        self._show_all()
        search = self.query_one(SearchBox)
        if self.initial_query:
            search.value = self.initial_query
            search.cursor_position = len(self.initial_query)
        search.focus()
        self._set_status("Indexing…" if not self.engine.ready else "")
        self.build_index()

    # -- layout -------------------------------------------------------------------------------

    def on_resize(self, event: Resize) -> None:
        self._apply_width(event.size.width)

    def _apply_width(self, width: int) -> None:
        self.set_class(width < NARROW_WIDTH, "narrow")
        if width >= NARROW_WIDTH:
            self.remove_class("reading")

    # -- index --------------------------------------------------------------------------------

    @work(thread=True, exclusive=True, group="index", exit_on_error=False)
    def build_index(self) -> None:
        worker = get_current_worker()
        status = self.engine.ensure_index(
            on_progress=lambda done, total: self.post_message(IndexProgress(done, total)),
            cancel=worker.cancelled_event,
        )
        self.post_message(IndexReady(status))

    def on_index_progress(self, message: IndexProgress) -> None:
        progress = self.query_one(ProgressBar)
        progress.add_class("active")
        progress.update(total=message.total, progress=message.done)
        self._set_status(f"Indexing {message.done:,} of {message.total:,} papers…")

    def on_index_ready(self, message: IndexReady) -> None:
        self.query_one(ProgressBar).remove_class("active")
        if message.status.notice:
            self.notify(message.status.notice, title="Index", severity="warning", markup=False)
        self._set_status("")
        query = self.query_one(SearchBox).value
        if query.strip():
            self._start_search(query)
        else:
            self._show_all()

    def on_index_failed(self, message: IndexFailed) -> None:
        self.query_one(ProgressBar).remove_class("active")
        self._set_status(f"Search unavailable: {message.error}")

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        if event.state == WorkerState.ERROR:
            error = event.worker.error
            if event.worker.group == "index":
                self.post_message(IndexFailed(f"{type(error).__name__}: {error}"))
            else:
                self.notify(f"{type(error).__name__}: {error}", title="Search failed", severity="error", markup=False)

    # -- search -------------------------------------------------------------------------------

    @on(Input.Changed, "#search")
    def query_changed(self, event: Input.Changed) -> None:
        if not event.value.strip():
            self.workers.cancel_group(self, "search")
            self._show_all()
            return
        if self.engine.ready:
            self._start_search(event.value)
        else:
            self._set_status("Indexing… results appear as soon as the index is ready")

    def _start_search(self, text: str) -> None:
        self.run_search(text)

    @work(thread=True, exclusive=True, group="search", exit_on_error=False)
    def run_search(self, text: str) -> None:
        result = self.engine.search(text, limit=RESULT_LIMIT, partial=True)
        if not get_current_worker().is_cancelled:
            self.post_message(SearchFinished(text, result))

    def on_search_finished(self, message: SearchFinished) -> None:
        if message.query != self.query_one(SearchBox).value:
            return  # an outdated query: its results must never be shown
        self._show_result(message.result)

    def _show_all(self) -> None:
        self.result = None
        engine = self.engine
        row = engine.row if engine.ready else engine.quick_row
        ids = [paper.id for paper in engine.papers]
        self._fill(ids, lambda pid: row_text(row(pid), engine.paper(pid).venue))
        count = len(ids)
        self.app.sub_title = f"{engine.corpus.name} · {count:,} paper{'s' if count != 1 else ''}"
        if engine.ready:
            self._set_status("")

    def _show_result(self, result: SearchResult) -> None:
        self.result = result
        engine = self.engine
        ids = [hit.paper_id for hit in result.hits]
        self._fill(ids, lambda pid: row_text(engine.row(pid), engine.paper(pid).venue, result.terms))
        shown = f" (top {len(ids):,})" if result.total > len(ids) else ""
        query = result.corrected or result.query
        noun = "match" if result.total == 1 else "matches"
        self.app.sub_title = f"{engine.corpus.name} · {result.total:,} {noun} for “{query}”{shown}"
        if result.corrected:
            self._set_status(f"No matches for “{result.query}”. Did you mean “{result.corrected}”? Showing those results.")
        elif not ids:
            self._set_status(f"Nothing matches “{result.query}”. Try fewer or other words, a prefix like graph*, or fuzzy~.")
        elif result.notice:
            self._set_status(f"Hint: {result.notice}.")
        else:
            self._set_status("")

    def _fill(self, ids: list[str], make_row) -> None:
        results = self.query_one(ResultsList)
        results.show(ids, make_row)
        self._show_reader(results.current_id)

    def _set_status(self, text: str) -> None:
        status = self.query_one("#status", Static)
        status.update(Text(text))
        status.set_class(bool(text), "active")

    # -- selection and reader -----------------------------------------------------------------

    @on(ResultsList.OptionHighlighted, "#results")
    def selection_moved(self, event: ResultsList.OptionHighlighted) -> None:
        self._show_reader(event.option.id)

    @on(ResultsList.OptionSelected, "#results")
    def open_selected(self, event: ResultsList.OptionSelected) -> None:
        self.action_open_paper()

    def _show_reader(self, paper_id: str | None) -> None:
        reader = self.query_one(ReaderPane)
        if paper_id is None:
            reader.show(None)
            return
        terms = self.result.terms if self.result else ()
        reader.show(self.engine.describe(paper_id), terms)

    def action_open_paper(self) -> None:
        results = self.query_one(ResultsList)
        if results.current_id is None:
            return
        self.add_class("reading")
        self.query_one(ReaderPane).focus()

    def action_close_reader(self) -> None:
        if self.query_one(ReaderPane).has_focus or self.has_class("reading"):
            self.remove_class("reading")
            self.query_one(ResultsList).focus()

    # -- focus and back -----------------------------------------------------------------------

    def action_focus_search(self) -> None:
        self.remove_class("reading")
        self.query_one(SearchBox).focus()

    def action_focus_results(self) -> None:
        self.query_one(ResultsList).focus()

    def action_clear_search(self) -> None:
        search = self.query_one(SearchBox)
        search.value = ""
        search.focus()

    def action_back(self) -> None:
        """Esc: reader -> list -> search; in the search box it clears the query."""
        focused = self.focused
        if isinstance(focused, ReaderPane) or self.has_class("reading"):
            self.action_close_reader()
        elif isinstance(focused, ResultsList):
            self.query_one(SearchBox).focus()
        elif isinstance(focused, SearchBox):
            focused.value = ""
        else:
            self.query_one(SearchBox).focus()

    @on(SearchBox.Leave)
    def leave_search(self) -> None:
        self.action_focus_results()
