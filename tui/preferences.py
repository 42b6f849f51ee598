"""The user's preferences: config.toml in the XDG config dir (see `search.paths.config_dir`).

Every key is optional. The file comes from outside, so it is read like any untrusted file (a regular
file only, opened without blocking, at most MAX_CONFIG_BYTES). A file that cannot be used, an
unknown key or a bad value gives one notice line and the default for what was bad; a file with a
problem is never overwritten (nothing the user wrote in it is lost), it is saved again once it is
fixed or deleted. The app writes the file atomically, as TOML written here (no new dependency).
"""

from __future__ import annotations

import os
import re
import stat
import tomllib
from collections.abc import Collection, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, get_args

from search import ReaderError, paths, shown, write_atomic

Sort = Literal["relevance", "order", "name"]
Match = Literal["any", "all"]
SORTS: tuple[str, ...] = get_args(Sort)
MATCHES: tuple[str, ...] = get_args(Match)
SPLIT_MIN, SPLIT_MAX = 25, 75
"""The result list's share of the width, in percent: the reader keeps at least a quarter."""
DEFAULT_SPLIT = 60
"""The result list's share at first: at 140 columns a row shows about 75 characters of its title."""
CONFIG_FILE = "config.toml"
MAX_CONFIG_BYTES = 64 * 1024
"""A config file is a few lines; anything larger is not one."""
MAX_KEY_PARTS = 16
"""The most dotted parts a key or table header may have (`a.b.c = 1` has 3). The keys here are single
words; tomllib's time grows with the square of a key's parts (a key of 20,000: 4.7 s; a table of
16,000 parts followed by 4,000 keys: 30 s and 1.5 GB), so a file with a deeper one is refused
before it is parsed, in one pass over its text."""
MAX_PROBLEMS_SHOWN = 3


@dataclass(frozen=True)
class Preferences:
    """What the user set in the app, kept across restarts."""

    theme: str | None = None
    """A Textual theme's name (ctrl+p, Theme); None: Textual's default."""
    split: int = DEFAULT_SPLIT
    """The result list's share of the width in percent, SPLIT_MIN to SPLIT_MAX."""
    sort: Sort = "relevance"
    """The default order of results (relevance, corpus order, or by name)."""
    match: Match = "any"
    """Whether a query's words match papers with any of them or only with all."""
    list_only: bool = False
    """The list-only view: the result list fills the width, the reader opens over it."""
    guide_seen: bool = False
    """The first-run guide was dismissed: it is not shown again."""


class PreferencesError(ReaderError):
    """config.toml cannot be used or written: one line naming it and the problem."""


@dataclass(frozen=True)
class Loaded:
    """The preferences read from the file, and what was wrong with it."""

    preferences: Preferences
    problem: str | None = None
    """One line naming the file and its problems; None when it was fine or missing."""

    @property
    def notice(self) -> str | None:
        """What the app tells the user at start, or None."""
        if self.problem is None:
            return None
        return (
            f"{self.problem}. Using defaults for what is wrong; the file is left untouched and settings "
            "changed in the app are not saved until you fix or delete it."
        )


def config_path() -> Path:
    """Where the preferences live: <config dir>/config.toml."""
    return paths.config_dir() / CONFIG_FILE


def load(path: Path | None = None, themes: Collection[str] | None = None) -> Loaded:
    """The preferences in config.toml (the defaults when there is no file). `themes`: the theme
    names the app knows (None: any name is taken). Never raises: problems are in `Loaded.problem`."""
    path = path or config_path()
    try:
        table = _read_table(path)
    except PreferencesError as unusable:
        return Loaded(Preferences(), str(unusable))
    if table is None:
        return Loaded(Preferences())
    values, problems = _checked(table, themes)
    if not problems:
        return Loaded(Preferences(**values))
    keys = f" (the keys are {', '.join(_EXPECTED)})" if any(key not in _EXPECTED for key in table) else ""
    return Loaded(Preferences(**values), f"{shown(path)}: {_listed(problems)}{keys}")


def save(preferences: Preferences, path: Path | None = None, themes: Collection[str] | None = None) -> Path:
    """Write the preferences to config.toml atomically (the old file or the whole new one, never
    part) and return its path. Raises PreferencesError (one line) when the file on disk has a
    problem (it is left as it is: it may hold the user's writing) or cannot be written."""
    path = path or config_path()
    on_disk = load(path, themes)
    if on_disk.problem is not None:
        raise PreferencesError(f"{on_disk.problem}; fix or delete the file")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as problem:
        raise PreferencesError(f"{shown(path.parent)}: cannot create the folder ({_reason(problem)})") from None
    try:
        return write_atomic(path, to_toml(preferences))
    except ReaderError as problem:
        raise PreferencesError(str(problem)) from None


# -- reading -------------------------------------------------------------------------------------


