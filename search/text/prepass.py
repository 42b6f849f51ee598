"""The converter's pre-pass: decide what in an abstract is really markup before LaTeX parsing.

Dollar amounts are not math, `%` `&` `#` in prose are literal, Markdown emphasis becomes style
macros, and unpartnered braces are escaped so they stay visible instead of swallowing prose.

Every step is linear in the text: an opener looks up its closer in a list of closers found in one
pass (`_Closers`), never by searching the rest of the text, so thousands of unclosed `**`, `\\(`
or `$` cost no more than thousands of closed ones.
"""

from __future__ import annotations

import re
from bisect import bisect_left

MAX_BRACE_DEPTH = 40
"""Deeper nesting is not parsed (pylatexenc recurses per level); the text is shown as written."""

TEX_SINGLE_QUOTE = re.compile(r"(?<![`\w])`([^`'\n]{1,100})'(?!\w)")
MD_CODE = re.compile(r"`([^`\n]{1,120})`")
# Markdown bold: an opener `**` or `__` takes the nearest closer on its line (see markdown_bold).
_BOLD_OPENER = re.compile(r"(?<![\\*])\*\*(?=\S)|(?<![\w\\])__(?=\S)")
_BOLD_CLOSERS = {"*": re.compile(r"(?<=\S)(?=\*\*)"), "_": re.compile(r"(?<=\S)(?=__(?!\w))")}
_NEWLINE = {"\n": re.compile("\n")}
_MD_ITALIC = re.compile(
    r"(?<![\w*\\])\*(?=[^\s*])([^*\n]+?)(?<=[^\s*])\*(?![\w*])"
    r"|(?<![\w\\])_(?=[^\s_])([^_\n$]+?)(?<=[^\s_])_(?!\w)"
)
_LITERAL_SPECIALS = re.compile(r"(?<!\\)([%&#])")
_MATH_START = re.compile(r"[\\$]")
_MATH_CLOSERS = {"(": re.compile(r"\\\)"), "[": re.compile(r"\\\]")}
# The next `$` (or `$$`) that no backslash escapes.
_DOLLAR_CLOSERS = {"$": re.compile(r"(?<!\\)\$"), "$$": re.compile(r"(?<!\\)(?=\$\$)")}


class TooDeep(Exception):
    """Braces nest deeper than MAX_BRACE_DEPTH."""


class _Closers:
    """Where each kind of closing delimiter occurs, found in one pass when first asked for.

    The next closer after an opener is then a binary search. Searching the rest of the text from
    every opener that has no closer was quadratic (`' **a' * 20000`: 30 s)."""

    def __init__(self, text: str, patterns: dict[str, re.Pattern[str]]) -> None:
        self.text = text
        self.patterns = patterns
        self.found: dict[str, list[int]] = {}

    def next(self, kind: str, start: int) -> int:
        """Where the first closer of this kind at or after `start` begins, or -1."""
        positions = self.found.get(kind)
        if positions is None:
            positions = self.found[kind] = [m.start() for m in self.patterns[kind].finditer(self.text)]
        index = bisect_left(positions, start)
        return positions[index] if index < len(positions) else -1


def split_math(text: str) -> list[tuple[bool, str]]:
    """Cut text into prose and math. `$` that does not open real math becomes a literal `\\$`."""
    segments: list[tuple[bool, str]] = []
    prose: list[str] = []
    i, n = 0, len(text)
    math_closers = _Closers(text, _MATH_CLOSERS)
    dollars = _Closers(text, _DOLLAR_CLOSERS)

    def flush() -> None:
        if prose:
            segments.append((False, "".join(prose)))
            prose.clear()

    while i < n:
        special = _MATH_START.search(text, i)
        if special is None:
            prose.append(text[i:])
            break
        if special.start() > i:
            prose.append(text[i : special.start()])
            i = special.start()
        if text[i] == "\\":
            opener = text[i + 1 : i + 2]
            end = math_closers.next(opener, i + 2) if opener in _MATH_CLOSERS else -1
            if end != -1:
                flush()
                segments.append((True, text[i : end + 2]))
                i = end + 2
            else:
                prose.append(text[i : i + 2])
                i += 2
            continue
        delimiter = "$$" if text.startswith("$$", i) else "$"
        end = dollars.next(delimiter, i + len(delimiter))
        if end != -1 and _looks_like_math(text[i + len(delimiter) : end]):
            flush()
            segments.append((True, text[i : end + len(delimiter)]))
            i = end + len(delimiter)
            continue
        prose.append("\\$")
        i += 1
    flush()
    return segments


def _looks_like_math(content: str) -> bool:
    """Tell `$x_i$` from `$5 million and $`: dollar amounts are prose, not math."""
    if not content.strip() or len(content) > 600:
        return False
    has_markup = re.search(r"[\\^_{}=<>]", content) is not None
    if not has_markup and (content[0].isspace() or content[-1].isspace()):
        return False
    if not has_markup and re.match(r"\d", content) and re.search(r"[A-Za-z]{3,}", content):  # noqa: SIM103 - one rule a line
        return False
    return True


def escape_literals(text: str) -> str:
    return _LITERAL_SPECIALS.sub(r"\\\1", text)


def prose_to_latex(text: str) -> str:
    """Markdown emphasis becomes style macros; %, & and # in prose are literal characters."""
    text = escape_literals(text)
    text = text.replace("---", "\u2014").replace("--", "\u2013").replace("~\\", " \\")
    text = markdown_bold(text)
    return _MD_ITALIC.sub(lambda m: "\\textit{" + (m.group(1) or m.group(2)) + "}", text)


def markdown_bold(text: str) -> str:
    """`**bold**` and `__bold__` become \\textbf{...}: an opener takes the nearest closer on its line.

    The matches of the lazy regex `(?<![\\\\*])\\*\\*(?=\\S)(.+?)(?<=\\S)\\*\\*` (and its `__` twin), but
    that regex searched the rest of the line from every opener without a closer: quadratic. Here
    the closers are found once and each opener costs a binary search."""
    if "**" not in text and "__" not in text:
        return text
    closers = _Closers(text, _BOLD_CLOSERS)
    newlines = _Closers(text, _NEWLINE)
    out: list[str] = []
    done = position = 0
    while (opener := _BOLD_OPENER.search(text, position)) is not None:
        start = opener.start()
        end = closers.next(text[start], start + 3)  # at least one character between
        newline = newlines.next("\n", start + 2)
        if end != -1 and (newline == -1 or newline > end):
            out.append(text[done:start])
            out.append("\\textbf{" + text[start + 2 : end] + "}")
            done = position = end + 2
        else:
            position = start + 1
    out.append(text[done:])
    return "".join(out)


def balance_braces(text: str) -> str:
    """Escape braces that have no partner, so they stay visible and cannot swallow prose."""
    stack: list[int] = []
    unmatched: set[int] = set()
    i, n = 0, len(text)
    while i < n:
        ch = text[i]
        if ch == "\\":
            i += 2
            continue
        if ch == "{":
            stack.append(i)
            if len(stack) > MAX_BRACE_DEPTH:
                raise TooDeep
        elif ch == "}":
            if stack:
                stack.pop()
            else:
                unmatched.add(i)
        i += 1
    unmatched.update(stack)
    if not unmatched:
        return text
    return "".join("\\" + ch if index in unmatched else ch for index, ch in enumerate(text))
