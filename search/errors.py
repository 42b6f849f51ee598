"""The engine's errors. Each says what went wrong in one line a user can act on; the interface prints
it (CLI: exit 2) or shows it as a notice, and catches `ReaderError` for all of them."""

from __future__ import annotations


class ReaderError(Exception):
    """A problem with the user's input or files, worded for the user."""


class CorpusError(ReaderError):
    """A corpus file that cannot be used; the message is one line naming the file and problem."""


class LibraryError(ReaderError):
    """A problem with the library itself (a bad or taken name, an unwritable data dir): one line."""


class StoreError(ReaderError):
    """User data cannot be stored or read (for example a read-only data dir); one line for the user."""


class BookmarkImportError(ReaderError):
    """An import file that cannot be used; one line for the user."""


class UnknownPaper(ReaderError, KeyError):
    """No paper with that id is loaded."""

    def __str__(self) -> str:
        return f"no paper with id {self.args[0]!r}"


class IndexCancelled(Exception):
    """An index build was cancelled through its cancel event; nothing was swapped in."""


class SourceError(ReaderError):
    """A list could not be downloaded (network, server, or a body in the wrong format): one line naming
    the host and the cause."""