def _read_table(path: Path) -> dict[str, Any] | None:
    """The parsed file, or None when there is none."""
    data = _read(path)
    if data is None:
        return None
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as problem:
        raise PreferencesError(f"{shown(path)}: not UTF-8 text (bad byte at offset {problem.start})") from None
    if _deepest_key(text) > MAX_KEY_PARTS:
        raise PreferencesError(
            f"{shown(path)}: a dotted key of more than {MAX_KEY_PARTS} parts (the keys are single words)"
        )
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as problem:
        raise PreferencesError(f"{shown(path)}: not valid TOML {_where(problem)}") from None
    except RecursionError:
        raise PreferencesError(f"{shown(path)}: not valid TOML (nested too deep)") from None
    except ValueError:  # Python's limit on an integer's digits
        raise PreferencesError(f"{shown(path)}: not valid TOML (a number of thousands of digits)") from None


_QUOTE_OR_COMMENT = re.compile(r"""\"\"\"|'''|["'#]""")
_BASIC_BODY = re.compile(r'(?:[^"\\\n]|\\.)*')
_MULTILINE_BASIC_BODY = re.compile(r'(?:[^"\\]|\\.|"(?!""))*', re.S)
_NOT_IN_A_KEY = re.compile(r"[=\n\[\]{},]")
"""What ends a dotted key (or a value): a key's parts, its dots and spaces lie between two of these."""


def _deepest_key(text: str) -> int:
    """The most dotted parts of a key or table header in TOML text, found in one pass without parsing
    it: with strings as one letter and comments left out, each run of text between an `=`, a line
    break, a bracket, a brace or a comma is a key, a table's name or a value (a number has one dot
    at most). Linear in the text, whatever it holds."""
    kept: list[str] = []
    at = 0
    while (opening := _QUOTE_OR_COMMENT.search(text, at)) is not None:
        kept.append(text[at : opening.start()])
        token, start = opening.group(), opening.end()
        if token == "#":
            end = text.find("\n", start)
        elif token in ("'", "'''"):
            end = _past_closing(text, text.find(token, start), token)
        else:
            body = (_MULTILINE_BASIC_BODY if token == '"""' else _BASIC_BODY).match(text, start)
            closed = body is not None and text.startswith(token, body.end())
            end = _past_closing(text, body.end() if body is not None and closed else -1, token)
        kept.append("" if token == "#" else "s")
        if end < 0:  # never closed: the rest is that string or comment (and not valid TOML)
            break
        at = end
    else:
        kept.append(text[at:])
    return max(part.count(".") for part in _NOT_IN_A_KEY.split("".join(kept))) + 1


def _past_closing(text: str, at: int, quote: str) -> int:
    """Where a string whose closing quotes start at `at` ends (-1: it is never closed). A multi-line
    string ends at the last quote of its closing run: its text may end with one or two quotes."""
    if at < 0:
        return -1
    if len(quote) == 1:
        return at + 1
    run = text[at : at + 5]
    return at + len(run) - len(run.lstrip(quote[0]))


def _where(problem: tomllib.TOMLDecodeError) -> str:
    """tomllib's "Invalid value (at line 1, column 9)" as "at line 1, column 9 (invalid value)"."""
    found = re.fullmatch(r"(.+) \((at .+)\)", _first_line(problem))
    if found is None:
        return f"({_first_line(problem)})"
    reason = found.group(1)
    return f"{found.group(2)} ({reason[:1].lower()}{reason[1:]})"


def _read(path: Path) -> bytes | None:
    """The file's bytes (None: no such file), with the checks of search/untrusted.py's read_bytes: a
    regular file only, refused before a byte is read and opened without blocking (a FIFO put there
    never hangs the app), the size limit held while reading. (read_bytes itself treats a missing file
    as an error, where here it means the defaults, and words its limit in MB.)"""
    name = shown(path)
    try:
        _check_regular(name, os.stat(path))
        descriptor = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC)
    except FileNotFoundError:
        return None
    except OSError as problem:
        raise PreferencesError(f"{name}: cannot read ({_reason(problem)})") from None
    try:
        _check_regular(name, os.fstat(descriptor))  # what was opened, not what was looked at
        data = b""
        while chunk := os.read(descriptor, MAX_CONFIG_BYTES + 1 - len(data)):
            data += chunk
            if len(data) > MAX_CONFIG_BYTES:  # a file that grows, or one that said it was empty (/proc)
                raise PreferencesError(_too_large(name))
        return data
    except OSError as problem:
        raise PreferencesError(f"{name}: cannot read ({_reason(problem)})") from None
    finally:
        os.close(descriptor)


def _check_regular(name: str, status: os.stat_result) -> None:
    if stat.S_ISDIR(status.st_mode):
        raise PreferencesError(f"{name}: is a directory, not a config file")
    if not stat.S_ISREG(status.st_mode):
        raise PreferencesError(f"{name}: not a regular file")
    if status.st_size > MAX_CONFIG_BYTES:
        raise PreferencesError(_too_large(name))


