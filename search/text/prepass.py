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
from search.text.macros import KNOWN_NAMES, argument_spec, unglued
from search.text.typography import prose_typography

MAX_BRACE_DEPTH = 40
"""Deeper nesting is not parsed (pylatexenc recurses per level); the text is shown as written."""

TEX_SINGLE_QUOTE = re.compile(r"`(?<![`\w]`)([^`'\n]{1,100})'(?!\w)")
MD_CODE = re.compile(r"`([^`\n]{1,120})`")
# Markdown bold: an opener `**` or `__` takes the nearest closer on its line (see markdown_bold).
_BOLD_OPENER = re.compile(r"\*\*(?<![\\*]\*\*)(?=\S)|__(?<![\w\\]__)(?=\S)")
_BOLD_CLOSERS = {"*": re.compile(r"(?<=\S)(?=\*\*)"), "_": re.compile(r"(?<=\S)(?=__(?!\w))")}
_NEWLINE = {"\n": re.compile("\n")}
_MD_ITALIC = re.compile(
    r"\*(?<![\w*\\]\*)(?=[^\s*])([^*\n]+?)(?<=[^\s*])\*(?![\w*])"
    r"|_(?<![\w\\}]_)(?=[^\s_])([^_\n$]+?)(?<=[^\s_])_(?!\w)"
)
# `\\cal M` outside math (its dollars lost upstream): the declaration's letters, as in math.
_PROSE_ALPHABET = re.compile(r"\\(?<!\\\\)(cal|frak)\s*([A-Z]+|[a-z])(?![A-Za-z])")
_MD_ITALIC_AROUND_MATH = re.compile(
    r"\*(?<![^\s(]\*)(?=[A-Za-z])([^*\n$]*\$[^*\n]*?[A-Za-z.])\*(?=[\s.,;:!?)]|$)"
    r"|_(?<![^\s(]_)(?=[A-Za-z])([^_\n$]*\$[^_\n]*?[A-Za-z.])_(?=[\s.,;:!?)]|$)"
)
"""Markdown emphasis around math opens after a space and closes before one: `_T$ is … $\\ell_{` is math."""
_MD_ITALIC_OPENER = re.compile(r"(?:^|[\s(])[*_][A-Za-z]")
_MATH_QUOTES = re.compile(r"''(?<![\w)}']'')(?=[\\A-Za-z])([^'$]{1,40}?[A-Za-z.])''")
_TYPESET_PRIMES = str.maketrans({"\u201d": "''"})
_BRACE_OR_ESCAPE = re.compile(r"\\.|[{}]", re.DOTALL)
_SHORT_SYMBOL = re.compile(r"[A-Za-z][A-Za-z0-9]{0,2}")
_SHORT_TERM = re.compile(r"\d[A-Za-z0-9+\-]{0,4}")
_AMOUNT_AFTER = re.compile(r" ?[\d.,]*\d")
_AMOUNT_BEFORE = re.compile(r"(?:\d|\b[A-Z]{1,2})$")
_NOT_MATH_AFTER = re.compile(r"[\s.,;:!?)]|$")
_MATH_LAST = re.compile(r"(?<!\\)[A-Za-z0-9)}\]|']")
"""What math ends in (`M^p$ into`), not an escaped backslash (`\\\\$ `: a literal dollar)."""
_CUT_MATH = 40
_PROSE_WORD = re.compile(r"(?<![\\A-Za-z])[A-Za-z]{3,}")
"""Math opened this close to the end of an abstract, and never closed, is where the abstract was cut off."""
_LITERAL_SPECIALS = re.compile(r"([%&#])(?<!\\[%&#])")
# (Patterns here start with the character they find, a look-behind after it: one that starts with a
# look-behind is tried at every position of the text, ten times slower.)
_ESCAPED_TWICE = re.compile(r"\\\\(?<!\\\\\\)([%&#])")
_MATH_START = re.compile(r"[\\$]")
_MATH_CLOSERS = {"(": re.compile(r"\\\)"), "[": re.compile(r"\\\]")}
# A macro's name as pylatexenc reads it: letters of any script (`\\lnδ` is one name to it).
_MACRO_NAME = re.compile(r"\\(?<!\\\\)([^\W\d_]+)")
# Text-mode accents and letters (`\\H{o}`, `\\v{c}`, `\\o`) are not math: in math they are an author's letter.
_TEXT_LETTER_IN_MATH = re.compile(r"\\(?<!\\\\)(?:[lr](?=\s*(?:[()\[\]|.]|\\[{}|]))|([HcdbtuvrkjilLoOPS])(?![A-Za-z]))")
"""(`\\l(` and `\\r)`, an author's `\\left(` and `\\right)`, are no letters: sizes, shown as nothing)"""
# A macro followed by another: the second may be the first's argument (`\\tilde\\mathcal{O}`).
_MACRO_THEN_MACRO = re.compile(r"\\(?<!\\\\)([A-Za-z]+)\s*(?=\\[A-Za-z])")
_NAME = re.compile(r"[A-Za-z]+|.", re.DOTALL)
_ARGUMENT_REACH = 400
"""How far an argument is looked for (`\\tilde\\mathcal{...}`): a bound, so no text costs more than linear."""
# The next `$` (or `$$`) that no backslash escapes.
_DOLLAR_CLOSERS = {"$": re.compile(r"\$(?<!\\\$)"), "$$": re.compile(r"\$(?<!\\\$)(?=\$)")}


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
        if _AMOUNT_AFTER.match(text, i + 1) or (
            _AMOUNT_BEFORE.search(text, max(0, i - 3), i) and _NOT_MATH_AFTER.match(text, i + 1)
        ):
            prose.append("\\$")  # an amount: `$5 million`, `US$ 3`, `5$`
        elif i > 0 and _MATH_LAST.match(text, i - 1) and _NOT_MATH_AFTER.match(text, i + 1):
            pass  # `factoring M^p$ into`: math whose opening `$` was lost upstream ends here
        elif (
            end == -1
            and (following.isalnum() or following == "\\")
            and len(text) - i <= _CUT_MATH
            and not _PROSE_WORD.search(text, i + 1)
        ):
            flush()  # `in the regime $n`: the abstract was cut off in its math (`$n` to the end is math)
            segments.append((True, text[i:] + "$" if text[i + 1 :].strip() else ""))
            break
        elif following != "\\" and not (following.isalpha() and text[i - 1 : i].strip()):
            prose.append("\\$")  # a lone sign; `$\|` and `54.4%$that` are markup left over
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
    if not has_markup and content[0].isspace() and content[-1].isspace() and _SHORT_TERM.fullmatch(content.strip()):
        return True  # `a polygon with $ 4k $ vertices`
    if not has_markup and (content[0].isspace() or content[-1].isspace()):
        return False
    if not has_markup and re.match(r"\d", content) and re.search(r"[A-Za-z]{3,}", content):  # noqa: SIM103 - one rule a line
        return False
    return True


