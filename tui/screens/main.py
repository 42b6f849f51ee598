"""The main screen: search box, result list and reader. Owns the index and search workers."""

from __future__ import annotations

import dataclasses
import gc
from collections.abc import Callable

from rich.cells import cell_len
from rich.text import Text
from textual import on, work
from textual.actions import SkipAction
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.events import Resize
from textual.geometry import Size
from textual.timer import Timer
from textual.widget import Widget
from textual.widgets import Input, ProgressBar, Static
from textual.worker import Worker, WorkerState, get_current_worker

from search import Bookmark, Marks, SearchEngine, SearchRequest, SearchResult, UserStore, bookmark_of, split_facets
from tui import wording
from tui.keys import SPELLING_KEY
from tui.messages import IndexFailed, IndexProgress, IndexReady, SessionFound
from tui.preferences import SPLIT_MAX, SPLIT_MIN, Match, Preferences, Sort
from tui.screens.discovery import DISCOVERY_BINDINGS, DiscoveryActions
from tui.screens.getting import GET_BINDINGS
from tui.screens.library_view import LibraryActions
from tui.screens.marking import MARK_BINDINGS, MarkedActions
from tui.screens.paper_actions import PAPER_BINDINGS
from tui.search_session import Failed, FirstPage, IndexNotice, More, SearchSession, SessionEvent
from tui.store_access import StoreAccess
from tui.widgets.footer import KeyBar
from tui.widgets.header import AppHeader
from tui.widgets.reader import ReaderPane
from tui.widgets.results_list import (
    KeyedRows,
    MakeRow,
    ResultsList,
    RowColors,
    figure_text,
    figure_width_for,
    row_text,
    venue_column_width,
    venue_width_for,
)
from tui.widgets.search_box import SearchBox
from tui.widgets.splitter import Splitter

RESULT_LIMIT = 200
"""Results fetched per keystroke; the rest of a long result is listed when the selection nears the
end of the first ones (or `G` asks for the last)."""
SAVE_DELAY = 0.5
"""A new split is saved this long after the last change to it (dragging sends many)."""
SPLIT_STEP = 5
"""How much `[` and `]` narrow or widen the result list, in percent of the width."""
TYPED_KEY_NAMES = ("slash", "question_mark", "left_square_bracket", "right_square_bracket", "space", "asterisk")
NARROW_WIDTH = 100
"""Below this many columns the reader takes the whole screen when a paper is opened."""
EDGE_GUTTER = 6
"""Columns of the search box's lower edge a status on it leaves free: the corners, a space on each
side and a cell of the edge each side, so it reads as part of the box."""
READER_DELAY = 0.15
"""While typing, the abstract follows this long after the newest results: laying out a long abstract
costs a whole-screen relayout (~20 ms), which must not stand between a keystroke and its results."""