def _too_large(name: str) -> str:
    return f"{name}: larger than the {MAX_CONFIG_BYTES // 1024} KiB limit of a config file"


def _reason(problem: OSError) -> str:
    return (problem.strerror or str(problem)).lower()


def _first_line(problem: Exception) -> str:
    return (str(problem).splitlines() or [type(problem).__name__])[0]


# -- checking ------------------------------------------------------------------------------------


def _checked(table: Mapping[str, Any], themes: Collection[str] | None) -> tuple[dict[str, Any], list[str]]:
    """The good values by key, and one phrase per bad key or value."""
    values: dict[str, Any] = {}
    problems: list[str] = []
    for key, value in table.items():
        problem = _problem(key, value, themes)
        if problem is None:
            values[key] = value
        else:
            problems.append(problem)
    return values, problems


def _alternatives(values: tuple[str, ...]) -> str:
    quoted = [f'"{value}"' for value in values]
    return f"{', '.join(quoted[:-1])} or {quoted[-1]}"


_EXPECTED = {
    "theme": "a theme's name (ctrl+p, Theme lists them)",
    "split": f"a whole number from {SPLIT_MIN} to {SPLIT_MAX} (percent)",
    "sort": _alternatives(SORTS),
    "match": _alternatives(MATCHES),
    "list_only": "true or false",
    "guide_seen": "true or false",
}
"""What each key takes, in the words of the notice."""


def _problem(key: str, value: object, themes: Collection[str] | None) -> str | None:
    """What is wrong with one key and its value, or None."""
    if key not in _EXPECTED:
        return f"unknown key {_shown_value(key)}"
    if _allowed(key, value, themes):
        return None
    if key == "theme" and isinstance(value, str) and value:
        return f"theme {_shown_value(value)} is not a theme the app knows (ctrl+p, Theme lists them)"
    return f"{key} must be {_EXPECTED[key]}, not {_shown_value(value)}"


def _allowed(key: str, value: object, themes: Collection[str] | None) -> bool:
    if key == "split":
        return type(value) is int and SPLIT_MIN <= value <= SPLIT_MAX  # type(): true is not a number here
    if key == "sort":
        return value in SORTS
    if key == "match":
        return value in MATCHES
    if key in ("list_only", "guide_seen"):
        return type(value) is bool
    return isinstance(value, str) and bool(value) and (themes is None or value in themes)


def _shown_value(value: object, width: int = 40) -> str:
    """A value from the file as a short printable phrase for the notice."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        text = shown(value)
        return f'"{text[:width]}…"' if len(text) > width else f'"{text}"'
    if isinstance(value, (int, float)):
        text = str(value)
        return f"{text[:width]}…" if len(text) > width else text
    if isinstance(value, dict):
        return "a table"
    if isinstance(value, list):
        return "an array"
    return "a date or time"


def _listed(problems: list[str]) -> str:
    shown_problems = "; ".join(problems[:MAX_PROBLEMS_SHOWN])
    more = len(problems) - MAX_PROBLEMS_SHOWN
    return f"{shown_problems}; and {more} more" if more > 0 else shown_problems


# -- writing -------------------------------------------------------------------------------------

_HEADER = f"""\
# iclr-reader preferences. Every key is optional; README.md, "Preferences", describes them.
# The app rewrites this file when you change a setting in it (comments are not kept).
#
#   theme      a Textual theme's name (ctrl+p, Theme lists them)
#   split      the result list's share of the width: {SPLIT_MIN} to {SPLIT_MAX} (percent)
#   sort       {_EXPECTED["sort"]}: the default order of results
#   match      {_EXPECTED["match"]}: papers with any of a query's words, or all of them
#   list_only  true or false: the result list fills the width, the reader opens over it
#   guide_seen true: the first-run guide was dismissed (delete the line to see it again)
"""


def to_toml(preferences: Preferences) -> str:
    """The text of config.toml for these preferences (theme left out while it is Textual's default)."""
    lines = [_HEADER]
    if preferences.theme is not None:
        lines.append(f"theme = {_toml_string(preferences.theme)}")
    lines += [
        f"split = {preferences.split}",
        f"sort = {_toml_string(preferences.sort)}",
        f"match = {_toml_string(preferences.match)}",
        f"list_only = {'true' if preferences.list_only else 'false'}",
    ]
    if preferences.guide_seen:
        lines.append("guide_seen = true")
    return "\n".join(lines) + "\n"


_TOML_ESCAPES = {'"': '\\"', "\\": "\\\\", "\b": "\\b", "\t": "\\t", "\n": "\\n", "\f": "\\f", "\r": "\\r"}


def _toml_string(text: str) -> str:
    """A TOML basic string: quotes and backslashes escaped, control characters as \\uXXXX."""
    escaped = "".join(
        _TOML_ESCAPES.get(character)
        or (f"\\u{ord(character):04X}" if ord(character) < 0x20 or ord(character) == 0x7F else character)
        for character in text
    )
    return f'"{escaped}"'
