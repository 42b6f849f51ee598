"""The one way to read a file from outside (a corpus, a bookmark import, a downloaded list) and to
parse JSON from one: whatever the file is, the caller gets bytes or data, or one error with one line.

- `read_bytes` refuses anything but a regular file (a device, a FIFO, a socket) before reading a byte,
  without ever blocking on it, and holds the size limit while reading too (a file that grows, a /proc
  file that says it is empty).
- `load_json` turns every way JSON can go wrong (malformed, nested too deep, numbers of thousands of
  digits, NaN and Infinity) into that one error, and gives back no string holding a lone surrogate.
- `shown` makes a file name or list name safe to print: control characters become visible escapes.
"""

from __future__ import annotations

import errno
import json
import os
import re
import stat
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from search.errors import ReaderError

__all__ = [
    "MAX_BYTES",
    "MAX_JSON_DEPTH",
    "MalformedJSON",
    "UntrustedInputError",
    "fix_surrogates",
    "load_json",
    "read_bytes",
    "shown",
]

MAX_BYTES = 64 * 1024 * 1024
"""The default size limit of `read_bytes` (a corpus file's limit)."""
MAX_JSON_DEPTH = 200
"""Arrays and objects nested deeper than this are refused (real paper lists nest 3 or 4 deep)."""


class UntrustedInputError(ReaderError):
    """A file from outside that cannot be used: one line naming it and the problem."""


ErrorType = Callable[[str], Exception]

_KINDS = {
    stat.S_IFCHR: "a character device",
    stat.S_IFBLK: "a block device",
    stat.S_IFIFO: "a named pipe",
    stat.S_IFSOCK: "a socket",
}
_CHUNK = 1024 * 1024


def read_bytes(
    path: str | Path,
    *,
    limit: int = MAX_BYTES,
    what: str = "file",
    error: ErrorType = UntrustedInputError,
) -> bytes:
    """The bytes of a regular file of at most `limit` bytes. Anything else raises `error` (by default
    UntrustedInputError) with one line, "FILE: problem": no such file, permission denied, a directory
    ("is a directory, not a <what>"), not a regular file (a device, FIFO or socket: refused before
    reading and without blocking), larger than the limit (by its size, or while reading)."""
    name = shown(path)
    try:
        status = os.stat(path)
        _check_kind(name, status.st_mode, what, error)
        _check_size(name, status.st_size, limit, error)
        flags = os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOCTTY", 0) | getattr(os, "O_CLOEXEC", 0)
        descriptor = os.open(path, flags)  # O_NONBLOCK: a FIFO swapped in after the stat never blocks
        try:
            status = os.fstat(descriptor)
            _check_kind(name, status.st_mode, what, error)  # what was opened, not what was looked at
            _check_size(name, status.st_size, limit, error)
            chunks: list[bytes] = []
            total = 0
            while True:
                # All its stated size at once (one copy of a 100 MB file, not chunks joined), then a
                # chunk at a time for a file that grows meanwhile, never more than the limit.
                wanted = max(_CHUNK, status.st_size + 1 - total)
                chunk = os.read(descriptor, min(wanted, limit + 1 - total))
                if not chunk:
                    break
                chunks.append(chunk)
                total += len(chunk)
                if total > limit:
                    raise error(f"{name}: larger than the {_limit(limit)} limit")
            return b"".join(chunks)
        finally:
            os.close(descriptor)
    except FileNotFoundError:
        raise error(f"{name}: no such file") from None
    except PermissionError:
        raise error(f"{name}: permission denied") from None
    except IsADirectoryError:
        raise error(f"{name}: is a directory, not a {what}") from None
    except OSError as problem:
        if problem.errno == errno.ELOOP:
            raise error(f"{name}: a symbolic link loop") from None
        if problem.errno == errno.ENOTDIR:
            raise error(f"{name}: no such file (a part of the path is not a folder)") from None
        if problem.errno == errno.ENXIO:  # opening a socket
            raise error(f"{name}: not a regular file (a socket)") from None
        raise error(f"{name}: cannot read ({problem.strerror or problem})") from None
    except ValueError:  # a NUL in the name
        raise error(f"{name}: not a usable file name") from None


def _check_kind(name: str, mode: int, what: str, error: ErrorType) -> None:
    if stat.S_ISREG(mode):
        return
    if stat.S_ISDIR(mode):
        raise error(f"{name}: is a directory, not a {what}")
    kind = _KINDS.get(stat.S_IFMT(mode), "not a file")
    raise error(f"{name}: not a regular file ({kind})")


def _check_size(name: str, size: int, limit: int, error: ErrorType) -> None:
    if size > limit:
        raise error(f"{name}: {size / 1e6:.0f} MB is larger than the {_limit(limit)} limit")


def _limit(limit: int) -> str:
    return f"{limit // 2**20} MiB" if limit >= 2**20 and limit % 2**20 == 0 else f"{limit:,} byte"


class MalformedJSON(UntrustedInputError):
    """`load_json`'s default error; `line` is where the parser stopped (None: nested too deep, a huge
    number, NaN), which tells a JSON Lines file from a broken document; `reason` is the message
    without the file ("Expecting value at line 3", "nested deeper than 200 levels")."""

    def __init__(self, message: str, line: int | None = None, reason: str = "") -> None:
        super().__init__(message)
        self.line = line
        self.reason = reason


class _Refused(Exception):
    """Raised inside the JSON parser's hook; turned into the caller's error."""


def _parse_constant(constant: str) -> Any:
    raise _Refused(f"{constant} is not JSON")


