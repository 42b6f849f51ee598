"""Make untrusted text safe for a terminal: no escape sequences, no control characters, and no lone
surrogates (which no encoder accepts: printing, storing or indexing one fails)."""

from __future__ import annotations

import re

from search.untrusted import fix_surrogates, shown

__all__ = ["sanitize", "sanitize_line", "shown"]

# ESC-introduced sequences: CSI (ESC [ ... final), OSC/DCS/APC/PM/SOS strings (ended by BEL or ST),
# and two-character escapes. Their 8-bit C1 forms (U+009B CSI, U+009D OSC, ...) are covered too.
_ESCAPE_SEQUENCE = re.compile(
    r"""
    (?:\x1b\[|\x9b)[0-?]*[ -/]*[@-~]?                        # CSI
    | (?:\x1b[\]PX^_]|[\x90\x98\x9d\x9e\x9f])[^\x07\x1b\x9c]*(?:\x07|\x1b\\|\x9c)?   # OSC, DCS, ...
    | \x1b[ -/]*[0-~]?                                       # other ESC sequences
    """,
    re.VERBOSE,
)
# C0 (except tab and newline), DEL, C1, and Unicode bidi controls that can reorder what is shown.
# Supplementary private-use characters too: the markup converter uses them as internal markers.
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\U000F0000-\U000FFFFF]")
# What the fast path looks for: a control character or a lone surrogate.
_UNSAFE = re.compile(
    r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\U000F0000-\U000FFFFF\ud800-\udfff]"
)
_ASCII_SAFE = bytes(range(0x20, 0x7F)) + b"\t\n"


def _is_safe(text: str) -> bool:
    """No character sanitize() removes or replaces; faster than the regex alone (every corpus field
    passes here when it is loaded)."""
    if text.isascii():
        return not text.encode("ascii").translate(None, _ASCII_SAFE)
    # Every character removed is non-printable (Cc, Cf, Co, Cs); a printable text needs no regex.
    return text.replace("\n", " ").replace("\t", " ").isprintable() or not _UNSAFE.search(text)


def sanitize(text: str) -> str:
    """Remove escape sequences and control characters; keep newlines and tabs. Lone surrogates
    become U+FFFD."""
    if not text:
        return ""
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    if _is_safe(text):  # the usual case; every escape sequence starts with a control
        return text
    text = fix_surrogates(text)
    text = _ESCAPE_SEQUENCE.sub("", text)
    return _CONTROL.sub("", text)


def sanitize_line(text: str) -> str:
    """Sanitise and fold all whitespace to single spaces (titles, names, authors)."""
    if text.isprintable():  # the usual case: every character sanitize() removes is non-printable
        return " ".join(text.split())
    return " ".join(sanitize(text).split())


# `shown` (from search.untrusted) is the other half: a file or list name made printable with its
# control characters as visible escapes, so two different names never look the same.
