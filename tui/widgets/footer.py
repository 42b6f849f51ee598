"""The key bar, rebuilt only when the keys it shows change."""

from __future__ import annotations

from textual.screen import Screen
from textual.widgets import Footer


class KeyFooter(Footer):
    """Textual's Footer, which rebuilds all its keys whenever the screen's bindings may have changed:
    every focus change, every screen shown, about ten times while the app starts, mostly to show the
    same keys. A rebuild mounts and styles a widget per key (a quarter of starting the app). This
    one rebuilds only when a key, its description, its state or its tooltip differs."""

    _shown: tuple | None = None

    def bindings_changed(self, screen: Screen) -> None:
        self._bindings_ready = True  # what compose() waits for
        if not screen.app.app_focus:
            return
        if self.is_attached and screen is self.screen:
            self.call_after_refresh(self._recompose_if_changed)

    async def _recompose_if_changed(self) -> None:
        if not self.is_attached:  # removed since (a terminal too small for the screen)
            return
        shown = self._keys_shown()
        if shown != self._shown:
            self._shown = shown
            await self.recompose()

    def _keys_shown(self) -> tuple:
        """What compose() draws from: the shown bindings with their state and tooltip, and the
        command palette's key."""
        bindings = self.screen.active_bindings
        palette = bindings.get(self.app.COMMAND_PALETTE_BINDING)
        return (
            tuple((binding, enabled, tooltip) for _, binding, enabled, tooltip in bindings.values() if binding.show),
            palette[1:] if palette and self.show_command_palette and self.app.ENABLE_COMMAND_PALETTE else None,
        )
