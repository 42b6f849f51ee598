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
from tui.clipboard import SYSTEM, copy_text

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
