"""End to end: the installed command in a real pseudo-terminal, read back from the screen."""

import pytest

from tests.e2e.terminal import DOWN, ENTER, ESC, Terminal

pytestmark = pytest.mark.e2e


def type_slowly(term, text):
    for ch in text:
        term.send(ch)
        term.settle(quiet=0.05, timeout=1)


def test_search_open_and_read_rendered_abstract(tmp_path):
    term = Terminal([], tmp_path)
    try:
        term.wait_for("38 papers")
        type_slowly(term, "kv cache")
        term.wait_for("2 matches for “kv cache”")
        screen = term.settle()
        result_rows = [line for line in screen.splitlines() if "ICLR 2025" in line and "│" in line]
        assert "SCBench" in result_rows[0]

        term.send(ESC)  # clears the query
        term.wait_for("38 papers")
        type_slowly(term, "bitstack")
        term.wait_for("1 match for “bitstack”")
        term.send(ENTER)
        term.settle()
        term.send(ENTER)
        screen = term.settle()
        assert "BitStack" in screen and "capability" in screen
        assert "\\textbf" not in screen and "\\textit" not in screen and "$" not in screen

        assert term.quit() == 0
        assert b"Traceback" not in term.raw
    finally:
        term.close(timeout=1)


def test_narrow_terminal_opens_the_reader_full_screen(tmp_path):
    term = Terminal([], tmp_path, columns=80, rows=24)
    try:
        term.wait_for("38 papers")
        term.send(DOWN)
        term.settle()
        term.send(ENTER)
        term.wait_for("Venue: ICLR 2025")
        screen = term.settle()
        assert "Branch-and-bound methods are pivotal" in screen
        assert "PORTLLM" not in screen  # the list is hidden while reading
        term.send(ESC)
        screen = term.wait_for("PORTLLM")
        assert term.quit() == 0
    finally:
        term.close(timeout=1)


def test_query_option_and_terminal_restored_on_exit(tmp_path):
    term = Terminal(["--query", "wasserstien"], tmp_path)
    try:
        term.wait_for("Did you mean “wasserstein”")
        term.wait_for("PAWL")
        term.send("\x11")  # ctrl+q
        assert term.close() == 0
        # Textual leaves the alternate screen and shows the cursor again.
        assert b"\x1b[?1049l" in term.raw and b"\x1b[?25h" in term.raw
    finally:
        term.close(timeout=1)


def test_y_without_a_display_sends_the_url_by_osc52(tmp_path):
    import base64

    term = Terminal([], tmp_path)  # DISPLAY and WAYLAND_DISPLAY are removed: pyperclip has no backend
    try:
        term.wait_for("38 papers")
        type_slowly(term, "graphbridge")
        term.wait_for("1 match for “graphbridge”")
        term.send(ENTER)
        term.settle()
        term.send("y")
        term.wait_for("terminal clipboard (OSC 52)")
        url = "https://github.com/jujulili888/GraphBridge"
        assert b"\x1b]52;c;" + base64.b64encode(url.encode()) + b"\x07" in term.raw
        assert term.quit() == 0
    finally:
        term.close(timeout=1)


def test_added_list_is_searched_filtered_and_related_in_the_app(tmp_path):
    import json
    import subprocess

    from tests.e2e.terminal import installed_command

    records = [
        {
            "id": "z1",
            "title": "Zebra Stripe Networks",
            "abstract": "Stripe patterns of zebras, learned by networks.",
            "github": "https://github.com/z/z",
        },
        {"id": "z2", "title": "Okapi Stripe Models", "abstract": "Stripe patterns of okapis, modelled by networks."},
    ]
    source = tmp_path / "zoo2024.json"
    source.write_text(json.dumps(records), encoding="utf-8")
    env = {"XDG_CACHE_HOME": str(tmp_path / "cache"), "XDG_DATA_HOME": str(tmp_path / "data"), "PATH": "/usr/bin:/bin"}
    added = subprocess.run([installed_command(), "add", str(source)], capture_output=True, text=True, env=env)
    assert added.returncode == 0 and "Added 'zoo2024': 2 papers" in added.stdout
    term = Terminal([], tmp_path)
    try:
        term.wait_for("iclr2025, zoo2024 · 40 papers")
        type_slowly(term, "stripe has:code")
        term.wait_for("1 match for “stripe has:code”")
        assert "Zebra Stripe Networks" in term.settle()
        term.send(ENTER)  # to the results
        term.settle()
        term.send("r")
        term.wait_for("related to “Zebra Stripe Networks”")
        assert "Okapi Stripe Models" in term.settle()
        assert term.quit() == 0
        assert b"Traceback" not in term.raw
    finally:
        term.close(timeout=1)


def test_a_broken_corpus_file_is_a_notice_and_the_others_still_load(tmp_path):
    broken = tmp_path / "broken.json"
    broken.write_bytes(b"\x00\x01 binary")
    good = tmp_path / "good.txt"
    good.write_text("GOOD 2024 list\n\nA zebra abstract.\n\nAnother zebra abstract.\n", encoding="utf-8")
    term = Terminal(["--corpus", str(good), "--corpus", str(broken)], tmp_path)
    try:
        term.wait_for("2 papers")
        term.wait_for("binary file")  # the notice names the file's problem
        term.send("\x11")
        assert term.close() == 0
        assert b"Traceback" not in term.raw
    finally:
        term.close(timeout=1)
