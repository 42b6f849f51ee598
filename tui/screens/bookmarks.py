"""The bookmarks screen: every saved paper (loaded corpus or not), filterable, openable, removable
(and a removal undone with u, note and tags included)."""

from __future__ import annotations

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.events import Resize
from textual.widgets import Input, OptionList, Static
from textual.widgets.option_list import Option

from search import Bookmark, Row, SearchEngine, display_label, shown
from tui.render import NAME_STYLE, links_text
from tui.screens.main import NARROW_WIDTH
from tui.screens.paper_actions import ALREADY_REMOVED, PAPER_BINDINGS, UNDO_TIMEOUT, PaperActions, removed_notice
from tui.store_access import StoreAccess
from tui.widgets.footer import KeyBar
from tui.widgets.header import AppHeader
from tui.widgets.in_order_input import InOrderInput
from tui.widgets.in_turn_scroll import InTurnScroll
from tui.widgets.paper_options import PaperOptions
from tui.widgets.reader import SHOWN_CHARS
from tui.widgets.results_list import DARK_ROWS, RowColors, row_text, venue_column_width
from tui.wording import bookmarks_title


def bookmark_row(bookmark: Bookmark, venue_width: int = 0, colors: RowColors = DARK_ROWS) -> Text:
    """One line in the result list's columns (row_text: bookmark and code markers, venue, headline
    with its name highlighted), then the bookmark's tags and a ✎ when it has a note."""
    has_code = any(link.kind == "code" for link in bookmark.links)
    row = Row(bookmark.name, display_label(bookmark), has_code)
    text = row_text(row, bookmark.venue, bookmarked=True, venue_width=venue_width, colors=colors)
    if bookmark.tags:
        text.append("  " + " ".join(f"#{tag}" for tag in bookmark.tags), style="cyan")
    if bookmark.note:
        text.append("  ✎", style="yellow")
    return text


def bookmark_text(bookmark: Bookmark) -> Text:
    """The saved copy of a paper: what was kept when it was bookmarked, plus note and tags."""
    out = Text()
    out.append(display_label(bookmark, short=True), style="bold")
    out.append("\n")
    for label, value in (
        ("Venue", bookmark.venue),
        ("Authors", ", ".join(bookmark.authors)),
        ("Tags", ", ".join(bookmark.tags)),
        ("Id", bookmark.paper_id),
    ):
        if value:
            out.append(f"{label}: ", style="dim")
            out.append(shown(value), style=NAME_STYLE if label == "Tags" else "")
            out.append("\n")
    if bookmark.note:
        out.append("\nNote\n", style="bold")
        out.append("\n".join(map(shown, bookmark.note.splitlines())))  # the user's, or an imported file's
        out.append("\n")
    out.append("\n")
    abstract = bookmark.abstract  # stored text, never converted; laid out on the interface thread, so bounded
    if len(abstract) > SHOWN_CHARS:
        abstract = abstract[:SHOWN_CHARS] + f" … ({len(abstract) - SHOWN_CHARS:,} more characters)"
    out.append(abstract)
    if bookmark.links:
        out.append("\n\nLinks\n", style="bold")
        out.append(links_text(bookmark.links))
    return out


def matches(bookmark: Bookmark, words: list[str]) -> bool:
    haystack = " ".join(
        [
            bookmark.headline,
            bookmark.title or "",
            bookmark.name or "",
            bookmark.venue or "",
            bookmark.note,
            " ".join(bookmark.tags),
            " ".join(bookmark.authors),
        ]
    ).casefold()
    return all(word in haystack for word in words)


