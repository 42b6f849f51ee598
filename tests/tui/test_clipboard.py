"""Copying for real: pyperclip through xclip on a virtual X display, read back from the X clipboard."""

from __future__ import annotations

import itertools
import os
import shutil
import subprocess
import time
from pathlib import Path

import pyperclip
import pytest

from tests.conftest import skip_unless_ci
from tests.tui.conftest import settle
from tui.app import ReaderApp
from tui.clipboard import SYSTEM, TERMINAL, copied_notice, copy_text, short_url

_DISPLAYS = itertools.count()


@pytest.fixture
def virtual_display(monkeypatch):
    """An Xvfb display with xclip available, and pyperclip bound to its real xclip backend."""
    if not (shutil.which("Xvfb") and shutil.which("xclip")):
        skip_unless_ci("needs Xvfb and xclip (apt-get install xvfb xclip)")
    display = f":{100 + (os.getpid() + next(_DISPLAYS)) % 400}"  # a fresh display each time
    server = subprocess.Popen(
        ["Xvfb", display, "-screen", "0", "640x480x24", "-nolisten", "tcp"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        socket = Path(f"/tmp/.X11-unix/X{display[1:]}")  # the server listens once this exists
        for _ in range(200):
            if socket.exists() or server.poll() is not None:
                break
            time.sleep(0.05)
        assert server.poll() is None and socket.exists(), "Xvfb did not start"
        monkeypatch.setenv("DISPLAY", display)
        monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
        pyperclip.set_clipboard("xclip")
        yield display
    finally:
        pyperclip.set_clipboard("no")
        server.terminate()
        server.wait(timeout=10)


def read_clipboard(display: str) -> str:
    result = subprocess.run(
        ["xclip", "-o", "-selection", "clipboard"],
        env={**os.environ, "DISPLAY": display},
        capture_output=True,
        text=True,
        timeout=10,
    )
    return result.stdout


async def test_y_copies_through_a_real_xclip_backend(make_app, virtual_display):
    app = make_app()
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(pilot, app)
        await pilot.press(*"graphbridge")
        await settle(pilot, app)
        await pilot.press("enter", "y")
        await pilot.pause(0.2)
    assert read_clipboard(virtual_display) == "https://openreview.net/forum?id=gjRhw5S3A4"


def test_copy_text_reports_the_system_clipboard(virtual_display):
    assert copy_text(app=None, text="héllo ünïcode") == SYSTEM
    assert read_clipboard(virtual_display) == "héllo ünïcode"


SCHOLAR = (
    "https://scholar.google.com/scholar?q=GraphBridge%3A+Towards+Arbitrary+Transfer+Learning+in+GNNs"
    "&hl=en&as_sdt=0%2C5&btnG=&oq=GraphBridge+Towards+Arbitrary+Transfer"
)


def test_short_url_drops_the_scheme_and_cuts_long_links():
    assert short_url("https://www.arxiv.org/abs/2502.19252") == "arxiv.org/abs/2502.19252"
    assert short_url("http://github.com/a/b") == "github.com/a/b"
    cut = short_url(SCHOLAR)
    assert cut == "scholar.google.com/…Transfer"  # the host and the end, which tells the paper


def test_copy_notices_say_where_the_text_went():
    assert copied_notice("openreview.net/forum?id=…", SYSTEM) == "Copied openreview.net/forum?id=… to the clipboard"
    assert copied_notice("openreview.net/forum?id=…", TERMINAL) == "Copied openreview.net/forum?id=… via OSC 52"


async def test_copying_a_long_link_gives_a_short_toast(make_app, monkeypatch):
    """A 150-character link filled the toast for 4-5 lines over the reader; at 80 columns the
    notice now takes two lines, and the whole link is still what is copied."""
    copied = []
    monkeypatch.setattr(pyperclip, "copy", copied.append)
    shown = []
    monkeypatch.setattr(ReaderApp, "notify", lambda self, message, *a, **k: shown.append(message))
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot, app)
        await pilot.press(*"graphbridge")
        await settle(pilot, app)
        await pilot.press("enter", "Y", "5")  # its Google Scholar search
        await pilot.pause()
    assert copied[-1].startswith("https://scholar.google.com/scholar?q=GraphBridge") and len(copied[-1]) > 80
    assert shown[-1].startswith("Copied scholar.google.com/") and len(shown[-1]) <= 2 * 36