def escape_literals(text: str) -> str:
    """`%`, `&` and `#` as characters; `\\\\%`, an escape escaped again upstream, is one `\\%` (not a
    line break and a comment to the end of the abstract)."""
    if "\\\\" in text:
        text = _ESCAPED_TWICE.sub(r"\\\1", text)
    return _LITERAL_SPECIALS.sub(r"\\\1", text)


def prose_to_latex(text: str) -> str:
    """Markdown italics become style macros (bold is done before math is found: `**E$^2$-RAG**`);
    %, & and # in prose are literal characters; TeX dashes, quotes and ties become characters."""
    text = prose_typography(escape_literals(text)).replace("~\\", " \\")
    if "\\cal" in text or "\\frak" in text:
        text = _PROSE_ALPHABET.sub(lambda m: f"\\math{m.group(1)}{{{m.group(2)}}}", text)
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


def markdown_italic_around_math(text: str) -> str:
    """`*enhanced $H$-consistency bounds*`: Markdown italics around inline math, before math is found
    (`prose_to_latex` reads italics within prose between math only). Its dollars must pair."""

    def italic(match: re.Match[str]) -> str:
        body = match.group(1) or match.group(2)
        return "\\textit{" + body + "}" if body.count("$") % 2 == 0 else match.group()

    return _MD_ITALIC_AROUND_MATH.sub(italic, text) if _MD_ITALIC_OPENER.search(text) else text


