"""The CLI's own user-facing error, alongside the engine's `search.ReaderError`, and how any text from
outside (an argument, a file name, an error message quoting one) is shown on one safe line."""

from __future__ import annotations

import re

EXIT_USAGE = 2

# Surrogates (an argument's undecodable bytes, as Python's surrogateescape gives them), C0 and C1
# controls, DEL, bidi controls and the line and paragraph separators.
_UNSAFE = re.compile(r"[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2028\u2029\u2066-\u2069\ud800-\udfff]")


class CliError(Exception):
    """A user-facing problem: printed as one line, exit code 2."""


def shown(text: object) -> str:
    """Text on one printable line: an undecodable byte of an argument is shown as the byte it was
    ("\\xff"), a control or bidi character as its escape ("\\x1b", "\\n", "\\u202e"); never raw."""
    value = str(text)
    return _UNSAFE.sub(_escape, value) if _UNSAFE.search(value) else value


def has_undecodable(text: str) -> bool:
    """Whether an argument held bytes that are not UTF-8 (surrogates in the str Python gave us)."""
    return re.search(r"[\ud800-\udfff]", text) is not None


_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _escape(match: re.Match[str]) -> str:
    character = match.group()
    if character in _NAMED:
        return _NAMED[character]
    code = ord(character)
    if 0xDC80 <= code <= 0xDCFF:  # surrogateescape: the byte 0x80-0xff that could not be decoded
        return f"\\x{code - 0xDC00:02x}"
    if code <= 0xFF:
        return f"\\x{code:02x}"
    return f"\\u{code:04x}"