class MainScreen(LibraryActions, DiscoveryActions, MarkedActions):
    """Search as you type, browse the ranked list, read the selected abstract."""

    BINDINGS = [
        # Paper actions first: the footer shows them first, so a narrow terminal keeps them.
        *PAPER_BINDINGS,
        *DISCOVERY_BINDINGS,
        *MARK_BINDINGS,
        Binding("slash", "focus_search", "Search", key_display="/"),
        Binding("ctrl+f", "focus_search", "Search", show=False),
        Binding("escape", "back", "Back", show=False),
        Binding("question_mark", "help", "Help", show=False, key_display="?"),
        Binding("f1", "app.help", "Help", key_display="f1"),  # shown: it works in the search box too
        Binding("q", "quit", "Quit"),
        Binding("h", "close_reader", "Back", show=False),
        Binding("B", "show_bookmarks", "Bookmarks", show=False),
        Binding("s", "stats", "Stats", show=False),
        Binding("left_square_bracket", "narrower_list", "Narrower list", show=False, key_display="["),
        Binding("right_square_bracket", "wider_list", "Wider list", show=False, key_display="]"),
        Binding("z", "toggle_list_only", "List only", show=False),
        Binding(SPELLING_KEY, "spelling", "As typed / did you mean", show=False),  # the status line says so
        *GET_BINDINGS,
        # The same actions from the search box, where letters are typed into the query.
        Binding("ctrl+b", "from_search('toggle_bookmark')", "Bookmark", key_display="^b"),
        Binding("ctrl+y", "from_search('copy_link')", "Copy link", key_display="^y"),
        Binding("ctrl+r", "from_search('related')", "Related", key_display="^r"),
        Binding("ctrl+o", "from_search('open_link')", "Open link", show=False, key_display="^o"),
        Binding("ctrl+n", "from_search('edit_note')", "Note", show=False, key_display="^n"),
    ]
    TYPED_ACTIONS = frozenset(
        binding.action
        for binding in BINDINGS
        if isinstance(binding, Binding) and (len(binding.key) == 1 or binding.key in TYPED_KEY_NAMES)
    )
    """Actions bound to keys that the search box takes as text: hidden from the footer there."""

    def __init__(
        self,
        engine: SearchEngine,
        store_access: StoreAccess,
        query: str | None = None,
        preferences: Preferences | None = None,
        remember: Callable[..., None] | None = None,
        guide: bool = False,
    ) -> None:
        """`preferences`: the split, list-only view, sort and match mode to start with; `remember`
        saves changed ones (keyword arguments named as Preferences' fields); `guide`: show the
        first-run guide (esc hides it for good)."""
        super().__init__()
        self.has_guide = guide
        self.engine = engine
        self.store_access = store_access
        self.initial_query = query or ""
        self.preferences = preferences or Preferences()
        self._remember = remember or (lambda **changes: None)
        self.split = min(SPLIT_MAX, max(SPLIT_MIN, self.preferences.split))
        self.list_only = self.preferences.list_only
        self._venue_width = venue_column_width(paper.venue for paper in engine.papers)
        self._rated = any(paper.rating is not None for paper in engine.papers)
        self._colors = RowColors.for_theme(dark=True)
        self._more_to_last = False
        """G asked for the last paper of a result not listed whole yet: go there once it is."""
        self._split_timer: Timer | None = None
        self._pinned_over: str | None = None
        """The list's selection when a paper was pinned: moving away from it unpins."""
        self._pinned: str | None = None
        """A bookmark opened from the bookmarks screen that is not in the list: the reader shows it
        and the paper actions act on it, until the selection moves."""
        self.result: SearchResult | None = None
        """Results of the query in the search box; None while there is no query (corpus order)."""
        self._answered: SearchRequest | None = None
        """The last request the session answered here (its first page shown, or its failure told)."""
        self.bookmarked: set[str] = set()
        self.opened: set[str] = set()
        self.marked: dict[str, None] = {}
        self._title = wording.Title("", "")
        """The header's line before the marked count is added to it."""
        self._status_text: str | None = None
        self.session = SearchSession(engine, self._found)
        """Searches the query in the box, in a thread; what it finds comes back as SessionFound."""
        self._reader_timer: Timer | None = None
        """Set while the reader waits for typing to pause."""
        self._as_typed: str | None = None
        """The query the user asked to search as typed (SPELLING_KEY), never corrected until it changes."""

    def compose(self) -> ComposeResult:
        yield AppHeader()
        yield SearchBox(
            has_results=self.shows_results_for,
            placeholder='Search papers: words, "phrases", prefix*, fuzzy~, title:…, AND/OR/NOT',
            id="search",
        )
        yield Static(id="status")
        yield ProgressBar(id="progress", show_eta=False, show_percentage=False)  # (the status line says it)
        if self.has_guide:
            yield Static(wording.first_run_guide(len(self.engine.papers)), id="guide")
        with Horizontal(id="panes"):
            yield ResultsList(id="results")
            yield Splitter(id="splitter")
            yield ReaderPane(id="reader")
        yield KeyBar()

    def on_mount(self) -> None:
        self._colors = RowColors.for_theme(self.app.current_theme.dark)
        self.watch(self.app, "theme", self._theme_changed, init=False)
        self._apply_width(self.app.size.width)
        self._show_all()
        search = self.query_one(SearchBox)
        if self.initial_query:
            search.value = self.initial_query
            search.cursor_position = len(self.initial_query)
        search.focus()
        self.set_status(wording.INDEXING if not self.engine.ready else "")
        # Once the first frame is painted: opening the index is a second of Python at 100,000 papers,
        # and a thread running it meanwhile would halve the interface thread's share of the GIL.
        self.call_after_refresh(self.build_index)

    # -- layout -------------------------------------------------------------------------------

    def on_resize(self, event: Resize) -> None:
        self._apply_width(event.size.width)
        said, self._status_text = self._status_text, None
        self.set_status(said or "")  # a status on the box's edge that no longer fits moves to its line

    def _apply_width(self, width: int) -> None:
        """Side by side at `split` percent; narrow terminals and the list-only view show one pane at a
        time (the list, or the paper opened from it); a maximized pane takes the whole width."""
        one_pane = width < NARROW_WIDTH or self.list_only
        self.set_class(one_pane, "narrow")
        if not one_pane:
            self.remove_class("reading")
        results = self.query_one(ResultsList)
        results.styles.width = "1fr" if one_pane or self.maximized is results else f"{self.split}%"

    def watch_maximized(self) -> None:
        self._apply_width(self.app.size.width)

    def action_narrower_list(self) -> None:
        self._set_split(self.split - SPLIT_STEP)

    def action_wider_list(self) -> None:
        self._set_split(self.split + SPLIT_STEP)

    def on_splitter_dragged(self, message: Splitter.Dragged) -> None:
        self._set_split(message.percent)

    def _set_split(self, percent: int) -> None:
        if self.app.size.width < NARROW_WIDTH:
            self.notify(f"Two panes need {NARROW_WIDTH} columns: this terminal shows one at a time", severity="warning")
            return
        percent = min(SPLIT_MAX, max(SPLIT_MIN, percent))
        if self.list_only:
            self.action_toggle_list_only()  # resizing asks for both panes
        if percent != self.split:
            self.split = percent
            self._apply_width(self.app.size.width)
            # Saved once the dragging or the key presses stop: a file write per mouse move would stutter.
            if self._split_timer is not None:
                self._split_timer.stop()
            self._split_timer = self.set_timer(SAVE_DELAY, self._save_split)

    def _save_split(self) -> None:
        self._split_timer = None
        self._remember(split=self.split)

    def on_unmount(self) -> None:
        self.session.close()
        if self._split_timer is not None:  # quitting right after a change: save it now
            self._split_timer.stop()
            self._save_split()

    def action_toggle_list_only(self) -> None:
        """z: the list alone across the whole width (enter opens a paper over it, esc comes back), or
        the list and the reader side by side again."""
        self.list_only = not self.list_only
        self._apply_width(self.app.size.width)
        self._remember(list_only=self.list_only)
        if not self.list_only:
            self._show_reader(self.current_paper_id())

    def _theme_changed(self) -> None:
        colors = RowColors.for_theme(self.app.current_theme.dark)
        if colors != self._colors:
            self._colors = colors
            self._refill()

    # -- index --------------------------------------------------------------------------------

    @work(thread=True, exclusive=True, group="index", exit_on_error=False)
    def build_index(self) -> None:
        worker = get_current_worker()

        def progress(done: int, total: int) -> None:
            self.post_message(IndexProgress(done, total))

        status = self.engine.ensure_index(on_progress=progress, cancel=worker.cancelled_event)
        self.post_message(IndexReady(status))

    def on_index_progress(self, message: IndexProgress) -> None:
        progress = self.query_one(ProgressBar)
        progress.add_class("active")
        progress.update(total=message.total, progress=message.done)
        self._show_indexing_status()

    def on_index_ready(self, message: IndexReady) -> None:
        # Papers, rows and the index live as long as the app: exempt them from the garbage collector's
        # full passes, which otherwise walk all of them and stall typing for ~50 ms at 10k papers.
        gc.freeze()
        self.query_one(ProgressBar).remove_class("active")
        notice = message.status.notice
        if notice and getattr(self.app, "cache_problem", None):  # a cache that cannot be written: told at start
            notice = "; ".join(part for part in notice.split("; ") if not part.startswith("index kept in memory"))
        if notice:
            self.notify(notice, title="Index", severity="warning", markup=False)
        self.set_status("")
        self._search_again()  # a quick scan still running is answered by the index now

    def engine_changed(self, engine: SearchEngine) -> None:
        """Search `engine` from now on: index it (its new list), then show its papers or results."""
        self.session.engine_changed(engine)
        self.workers.cancel_group(self, "index")
        old, self.engine = self.engine, engine
        self.result = None
        self.marked.clear()  # marks are of the papers as they were listed
        self._venue_width = venue_column_width(paper.venue for paper in engine.papers)
        self._rated = any(paper.rating is not None for paper in engine.papers)
        self.query_one(ProgressBar).update(total=None, progress=0)  # no stale percentage while it starts
        self.query_one(ResultsList).forget_rows()  # rows of the old list's papers and venues
        self._show_all()
        self.set_status(wording.INDEXING)
        self.build_index()
        query = self.query_one(SearchBox).value
        if query.strip() and not engine.ready:
            self.session.search(self._request(query))  # the new list's matches while it is indexed
        old.close()

    def on_index_failed(self, message: IndexFailed) -> None:
        self.query_one(ProgressBar).remove_class("active")
        self.set_status(wording.index_failed_status(message.error))

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        if event.state == WorkerState.ERROR and event.worker.group == "index":
            error = event.worker.error
            self.post_message(IndexFailed(f"{type(error).__name__}: {error}"))

    # -- search -------------------------------------------------------------------------------

    @on(Input.Changed, "#search")
    def query_changed(self, event: Input.Changed) -> None:
        if event.value != self._as_typed:
            self._as_typed = None  # a changed query is corrected again
        if not event.value.strip():
            self.session.cancel()
            self._show_all()
            return
        self.session.search(self._request(event.value))
        if not self.engine.ready:
            self._show_indexing_status()  # quick matches answer until the index is open

    def _show_indexing_status(self) -> None:
        progress = self.query_one(ProgressBar)
        done, total = int(progress.progress), int(progress.total or 0)
        waiting = bool(self.query_one(SearchBox).value.strip())
        self.set_status(
            wording.indexing_status(done, total, query_waiting=waiting)
            if total
            else (wording.WAITING_FOR_INDEX if waiting else wording.INDEXING)
        )

    def _request(self, text: str) -> SearchRequest:
        """The query as typed, the user's default order and match mode applying where it says none."""
        preferences = self.preferences
        return SearchRequest(
            text,
            limit=RESULT_LIMIT,
            partial=True,
            hit_terms=False,
            marks=Marks(frozenset(self.bookmarked), frozenset(self.opened), self._notes_for(text)),
            match=preferences.match,
            sort=preferences.sort,
            correct=text != self._as_typed,
        )

    def _notes_for(self, text: str) -> tuple[tuple[str, str, tuple[str, ...]], ...]:
        """The bookmarks' notes and tags, when the query searches them (tag:, note:)."""
        if not any(field in ("tag", "note") for field, _, _ in split_facets(text)[1].values):
            return ()
        if not self.store_access.available:
            return ()
        ok, notes = self.store_access.call(
            self, lambda store: tuple((b.paper_id, b.note, b.tags) for b in store.bookmarks() if b.note or b.tags)
        )
        return notes if ok and notes is not None else ()

    def _search_again(self) -> None:
        """Search the query in the box afresh (the index opened, the defaults changed, as typed)."""
        query = self.query_one(SearchBox).value
        self.session.cancel()  # the same text may be searching with what has changed since
        if query.strip():
            self.session.search(self._request(query))
        else:
            self._show_all()

    def action_spelling(self) -> None:
        """SPELLING_KEY: with a correction shown (its results instead of the query's) or a rare word
        also searched as its common spelling, search the query exactly as typed, until it changes; with a spelling offered, search that (it replaces the
        query). Otherwise the key does nothing."""
        search = self.query_one(SearchBox)
        result = self.result
        if result is None or result.query != " ".join(search.value.split()):
            raise SkipAction()  # no result shown for this query yet: nothing to undo or take
        if result.corrected or result.also_searched:
            self._as_typed = search.value
            self._search_again()
        elif result.suggestion:
            search.value = result.suggestion
            search.cursor_position = len(result.suggestion)
        else:
            raise SkipAction()

    def set_defaults(self, sort: Sort | None = None, match: Match | None = None) -> None:
        """Change the default sort or match mode (the palette's commands), remember it, search again."""
        self.preferences = dataclasses.replace(
            self.preferences, sort=sort or self.preferences.sort, match=match or self.preferences.match
        )
        changes = {key: value for key, value in (("sort", sort), ("match", match)) if value}
        self._remember(**changes)
        if self.query_one(SearchBox).value.strip() and self.engine.ready:
            self._search_again()

    def _found(self, event: SessionEvent) -> None:
        self.post_message(SessionFound(event))  # (from the session's thread: posting is thread-safe)

    def on_session_found(self, message: SessionFound) -> None:
        """What the search session found: shown only while it answers the query in the box."""
        event = message.event
        if isinstance(event, IndexNotice):
            self.notify(event.text, title="Index", severity="warning", timeout=8, markup=False)
        elif not self.session.is_current(event) or event.request.text != self.query_one(SearchBox).value:
            return  # an outdated query (the box may have changed before the session heard of it)
        elif isinstance(event, FirstPage):
            self._answered = event.request
            self._show_result(event.result)
            self.session.accepted(event)
        elif isinstance(event, More):
            self._show_more(event.first, event.result)
        elif isinstance(event, Failed):
            self._answered = event.request
            self.notify(event.error, title="Search failed", severity="error", markup=False)

    def keys_wait(self) -> bool:
        """Whether the keys read next wait (tui/key_order.py): the query in the box is being searched
        and none of its results are shown yet, so `j`, `b` or enter would act on the list before it
        (typing `kernel`, enter, j, b in one burst bookmarked a paper of the unfiltered list)."""
        request = self.session.request
        return request is not None and request is not self._answered and self.session.busy

    # -- the rest of a long result ------------------------------------------------------------

    def on_results_list_want_more(self, message: ResultsList.WantMore) -> None:
        self._more_to_last = self._more_to_last or message.to_last
        if self.result is None or not self.session.more():  # (quick matches: the first page only)
            self._more_to_last = False

    def _show_more(self, first: SearchResult, result: SearchResult) -> None:
        """List the rest of a result after its first page."""
        results = self.query_one(ResultsList)
        listed = set(results.paper_ids)
        new = [hit.paper_id for hit in result.hits if hit.paper_id not in listed]
        results.extend(new, self._row_maker(result.terms, result.query), more=result.total > len(listed) + len(new))
        if result.notice and result.notice != first.notice:  # stopped part-way: say so
            self.set_status(wording.result_status(result))
        if self._more_to_last and results.paper_ids:
            results.highlighted = len(results.paper_ids) - 1
        self._more_to_last = False

    def _show_all(self) -> None:
        self.result = None
        engine = self.engine
        ids = [paper.id for paper in engine.papers]
        self._load_marks()
        self._fill(ids, self._row_maker())
        self._show_title(wording.all_papers_title(engine.lists, len(ids)))
        if engine.ready:
            self.set_status("")

    def _show_result(self, result: SearchResult) -> None:
        self.result = result
        self._more_to_last = False
        engine = self.engine
        ids = [hit.paper_id for hit in result.hits]
        self._defer_reader()
        self._fill(ids, self._row_maker(result.terms, result.query), more=result.total > len(ids))
        related = wording.related_paper(result)
        headline = engine.row(related).headline if related is not None and related in engine.by_id else None
        self._show_title(wording.result_title(engine.lists, result, headline))
        if engine.ready:
            self.set_status(wording.result_status(result))
        else:
            self._show_indexing_status()  # quick matches: the status says what comes next
        self._ask_now()

    def _ask_now(self) -> None:
        """The widgets' requests for a layout and a repaint, sent to the screen now instead of when
        each widget is next idle: otherwise a frame already due (the typed letter's echo) could be
        painted first, with the new list in the old geometry, and the layout came a frame later, on
        the next keystroke when typing fast (2-4 keystrokes of the benchmark's 90 paid two layouts)."""
        results = self.query_one(ResultsList)
        for widget in (
            results,
            results.vertical_scrollbar,
            self.query_one("#status"),
            self.query_one(AppHeader),
            self.query_one(SearchBox),
        ):
            widget._check_refresh()

    def _show_title(self, title: wording.Title) -> None:
        self._title = title
        title = wording.with_marked(title, len(self.marked))
        # set_reactive: the app's own watcher of its sub-title repaints the whole screen.
        self.app.set_reactive(App.sub_title, str(title))
        self.query_one(AppHeader).show(title)

    def _row_maker(self, terms: tuple[str, ...] = (), query: str = "") -> MakeRow:
        """How the list makes a row of these results (their matched words highlighted), when it
        shows: with the papers' citations when the query sorts by them, else their mean rating
        when the loaded lists have ratings."""
        figure = "citations" if split_facets(query)[1].sort == "citations" else "rating" if self._rated else None
        # The key: what else a row shows (the marks, the theme and the engine forget the rows made).
        return KeyedRows(
            lambda paper_id, width: self._row(paper_id, width, terms, figure), (terms, figure, self.engine.ready)
        )

    def _row(self, paper_id: str, width: int, terms: tuple[str, ...] = (), figure: str | None = None) -> Text:
        # Until the index is open, rows come straight from the corpus (no markup conversion).
        row = self.engine.row(paper_id) if self.engine.ready else self.engine.quick_row(paper_id)
        paper = self.engine.paper(paper_id)
        figure_width = figure_width_for(figure, width)
        return row_text(
            row,
            paper.venue,
            terms,
            bookmarked=paper_id in self.bookmarked,
            opened=paper_id in self.opened,
            venue_width=venue_width_for(self._venue_width, width - (figure_width + 1 if figure_width else 0)),
            colors=self._colors,
            figure=figure_text(figure, paper.rating, paper.citations),
            figure_width=figure_width,
            marked=paper_id in self.marked,
        )

    def _fill(self, ids: list[str], make_row: MakeRow, more: bool = False) -> None:
        results = self.query_one(ResultsList)
        self._pinned = None
        results.show(ids, make_row, more)
        self._show_reader(results.current_id)

    def _load_marks(self) -> None:
        """Bookmarks and read marks, re-read (not on every keystroke) so another instance's changes show up."""
        if not self.store_access.available:
            return
        ok, marks = self.store_access.call(self, lambda store: (store.bookmarked_ids(), store.opened_ids()))
        if ok and marks is not None:
            # A bookmark made on a paper's other id (the same paper in another list) marks its row.
            canonical = self.engine.canonical
            bookmarked, opened = ({canonical(pid) for pid in ids} for ids in marks)
            if (bookmarked, opened) != (self.bookmarked, self.opened):
                self.query_one(ResultsList).forget_rows()  # the rows made show the marks as they were
            self.bookmarked, self.opened = bookmarked, opened

    def _redraw_row(self, paper_id: str) -> None:
        self.query_one(ResultsList).refresh_row(paper_id)

    def set_status(self, text: str) -> None:
        """Say `text` under the query: on the search box's lower edge when it fits there (a line that
        is always on screen: the screen below keeps its place, no layout), else on the status line
        under the box (its coming or going moves the panes: a layout of 10-35 ms of CPU at 10,745
        papers, measured, on the keystrokes that match nothing or are corrected)."""
        if text == self._status_text:
            return  # an unchanged status must not cost a relayout on every keystroke
        self._status_text = text
        box = self.query_one(SearchBox)
        on_edge = "\n" not in text and cell_len(text) <= self.app.size.width - EDGE_GUTTER  # (the box's width)
        box.border_subtitle = Text(text) if on_edge else None
        self._set_status_line("" if on_edge else text)

    def _set_status_line(self, text: str) -> None:
        """The status line under the box: shown with `text`, hidden without."""
        status = self.query_one("#status", Static)
        old = str(status.content) if status.has_class("active") else ""
        if text == old:
            return
        # A status shown that stays one line keeps its size: its new words need no layout of the
        # screen (8-14 ms, measured, while a corrected word is typed on).
        width = status.content_size.width
        one_line = (
            bool(old) and bool(text) and all("\n" not in words and cell_len(words) <= width for words in (old, text))
        )
        if not one_line:
            before, after = self._status_lines(old), self._status_lines(text)
            if before is not None and after is not None and before != after:
                self._panes_taller_by(before - after)
                if after:  # (the status's own, the first time it shows)
                    status.set_reactive(Widget.virtual_size, Size(self.size.width, after))
        status.update(Text(text), layout=not one_line)
        status.set_class(bool(text), "active")

    def _status_lines(self, text: str) -> int | None:
        """The lines the status takes with `text`: none when empty, one when it fits a line; None
        when it may wrap."""
        if not text:
            return 0
        status = self.query_one("#status", Static)
        fits = "\n" not in text and cell_len(text) <= self.size.width - status.styles.gutter.width
        return 1 if fits else None

    def _panes_taller_by(self, lines: int) -> None:
        """The status line comes or goes: the panes below it will be `lines` taller. Told so before
        the layout (set_reactive: no layout of its own), the panes, the splitter and the scrollbars
        already have the virtual size the layout gives them. Textual sets each widget's virtual
        size after laying the screen out, and one that changes then lays it out a second time,
        finding nothing to change: 4-14 ms of CPU, landing on the next keystroke when typing fast
        ("att" after "at"). A size guessed wrong costs that second layout, as before."""
        reader = self.query_one(ReaderPane)
        widgets: list[Widget] = [self.query_one("#panes"), self.query_one(Splitter)]
        widgets += [pane.vertical_scrollbar for pane in (self.query_one(ResultsList), reader)]
        if reader.virtual_size.height <= reader.scrollable_content_region.height:
            widgets.append(reader)  # (a paper that fits the reader: its virtual height is the view's)
        for widget in widgets:
            size = widget.virtual_size
            widget.set_reactive(Widget.virtual_size, Size(size.width, max(0, size.height + lines)))

    # -- selection and reader -----------------------------------------------------------------

    @on(ResultsList.Highlighted, "#results")
    def selection_moved(self, event: ResultsList.Highlighted) -> None:
        if event.paper_id != self._pinned_over:  # the user moved on from where the list stood
            self._pinned = None
        self._show_reader(self.current_paper_id())

    @on(ResultsList.Selected, "#results")
    def open_selected(self, event: ResultsList.Selected) -> None:
        self._unpin()  # enter or a click on a row opens that row's paper
        self.action_open_paper()

    def _unpin(self) -> None:
        """Back to the list's own selection after a bookmark shown over it."""
        if self._pinned is not None:
            self._pinned = None
            self._show_reader(self.current_paper_id())

    @property
    def reader_waiting(self) -> bool:
        """True while the reader waits for typing to pause before showing the top result."""
        return self._reader_timer is not None

    def _defer_reader(self) -> None:
        if self._reader_timer is not None:
            self._reader_timer.stop()
        self._reader_timer = self.set_timer(READER_DELAY, self._reader_caught_up)

    def _reader_caught_up(self) -> None:
        self._reader_timer = None
        self._show_reader(self.current_paper_id())

    def _show_reader(self, paper_id: str | None) -> None:
        if self._reader_timer is not None:
            return  # typing: _reader_caught_up shows the paper highlighted then
        reader = self.query_one(ReaderPane)
        terms = tuple(self.result.terms) if self.result else ()
        # A long abstract is converted in the reader's own thread: the interface never waits for it.
        paper = self.engine.paper(paper_id) if paper_id else None
        reader.show_paper(paper, self.engine.describe, terms, self._bookmark_shown(paper_id))

    def _bookmark_shown(self, paper_id: str | None) -> Bookmark | None:
        """The paper's bookmark (its note and tags), for the reader; read from the store only for a
        paper marked bookmarked, so moving through the list costs no store read."""
        if paper_id is None or not self.shows_bookmarked(paper_id) or not self.store_access.available:
            return None
        _ok, stored = self.store_access.call(self, lambda store: self._stored(store, paper_id), quiet=True)
        return stored

    def action_open_paper(self) -> None:
        paper_id = self.current_paper_id()
        if paper_id is None:
            return
        self.add_class("reading")
        self.query_one(ReaderPane).focus()
        if self.store_access.available and paper_id not in self.opened:
            ok, _ = self.store_access.call(self, lambda store: store.mark_opened(paper_id))
            if ok:
                self.opened.add(paper_id)
                self._redraw_row(paper_id)

    # -- bookmarks ----------------------------------------------------------------------------

    def shows_results_for(self, query: str) -> bool:
        """Whether the list shows matches of this query (a pause on it goes into the history)."""
        return self.result is not None and self.result.query == " ".join(query.split()) and bool(self.result.hits)

    def current_paper_id(self) -> str | None:
        return self._pinned or self.query_one(ResultsList).current_id

    # -- marks --------------------------------------------------------------------------------

    def highlighted_id(self) -> str | None:
        return self.query_one(ResultsList).current_id

    def every_match(self) -> list[str]:
        listed = self.query_one(ResultsList).paper_ids
        result = self.result
        if result is None or result.total <= len(listed):
            return list(listed)
        query = self.query_one(SearchBox).value
        whole = self.engine.search(dataclasses.replace(self._request(query), limit=result.total))
        return [hit.paper_id for hit in whole.hits]

    def marks_changed(self, moved_on: bool = False) -> None:
        results = self.query_one(ResultsList)
        results.refresh_rows()
        self._show_title(self._title)
        if moved_on:
            results.action_cursor_down()

    def current_bookmark(self) -> Bookmark | None:
        paper_id = self.current_paper_id()
        if paper_id is None:
            return None
        _ok, stored = self.store_access.call(self, lambda store: self._stored(store, paper_id), quiet=True)
        return stored or bookmark_of(self.engine.describe(paper_id))

    def shows_bookmarked(self, paper_id: str) -> bool:
        return self.engine.canonical(paper_id) in self.bookmarked  # marks are kept by canonical id

    def _stored(self, store: UserStore, paper_id: str) -> Bookmark | None:
        """The paper's bookmark, also when it was made under another of the paper's ids (the same
        paper in another list): its row shows it bookmarked, so `b` must find it."""
        found = store.get(paper_id)
        if found is None and paper_id in self.bookmarked and self.engine.aliases:
            canonical = self.engine.canonical
            found = next((b for b in store.bookmarks() if canonical(b.paper_id) == paper_id), None)
        return found

    def bookmarks_changed(self, paper_id: str) -> None:
        self._load_marks()
        paper_id = self.engine.canonical(paper_id)  # the row of a bookmark made under an alias
        self._redraw_row(paper_id)
        if paper_id == self.current_paper_id():
            self.query_one(ReaderPane).show_bookmark(self._bookmark_shown(paper_id))

    def _refill(self) -> None:
        """Draw every row again (the marks or the theme changed), keeping the list and its selection."""
        self.query_one(ResultsList).refresh_rows()
        self._show_reader(self.current_paper_id())

    def action_stats(self) -> None:
        """The statistics of the current query's papers (every loaded paper with no query)."""
        from tui.screens.stats import StatsScreen  # loaded when first opened, not before the first frame

        query = self.query_one(SearchBox).value
        self.app.push_screen(StatsScreen(self.engine, self._request(query)))

    def action_show_bookmarks(self) -> None:
        if self.store_access.require(self) is None:
            return

        from tui.screens.bookmarks import BookmarksScreen  # loaded when first opened, not before the first frame

        self.app.push_screen(
            BookmarksScreen(set(self.engine.by_id), self.store_access, self.engine), self._back_from_bookmarks
        )  # aliases too

    def action_recommended(self) -> None:
        """Papers like the bookmarks, each with the bookmark it is closest to, read there."""
        if self.store_access.require(self) is None:
            return

        from tui.screens.recommended import RecommendedScreen  # loaded when first opened

        self.app.push_screen(RecommendedScreen(self.engine, self.store_access), self._back_from_bookmarks)

    def _back_from_bookmarks(self, paper_id: str | None) -> None:
        """Back from the bookmarks or Recommended screen: marks as they are now, and the paper picked
        on the bookmarks screen (if any) opened here."""
        self._load_marks()
        self._refill()
        if paper_id is not None:
            self._open_bookmarked(paper_id)

    def _open_bookmarked(self, paper_id: str) -> None:
        """Open a paper chosen on the bookmarks screen, keeping the query: selected in the list when it
        is there, else shown in the reader (and acted on) until the selection moves."""
        results = self.query_one(ResultsList)
        paper_id = self.engine.canonical(paper_id)  # unknown ids stay as they are
        if paper_id in results.paper_ids:
            results.highlighted = results.paper_ids.index(paper_id)
        elif paper_id in self.engine.by_id:
            self._pinned, self._pinned_over = paper_id, results.current_id
            reader = self.query_one(ReaderPane)
            terms = tuple(self.result.terms) if self.result else ()
            reader.show_paper(self.engine.paper(paper_id), self.engine.describe, terms, self._bookmark_shown(paper_id))
        else:
            return
        self.call_after_refresh(self.action_open_paper)

    def action_close_reader(self) -> None:
        if self.query_one(ReaderPane).has_focus or self.has_class("reading"):
            self.remove_class("reading")
            self._unpin()
            self.query_one(ResultsList).focus()

    # -- focus and back -----------------------------------------------------------------------

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """The footer shows the keys that work where the focus is: in the search box letters are
        typed (so b, y, r, ? are hidden there) and ctrl+b, ctrl+y, ctrl+r act on the highlighted
        result instead; elsewhere the letters are shown and the ctrl variants hidden."""
        typing = isinstance(self.focused, SearchBox)
        if action == "from_search":
            return typing
        return not (typing and action in self.TYPED_ACTIONS)

    def on_descendant_focus(self) -> None:
        self.refresh_bindings()

    def action_help(self) -> None:
        self.app.action_help()  # type: ignore[attr-defined]

    async def action_quit(self) -> None:
        await self.app.action_quit()

    def action_from_search(self, action: str) -> None:
        """A paper action from the search box (ctrl+b, ctrl+y, ...) on the highlighted result."""
        if self.current_paper_id() is None:
            self.notify("No result to act on: type a query that matches a paper", severity="warning")
            return
        getattr(self, f"action_{action}")()

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
        """Esc: reader -> list -> search; in the search box it clears the query. The first-run guide
        is hidden first, then marked papers are unmarked."""
        focused = self.focused
        if isinstance(focused, ReaderPane) or self.has_class("reading"):
            self.action_close_reader()
        elif self.has_guide:
            self.dismiss_guide()
        elif self.clear_marks():
            return
        elif isinstance(focused, ResultsList):
            self.query_one(SearchBox).focus()
        elif isinstance(focused, SearchBox):
            focused.value = ""
        else:
            self.query_one(SearchBox).focus()

    def dismiss_guide(self) -> None:
        """Hide the first-run guide, and never show it again (kept in config.toml)."""
        if not self.has_guide:
            return
        self.has_guide = False
        self.query_one("#guide").remove()
        self._remember(guide_seen=True)

    @on(SearchBox.Leave)
    def leave_search(self) -> None:
        self.action_focus_results()
