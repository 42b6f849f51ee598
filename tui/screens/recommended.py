"""The Recommended screen: papers like the user's bookmarks (never one of them, nor a removed one),
each row saying which bookmark it is closest to; enter opens one here (esc comes back to the list, and
then to the screen it was opened from), b bookmarks it (and it leaves the list)."""

from __future__ import annotations

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.events import Resize
from textual.message import Message
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option
from textual.worker import Worker, WorkerState, get_current_worker

from search import Bookmark, Recommendations, SearchEngine, bookmark_of
from tui.screens.main import NARROW_WIDTH
from tui.screens.paper_actions import PAPER_BINDINGS, PaperActions
from tui.store_access import StoreAccess
from tui.widgets.footer import KeyBar
from tui.widgets.header import AppHeader
from tui.widgets.paper_options import PaperOptions
from tui.widgets.reader import ReaderPane
from tui.widgets.results_list import RowColors, row_text, venue_column_width
from tui.wording import NO_BOOKMARKS_TO_RECOMMEND, counted, none_loaded, recommended_from

RECOMMENDED = 100
"""Papers the screen lists: enough to browse, few enough to rank in a moment."""
PAPER_ACTIONS = {binding.action for binding in PAPER_BINDINGS if binding.action != "undo_remove"} | {"open"}
LIKE = "like: "
LIKE_STYLE = "dim italic"
"""The line under each row naming the bookmark the paper is most like."""


