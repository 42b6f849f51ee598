"""Modal choosers: lists, filters and saved searches. Keys 1-9 pick, enter picks the highlighted one."""

from __future__ import annotations

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, OptionList, Static
from textual.widgets.option_list import Option

from search import UserStore
from tui.screens.dialogs import DIALOG_CSS, LIST_CSS, ListDialog
from tui.store_access import StoreAccess
from tui.widgets.in_order_input import InOrderInput


class Chooser(ListDialog[str | None]):
    """Answers with the chosen value, or None when cancelled (esc)."""

    DEFAULT_CSS = DIALOG_CSS.format(name="Chooser") + LIST_CSS.format(name="Chooser")
    BINDINGS = [
        Binding("escape", "cancel", "Cancel"),
        *(Binding(str(n), f"pick({n})", show=False) for n in range(1, 10)),
    ]
    HELP = "1-9 or enter to choose · esc cancel"

    def __init__(
        self, title: str, choices: list[tuple[Text | str, str]], empty: str = "Nothing to choose from."
    ) -> None:
        super().__init__()
        self.title_text = title
        self.choices = choices
        self.empty = empty

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(Text(self.title_text), classes="dialog-title")
            yield OptionList(*self._options(), id="choices")
            yield Static(Text(self.HELP if self.choices else self.empty), classes="dialog-help")

    def _options(self) -> list[Option]:
        options = []
        for number, (label, value) in enumerate(self.choices, 1):
            prompt = Text(f"[{number}] " if number <= 9 else "    ", style="bold")
            prompt.append_text(label if isinstance(label, Text) else Text(label))
            options.append(Option(prompt, id=value))
        return options

    def action_pick(self, number: int) -> None:
        if number <= len(self.choices):
            self.dismiss(self.choices[number - 1][1])

    @on(OptionList.OptionSelected, "#choices")
    def chosen(self, event: OptionList.OptionSelected) -> None:
        self.dismiss(event.option.id)

    def action_cancel(self) -> None:
        self.dismiss(None)


class SavedSearches(Chooser):
    """The saved searches, numbered: 1-9 or enter runs one, d deletes the highlighted one."""

    DEFAULT_CSS = DIALOG_CSS.format(name="SavedSearches") + LIST_CSS.format(name="SavedSearches")
    BINDINGS = [*Chooser.BINDINGS, Binding("d,delete", "delete", "Delete", show=False)]
    HELP = "1-9 or enter to search · d delete · esc cancel"

    def __init__(self, store: UserStore, saved: list[tuple[str, str]]) -> None:
        self.store_access = StoreAccess(store)
        self.names = [name for name, _ in saved]
        """The name behind each choice, in the order shown."""
        super().__init__("Saved searches", _choices(saved), "No saved searches yet: type a query and press ctrl+s.")

    def action_delete(self) -> None:
        options = self.query_one(OptionList)
        index = options.highlighted
        if index is None or index >= len(self.names):
            return
        name = self.names[index]
        ok, _ = self.store_access.call(self, lambda store: store.delete_search(name))
        if not ok:
            return
        del self.names[index]
        del self.choices[index]
        options.set_options(self._options())  # renumbered: the keys 1-9 follow the list
        self.notify(f"Deleted saved search “{name}”", markup=False)


def _choices(saved: list[tuple[str, str]]) -> list[tuple[Text | str, str]]:
    choices: list[tuple[Text | str, str]] = []
    for name, query in saved:
        label = Text(name, style="bold")
        label.append(f"  {query}", style="dim")
        choices.append((label, query))
    return choices


class NameDialog(ModalScreen[str | None]):
    """Name the current query to save it. enter saves, esc cancels."""

    DEFAULT_CSS = DIALOG_CSS.format(name="NameDialog")
    BINDINGS = [Binding("escape", "cancel", "Cancel")]

    def __init__(self, query: str) -> None:
        super().__init__()
        self.query_text = query

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(
                Text(f"Save the search “{self.query_text}” as:", no_wrap=True, overflow="ellipsis"),
                classes="dialog-title",
            )
            yield InOrderInput(self.query_text[:40], id="name")
            yield Static(Text("enter save · esc cancel · a saved name is replaced"), classes="dialog-help")

    @on(Input.Submitted, "#name")
    def save(self, event: Input.Submitted) -> None:
        name = " ".join(event.value.split())
        if name:
            self.dismiss(name)

    def action_cancel(self) -> None:
        self.dismiss(None)