def load_json(
    text: str,
    *,
    source: str | Path | None = None,
    error: ErrorType = MalformedJSON,
    max_depth: int = MAX_JSON_DEPTH,
) -> Any:
    """Parse a JSON document from outside. Every problem raises `error` (by default MalformedJSON)
    with one line: "SOURCE: malformed JSON at line N", or "SOURCE: malformed JSON (nested deeper than
    200 levels | a number of more than 4,300 digits | NaN is not JSON)"; nothing else is raised.
    Lone surrogates ("\\ud800") in strings and keys become U+FFFD (a valid pair is one character)."""
    prefix = f"{shown(source)}: " if source is not None else ""

    def refuse(reason: str, line: int | None = None, detail: str = "") -> Exception:
        problem = error(f"{prefix}malformed JSON {f'at line {line}' if line is not None else f'({reason})'}")
        if isinstance(problem, MalformedJSON):
            problem.line = line
            problem.reason = f"{detail} at line {line}" if line is not None else reason
        return problem

    too_deep = f"nested deeper than {max_depth} levels"
    try:
        data = json.loads(text, parse_constant=_parse_constant)
    except json.JSONDecodeError as problem:
        raise refuse("", problem.lineno, problem.msg) from None
    except _Refused as problem:
        raise refuse(str(problem)) from None
    except RecursionError:
        raise refuse(too_deep) from None
    except ValueError:  # an integer past Python's limit on digits (int_max_str_digits)
        raise refuse(f"a number of more than {sys.get_int_max_str_digits():,} digits") from None
    if isinstance(data, (list, dict)) and _depth(data, max_depth) > max_depth:
        raise refuse(too_deep)
    if _may_hold_surrogates(text):
        data = _fixed(data)
    return data


def _depth(data: list[Any] | dict[str, Any], limit: int) -> int:
    """How deep parsed JSON nests (counting stops past `limit`), level by level, without recursion."""
    level: list[Any] = [data]
    depth = 0
    while level and depth <= limit:
        depth += 1
        level = [
            value
            for container in level
            for value in (container.values() if type(container) is dict else container)
            if type(value) is list or type(value) is dict
        ]
    return depth


def _may_hold_surrogates(text: str) -> bool:
    """Whether the JSON text may give a string with a lone surrogate: an escaped one ("\\ud800")
    that is not half of a pair, as text decoded from bytes (strict UTF-8) never holds one itself.
    Lists written with every non-ASCII character escaped hold many pairs (emoji, math letters), and
    walking every string of such a list for nothing took 45 ms a list."""
    if not _SURROGATE_ESCAPE.search(text):
        return False
    high_ends = -1  # where the last high surrogate's escape ends, while it waits for its low half
    for escape in _BACKSLASH_OR_SURROGATE.finditer(text):
        token = escape.group()
        if token == "\\\\":  # an escaped backslash: what follows it is not an escape
            lone = high_ends >= 0
        elif token[3] in "89abAB":
            lone, high_ends = high_ends >= 0, escape.end()
        else:
            lone, high_ends = high_ends != escape.start(), -1
        if lone:
            return True
    return high_ends >= 0


_SURROGATE_ESCAPE = re.compile(r"\\u[dD]")
_BACKSLASH_OR_SURROGATE = re.compile(r"\\\\|\\u[dD][89a-fA-F][0-9a-fA-F]{2}")


def _fixed(data: Any) -> Any:
    """Parsed JSON with lone surrogates replaced in every string and key, in place, without recursion."""
    if isinstance(data, str):
        return fix_surrogates(data)
    stack: list[Any] = [data] if isinstance(data, (list, dict)) else []
    while stack:
        container = stack.pop()
        if isinstance(container, dict) and any(_SURROGATE.search(key) for key in container):
            items = [(fix_surrogates(key), value) for key, value in container.items()]
            container.clear()
            container.update(items)
        keys = container.keys() if isinstance(container, dict) else range(len(container))
        for key in keys:
            value = container[key]
            if isinstance(value, str):
                container[key] = fix_surrogates(value)
            elif isinstance(value, (list, dict)):
                stack.append(value)
    return data


_SURROGATE = re.compile("[\ud800-\udfff]")


def fix_surrogates(text: str) -> str:
    """Lone surrogates (which no encoder accepts: printing or storing them fails) as U+FFFD."""
    return _SURROGATE.sub("\ufffd", text) if _SURROGATE.search(text) else text


_UNPRINTABLE = re.compile(r"[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2028\u2029\u2066-\u2069\ud800-\udfff]")
_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def shown(name: object) -> str:
    """A file or list name (or any text from outside) as one printable line: control, bidi and line
    separator characters become visible escapes ("\\x1b", "\\n", "\\u202e"), and a byte that was not
    UTF-8 (Python's surrogateescape) the byte it was ("\\xff"), so two different names never look
    the same and the escaped form can be typed back."""
    text = "" if name is None else os.fspath(name) if isinstance(name, os.PathLike) else str(name)
    return _UNPRINTABLE.sub(_escape, text) if _UNPRINTABLE.search(text) else text


def _escape(match: re.Match[str]) -> str:
    character = match.group()
    if character in _NAMED:
        return _NAMED[character]
    code = ord(character)
    if 0xDC80 <= code <= 0xDCFF:  # surrogateescape: the undecodable byte 0x80-0xff
        return f"\\x{code - 0xDC00:02x}"
    return f"\\x{code:02x}" if code <= 0xFF else f"\\u{code:04x}"


def _first_line(problem: Exception) -> str:
    return (str(problem).splitlines() or [type(problem).__name__])[0]
