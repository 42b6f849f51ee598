"""A hostile corpus must render inert: the bytes written to the terminal are checked, not just the screen."""

import json

import pytest

from tests.e2e.terminal import ENTER, Terminal

pytestmark = pytest.mark.e2e

HOSTILE = {
    "id": "hostile1",
    "title": "Hostile \x1b]0;pwned-title\x07Title \u202eesrever\u202c [bold red]LOUD[/]",
    "abstract": (
        "Zanzibar study. Clipboard \x1b]52;c;ZXZpbA==\x07 write. Colour \x1b[31;5mred\x1b[0m text. "
        "Report \x1b[6n query. Link \x1b]8;;https://evil.invalid/x\x07click\x1b]8;;\x07 here. "
        "C1 \x9b2J csi and \x9d0;c1title\x9c osc. Bidi \u202eevil\u202c and \u2066iso\u2069 marks. "
        "Markup [bold red]not bold[/] and [link=https://evil.invalid]not a link[/link] stay literal."
    ),
    "authors": "Mallory \x1b[2J; Eve [i]x[/i]",
}
# What a terminal would act on: none of it may come from the corpus.
FORBIDDEN = [
    b"\x1b]52;c;ZXZpbA==",  # clipboard write
    b"pwned-title",
    b"c1title",  # window title
    b"\x1b[31;5m",
    b"\x1b[6n",  # colour/blink from the corpus, device status report
    b"\x1b]8;;https://evil.invalid",
    b"evil.invalid/x",  # hyperlink to the corpus's target
    "\u202e".encode(),
    "\u2066".encode(),
    "\u2069".encode(),  # bidi overrides and isolates
    b"\xc2\x9b",
    b"\xc2\x9d",  # C1 controls, UTF-8 encoded
]


def hostile_corpus(tmp_path):
    path = tmp_path / "hostile.json"
    path.write_text(
        json.dumps([HOSTILE, {"id": "calm", "abstract": "A calm abstract about zanzibar too."}]), encoding="utf-8"
    )
    return path


def assert_inert(raw: bytes) -> None:
    for sequence in FORBIDDEN:
        assert sequence not in raw, sequence


def test_app_renders_a_hostile_corpus_inert(tmp_path):
    term = Terminal(["--corpus", str(hostile_corpus(tmp_path))], tmp_path, columns=140, rows=40)
    try:
        term.wait_for("2 papers")
        for ch in "clipboard":
            term.send(ch)
        term.wait_for("1 match for “clipboard”")
        term.send(ENTER)
        term.wait_for_focus("results")
        term.send(ENTER)
        term.wait_for_focus("reader")
        # Rich markup shows as the text it is
        term.wait_for("[bold red]not bold[/]", "Clipboard", "write.")
        assert term.quit() == 0
        assert_inert(bytes(term.raw))
    finally:
        term.close(timeout=1)


def test_show_command_prints_a_hostile_paper_inert(tmp_path):
    term = Terminal(["--corpus", str(hostile_corpus(tmp_path)), "show", "hostile1"], tmp_path, columns=220, rows=40)
    try:
        assert term.close() == 0
        screen = term.text()
        assert "Zanzibar study" in screen and "[bold red]not bold[/]" in screen
        assert_inert(bytes(term.raw))
    finally:
        term.close(timeout=1)
