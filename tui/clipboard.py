"""Getting text out of the terminal: the system clipboard, or the terminal's own (OSC 52), and a browser."""

from __future__ import annotations

import os
import subprocess
import webbrowser

import pyperclip
from textual.app import App

SYSTEM = "system clipboard"
TERMINAL = "terminal clipboard (OSC 52)"
SHORT_URL_CHARS = 32
"""A link in a notice is cut to this many characters, so "Copied <link>" fits on two lines of a toast
in an 80-column terminal (36 columns); a whole link (a search URL has 150 characters) filled it for
four lines and covered the reader."""
_SEPARATORS = "/?&=#+"


def short_url(url: str, limit: int | None = SHORT_URL_CHARS) -> str:
    """The link as a notice names it: without https:// and www., and past `limit` characters its host
    and its end, which tells the paper (openreview.net/…id=gjRhw5S3A4), cut at a separator; whole
    with `limit=None`."""
    for scheme in ("https://", "http://"):
        if url.startswith(scheme):
            url = url[len(scheme) :]
            break
    url = url.removeprefix("www.")
    if limit is None or len(url) <= limit:
        return url
    host, _, rest = url.partition("/")
    room = limit - len(host) - 2
    if room < 8:  # a long host: its start says more than a few characters of the end
        return url[: limit - 1] + "…"
    tail = rest[-room:]
    cut = next((at for at, char in enumerate(tail[:-6]) if char in _SEPARATORS), None)
    return f"{host}/…{tail if cut is None else tail[cut + 1 :]}"


def copied_notice(what: str, method: str, tmux_hint: str | None = None) -> str:
    """What was copied, and where to: "Copied openreview.net/…id=gjRhw5S3A4 via OSC 52", and how to
    let tmux pass it on when it might not (said once)."""
    if method != TERMINAL:
        return f"Copied {what} to the clipboard"
    return f"Copied {what} via OSC 52" + (f". {tmux_hint}" if tmux_hint else "")


TMUX_HINT = "For tmux to pass it on: tmux set -g set-clipboard on"


def tmux_hint() -> str | None:
    """Inside tmux, whose default (`set-clipboard external`) keeps an application's OSC 52 copy to
    itself, how to let it reach the terminal's clipboard; None outside tmux or when tmux passes it
    on already (`set-clipboard on`)."""
    if not os.environ.get("TMUX"):
        return None
    try:
        answer = subprocess.run(
            ["tmux", "show-options", "-gv", "set-clipboard"], capture_output=True, text=True, timeout=2, check=False
        )
    except (OSError, subprocess.SubprocessError):
        return TMUX_HINT
    return None if answer.stdout.strip() == "on" else TMUX_HINT


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
