"""The CLI's own user-facing error, alongside the engine's `search.ReaderError`."""

from __future__ import annotations

EXIT_USAGE = 2


class CliError(Exception):
    """A user-facing problem: printed as one line, exit code 2."""
