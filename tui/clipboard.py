"""Getting text out of the terminal: the system clipboard, or the terminal's own (OSC 52), and a browser."""

from __future__ import annotations

import webbrowser

import pyperclip
from textual.app import App

SYSTEM = "system clipboard"
TERMINAL = "terminal clipboard (OSC 52)"
SHORT_URL_CHARS = 28
"""A link in a notice is cut to this many characters, so "Copied <link>" fits on one line of a
toast in an 80-column terminal (36 columns); a whole link (a search URL has 150 characters) filled
it for four lines and covered the reader."""


def short_url(url: str, limit: int | None = SHORT_URL_CHARS) -> str:
    """The link as a notice names it: without https:// and www., cut with … past `limit` characters
    (openreview.net/forum?id=gjR…); whole with `limit=None`."""
    for scheme in ("https://", "http://"):
        if url.startswith(scheme):
            url = url[len(scheme) :]
            break
    url = url.removeprefix("www.")
    return url if limit is None or len(url) <= limit else url[: limit - 1] + "…"


def copied_notice(what: str, method: str) -> str:
    """What was copied, and where to: "Copied openreview.net/forum?id=… via OSC 52"."""
    return f"Copied {what} via OSC 52" if method == TERMINAL else f"Copied {what} to the clipboard"


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
