"""Property tests: markup conversion over random mixes of LaTeX, Markdown, control characters and Unicode."""

from __future__ import annotations

import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from search.text.markup import convert
from search.text.mathtext import searchable
from tests.fuzz.guard import hang_guard

EXAMPLES = 400

pytestmark = pytest.mark.slow  # hundreds of examples each: CI and make test run them, make check does not
WORDS = ["alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel", "india", "juliet"]

BALANCED = [
    r"\textbf{bold}",
    r"\emph{em}",
    r"\textit{it}",
    r"\underline{under}",
    r"\texttt{mono}",
    "$x^2$",
    "$x_{i,j}$",
    r"$\frac{a}{b}$",
    r"$\mathbb{R}^n$",
    r"$\tilde{X}_2$",
    r"$\mathcal{O}(n \log n)$",
    "$$y = mx$$",
    "**strong**",
    "*soft*",
    "`code`",
    "[site](https://example.org/a_b)",
    r"\url{https://e.org/x}",
    r"\href{https://e.org}{label}",
    "https://github.com/a/b.",
    r"\cite{key}",
    r"\%",
    r"\&",
    "~",
    "--",
    "``quoted''",
    r"\begin{itemize}\item one\end{itemize}",
    "ÄÖÜ",
    "naïve",
    "日本語",
    "😀",
    "e\u0301",
    "x\u200by",
]
HOSTILE = [
    "\x1b[31m",
    "\x1b[2J",
    "\x1b]52;c;ZXZpbA==\x07",
    "\x1b]0;title\x1b\\",
    "\x1b]8;;https://evil\x07link\x1b]8;;\x07",
    "\x9b31m",
    "\x9d0;x\x9c",
    "\x00",
    "\x07",
    "\x08",
    "\x7f",
    "\u202e",
    "\u2066",
    "\u2069",
    "\r",
    "\t",
    "\x0c",
    "[bold red]",
    "[link=https://evil]",
    "[/]",
]
UNBALANCED = [
    "{",
    "}",
    "$",
    "$$",
    "\\",
    "_",
    "^",
    "*",
    "**",
    "`",
    "[",
    "](",
    r"\textbf{",
    r"\begin{x}",
    r"\end{y}",
    "\\\\",
    "%",
    "&",
    "#",
]

CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")

fragments = st.sampled_from(BALANCED + HOSTILE + UNBALANCED) | st.text(max_size=12)
any_markup = st.lists(fragments | st.sampled_from(WORDS), max_size=60).map(" ".join)
# Words between self-contained markup: every word must still be readable afterwards.
words_and_balanced_markup = st.lists(
    st.tuples(st.sampled_from(WORDS), st.lists(st.sampled_from(BALANCED + HOSTILE), max_size=2)),
    min_size=1,
    max_size=30,
)


@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(any_markup)
def test_conversion_never_raises_and_never_emits_control_characters(source):
    with hang_guard():
        rendered = convert(source)
    assert not CONTROL.search(rendered.text)
    for link in rendered.links:
        assert not CONTROL.search(link.url) and not CONTROL.search(link.label)
    for span in rendered.spans:
        assert 0 <= span.start <= span.end <= len(rendered.text)


@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(words_and_balanced_markup)
def test_no_prose_word_disappears(parts):
    source = " ".join(f"{word} {' '.join(markup)}" for word, markup in parts)
    with hang_guard():
        text = searchable(convert(source).text)
    for word, _ in parts:
        assert word in text, (source, text)


REPETITION_PARTS = 4
"""The fragments are checked in interleaved parts, run side by side; 100 examples in all, as before."""


@pytest.mark.parametrize("part", range(REPETITION_PARTS))
def test_huge_repetitions_finish(part):
    fragments = (UNBALANCED + BALANCED)[part::REPETITION_PARTS]
    repeated(fragments)


def repeated(fragments: list[str]) -> None:
    @settings(max_examples=100 // REPETITION_PARTS, deadline=None)
    @given(st.sampled_from(fragments), st.integers(min_value=1_000, max_value=20_000))
    def finishes(fragment, times):
        convert_repeated(fragment, times)

    finishes()


def convert_repeated(fragment: str, times: int) -> None:
    with hang_guard():
        rendered = convert(fragment * times + " tail")
    assert "tail" in rendered.text
