"""Markup conversion stays linear in the abstract, and a long abstract never blocks the interface.

Each formerly quadratic case (issue 14) is converted at n and 4n repetitions under a hang guard:
4n of a quadratic case took many minutes (`' **a' * 20000` alone took 30 s), a linear one takes
well under a second. The outputs are checked too, so a fast wrong answer fails as well.
"""

from __future__ import annotations

import random
import re
import threading

import pytest

from search.models import Link, Paper, Rendered, Span
from search.text import prepass
from search.text.describe import Description, describe
from search.text.markup import MAX_PARSED_CHARS, _trim_url, convert
from search.text.names import detect_name
from tests.fuzz.guard import hang_guard
from tui.render import abstract_text

SIZES = (20_000, 80_000)
"""n and 4n: 80,000 repetitions of any formerly quadratic fragment took minutes."""


@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("opener", ["**", "__"])
def test_unclosed_markdown_bold_is_linear(opener, n):
    source = f" {opener}a" * n
    with hang_guard():
        assert prepass.markdown_bold(source) == source  # no closer: nothing is bold
        closed = prepass.markdown_bold(f"{opener}b{opener}" + source + f" {opener}c{opener}")
    # The first unclosed opener takes the one closer, at the very end (as the old regex did).
    assert closed == "\\textbf{b} \\textbf{" + source[3:] + f" {opener}c}}"


@pytest.mark.parametrize("n", SIZES)
def test_unclosed_inline_and_display_math_is_linear(n):
    with hang_guard():
        for opener in ("\\(", "\\["):
            assert prepass.split_math(f"{opener} a " * n) == [(False, f"{opener} a " * n)]
        closed = prepass.split_math("\\(x\\) " + "\\( a " * n)
    assert closed[0] == (True, "\\(x\\)")


@pytest.mark.parametrize("n", SIZES)
def test_dollars_after_escaped_backslashes_are_linear(n):
    # `\\$`: the `$` opens (the backslash is escaped) but looked escaped to the closer search,
    # which then read to the end of the text from every one of them.
    with hang_guard():
        assert prepass.split_math("\\\\$ " * n) == [(False, "\\\\\\$ " * n)]
        segments = prepass.split_math("\\\\$$ " * n)
    # `\\$$ \\$$`: the first `$$` finds no closer, its second `$` pairs with the next `$$`'s last.
    assert segments[:3] == [(False, "\\\\\\$"), (True, "$ \\\\$$"), (False, " \\\\\\$")]
    assert len(segments) == n + 1


@pytest.mark.parametrize("n", SIZES)
def test_trailing_punctuation_after_a_url_is_linear(n):
    with hang_guard():
        assert _trim_url("https://e.org/a" + ")" * n, 0) == ("https://e.org/a", 15)
        assert _trim_url("https://e.org/(a" + ")" * n, 0) == ("https://e.org/(a)", 17)
        assert _trim_url("https://e.org/a" + ".,;" * n, 5) == ("https://e.org/a", 20)


@pytest.mark.parametrize("n", [5_000, 20_000])
def test_name_detection_is_linear_in_introductions(n):
    # Every "we propose" used to search for the sentence's end and scan all names from the start.
    with hang_guard():
        assert detect_name(Rendered("we propose HostileNet " * n, (), ())) == "HostileNet"
        assert detect_name(Rendered("We propose " * n + "a HostileNet. " * n, (), ())) == "HostileNet"


@pytest.mark.parametrize("n", [1_000, 4_000])
def test_link_numbers_are_linear_in_links(n):
    # [n] after each link cut the whole Rich text once per link (1,000 links: 34 s).
    text = "".join(f"x{i} " for i in range(n)).strip()
    starts = [m.start() for m in re.finditer(r"x\d+", text)]
    spans = tuple(Span(start, start + len(f"x{i}"), "link", i) for i, start in enumerate(starts))
    links = tuple(Link(f"l{i}", f"https://e.org/{i}", "project") for i in range(n))
    description = Description(Paper(id="p", abstract=text), Rendered(text, spans, links), None, "p", links)
    with hang_guard():
        shown = abstract_text(description)
    assert shown.plain.startswith("x0[1] x1[2] x2[3] ") and shown.plain.endswith(f"x{n - 1}[{n}]")
    assert len(shown.spans) == 2 * n  # each link's style, and its number's


