"""Small modal dialogs that answer through dismiss(): note editor, tags editor, link picker.

The editors never throw away what the user typed on one key: esc with unsaved changes asks for a
second esc first."""

from __future__ import annotations

from typing import TypeVar

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, OptionList, Static, TextArea
from textual.widgets.option_list import Option

from search import Link
from tui.clipboard import short_url
from tui.widgets.in_order_input import InOrderInput, InOrderTextArea

ResultT = TypeVar("ResultT")

DIALOG_CSS = """
{name} {{ align: center middle; }}
{name} > Vertical {{
    width: 90%; max-width: 90; height: auto; max-height: 90%;
    border: round $primary; background: $surface; padding: 0 1;
}}
{name} .dialog-title {{ text-style: bold; margin-bottom: 1; }}
{name} .dialog-help {{ color: $text-muted; margin-top: 1; }}
{name} .dialog-help.unsaved {{ color: $warning; text-style: bold; }}
"""
LIST_CSS = "{name} OptionList {{ height: auto; text-wrap: nowrap; text-overflow: ellipsis; }}"
"""A dialog's list: one line per choice (cut with …); ListDialog keeps it short enough for the rest."""


class ListDialog(ModalScreen[ResultT]):
    """A dialog with a list of choices between its title (and any input) and its hint line: the list
    is as tall as its choices, but never so tall that the hint line or the title leaves the screen
    (a terminal of 20 rows shows both, and as many choices as fit between)."""

    def on_mount(self) -> None:
        self.call_after_refresh(self._fit_list)

    def on_resize(self) -> None:
        self.call_after_refresh(self._fit_list)

    def _fit_list(self) -> None:
        if not self.is_attached:
            return
        box = self.query_one(Vertical)
        options = self.query_one(OptionList)
        # The title, any input, the hint and the box's own border (measured, so wrapped lines count).
        rest = box.styles.gutter.height + sum(
            child.outer_size.height + child.styles.margin.top + child.styles.margin.bottom
            for child in box.children
            if child is not options and child.display
        )
        room = box.styles.max_height.resolve(self.size, self.size) if box.styles.max_height else self.size.height
        height = max(3, int(room) - rest)
        if options.styles.max_height is None or options.styles.max_height.value != height:
            options.styles.max_height = height


UNSAVED = "Unsaved changes: esc again discards them · {save} saves"
UNSAVED_AT_QUIT = "Unsaved changes: ctrl+q again quits without them · {save} saves"


class Editor(ModalScreen[ResultT]):
    """A dialog editing some of the user's writing: esc cancels at once when nothing was changed,
    else it warns and only a second esc discards the changes."""

    SAVE_KEY = "enter"

    def __init__(self) -> None:
        super().__init__()
        self.warned = False
        """True once esc has warned about unsaved changes."""

    def changed(self) -> bool:
        """Whether the dialog holds changes that would be lost."""
        return False

    def action_cancel(self) -> None:
        if not self.holds_unsaved_writing(UNSAVED):
            self.dismiss(None)

    def holds_unsaved_writing(self, warning: str) -> bool:
        """True, after showing the warning (once), while the dialog holds changes not yet warned about."""
        if self.warned or not self.changed():
            return False
        self.warned = True
        help_line = self.query_one(".dialog-help", Static)
        help_line.update(Text(warning.format(save=self.SAVE_KEY)))
        help_line.add_class("unsaved")
        return True


class NoteDialog(Editor[str | None]):
    """Edit a bookmark's note. ctrl+s saves, esc cancels (twice when there are changes)."""

    DEFAULT_CSS = DIALOG_CSS.format(name="NoteDialog") + "NoteDialog TextArea { height: 10; }"
    SAVE_KEY = "ctrl+s"
    BINDINGS = [
        Binding("ctrl+s", "save", "Save"),
        Binding("escape", "cancel", "Cancel"),
    ]

    def __init__(self, headline: str, note: str) -> None:
        super().__init__()
        self.headline = headline
        self.note = note

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(Text(f"Note for {self.headline}", no_wrap=True, overflow="ellipsis"), classes="dialog-title")
            yield InOrderTextArea(self.note, id="note", soft_wrap=True)
            yield Static(Text("ctrl+s save · esc cancel"), classes="dialog-help")

    def on_mount(self) -> None:
        self.query_one(TextArea).focus()

    def changed(self) -> bool:
        return self.query_one(TextArea).text.strip() != self.note.strip()

    def action_save(self) -> None:
        self.dismiss(self.query_one(TextArea).text.strip())


class TagsDialog(Editor[list[str] | None]):
    """Edit a bookmark's tags, comma-separated. enter saves, esc cancels (twice when there are changes)."""

    DEFAULT_CSS = DIALOG_CSS.format(name="TagsDialog")
    BINDINGS = [Binding("escape", "cancel", "Cancel")]

    def __init__(self, headline: str, tags: tuple[str, ...]) -> None:
        super().__init__()
        self.headline = headline
        self.tags = tags

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(Text(f"Tags for {self.headline}", no_wrap=True, overflow="ellipsis"), classes="dialog-title")
            yield InOrderInput(", ".join(self.tags), placeholder="e.g. to-read, compression", id="tags")
            yield Static(Text("comma-separated · enter save · esc cancel"), classes="dialog-help")

    @staticmethod
    def parse(text: str) -> list[str]:
        return [tag.strip() for tag in text.split(",") if tag.strip()]

    def changed(self) -> bool:
        return self.parse(self.query_one(Input).value) != list(self.tags)

    @on(Input.Submitted, "#tags")
    def save(self, event: Input.Submitted) -> None:
        self.dismiss(self.parse(event.value))


def link_row(number: int, link: Link) -> Text:
    """One line of the link picker: "[2] OpenReview page  openreview.net/forum?id=…" (keys 1-9)."""
    row = Text(f"[{number}] " if number <= 9 else "    ", style="bold", no_wrap=True, overflow="ellipsis", end="")
    if link.label == link.url:
        row.append(short_url(link.url, limit=None))
    else:
        row.append(link.label)
        row.append(f"  {short_url(link.url, limit=None)}", style="dim")
    return row


class LinkPicker(ListDialog[Link | None]):
    """Choose one of a paper's numbered links: keys 1-9, or move and enter; esc cancels."""

    DEFAULT_CSS = DIALOG_CSS.format(name="LinkPicker") + LIST_CSS.format(name="LinkPicker")
    BINDINGS = [
        Binding("escape", "cancel", "Cancel"),
        *(Binding(str(n), f"pick({n})", show=False) for n in range(1, 10)),
    ]

    def __init__(self, title: str, links: tuple[Link, ...]) -> None:
        super().__init__()
        self.title_text = title
        self.links = links

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(Text(self.title_text), classes="dialog-title")
            options = []
            for number, link in enumerate(self.links, 1):
                options.append(Option(link_row(number, link), id=str(number - 1)))
            yield OptionList(*options, id="links")
            yield Static(Text("1-9 or enter to choose · esc cancel"), classes="dialog-help")

    def action_pick(self, number: int) -> None:
        if number <= len(self.links):
            self.dismiss(self.links[number - 1])

    @on(OptionList.OptionSelected, "#links")
    def chosen(self, event: OptionList.OptionSelected) -> None:
        self.dismiss(self.links[event.option_index])

    def action_cancel(self) -> None:
        self.dismiss(None)
