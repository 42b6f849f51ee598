"""Getting text out of the terminal: the system clipboard, or the terminal's own (OSC 52), and a browser."""

from __future__ import annotations

import webbrowser

import pyperclip
from textual.app import App

SYSTEM = "system clipboard"
TERMINAL = "terminal clipboard (OSC 52)"


def copy_text(app: App, text: str) -> str:
    """Copy with pyperclip; with no backend (no X/Wayland, e.g. over SSH) ask the terminal via OSC 52.

    Returns which of the two was used, for the notification."""
    try:
        pyperclip.copy(text)
        return SYSTEM
    except pyperclip.PyperclipException:
        app.copy_to_clipboard(text)
        return TERMINAL


def open_url(app: App, url: str) -> str | None:
    """Open url in a browser; returns None on success, else why it could not be opened.

    A console browser (lynx, w3m) needs the terminal, so the app is suspended while it runs."""
    try:
        browser = webbrowser.get()
    except webbrowser.Error:
        return "no web browser is available on this machine"
    try:
        if isinstance(browser, webbrowser.GenericBrowser) and not isinstance(browser, webbrowser.BackgroundBrowser):
            with app.suspend():
                opened = browser.open(url)
        else:
            opened = browser.open(url)
    except Exception as error:  # noqa: BLE001 - a broken browser launcher must not crash the app
        return f"the browser failed to start ({error})"
    return None if opened else "the browser did not accept the link"
