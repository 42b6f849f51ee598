"""The converter's pre-pass: decide what in an abstract is really markup before LaTeX parsing.

Dollar amounts are not math, `%` `&` `#` in prose are literal, Markdown emphasis becomes style
macros, and unpartnered braces are dropped (or closed where math ends) so they cannot swallow prose.

Every step is linear in the text: an opener looks up its closer in a list of closers found in one
pass (`_Closers`), never by searching the rest of the text, so thousands of unclosed `**`, `\\(`
or `$` cost no more than thousands of closed ones.
"""

from __future__ import annotations

import re
from bisect import bisect_left

from search.text.eaten import has_eaten_macro
from search.text.typography import prose_typography

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
_BRACE_OR_ESCAPE = re.compile(r"\\.|[{}]", re.DOTALL)
_SHORT_SYMBOL = re.compile(r"[A-Za-z][A-Za-z0-9]{0,2}")
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
        following = text[i + 1 : i + 2]
        if following != "\\" and not (following.isalpha() and text[i - 1 : i].strip()):
            prose.append("\\$")  # an amount or a lone sign; `$\|` and `54.4%$that` are markup left over
        i += 1
    flush()
    return segments


def _looks_like_math(content: str) -> bool:
    """Tell `$x_i$` from `$5 million and $`: dollar amounts are prose, not math."""
    if not content.strip() or len(content) > 600:
        return False
    has_markup = re.search(r"[\\^_{}=<>]", content) is not None
    if not has_markup and (_SHORT_SYMBOL.fullmatch(content.strip()) or has_eaten_macro(content)):
        return True  # `where $ d $ are`: a variable written with spaces; `$832 imes$`: `\times` eaten
    if not has_markup and (content[0].isspace() or content[-1].isspace()):
        return False
    if not has_markup and re.match(r"\d", content) and re.search(r"[A-Za-z]{3,}", content):  # noqa: SIM103 - one rule a line
        return False
    return True


def escape_literals(text: str) -> str:
    return _LITERAL_SPECIALS.sub(r"\\\1", text)


def prose_to_latex(text: str) -> str:
    """Markdown italics become style macros (bold is done before math is found: `**E$^2$-RAG**`);
    %, & and # in prose are literal characters; TeX dashes, quotes and ties become characters."""
    text = prose_typography(escape_literals(text)).replace("~\\", " \\")
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


def balance_math(math: str) -> str:
    """A math segment's braces made to pair: a `{` never closed is closed where the math ends
    (`$\\widetilde{O(m)$`), a `}` never opened is dropped."""
    if math.count("{") <= math.count("}"):
        return math  # nothing left open (a `}` too many is dropped with the prose's, by balance_braces)
    closer = 2 if math.startswith(("$$", "\\(", "\\[")) else 1
    body, end = math[:-closer], math[-closer:]
    unmatched, still_open = _unpaired(body)
    if not unmatched and not still_open:
        return math
    kept = "".join(ch for index, ch in enumerate(body) if index not in unmatched)
    return kept + "}" * len(still_open) + end


def balance_braces(text: str) -> str:
    """Drop braces that have no partner, so they cannot swallow prose (`both}accurately` reads
    `both accurately`: a brace between two letters leaves a space)."""
    unmatched, still_open = _unpaired(text)
    unmatched.update(still_open)
    if not unmatched:
        return text
    out = []
    for index, ch in enumerate(text):
        if index not in unmatched:
            out.append(ch)
        elif _wordlike(text[index - 1 : index]) and _wordlike(text[index + 1 : index + 2]):
            out.append(" ")
    return "".join(out)


def _wordlike(ch: str) -> bool:
    """A letter or digit, or a marker standing for a run of prose (see markup._set_prose_aside)."""
    return ch.isalnum() or "\U000f0000" <= ch <= "\U000ffffd"


def _unpaired(text: str) -> tuple[set[int], list[int]]:
    """Where the closing braces without an opener are, and the openers never closed."""
    stack: list[int] = []
    unmatched: set[int] = set()
    for found in _BRACE_OR_ESCAPE.finditer(text):  # the regex skips the rest: a loop per brace, not per character
        ch = found.group()
        if ch == "{":
            stack.append(found.start())
            if len(stack) > MAX_BRACE_DEPTH:
                raise TooDeep
        elif ch == "}":
            if stack:
                stack.pop()
            else:
                unmatched.add(found.start())
    return unmatched, stack
