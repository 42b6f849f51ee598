"""ReaderApp: wiring only. The main screen does the work; engine, store and preferences come in through
the constructor."""

from __future__ import annotations

import tempfile
import threading
from collections.abc import Iterable
from dataclasses import replace
from pathlib import Path
from typing import Any

from textual import events, work
from textual.app import App, SystemCommand
from textual.binding import Binding
from textual.screen import Screen

from search import ReaderError, SearchEngine, UserStore, paths, shown
from tui import collector
from tui.key_order import STUCK_SECONDS, KeysInTurn
from tui.preferences import Preferences
from tui.preferences import load as load_preferences
from tui.preferences import save as save_preferences
from tui.screens.dialogs import UNSAVED_AT_QUIT, Editor
from tui.screens.main import MainScreen
from tui.screens.marking import FORMAT_NAMES, MarkedActions
from tui.screens.paper_actions import PaperActions
from tui.store_access import StoreAccess


class ReaderApp(App[int]):
    """A full-screen reader for paper abstracts."""

    CSS_PATH = "app.tcss"
    TITLE = "iclr-reader"
    BINDINGS = [
        Binding("ctrl+q", "quit", "Quit", show=False, priority=True),
    ]

    def __init__(
        self,
        engine: SearchEngine,
        store: UserStore | None = None,
        query: str | None = None,
        store_problem: str | None = None,
        preferences: Preferences | None = None,
        guide: bool = False,
        cache_problem: str | None = None,
    ) -> None:
        """`preferences`: None reads them from config.toml (tests pass their own). `guide`: show the
        first-run guide unless it was dismissed before (the program does; tests ask for it).
        `cache_problem`: why the cache folder cannot be written (`cache_problem()`), told once."""
        super().__init__()
        self.engine = engine
        self.store = store
        self.store_access = StoreAccess(store, store_problem)
        """The store, or why bookmarks are unavailable (told when the user tries to use them)."""
        self.initial_query = query
        self.cache_problem = cache_problem
        """Why the index and parsed lists live in memory only (the cache folder cannot be written), or None."""
        self._preferences_notice: str | None = None
        self._told_not_saved = False
        if preferences is None:
            loaded = load_preferences(themes=self.available_themes)
            preferences, self._preferences_notice = loaded.preferences, loaded.notice
        self.preferences = preferences
        """What the user set (theme, split, sort, match, list only); change it with update_preferences."""
        self.guide = guide and not preferences.guide_seen
        self._collector = collector.IdleCollector()
        self._saving_started = False
        self._keys = KeysInTurn(self, super().on_event)
        """Each key goes where the key before it sent the focus, also in a burst (tui/key_order.py)."""

    def on_mount(self) -> None:
        self._collector.start()
        self.set_interval(collector.IDLE / 2, self._when_idle)
        self.set_interval(STUCK_SECONDS / 2, self._keys.check_stuck)
        if self.preferences.theme in self.available_themes:
            self.theme = self.preferences.theme
        self.push_screen(
            MainScreen(
                self.engine,
                self.store_access,
                self.initial_query,
                self.preferences,
                self.update_preferences,
                guide=self.guide,
            )
        )
        if self._preferences_notice:
            self.notify(self._preferences_notice, title="Preferences", severity="warning", timeout=15, markup=False)
        if self.store_access.problem:
            self.notify(
                self.store_access.problem, title="Bookmarks unavailable", severity="error", timeout=10, markup=False
            )
        elif self.store is not None and self.store.notice:
            self.notify(self.store.notice, title="Bookmarks", severity="warning", timeout=15, markup=False)
        if self.cache_problem:
            self.notify(self.cache_problem, title="Cache not writable", severity="warning", timeout=15, markup=False)
        for problem in self.engine.corpus.problems:
            self.notify(f"Left out: {problem}", title="List not loaded", severity="warning", timeout=15, markup=False)

    def _when_idle(self) -> None:
        if self._collector.check():  # a pause (or a long stretch of typing): what was freed goes back too
            self.engine.release_memory()
        if self._collector.paused() and not self._saving_started:
            self._saving_started = True
            self._save_for_next_start()

    @work(thread=True, exit_on_error=False, group="save")
    def _save_for_next_start(self) -> None:
        """What this start parsed (each new list's papers, the merged corpus), saved for the next
        start once the user pauses: not before the first frame (a third of a second at 10,745
        papers), nor while they type (its encoders hold the interpreter's lock for tens of ms)."""
        self.engine.save_for_next_start()

    def on_unmount(self) -> None:
        self._collector.stop()

    async def on_event(self, event: events.Event) -> None:
        if isinstance(event, events.InputEvent):
            self._collector.input()  # the collector's full passes wait for a pause in the typing
        if isinstance(event, (events.Key, events.Paste)) and not event.is_forwarded:
            await self._keys.arrived(event)
        else:
            await super().on_event(event)

    @property
    def keys_pending(self) -> bool:
        """Whether a key read is still on its way to where it acts (KeysInTurn)."""
        return self._keys.pending

    def update_preferences(self, **changes: Any) -> None:
        """Change preferences (keyword arguments named as Preferences' fields) and save them for the
        next start. A failure to save is a notice, never an error: the change holds until quitting."""
        changed = replace(self.preferences, **changes)
        if changed == self.preferences:
            return
        self.preferences = changed
        try:
            save_preferences(changed, themes=self.available_themes)
        except ReaderError as problem:
            if not self._told_not_saved:  # once: every later change fails the same way
                self._told_not_saved = True
                self.notify(str(problem), title="Preferences not saved", severity="warning", timeout=10, markup=False)

    def watch_theme(self, theme: str) -> None:
        """A theme picked in the palette (ctrl+p, Theme) is the theme of the next start too."""
        self.update_preferences(theme=theme)

    async def action_quit(self) -> None:
        """Quit, unless a note or tags dialog holds writing not saved yet: then the first ctrl+q warns."""
        screen = self.screen
        if isinstance(screen, Editor) and screen.holds_unsaved_writing(UNSAVED_AT_QUIT):
            return
        self.exit()

    def action_help(self) -> None:
        from tui.screens.help import HelpScreen  # loaded when first asked for, not before the first frame

        if not isinstance(self.screen, HelpScreen):
            self.push_screen(HelpScreen())

    def get_system_commands(self, screen: Screen) -> Iterable[SystemCommand]:
        # The palette reads titles and descriptions as markup: "[headline](url)" would lose "[headline]".
        for command in self._system_commands(screen):
            yield command._replace(title=_literal(command.title), help=_literal(command.help))

    def _system_commands(self, screen: Screen) -> Iterable[SystemCommand]:
        for command in super().get_system_commands(screen):
            if command.title == "Keys":  # Textual's key panel, which lists OptionList and Input internals
                yield SystemCommand("Keys", "Show the app's keys (?)", self.action_help)
            else:
                yield command
        if isinstance(screen, MainScreen):
            yield SystemCommand("Search", "Focus the search box (/)", screen.action_focus_search)
            if screen.has_guide:
                yield SystemCommand("Hide the guide", "Hide the first-run guide for good (esc)", screen.dismiss_guide)
            yield SystemCommand("Open paper", "Open the selected paper in the reader (enter)", screen.action_open_paper)
            yield SystemCommand("Results", "Go to the result list", screen.action_focus_results)
            yield SystemCommand("Clear search", "Show every paper in corpus order", screen.action_clear_search)
            yield SystemCommand("Bookmarks", "Show bookmarks (B)", screen.action_show_bookmarks)
            yield SystemCommand(
                "Statistics",
                "Ratings by decision, institutions, countries, keywords, citations of the query's papers (s)",
                screen.action_stats,
            )
            yield SystemCommand("Related papers", "Papers most like the selected one (r)", screen.action_related)
            yield SystemCommand(
                "Recommended",
                "Papers like your bookmarks, each with the one it is closest to",
                screen.action_recommended,
            )
            yield SystemCommand("Lists", "Search all lists or one (ctrl+l)", screen.action_pick_list)
            yield SystemCommand(
                "Filters and sort", "has:code, is:bookmarked, is:unread, status:, sort: (ctrl+t)", screen.action_filters
            )
            yield SystemCommand("Save search", "Save the current query with a name (ctrl+s)", screen.action_save_search)
            yield SystemCommand("Saved searches", "Run or delete a saved search (S)", screen.action_saved_searches)
            yield SystemCommand(
                "Get a list…", "Download a conference list into your library (ctrl+g)", screen.action_get_list
            )
            yield SystemCommand(
                "Library", "Your lists: search only one, update, remove (and undo)", screen.action_library
            )
            yield SystemCommand(
                "List only",
                "The result list alone across the width, or beside the reader (z)",
                screen.action_toggle_list_only,
            )
            yield SystemCommand("Wider list", "Give the result list more of the width (])", screen.action_wider_list)
            yield SystemCommand("Narrower list", "Give the reader more of the width ([)", screen.action_narrower_list)
            for sort, meaning in (("relevance", "best match first"), ("name", "by name"), ("order", "in corpus order")):
                yield SystemCommand(
                    f"Default order: {sort}",
                    f"Results {meaning} unless the query says sort: (saved for the next start)",
                    lambda sort=sort: screen.set_defaults(sort=sort),
                )
            for match, meaning in (
                ("any", "papers with any of the words, ranked"),
                ("all", "only papers with every word"),
            ):
                yield SystemCommand(
                    f"Default match: {match} words",
                    f"Queries find {meaning} unless they say match: (saved for the next start)",
                    lambda match=match: screen.set_defaults(match=match),
                )
            for name, query in self._saved_searches():
                yield SystemCommand(f"Saved search: {name}", query, lambda query=query: screen.run_saved_search(query))
        recommended = getattr(screen, "action_recommended", None)
        if recommended is not None and not isinstance(screen, MainScreen):  # the bookmarks screen: r
            yield SystemCommand(
                "Recommended", "Papers like your bookmarks, each with the one it is closest to (r)", recommended
            )
        if isinstance(screen, PaperActions):
            yield SystemCommand(
                "Toggle bookmark", "Bookmark or unbookmark the selected paper (b)", screen.action_toggle_bookmark
            )
            yield SystemCommand(
                "Undo remove bookmark",
                "Bring back the last removed bookmark with its note and tags (u)",
                screen.action_undo_remove,
            )
            yield SystemCommand("Edit note", "Edit the selected paper's note (n)", screen.action_edit_note)
            yield SystemCommand("Edit tags", "Edit the selected paper's tags (t)", screen.action_edit_tags)
            yield SystemCommand("Copy link", "Copy the selected paper's main link (y)", screen.action_copy_link)
            yield SystemCommand(
                "Open link", "Open the selected paper's main link in a browser (o)", screen.action_open_link
            )
            yield SystemCommand("Copy abstract", "Copy the abstract as plain text", screen.action_copy_abstract)
            yield SystemCommand("Copy BibTeX entry", "Copy a BibTeX entry for the paper", screen.action_copy_bibtex)
            yield SystemCommand("Copy Markdown citation", "Copy [headline](url)", screen.action_copy_markdown)
        if isinstance(screen, MarkedActions):
            yield SystemCommand("Mark all matches", "Mark every paper the query matches (*)", screen.action_mark_all)
            yield SystemCommand("Clear marks", "Unmark every marked paper (esc)", screen.clear_marks)
            for fmt, name in FORMAT_NAMES.items():
                yield SystemCommand(
                    f"Export marked papers as {name}",
                    f"Copy the marked papers (else the selected one) as {name}",
                    lambda fmt=fmt: screen.export_marked(fmt),
                )
        yield SystemCommand("Help", "Show every key binding (?)", self.action_help)

    def _saved_searches(self) -> list[tuple[str, str]]:
        _ok, saved = self.store_access.call(self, lambda store: store.saved_searches(), quiet=True)
        return saved or []


