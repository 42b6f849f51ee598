"""The key bar: the keys that work where the focus is, on one line, drawn again only when they change."""

from __future__ import annotations

from rich.style import Style
from rich.text import Text
from textual import events
from textual.app import RenderResult
from textual.binding import Binding
from textual.screen import ModalScreen, Screen
from textual.widget import Widget

PALETTE_SEPARATOR = "▏"


class KeyBar(Widget):
    """One line of "key description" pairs, the command palette's key at the right; a click on a
    key presses it. Textual's Footer mounts and styles a widget per key on every focus change and
    screen shown (a quarter of starting the app, mostly to show the same keys again): this draws
    one line of text, and only when a key, its description or its state changed. Under a dialog
    (the help, save search, the palette...) it shows the dialog's keys: the screen's own do not work
    there."""

    DEFAULT_CSS = """
    KeyBar {
        dock: bottom;
        height: 1;
        width: 100%;
        color: $footer-foreground;
        background: $footer-background;
        & > .key-bar--key {
            color: $footer-key-foreground;
            text-style: bold;
        }
        & > .key-bar--description {
            color: $footer-description-foreground;
        }
    }
    """

    COMPONENT_CLASSES = {"key-bar--key", "key-bar--description"}

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self._shown: tuple = ((), None)
        self._places: list[tuple[int, int, str | None]] = []
        """(first column, end column, key) of each key drawn, for clicks (None: the key is disabled)."""
        self._source: Screen | None = None
        """The screen whose keys are shown: this bar's, or the dialog over it."""

    def on_mount(self) -> None:
        self.app.screen_change_signal.subscribe(self, self._screen_changed)
        self._show_keys_of(self.screen)

    def on_unmount(self) -> None:
        self.app.screen_change_signal.unsubscribe(self)
        if self._source is not None:
            self._source.bindings_updated_signal.unsubscribe(self)

    def _screen_changed(self, top: Screen) -> None:
        """A dialog opened over this bar's screen shows its keys here; closed, the screen's come back."""
        if self.is_attached:
            self._show_keys_of(top if isinstance(top, ModalScreen) and top is not self.screen else self.screen)

    def _show_keys_of(self, source: Screen) -> None:
        if source is not self._source:
            if self._source is not None:
                self._source.bindings_updated_signal.unsubscribe(self)
            self._source = source
            source.bindings_updated_signal.subscribe(self, self._bindings_changed)
        self._bindings_changed(source)

    def _bindings_changed(self, screen: Screen) -> None:
        if not self.is_attached or screen is not self._source or not self.app.app_focus:
            return  # (the terminal lost focus: it gets it back with the same keys, as Textual's Footer has it)
        shown = self._keys_shown()
        if shown != self._shown:
            self._shown = shown
            self.refresh()

    def _keys_shown(self) -> tuple:
        """The shown bindings, one per action, with whether each is enabled; the palette's binding."""
        active = (self._source or self.screen).active_bindings
        keys: dict[str, tuple[Binding, bool]] = {}
        for _node, binding, enabled, _tooltip in active.values():
            if binding.show and binding.action not in keys:
                keys[binding.action] = (binding, enabled)
        palette = active.get(self.app.COMMAND_PALETTE_BINDING) if self.app.ENABLE_COMMAND_PALETTE else None
        return tuple(keys.values()), (palette.binding if palette else None)

    @property
    def keys(self) -> list[tuple[str, str]]:
        """(key as shown, description) of each key the bar shows, in order (the palette's last)."""
        shown, palette = self._shown
        pairs = [(self.app.get_key_display(binding), binding.description) for binding, _ in shown]
        return [*pairs, (self.app.get_key_display(palette), palette.description)] if palette else pairs

    def render(self) -> RenderResult:
        key_style = self.get_component_rich_style("key-bar--key", partial=True)
        description_style = self.get_component_rich_style("key-bar--description", partial=True)
        text = Text(no_wrap=True, overflow="crop", end="")
        places: list[tuple[int, int, str | None]] = []

        def add(binding: Binding, enabled: bool) -> None:
            start = text.cell_len
            dim = Style(dim=not enabled)
            text.append(self.app.get_key_display(binding), style=key_style + dim)
            text.append(f" {binding.description}", style=description_style + dim)
            places.append((start, text.cell_len, binding.key if enabled else None))
            text.append(" ")

        shown, palette = self._shown
        for binding, enabled in shown:
            add(binding, enabled)
        if palette is not None:
            label = f"{PALETTE_SEPARATOR}{self.app.get_key_display(palette)} {palette.description}"
            room = self.size.width - text.cell_len - len(label)
            if room >= 0:
                text.append(" " * room)
                start = text.cell_len + len(PALETTE_SEPARATOR)
                text.append(PALETTE_SEPARATOR, style="dim")
                text.append(self.app.get_key_display(palette), style=key_style)
                text.append(f" {palette.description}", style=description_style)
                places.append((start, text.cell_len, palette.key))
        self._places = places
        return text

    def on_click(self, event: events.Click) -> None:
        offset = event.get_content_offset(self)
        if offset is None:
            return
        for start, end, key in self._places:
            if start <= offset.x < end:
                if key is None:
                    self.app.bell()  # a key that does nothing here, as pressing it would
                else:
                    self.app.simulate_key(key.split(",")[0])
                return
