"""The CLI's own user-facing error, alongside the engine's `search.ReaderError`, and how any text from
outside (an argument, a file name, an error message quoting one) is shown on one safe line."""

from __future__ import annotations

import re

from search import shown

__all__ = ["EXIT_USAGE", "CliError", "has_undecodable", "shown"]

EXIT_USAGE = 2


class CliError(Exception):
    """A user-facing problem: printed as one line, exit code 2."""


def has_undecodable(text: str) -> bool:
    """Whether an argument held bytes that are not UTF-8 (surrogates in the str Python gave us)."""
    return re.search(r"[\ud800-\udfff]", text) is not None
