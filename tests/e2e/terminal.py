"""Run the installed `iclr-reader` in a pseudo-terminal and read the screen a user would see (pyte)."""

from __future__ import annotations

import os
import re
import shutil
import sys
import termios
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


DEADLINE = 60.0
"""How long to wait for something to appear on screen: generous, as tests run in parallel on a busy
machine. Waits end as soon as their condition holds, so a passing test never waits this long."""


class Terminal:
    """A pseudo-terminal running iclr-reader, rendered by pyte into rows of text."""

    def __init__(
        self,
        args: list[str],
        home: Path,
        columns: int = 100,
        rows: int = 30,
        cwd: Path | None = None,
        env: dict[str, str] | None = None,
        first_run: bool = False,
    ) -> None:
        """`env` adds to (or overrides) the environment: e.g. a cache dir of its own. Unless
        `first_run`, the first-run guide is dismissed already (config.toml says so, as after esc)."""
        config = home / "config" / "iclr-reader" / "config.toml"
        if not first_run and not config.exists():
            config.parent.mkdir(parents=True, exist_ok=True)
            config.write_text("guide_seen = true\n", encoding="utf-8")
        extra = env
        env = dict(os.environ)
        env.update(
            TERM="xterm-256color",
            COLUMNS=str(columns),
            LINES=str(rows),
            XDG_CACHE_HOME=str(home / "cache"),
            XDG_DATA_HOME=str(home / "data"),
            XDG_CONFIG_HOME=str(home / "config"),
        )
        env.update(extra or {})
        env.pop("DISPLAY", None)
        env.pop("WAYLAND_DISPLAY", None)
        self.screen = pyte.Screen(columns, rows)
        self.stream = pyte.ByteStream(self.screen)
        self.raw = bytearray()
        self.child = pexpect.spawn(installed_command(), args, env=env, dimensions=(rows, columns), cwd=cwd)

    def _pump(self, timeout: float = 0.1) -> None:
        try:
            data = self.child.read_nonblocking(65536, timeout=timeout)
        except pexpect.TIMEOUT:
            return
        except pexpect.EOF:
            return
        self.raw.extend(data)
        self.stream.feed(data)

    def wait_for_raw_mode(self, timeout: float = DEADLINE) -> None:
        """Wait until the app has taken the terminal (Textual's raw mode). Until then the pty is still
        cooked: IXON makes ctrl+q an XON that the line discipline swallows, ISIG turns ctrl+c into
        SIGINT, and keys are echoed. Returns at once if the program has ended."""
        deadline = time.monotonic() + timeout
        while self.child.isalive():
            try:
                if not termios.tcgetattr(self.child.child_fd)[0] & termios.IXON:
                    return
            except termios.error:
                return
            if time.monotonic() >= deadline:
                raise AssertionError(f"the app never took the terminal (raw mode):\n{self.text()}")
            self._pump(timeout=0.01)

    def text(self) -> str:
        return "\n".join(self.screen.display)

    def footer(self) -> str:
        """The bottom row: the key hints of whatever has the focus."""
        return self.screen.display[-1]

    def wait_until(self, condition, what: str, timeout: float = DEADLINE) -> str:
        """Read the program's output until condition(screen text) holds; the screen. Fails, showing
        the screen, if it does not hold within the timeout."""
        deadline = time.monotonic() + timeout
        while not condition(self.text()):
            if time.monotonic() >= deadline:
                raise AssertionError(f"{what} never appeared on screen:\n{self.text()}")
            self._pump()  # returns as soon as output arrives
        return self.text()

    def wait_for(self, *needles: str, timeout: float = DEADLINE) -> str:
        """Wait until every needle is on screen at once."""
        return self.wait_until(
            lambda screen: all(needle in screen for needle in needles), " and ".join(map(repr, needles)), timeout
        )

    def wait_for_focus(self, where: str, timeout: float = DEADLINE) -> str:
        """Wait until the footer's key hints show the focus is on the search box, results or reader."""
        return self.wait_until(lambda _: FOCUS[where](self.footer()), f"the focus on the {where}", timeout)

    def type(self, text: str) -> None:
        """Type like a person: one key at a time, each shown in the search box before the next."""
        for typed in range(1, len(text) + 1):
            self.send(text[typed - 1])
            pattern = re.compile(r"▊ +" + re.escape(text[:typed]))
            self.wait_until(pattern.search, f"{text[:typed]!r} in the search box")

    def send(self, keys: str) -> None:
        self.child.send(keys)

    def quit(self) -> int | None:
        """Press q and wait for the app to exit; its exit status."""
        self.send("q")
        return self.close()

    def close(self, timeout: float = DEADLINE) -> int | None:
        deadline = time.monotonic() + timeout
        while self.child.isalive() and time.monotonic() < deadline:
            self._pump()
        if self.child.isalive():
            self.child.terminate(force=True)
        self.child.close()
        return self.child.exitstatus


# The footer's hints for each focus: only the results list offers ⏎ Open; the reader offers the
# paper's keys (? Help ...) without it; the search box offers neither.
FOCUS = {  # the footer shows the keys that work where the focus is
    "search": lambda footer: "^y Copy link" in footer,
    "results": lambda footer: "⏎ Open" in footer,
    "reader": lambda footer: "y Copy link" in footer and "^y" not in footer and "⏎ Open" not in footer,
}

ESC = "\x1b"
ENTER = "\r"
DOWN = "\x1b[B"
