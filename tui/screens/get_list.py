"""The "Get a list…" picker: the catalogue of conference lists, filtered as you type (`iclr 2025`,
`nips2024`), plus whatever else `iclr-reader get` takes (`openreview:VENUE`, `arxiv:QUERY`, a
name outside the catalogue; an OpenReview venue is offered with its reviews too, `--reviews`). It
answers with what to get, as the command line would say it."""

from __future__ import annotations

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.widgets import Input, OptionList, Static
from textual.widgets.option_list import Option

from search import available_lists
from tui.screens.dialogs import DIALOG_CSS, LIST_CSS, ListDialog
from tui.screens.getting import REVIEWS_FLAG
from tui.widgets.in_order_input import InOrderInput

HINT = "type to filter · ↑↓ choose · enter get (a list you have: update or remove) · esc cancel"
SHOWN = 200
"""Rows shown at most while filtering (the whole catalogue is a few hundred)."""


def catalogue_rows() -> list[tuple[str, str]]:
    """(label, name) for every conference and year, newest year first within a conference."""
    rows = []
    for conference in available_lists():
        for year in sorted(conference.years, reverse=True):
            rows.append((f"{conference.label} {year}", f"{conference.name}{year}"))
    return rows


def matching(rows: list[tuple[str, str]], typed: str) -> list[tuple[str, str]]:
    """The rows whose label or name contains every typed word (case-insensitive)."""
    words = typed.casefold().split()
    return [(label, name) for label, name in rows if all(w in f"{label} {name}".casefold() for w in words)]


def _prompt(label: str, name: str, held: str | None = None) -> Text:
    """ "ICLR 2025  iclr2025": the conference, then the name `get` and `list:` use; for a list in the
    library, what it holds and when it came ("✓ in your library · 3,704 papers · 2025-06-01")."""
    prompt = Text(label)
    if name != label and not label.startswith("Get "):
        prompt.append(f"  {name}", style="dim")
    if held is not None:
        prompt.append(f"  ✓ in your library · {held}", style="green")
    return prompt


class GetListScreen(ListDialog[str | None]):
    """Type to filter, enter (or 1-9) to get the highlighted list; esc cancels."""

    DEFAULT_CSS = DIALOG_CSS.format(name="GetListScreen") + LIST_CSS.format(name="GetListScreen")
    BINDINGS = [
        Binding("escape", "cancel", "Cancel"),
        Binding("down", "move(1)", show=False),
        Binding("up", "move(-1)", show=False),
    ]

    def __init__(self, in_library: dict[str, str] | None = None) -> None:
        """`in_library`: the lists already in the library, by name, with what they hold (marked;
        choosing one offers to update or remove it)."""
        super().__init__()
        self.in_library = in_library or {}
        self.rows = catalogue_rows()
        self.shown: list[tuple[str, str]] = []
        """The choices on screen, in order: (label, what to get)."""

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(Text("Get a list: download it into your library"), classes="dialog-title")
            yield InOrderInput(
                placeholder="iclr 2025 · nips2024 · openreview:ICLR.cc/2025/Conference · arxiv:cat:cs.LG"
            )
            yield OptionList(id="lists")
            yield Static(Text(HINT), classes="dialog-help")

    def on_mount(self) -> None:
        self._refresh_choices("")
        self.query_one(Input).focus()

    @on(Input.Changed)
    def typed(self, event: Input.Changed) -> None:
        self._refresh_choices(event.value)

    def _refresh_choices(self, typed: str) -> None:
        typed = typed.strip()
        shown = matching(self.rows, typed)[:SHOWN]
        if typed and (":" in typed or not shown):
            # Anything the command line takes can be got from here too, catalogued or not.
            shown.insert(0, (f"Get “{typed}”", typed))
            if typed.casefold().startswith("openreview:") and not typed.endswith(REVIEWS_FLAG):
                shown.insert(1, (f"Get “{typed}” with its reviews (one request per paper)", f"{typed}{REVIEWS_FLAG}"))
        self.shown = shown
        options = self.query_one(OptionList)
        options.set_options(
            Option(_prompt(label, name, self.in_library.get(name)), id=str(index))
            for index, (label, name) in enumerate(shown)
        )
        if shown:
            options.highlighted = 0

    def action_move(self, step: int) -> None:
        options = self.query_one(OptionList)
        if self.shown:
            current = options.highlighted or 0
            options.highlighted = max(0, min(len(self.shown) - 1, current + step))

    @on(Input.Submitted)
    def submitted(self) -> None:
        highlighted = self.query_one(OptionList).highlighted
        if highlighted is not None and highlighted < len(self.shown):
            self.dismiss(self.shown[highlighted][1])

    @on(OptionList.OptionSelected)
    def chosen(self, event: OptionList.OptionSelected) -> None:
        self.dismiss(self.shown[event.option_index][1])

    def action_cancel(self) -> None:
        self.dismiss(None)
