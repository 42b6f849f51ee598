"""The converter's pre-pass: decide what in an abstract is really markup before LaTeX parsing.

Dollar amounts are not math, `%` `&` `#` in prose are literal, Markdown emphasis becomes style
macros, and unpartnered braces are escaped so they stay visible instead of swallowing prose.
"""

from __future__ import annotations

import re

MAX_BRACE_DEPTH = 40
"""Deeper nesting is not parsed (pylatexenc recurses per level); the text is shown as written."""

TEX_SINGLE_QUOTE = re.compile(r"(?<![`\w])`([^`'\n]{1,100})'(?!\w)")
MD_CODE = re.compile(r"`([^`\n]{1,120})`")
_MD_BOLD = re.compile(r"(?<![\\*])\*\*(?=\S)(.+?)(?<=\S)\*\*|(?<![\w\\])__(?=\S)(.+?)(?<=\S)__(?!\w)")
_MD_ITALIC = re.compile(
    r"(?<![\w*\\])\*(?=[^\s*])([^*\n]+?)(?<=[^\s*])\*(?![\w*])"
    r"|(?<![\w\\])_(?=[^\s_])([^_\n$]+?)(?<=[^\s_])_(?!\w)"
)
_LITERAL_SPECIALS = re.compile(r"(?<!\\)([%&#])")


class TooDeep(Exception):
    """Braces nest deeper than MAX_BRACE_DEPTH."""


def split_math(text: str) -> list[tuple[bool, str]]:
    """Cut text into prose and math. `$` that does not open real math becomes a literal `\\$`."""
    segments: list[tuple[bool, str]] = []
    prose: list[str] = []
    i, n = 0, len(text)

    def flush() -> None:
        if prose:
            segments.append((False, "".join(prose)))
            prose.clear()

    while i < n:
        ch = text[i]
        if ch == "\\" and i + 1 < n:
            closing = {"(": "\\)", "[": "\\]"}.get(text[i + 1])
            end = text.find(closing, i + 2) if closing else -1
            if end != -1:
                flush()
                segments.append((True, text[i : end + 2]))
                i = end + 2
            else:
                prose.append(text[i : i + 2])
                i += 2
            continue
        if ch == "$":
            delimiter = "$$" if text.startswith("$$", i) else "$"
            end = _closing_dollar(text, i + len(delimiter), delimiter)
            if end != -1 and _looks_like_math(text[i + len(delimiter) : end]):
                flush()
                segments.append((True, text[i : end + len(delimiter)]))
                i = end + len(delimiter)
                continue
            prose.append("\\$")
            i += 1
            continue
        prose.append(ch)
        i += 1
    flush()
    return segments


def _closing_dollar(text: str, start: int, delimiter: str) -> int:
    i = start
    while True:
        end = text.find(delimiter, i)
        if end == -1 or text[end - 1] != "\\":
            return end
        i = end + 1


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
    text = _MD_BOLD.sub(lambda m: "\\textbf{" + (m.group(1) or m.group(2)) + "}", text)
    return _MD_ITALIC.sub(lambda m: "\\textit{" + (m.group(1) or m.group(2)) + "}", text)


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