class RecommendedScreen(PaperActions[None]):
    """Laid out like the main screen: the list on the left, the selected paper on the right; enter
    opens the paper here, in the reader on the right (in a narrow terminal the list takes the screen
    and the paper opened takes it instead), and esc comes back to the list. So esc from a paper opened
    here goes back to this list, then to the screen below (the bookmarks, or the papers): opening a
    paper never closes them. The ranking runs in a thread: many bookmarks over a big library take
    a while."""

    DEFAULT_CSS = """
    RecommendedScreen { layout: vertical; }
    RecommendedScreen #recommended-message { height: auto; padding: 0 1; color: $text-muted; }
    RecommendedScreen #recommended-panes { height: 1fr; }
    RecommendedScreen #recommended-list {
        width: 45%; height: 1fr; border: round $border-blurred; text-wrap: nowrap; text-overflow: ellipsis;
    }
    RecommendedScreen #recommended-list:focus { border: round $accent; }
    RecommendedScreen #recommended-view { width: 1fr; height: 1fr; border: round $border-blurred; padding: 0 1; }
    RecommendedScreen #recommended-view:focus { border: round $accent; }
    RecommendedScreen.narrow #recommended-list { width: 1fr; }
    RecommendedScreen.narrow #recommended-view { display: none; }
    RecommendedScreen.narrow.reading #recommended-list { display: none; }
    RecommendedScreen.narrow.reading #recommended-view { display: block; }
    RecommendedScreen.empty #recommended-panes { display: none; }
    """

    BINDINGS = [
        Binding("escape", "back", "Back"),
        Binding("enter", "open", "Open"),
        Binding("l", "open", "Open", show=False),
        Binding("j", "move(1)", "Down", show=False),
        Binding("k", "move(-1)", "Up", show=False),
        Binding("g", "first", "First", show=False),
        Binding("G", "last", "Last", show=False),
        *PAPER_BINDINGS,
    ]

    class Found(Message):
        """The recommendations are ranked (in the worker thread)."""

        def __init__(self, result: Recommendations) -> None:
            super().__init__()
            self.result = result

    def __init__(self, engine: SearchEngine, store_access: StoreAccess | None = None) -> None:
        super().__init__()
        self.engine = engine
        self.store_access = store_access or StoreAccess()
        self.bookmarked: set[str] = set()
        self.result: Recommendations | None = None
        self.shown: list[str] = []
        """The papers listed, best first: the result's, less those bookmarked here since."""
        self._ranking: Worker[None] | None = None
        self._placed: int | None = None
        """The row the screen last highlighted itself: another is the user's choice, kept as rows come
        (None once a choice is kept: the screen placed no row since)."""

    def compose(self) -> ComposeResult:
        yield AppHeader()
        yield Static(id="recommended-message")
        with Horizontal(id="recommended-panes"):
            yield PaperOptions(id="recommended-list")
            yield ReaderPane(id="recommended-view")
        yield KeyBar()

    def on_mount(self) -> None:
        self._apply_width(self.app.size.width)
        self.query_one(AppHeader).show("Recommended")
        self.query_one("#recommended-list", OptionList).focus()
        # (a signal unsubscribed when closed: a watch of the app's theme kept the screen alive)
        self.app.theme_changed_signal.subscribe(self, lambda _theme: self._fill(keep=self.current_id()))
        self.refresh_recommendations()

    def on_unmount(self) -> None:
        self.app.theme_changed_signal.unsubscribe(self)

    def on_resize(self, event: Resize) -> None:
        self._apply_width(event.size.width)

    def _apply_width(self, width: int) -> None:
        """Narrow: one pane at a time, the paper while it is being read ("reading")."""
        narrow = width < NARROW_WIDTH
        self.set_class(narrow, "narrow")
        self.set_class(narrow and self.query_one(ReaderPane).has_focus, "reading")
        self._preview()

    def refresh_recommendations(self) -> None:
        """Read the bookmarks (newest first) and the removed ones, and rank in a thread."""
        ok, marks = self.store_access.call(
            self, lambda store: ([b.paper_id for b in store.bookmarks()], [b.paper_id for b in store.removed()])
        )
        bookmarks, removed = marks if ok and marks else ([], [])
        self.bookmarked = {self.engine.canonical(paper_id) for paper_id in bookmarks}
        if not bookmarks:
            self._say(NO_BOOKMARKS_TO_RECOMMEND)
            return
        waiting = "" if self.engine.ready else " (once the index is built)"
        self._say(f"Finding papers like your bookmarks{waiting}…")
        self._ranking = self._rank(bookmarks, removed)

    def keys_wait(self) -> bool:
        """Whether the keys read next wait (tui/key_order.py): the papers are being ranked and none
        is listed yet, so `j` in a burst after `r` would move in an empty list. Not while the index
        builds: that may take a minute, and esc must not wait for it."""
        ranking = self._ranking
        return self.result is None and ranking is not None and not ranking.is_finished and self.engine.ready

    @work(thread=True, exclusive=True, group="recommend", exit_on_error=False)
    def _rank(self, bookmarks: list[str], removed: list[str]) -> None:
        worker = get_current_worker()

        def found(result: Recommendations) -> None:
            if not worker.is_cancelled:
                self.post_message(self.Found(result))

        found(self.engine.recommend(bookmarks, removed, RECOMMENDED, worker.cancelled_event, on_partial=found))

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        """A ranking that failed (a damaged index that could not be repaired, a full disk) says so."""
        if event.state == WorkerState.ERROR and event.worker.group == "recommend":
            error = event.worker.error
            self._say(f"Could not rank papers like your bookmarks: {type(error).__name__}: {error}")

    def on_recommended_screen_found(self, message: Found) -> None:
        """The ranking so far (the first bookmarks' while the rest are compared) or the whole one;
        the selection the user made stays on its paper (else row 1 of the ranking so far is highlighted),
        and papers bookmarked here meanwhile stay out."""
        keep = self.current_id() if self._chosen() else None
        result = self.result = message.result
        self.shown = [hit.paper_id for hit in result.hits if hit.paper_id not in self.bookmarked]
        if not result.used:
            self._say(none_loaded(result.not_loaded))
            return
        so_far = result.compared < len(result.used) and not result.notice
        if so_far:
            self._say(f"Compared with {result.compared:,} of {len(result.used):,} bookmarks so far…")
        elif not self.shown:
            self._say(result.notice or "No paper shares enough words with your bookmarks to recommend.")
            return
        else:
            self._say(result.notice or "")
        self._fill(keep=keep)

    def _say(self, text: str) -> None:
        """The line above the list (why it is empty, or what stopped it short); blank: none."""
        message = self.query_one("#recommended-message", Static)
        message.update(Text(text))
        message.display = bool(text)
        self.set_class(not self.shown, "empty")
        self.refresh_bindings()

    def _row(self, paper_id: str, closest: str, venue_width: int, colors: RowColors) -> Text:
        """The result list's row, and under it the bookmark the paper is most like."""
        text = row_text(
            self.engine.row(paper_id), self.engine.paper(paper_id).venue, venue_width=venue_width, colors=colors
        )
        text.append("\n")
        text.append(f"    {LIKE}{self.engine.row(closest).headline}", style=LIKE_STYLE)
        return text

    def _fill(self, keep: str | None = None) -> None:
        if self.result is None:
            return
        chosen = self._chosen()
        result = self.result
        said = recommended_from(len(result.used), result.left_out, result.not_loaded)
        self.query_one(AppHeader).show(f"Recommended · {counted(len(self.shown), 'paper')} {said}")
        closest = {hit.paper_id: hit.closest for hit in self.result.hits}
        venue_width = venue_column_width(self.engine.paper(paper_id).venue for paper_id in self.shown)
        if len({self.engine.paper(paper_id).venue for paper_id in self.shown}) < 2:
            venue_width = 0  # one venue: the column says nothing
        colors = RowColors.for_theme(self.app.current_theme.dark)
        options = self.query_one("#recommended-list", OptionList)
        options.set_options(
            Option(self._row(paper_id, closest[paper_id], venue_width, colors), id=paper_id) for paper_id in self.shown
        )
        if self.shown:
            kept = self.shown.index(keep) if keep is not None and keep in self.shown else None
            options.highlighted = 0 if kept is None else kept
            # The user's choice kept is still theirs: the ranking after this one keeps it too.
            self._placed = None if chosen and kept is not None else options.highlighted
        self.set_class(not self.shown, "empty")
        self._preview()

    def _preview(self) -> None:
        """The selected paper on the right, where it shows (not behind a narrow list)."""
        paper_id = self.current_id()
        if paper_id is not None and (not self.has_class("narrow") or self.has_class("reading")):
            self.query_one(ReaderPane).show_paper(self.engine.paper(paper_id), self.engine.describe, (), None)

    def _chosen(self) -> bool:
        """Whether the user moved the highlight from where the screen put it, or opened its paper."""
        options = self.query_one("#recommended-list", OptionList)
        return options.highlighted != self._placed or isinstance(self.focused, ReaderPane)

    def current_id(self) -> str | None:
        index = self.query_one("#recommended-list", OptionList).highlighted
        if index is None or not 0 <= index < len(self.shown):
            return None
        return self.shown[index]

    def current_bookmark(self) -> Bookmark | None:
        paper_id = self.current_id()
        if paper_id is None:
            return None
        _ok, stored = self.store_access.call(self, lambda store: store.get(paper_id), quiet=True)
        return stored or bookmark_of(self.engine.describe(paper_id))

    def bookmarks_changed(self, paper_id: str) -> None:
        """A paper bookmarked here leaves the list (it is one of the bookmarks now); one unbookmarked
        or restored changes what is like them: the list stays until it is opened again."""
        ok, stored = self.store_access.call(self, lambda store: store.get(paper_id), quiet=True)
        if not ok:
            return
        paper_id = self.engine.canonical(paper_id)
        if stored is None:
            self.bookmarked.discard(paper_id)
            return
        self.bookmarked.add(paper_id)
        if paper_id in self.shown:
            options = self.query_one("#recommended-list", OptionList)
            index = self.shown.index(paper_id)
            self.shown.remove(paper_id)
            after = self.shown[min(index, len(self.shown) - 1)] if self.shown else None
            self._close_paper()  # its row is gone: back to the list, on the paper after it
            self._fill(keep=after)
            if not self.shown:
                self._say("Every recommended paper is bookmarked now: open Recommended again for more.")
            options.focus()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """The paper keys only while a paper is listed (the footer shows what works); no open key
        in the paper opened."""
        if action == "open" and isinstance(self.focused, ReaderPane):
            return False
        return bool(self.shown) or action not in PAPER_ACTIONS

    @on(OptionList.OptionHighlighted, "#recommended-list")
    def moved(self) -> None:
        self._preview()

    @on(OptionList.OptionSelected, "#recommended-list")
    def selected(self) -> None:
        self.action_open()

    def action_move(self, delta: int) -> None:
        options = self.query_one("#recommended-list", OptionList)
        options.action_cursor_down() if delta > 0 else options.action_cursor_up()

    def action_first(self) -> None:
        self.query_one("#recommended-list", OptionList).action_first()

    def action_last(self) -> None:
        self.query_one("#recommended-list", OptionList).action_last()

    def action_open(self) -> None:
        """Enter: read the selected paper in the reader here (the whole screen when narrow), marked
        read as the main reader marks it; esc comes back to the list."""
        paper_id = self.current_id()
        if paper_id is None:
            return
        self.set_class(self.has_class("narrow"), "reading")
        self._preview()
        self.query_one(ReaderPane).focus()
        if self.store_access.available:
            self.store_access.call(self, lambda store: store.mark_opened(paper_id))

    def _close_paper(self) -> None:
        self.remove_class("reading")
        self.query_one("#recommended-list", OptionList).focus()

    def action_back(self) -> None:
        """Esc: from the paper opened back to the list; else back where the screen was opened from."""
        if self.has_class("reading") or self.focused is self.query_one(ReaderPane):
            self._close_paper()
        else:
            self.dismiss(None)
