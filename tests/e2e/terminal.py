"""Run the installed `iclr-reader` in a pseudo-terminal and read the screen a user would see (pyte)."""

from __future__ import annotations

import os
import shutil
import sys
import time
from pathlib import Path

import pexpect
import pyte


def installed_command() -> str:
    """The iclr-reader script installed beside this Python (the venv's), else the one on PATH."""
    beside = Path(sys.executable).parent / "iclr-reader"
    if beside.exists():
        return str(beside)
    found = shutil.which("iclr-reader")
    if not found:
        raise RuntimeError("iclr-reader is not installed in this environment (pip install .)")
    return found


class Terminal:
    """A pseudo-terminal running iclr-reader, rendered by pyte into rows of text."""

    def __init__(self, args: list[str], home: Path, columns: int = 100, rows: int = 30) -> None:
        env = dict(os.environ)
        env.update(
            TERM="xterm-256color",
            COLUMNS=str(columns),
            LINES=str(rows),
            XDG_CACHE_HOME=str(home / "cache"),
            XDG_DATA_HOME=str(home / "data"),
            XDG_CONFIG_HOME=str(home / "config"),
        )
        env.pop("DISPLAY", None)
        env.pop("WAYLAND_DISPLAY", None)
        self.screen = pyte.Screen(columns, rows)
        self.stream = pyte.ByteStream(self.screen)
        self.raw = bytearray()
        self.child = pexpect.spawn(installed_command(), args, env=env, dimensions=(rows, columns))

    def _pump(self, timeout: float = 0.1) -> None:
        try:
            data = self.child.read_nonblocking(65536, timeout=timeout)
        except pexpect.TIMEOUT:
            return
        except pexpect.EOF:
            return
        self.raw.extend(data)
        self.stream.feed(data)

    def text(self) -> str:
        return "\n".join(self.screen.display)

    def wait_for(self, needle: str, timeout: float = 30.0) -> str:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            self._pump()
            if needle in self.text():
                return self.text()
        raise AssertionError(f"{needle!r} never appeared on screen:\n{self.text()}")

    def settle(self, quiet: float = 0.5, timeout: float = 10.0) -> str:
        """Read until the program has been quiet for a moment."""
        deadline = time.monotonic() + timeout
        last = len(self.raw)
        quiet_since = time.monotonic()
        while time.monotonic() < deadline:
            self._pump()
            if len(self.raw) != last:
                last, quiet_since = len(self.raw), time.monotonic()
            elif time.monotonic() - quiet_since >= quiet:
                break
        return self.text()

    def send(self, keys: str) -> None:
        self.child.send(keys)

    def quit(self) -> int | None:
        """Press q and wait for the app to exit; its exit status."""
        self.send("q")
        return self.close()

    def close(self, timeout: float = 15.0) -> int | None:
        deadline = time.monotonic() + timeout
        while self.child.isalive() and time.monotonic() < deadline:
            self._pump()
        if self.child.isalive():
            self.child.terminate(force=True)
        self.child.close()
        return self.child.exitstatus


ESC = "\x1b"
ENTER = "\r"
DOWN = "\x1b[B"