class BookmarksScreen(PaperActions[str | None]):
    """Dismisses with a paper id to open it in the main reader, or None to go back.

    Laid out like the main screen: filter box on top, the list on the left and the selected
    bookmark on the right; in a narrow terminal the list takes the screen (and a saved copy, when
    opened, replaces it until esc)."""

    DEFAULT_CSS = """
    BookmarksScreen { layout: vertical; }
    BookmarksScreen #bookmark-filter { border: tall $border-blurred; }
    BookmarksScreen #bookmark-filter:focus { border: tall $accent; }
    BookmarksScreen #bookmark-panes { height: 1fr; }
    BookmarksScreen #bookmark-list {
        width: 40%; height: 1fr; border: round $border-blurred; text-wrap: nowrap; text-overflow: ellipsis;
    }
    BookmarksScreen #bookmark-list:focus { border: round $accent; }
    BookmarksScreen #bookmark-view { width: 1fr; height: 1fr; border: round $border-blurred; padding: 0 1; }
    BookmarksScreen #bookmark-view:focus { border: round $accent; }
    BookmarksScreen.narrow #bookmark-list { width: 1fr; }
    BookmarksScreen.narrow #bookmark-view { display: none; }
    BookmarksScreen.narrow.reading #bookmark-list, BookmarksScreen.narrow.empty #bookmark-list { display: none; }
    BookmarksScreen.narrow.reading #bookmark-view, BookmarksScreen.narrow.empty #bookmark-view { display: block; }
    """

    BINDINGS = [
        Binding("escape", "back", "Back"),
        Binding("B", "back", "Back", show=False),
        Binding("enter", "open", "Open"),
        Binding("l", "open", "Open", show=False),
        Binding("d,delete", "remove", "Remove"),
        Binding("j", "move(1)", "Down", show=False),
        Binding("k", "move(-1)", "Up", show=False),
        Binding("g", "first", "First", show=False),
        Binding("G", "last", "Last", show=False),
        Binding("slash", "focus_filter", "Filter", key_display="/"),
        Binding("r", "recommended", "Recommended"),
        *PAPER_BINDINGS,
    ]

    def __init__(
        self, loaded_ids: set[str], store_access: StoreAccess | None = None, engine: SearchEngine | None = None
    ) -> None:
        """`loaded_ids`: the papers the main reader can open; the others show their saved copy.
        Without `store_access` there is no store (and nothing to show); `engine`: the loaded papers,
        for recommendations (r)."""
        super().__init__()
        self.loaded_ids = loaded_ids
        self.engine = engine
        self.store_access = store_access or StoreAccess()
        self.shown: list[Bookmark] = []
        self.total = 0  # bookmarks kept, shown or not (the filter may hide them all)
        self.bookmarked: set[str] = set()

    def compose(self) -> ComposeResult:
        yield AppHeader()
        yield InOrderInput(
            placeholder="Filter bookmarks by title, name, venue, tag, note or author…", id="bookmark-filter"
        )
        with Horizontal(id="bookmark-panes"):
            yield PaperOptions(id="bookmark-list")
            with InTurnScroll(id="bookmark-view"):
                yield Static(id="bookmark-body")
        yield KeyBar()

    def on_mount(self) -> None:
        self._apply_width(self.app.size.width)
        self.reload()
        self.query_one("#bookmark-list", OptionList).focus()
        # A signal, not watch(app, "theme"): the app keeps a watcher until the theme next changes, so
        # every bookmarks screen closed before that stayed alive, each with every paper's id.
        self.app.theme_changed_signal.subscribe(self, lambda _theme: self._theme_changed())

    def on_unmount(self) -> None:
        self.app.theme_changed_signal.unsubscribe(self)

    def _theme_changed(self) -> None:
        """Rows in the new theme's colours (a light theme needs dark markers), the selection kept."""
        bookmark = self.current_bookmark()
        self.reload(keep=bookmark.paper_id if bookmark else None)

    def on_resize(self, event: Resize) -> None:
        self._apply_width(event.size.width)

    def _apply_width(self, width: int) -> None:
        self.set_class(width < NARROW_WIDTH, "narrow")
        if width >= NARROW_WIDTH:
            self.remove_class("reading")

    def reload(self, keep: str | None = None) -> None:
        _ok, bookmarks = self.store_access.call(self, lambda store: store.bookmarks())
        words = self.query_one("#bookmark-filter", Input).value.casefold().split()
        self.bookmarked = {b.paper_id for b in bookmarks or []}
        self.shown = [b for b in bookmarks or [] if matches(b, words)]
        options = self.query_one("#bookmark-list", OptionList)
        venue_width = venue_column_width(b.venue for b in bookmarks or [])  # all of them: filtering keeps the columns
        colors = RowColors.for_theme(self.app.current_theme.dark)
        options.set_options(Option(bookmark_row(b, venue_width, colors), id=b.paper_id) for b in self.shown)
        ids = [b.paper_id for b in self.shown]
        if ids:
            options.highlighted = ids.index(keep) if keep in ids else 0
        total = self.total = len(bookmarks or [])
        self.sub_title = bookmarks_title(total, len(ids), filtered=bool(words))
        self.query_one(AppHeader).show(self.sub_title)
        self.set_class(not ids, "empty")  # a narrow screen shows why the list is empty
        self._preview()

    def _preview(self) -> None:
        bookmark = self.current_bookmark()
        body = self.query_one("#bookmark-body", Static)
        if bookmark is None:
            empty = "No bookmarks yet: press b on a paper to keep it." if not self.total else ""
            body.update(Text(empty or "No bookmark matches the filter.", style="dim"))
        else:
            body.update(bookmark_text(bookmark))

    def current_bookmark(self) -> Bookmark | None:
        index = self.query_one("#bookmark-list", OptionList).highlighted
        if index is None or not 0 <= index < len(self.shown):
            return None
        return self.shown[index]

    def bookmarks_changed(self, paper_id: str) -> None:
        self.reload(keep=paper_id)

    @on(Input.Changed, "#bookmark-filter")
    def filter_changed(self) -> None:
        self.reload()

    @on(Input.Submitted, "#bookmark-filter")
    def filter_done(self) -> None:
        self.query_one("#bookmark-list", OptionList).focus()

    @on(OptionList.OptionHighlighted, "#bookmark-list")
    def moved(self) -> None:
        self._preview()

    @on(OptionList.OptionSelected, "#bookmark-list")
    def selected(self) -> None:
        self.action_open()

    def action_move(self, delta: int) -> None:
        options = self.query_one("#bookmark-list", OptionList)
        options.action_cursor_down() if delta > 0 else options.action_cursor_up()

    def action_first(self) -> None:
        self.query_one("#bookmark-list", OptionList).action_first()

    def action_last(self) -> None:
        self.query_one("#bookmark-list", OptionList).action_last()

    def action_focus_filter(self) -> None:
        self.query_one("#bookmark-filter", Input).focus()

    def action_open(self) -> None:
        bookmark = self.current_bookmark()
        if bookmark is None:
            return
        if bookmark.paper_id in self.loaded_ids:
            self.dismiss(bookmark.paper_id)
        else:
            self.notify("That paper's corpus is not loaded: showing the saved copy.", timeout=4)
            self.add_class("reading")
            self.query_one("#bookmark-view").focus()

    def action_remove(self) -> None:
        """Remove the selected bookmark at once; the store keeps it (note and tags too) for u."""
        bookmark = self.current_bookmark()
        if bookmark is None:
            return
        ok, removed = self.store_access.call(self, lambda store: store.remove(bookmark.paper_id))
        if not ok:
            return
        if removed is None:
            self.notify(ALREADY_REMOVED, markup=False, timeout=5)
        else:
            self.notify(removed_notice(removed), markup=False, timeout=UNDO_TIMEOUT)
        index = self.query_one("#bookmark-list", OptionList).highlighted or 0
        self.reload()
        if self.shown:
            self.query_one("#bookmark-list", OptionList).highlighted = min(index, len(self.shown) - 1)

    def action_recommended(self) -> None:
        """r: papers like these bookmarks, read there; esc there comes back here."""
        if self.engine is None:
            return
        engine = self.engine

        def back(_: None) -> None:
            bookmark = self.current_bookmark()
            self.reload(keep=bookmark.paper_id if bookmark else None)  # b there bookmarked papers

        from tui.screens.recommended import RecommendedScreen  # loaded when first opened

        self.app.push_screen(RecommendedScreen(engine, self.store_access), back)

    def action_back(self) -> None:
        """Esc: from a saved copy back to the list (which a narrow terminal shows again); in the
        filter box it clears the filter; else back to the papers."""
        focused = self.focused
        if self.has_class("reading") or focused is self.query_one("#bookmark-view"):
            self.remove_class("reading")
            self.query_one("#bookmark-list", OptionList).focus()
        elif isinstance(focused, Input) and focused.value:
            focused.value = ""
        else:
            self.dismiss(None)