def test_the_reader_lays_out_a_bounded_amount_of_any_abstract():
    # Textual lays the reader's whole text out on the interface's thread (~1 s per 80 KB).
    from tui.render import paper_text
    from tui.widgets.reader import SHOWN_CHARS, converts_quickly

    source = "We propose HostileNet. " + "".join(f"see https://e.org/{i} " for i in range(10_000)) + "tail"
    description = describe(Paper(id="p", abstract=source, title="T" * 50_000))
    assert not converts_quickly(source)
    with hang_guard():
        shown = paper_text(description, limit=SHOWN_CHARS).plain
        everything = paper_text(description).plain  # iclr-reader show: all of it
    assert len(shown) < 2 * SHOWN_CHARS and len(everything) > 10 * SHOWN_CHARS
    assert "more characters: iclr-reader show prints them all" in shown
    assert f"… and {len(description.links) - SHOWN_CHARS // 500:,} more links" in shown
    assert everything.endswith("OpenReview search  " + description.links[-1].url)


HOSTILE = [
    " **a",
    " __a",
    "**a ",
    "\\( ",
    "\\[ ",
    "\\\\$ ",
    "\\\\$$ ",
    "\\end{y}",
    "\\begin{x}",
    "$$",
    "}",
    "\\\\",
    "$x_{i,j}$",
    "[site](https://example.org/a_b)",
    "\\url{https://e.org/x}",
    "https://e.org/a) ",
    "we propose HostileNet ",
    # the render gaps' rules (issue 17)
    " extit{a}",
    "availableootnote{",
    "$ell_infty$ ",
    "$ o$ ",
    "Fr \u0301echet ",
    "i.i.d.~x ",
    "a --- b ''q'' ",
    "\\toolname ",
    "signi\ufb01cantly\u200b ",
    "{a",
    "$\\widetilde{O(m)$ ",
    "\\hyperlink{u}{t} ",
    "https://x.y. com/z ",
    "\\romannumeral12 ",
    "${\\cal X}\\over y$ ",
]


