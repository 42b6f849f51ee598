"""End to end: the installed command in a real pseudo-terminal, read back from the screen."""

import pytest

from tests.e2e.terminal import DOWN, ENTER, ESC, Terminal

pytestmark = pytest.mark.e2e


def test_search_open_and_read_rendered_abstract(tmp_path):
    term = Terminal([], tmp_path)
    try:
        term.wait_for("38 papers")
        term.type("kv cache")
        term.wait_until(
            lambda screen: "2 matches · 1 with all words (a)" in screen and "SCBench" in first_result_row(screen),
            "SCBench first of the two matches",
        )

        term.send(ESC)  # clears the query
        term.wait_for("38 papers")
        term.type("bitstack")
        term.wait_for("1 match for “bitstack”")
        term.send(ENTER)
        term.wait_for_focus("results")
        term.send(ENTER)
        term.wait_for_focus("reader")
        screen = term.wait_for("BitStack", "capability")
        assert "\\textbf" not in screen and "\\textit" not in screen and "$" not in screen

        assert term.quit() == 0
        assert b"Traceback" not in term.raw
    finally:
        term.close(timeout=1)


def test_esc_read_with_the_word_typed_after_it_still_clears_the_query(tmp_path):
    """A busy app reads esc and the word typed after it in one go, which the terminal's reader takes
    for alt+g then "raph": the query became "kv cachegraph" (a tester's long session)."""
    term = Terminal([], tmp_path)
    try:
        term.wait_for("38 papers")
        term.type("kv cache")
        term.wait_for("2 matches")
        term.send(ESC + "graph")  # one write: read at once
        term.wait_for("for “graph”")
        assert "cachegraph" not in term.text()
        term.send("\x11")  # ctrl+q: q would be typed into the search box
        assert term.close() == 0
    finally:
        term.close(timeout=1)


def test_the_first_start_shows_the_guide_until_esc_hides_it_for_good(tmp_path):
    term = Terminal([], tmp_path, columns=80, rows=24, first_run=True)
    try:
        term.wait_for("Welcome! Type to search 38 papers", "esc hides this for good")
        term.send(ESC)
        term.wait_until(lambda screen: "Welcome!" not in screen, "the guide hidden")
        term.send("\x11")  # ctrl+q: q would be typed into the search box
        assert term.close() == 0
    finally:
        term.close(timeout=1)
    again = Terminal([], tmp_path, columns=80, rows=24, first_run=True)
    try:
        screen = again.wait_for("38 papers")
        assert "Welcome!" not in screen
        again.send("\x11")
        assert again.close() == 0
    finally:
        again.close(timeout=1)


def first_result_row(screen):
    """The line under the result list's top border (the list is the first pane: left, or alone)."""
    lines = screen.splitlines()
    tops = [number for number, line in enumerate(lines) if line.startswith("╭")]
    return lines[tops[0] + 1] if tops and tops[0] + 1 < len(lines) else ""


def test_narrow_terminal_opens_the_reader_full_screen(tmp_path):
    term = Terminal([], tmp_path, columns=80, rows=24)
    try:
        term.wait_for("38 papers")
        term.send(DOWN)
        term.wait_for_focus("results")
        term.send(ENTER)
        term.wait_for_focus("reader")
        screen = term.wait_for("Venue: ICLR 2025", "Branch-and-bound methods are pivotal")
        assert "PortLLM: Personalizing" not in screen  # the list is hidden while reading
        term.send(ESC)
        screen = term.wait_for("PortLLM: Personalizing")
        assert term.quit() == 0
    finally:
        term.close(timeout=1)


def test_query_option_and_terminal_restored_on_exit(tmp_path):
    term = Terminal(["--query", "wasserstien"], tmp_path)
    try:
        term.wait_for("showing results for “wasserstein”")
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
        term.type("graphbridge")
        term.wait_for("1 match for “graphbridge”")
        term.send(ENTER)
        term.wait_for_focus("results")
        term.send("y")
        term.wait_for("id=gjRhw5S3A4 via OSC")  # (the toast wraps "52" onto its next line)
        url = "https://openreview.net/forum?id=gjRhw5S3A4"
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
        term.type("stripe has:code")
        term.wait_for("1 match for “stripe has:code”", "Zebra Stripe Networks")
        term.send(ENTER)  # to the results
        term.wait_for_focus("results")
        term.send("r")
        term.wait_for("related to “Zebra Stripe Networks”", "Okapi Stripe Models")
        assert term.quit() == 0
        assert b"Traceback" not in term.raw
    finally:
        term.close(timeout=1)


def test_a_broken_corpus_file_is_a_notice_and_the_others_still_load(tmp_path):
    broken = tmp_path / "broken.json"
    broken.write_bytes(b"\x00\x01 binary")
    good = tmp_path / "good.txt"
    good.write_text("GOOD 2024 list\n\nA zebra abstract.\n\nAnother zebra abstract.\n", encoding="utf-8")
    # Named relative to the working directory: the notice quotes the path, and a long temporary path
    # (as under pytest-xdist) wraps inside the notice wherever its length puts the break, even
    # between "binary" and "file".
    term = Terminal(["--corpus", good.name, "--corpus", broken.name], tmp_path, cwd=tmp_path)
    try:
        term.wait_for("2 papers", "broken.json: binary file")  # the notice names the file and its problem
        term.send("\x11")
        assert term.close() == 0
        assert b"Traceback" not in term.raw
    finally:
        term.close(timeout=1)


def test_a_start_quit_at_once_has_saved_its_parse_for_the_next(tmp_path):
    """Saving what a start parsed waits until the app is up: quitting at the first frame still
    leaves it saved, and the next start reads it."""
    term = Terminal([], tmp_path)
    try:
        term.wait_for("38 papers")
        term.send("\x11")  # ctrl+q
        assert term.close() == 0
    finally:
        term.close(timeout=1)
    saved = tmp_path / "cache" / "iclr-reader"
    assert len(list((saved / "corpus").glob("*.bin"))) == 1
    assert len(list((saved / "parsed").glob("*.bin"))) == 2  # the two bundled list files