def _literal(text: str) -> str:
    """Text shown as it is where Textual reads markup: every "[" escaped (textual.markup.escape
    leaves some, such as "[A]" and "[$x]")."""
    return text.replace("[", "\\[")


def cache_problem(folder: Path) -> str | None:
    """Why nothing can be saved in the cache folder (the index, the parsed lists), or None: the app
    then works from memory, building the index again at each start, and says so once (a command
    says so on stderr when it builds the index)."""
    try:
        folder.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryFile(dir=folder):
            pass
    except OSError as error:
        return (
            f"Cannot write {shown(folder)} ({error.strerror or error}): the index and the lists are kept "
            "in memory, built again at each start."
        )
    return None


class StoreOpening:
    """The user's store opened in a thread while a cold start's lists still load (`start`), for
    run_app to take (`access`): a first start creates it, about 40 ms of waiting for the disk that
    the first frame need not wait for. Not started: `access` opens it there and then."""

    def __init__(self) -> None:
        self._opened: list[StoreAccess] = []
        self._thread = threading.Thread(target=lambda: self._opened.append(StoreAccess.open()), name="store")

    def start(self) -> StoreOpening:
        self._thread.start()
        return self

    def access(self) -> StoreAccess:
        if self._thread.ident is not None:
            self._thread.join()
        # (an error in the thread, which StoreAccess turns into none: raised here, as before)
        return self._opened[0] if self._opened else StoreAccess.open()


def run_app(engine: SearchEngine, query: str | None = None, store: StoreOpening | None = None) -> int:
    """Run the app until the user quits; the terminal is restored even after an error. `store`:
    the user's store as it is being opened (by default, opened here)."""
    access = (store or StoreOpening()).access()
    app = ReaderApp(
        engine,
        store=access.store,
        query=query,
        store_problem=access.problem,
        guide=True,
        cache_problem=cache_problem(paths.cache_dir()),
    )
    try:
        app.run()
    finally:
        engine.save_for_next_start()  # quit before a pause: saved now (or already)
    return app.return_code or 0