def math_quotes(math: str) -> str:
    """Quotes in math: `$''wait''$` quotes a word (“wait”); `$f''(x)$`, and `$f”(x)$` from a list that
    typeset its primes as quotes, are primes."""
    math = math.translate(_TYPESET_PRIMES)
    return _MATH_QUOTES.sub("\u201c\\1\u201d", math) if "''" in math else math


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
    # (and an empty group, so that a macro whose argument was lost with the brace takes it, not the `$`)
    return kept + "}" * len(still_open) + ("{}" if still_open else "") + end


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


def unglue_macros(text: str) -> str:
    """Standard macros glued to what follows once their braces were stripped upstream, put back as
    they were written: `\\sqrtT` -> `\\sqrt{T}`, `\\emphsquared` -> `\\emph{squared}`, `\\lnδ` -> `\\ln δ`,
    `\\beginitemize` -> `\\begin{itemize}` (see macros.unglued). One scan; a set look-up per macro."""
    if "\\" not in text or KNOWN_NAMES.issuperset(_MACRO_NAME.findall(text)):
        return text  # (most texts: every name known, found in one scan at C speed)
    pieces: list[str] = []
    done = 0
    for found in _MACRO_NAME.finditer(text):
        name = found.group(1)
        if name in KNOWN_NAMES or found.start() < done:
            continue
        split = unglued(name, text[found.end() : found.end() + 200])
        if split is None:
            continue
        latex, taken = split
        pieces += [text[done : found.start()], latex]
        done = found.end() + taken
    return "".join([*pieces, text[done:]]) if pieces else text


def text_letters_in_math(math: str) -> str:
    """`$\\H$`, `$\\O(n)$`, `$\\P(X)$`: a text accent or symbol written in math is an author's letter,
    not an accent that takes the closing `$` (or the next token) as its letter."""
    if "\\" not in math:
        return math
    return _TEXT_LETTER_IN_MATH.sub(lambda m: "{" + m.group(1) + "}" if m.group(1) else "", math)


def wrap_macro_arguments(text: str) -> str:
    """`\\tilde\\mathcal{O}` -> `\\tilde{\\mathcal{O}}`, `\\sqrt\\frac{1}{2}` -> `\\sqrt{\\frac{1}{2}}`: TeX
    gives the first macro the second with its arguments; pylatexenc gives it the second's name alone
    (`Õ` became `O`, `√(1/2)` `√(%s/%s)12`)."""
    if "\\" not in text or not any(_takes_braces(name) for name in set(_MACRO_THEN_MACRO.findall(text))):
        return text
    opens: list[int] = []
    closes: list[int] = []
    for found in _MACRO_THEN_MACRO.finditer(text):
        if not _takes_braces(found.group(1)):
            continue
        inner = found.end()
        name = _NAME.match(text, inner + 1)
        if name is None or not argument_spec(name.group()):
            continue
        end = _extent(text, inner, inner + _ARGUMENT_REACH)
        if end is not None:
            opens.append(inner)
            closes.append(end)
    if not opens:
        return text
    marks = sorted(
        [(at, "{") for at in opens] + [(at, "}") for at in closes], key=lambda mark: (mark[0], mark[1] == "{")
    )
    pieces, done = [], 0
    for at, brace in marks:
        pieces += [text[done:at], brace]
        done = at
    return "".join([*pieces, text[done:]])


def _takes_braces(name: str) -> bool:
    """Whether a macro reads a braced argument (`\\tilde`, `\\sqrt`), not only an option or a star."""
    return "{" in argument_spec(name).lstrip("*[")


def _extent(text: str, at: int, limit: int) -> int | None:
    """Where the macro at `at` (a backslash) ends with its arguments, or None past `limit`."""
    name = _NAME.match(text, at + 1)
    if name is None:
        return None
    position = name.end()
    for kind in argument_spec(name.group()):
        while position < len(text) and text[position] in " \t\n":
            position += 1
        if position >= min(len(text), limit):
            return position if kind != "{" else None
        ch = text[position]
        if kind == "*":
            position += ch == "*"
        elif kind == "[":
            if ch == "[":
                close = text.find("]", position, limit)
                if close == -1:
                    return None
                position = close + 1
        elif ch == "{":
            depth = 0
            for index in range(position, min(len(text), limit)):
                depth += {"{": 1, "}": -1}.get(text[index], 0)
                if depth == 0:
                    position = index + 1
                    break
            else:
                return None
        elif ch == "\\":
            inner = _extent(text, position, limit)
            if inner is None:
                return None
            position = inner
        else:
            position += 1
    return position
