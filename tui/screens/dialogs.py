"""Small modal dialogs that answer through dismiss(): note editor, tags editor, link picker."""

from __future__ import annotations

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, OptionList, Static, TextArea
from textual.widgets.option_list import Option

from search import Link

DIALOG_CSS = """
{name} {{ align: center middle; }}
{name} > Vertical {{
    width: 80%; max-width: 90; height: auto; max-height: 90%;
    border: round $primary; background: $surface; padding: 0 1;
}}
{name} .dialog-title {{ text-style: bold; margin-bottom: 1; }}
{name} .dialog-help {{ color: $text-muted; margin-top: 1; }}
"""


class NoteDialog(ModalScreen[str | None]):
    """Edit a bookmark's note. ctrl+s saves, esc cancels."""

    DEFAULT_CSS = DIALOG_CSS.format(name="NoteDialog") + "NoteDialog TextArea { height: 10; }"
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
            yield TextArea(self.note, id="note", soft_wrap=True)
            yield Static(Text("ctrl+s save · esc cancel"), classes="dialog-help")

    def on_mount(self) -> None:
        self.query_one(TextArea).focus()

    def action_save(self) -> None:
        self.dismiss(self.query_one(TextArea).text.strip())

    def action_cancel(self) -> None:
        self.dismiss(None)


class TagsDialog(ModalScreen[list[str] | None]):
    """Edit a bookmark's tags, comma-separated. enter saves, esc cancels."""

    DEFAULT_CSS = DIALOG_CSS.format(name="TagsDialog")
    BINDINGS = [Binding("escape", "cancel", "Cancel")]

    def __init__(self, headline: str, tags: tuple[str, ...]) -> None:
        super().__init__()
        self.headline = headline
        self.tags = tags

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(Text(f"Tags for {self.headline}", no_wrap=True, overflow="ellipsis"), classes="dialog-title")
            yield Input(", ".join(self.tags), placeholder="e.g. to-read, compression", id="tags")
            yield Static(Text("comma-separated · enter save · esc cancel"), classes="dialog-help")

    @on(Input.Submitted, "#tags")
    def save(self, event: Input.Submitted) -> None:
        self.dismiss([tag.strip() for tag in event.value.split(",") if tag.strip()])

    def action_cancel(self) -> None:
        self.dismiss(None)


class LinkPicker(ModalScreen[Link | None]):
    """Choose one of a paper's numbered links: keys 1-9, or move and enter; esc cancels."""

    DEFAULT_CSS = DIALOG_CSS.format(name="LinkPicker") + "LinkPicker OptionList { height: auto; max-height: 20; }"
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
                prompt = Text(f"[{number}] " if number <= 9 else "    ", style="bold")
                prompt.append(link.label, style="")
                if link.label != link.url:
                    prompt.append(f"  {link.url}", style="dim")
                options.append(Option(prompt, id=str(number - 1)))
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