@pytest.mark.parametrize("fragment", HOSTILE)
def test_conversion_of_hostile_repetitions_is_bounded(fragment):
    # 45,000 repetitions: up to 200,000 characters (the converter's limit), every one of them a
    # minute or more before; all in all, these convert in a few seconds.
    source = "We propose HostileNet. " + fragment * (45_000 // len(fragment) + 1) + " tail"
    with hang_guard():
        rendered = convert(source)
        detect_name(rendered)
    assert rendered.text.startswith("We propose HostileNet.") and rendered.text.endswith("tail")


def test_too_much_markup_is_shown_as_written():
    markup = "**a** " * (MAX_PARSED_CHARS // 5)
    with hang_guard():
        rendered = convert(markup + "tail")
    assert rendered.text == (markup + "tail").strip() and not rendered.spans
    assert convert("**a** " * 100).text == "a " * 99 + "a"  # the usual amount is converted


_BOLD_REGEX = re.compile(r"(?<![\\*])\*\*(?=\S)(.+?)(?<=\S)\*\*|(?<![\w\\])__(?=\S)(.+?)(?<=\S)__(?!\w)")
_ALPHABET = ["*", "**", "***", "_", "__", "___", "a", "b", "\\", "é", "1", "$", "\\(", "\\)", "\\$", "{"]
_ALPHABET += [" ", "\n", "\t"]


def test_linear_bold_finds_what_the_lazy_regex_found():
    """The one-pass matcher is the old regex's matches, only linear (a differential test)."""
    rnd = random.Random(14)
    for _ in range(20_000):
        source = "".join(rnd.choice(_ALPHABET) for _ in range(rnd.randint(0, 24)))
        expected = _BOLD_REGEX.sub(lambda m: "\\textbf{" + (m.group(1) or m.group(2)) + "}", source)
        assert prepass.markdown_bold(source) == expected, source


def _old_split_math_closer(text: str, start: int, delimiter: str) -> int:
    i = start
    while True:
        end = text.find(delimiter, i)
        if end == -1 or text[end - 1] != "\\":
            return end
        i = end + 1


def test_split_math_closers_are_the_ones_the_text_search_found():
    rnd = random.Random(15)
    for _ in range(20_000):
        text = "".join(rnd.choice(_ALPHABET) for _ in range(rnd.randint(1, 24)))
        for delimiter, pattern in prepass._DOLLAR_CLOSERS.items():
            closers = prepass._Closers(text, {delimiter: pattern})
            for start in range(1, len(text) + 1):
                assert closers.next(delimiter, start) == _old_split_math_closer(text, start, delimiter), (text, start)


def test_the_abstract_of_the_issue_keeps_its_bold_and_nothing_else():
    source = "We propose **HostileNet**." + " **a" * 20_000
    with hang_guard():
        rendered = convert(source)
    assert rendered.text.startswith("We propose HostileNet. **a **a")
    assert [(rendered.text[s.start : s.end], s.style) for s in rendered.spans] == [("HostileNet", "bold")]


# -- the interface -------------------------------------------------------------------------------


HELD_ABSTRACT = "We propose **HostileNet**, a net." + " **a" * 20_000
"""80 KB: 30 s to convert before the fix, ~0.1 s after; the test holds its conversion for longer."""


def _write_corpus(tmp_path):
    path = tmp_path / "corpus.txt"
    path.write_text(f"TEST 2024 list\n\nA short first abstract about graphs.\n\n{HELD_ABSTRACT}\n", encoding="utf-8")
    return path


class _HeldConverter:
    """Wraps the converter: long abstracts wait for `release` (off the interface's thread), and a
    long abstract converted on the interface's thread is noted in `on_ui_thread`."""

    def __init__(self, convert_function) -> None:
        self.convert = convert_function
        self.release = threading.Event()
        self.on_ui_thread: list[int] = []
        self.held = 0

    def __call__(self, source: str) -> Rendered:
        if len(source) > 10_000:
            if threading.current_thread() is threading.main_thread():
                self.on_ui_thread.append(len(source))
            else:
                self.held += 1
                self.release.wait(30)
        return self.convert(source)


async def _app_over_held_abstract(tmp_path, monkeypatch):
    """The app over a list whose second abstract is HELD_ABSTRACT, with the index already on disk
    and no conversion remembered (as when the app starts again), and the held converter."""
    from search.corpus.loader import load_corpus
    from search.engine import SearchEngine
    from search.text import markup
    from tui.app import ReaderApp

    path = _write_corpus(tmp_path)
    cache = tmp_path / "cache"
    SearchEngine(load_corpus([path]), cache_dir=cache).ensure_index()
    markup._convert_cached.cache_clear()
    held = _HeldConverter(markup.convert)
    monkeypatch.setattr("search.text.describe.convert", held)
    return ReaderApp(SearchEngine(load_corpus([path]), cache_dir=cache)), held


async def test_a_long_abstract_is_converted_off_the_interface_thread(tmp_path, monkeypatch):
    from tests.tui.conftest import settle
    from tui.widgets.reader import ReaderPane
    from tui.widgets.results_list import ResultsList

    app, held = await _app_over_held_abstract(tmp_path, monkeypatch)
    with hang_guard():
        async with app.run_test(size=(140, 40)) as pilot:
            await settle(pilot, app)
            reader = app.screen.query_one(ReaderPane)
            results = app.screen.query_one(ResultsList)
            results.focus()
            await pilot.press("j")  # the long abstract: its conversion is held
            await pilot.pause()
            assert held.on_ui_thread == [], "the reader converted a long abstract on the interface's thread"
            assert results.highlighted == 1
            assert f"Converting the abstract ({len(HELD_ABSTRACT):,} characters)…" in reader.text.plain
            await pilot.press("k")  # the interface answers meanwhile
            await pilot.pause()
            assert results.highlighted == 0 and "A short first abstract about graphs." in reader.text.plain
            await pilot.press("j")
            await pilot.pause()
            assert "Converting the abstract" in reader.text.plain
            held.release.set()
            await settle(pilot, app)
            assert "We propose HostileNet, a net. **a **a" in reader.text.plain
            bold = [reader.text.plain[s.start : s.end] for s in reader.text.spans if "bold" in str(s.style)]
            assert "HostileNet" in bold
            assert "more characters: iclr-reader show prints them all" in reader.text.plain  # 10,000 shown
            assert not reader.converting
    assert held.on_ui_thread == [] and held.held == 1


async def test_ctrl_q_quits_while_a_long_abstract_is_converted(tmp_path, monkeypatch):
    from tests.tui.conftest import settle
    from tui.widgets.results_list import ResultsList

    app, held = await _app_over_held_abstract(tmp_path, monkeypatch)
    try:
        with hang_guard():
            async with app.run_test(size=(140, 40)) as pilot:
                await settle(pilot, app)
                app.screen.query_one(ResultsList).focus()
                await pilot.press("j")
                await pilot.pause()
                assert held.held == 1 and not held.release.is_set()
                await pilot.press("ctrl+q")
                await pilot.pause()
        assert app.return_code == 0
    finally:
        held.release.set()  # let the conversion thread finish
    assert held.on_ui_thread == []
