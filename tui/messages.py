"""Messages posted by workers to the main screen. Workers never touch widgets themselves."""

from __future__ import annotations

from dataclasses import dataclass

from textual.message import Message

from search import IndexStatus, SearchEngine
from tui.search_session import SessionEvent


@dataclass
class IndexProgress(Message):
    """Part of the index has been built."""

    done: int
    total: int


@dataclass
class IndexReady(Message):
    """The index is open and searches can run."""

    status: IndexStatus


@dataclass
class IndexFailed(Message):
    """The index could not be opened or built; browsing still works."""

    error: str


@dataclass
class SessionFound(Message):
    """An event of the search session (a first page, the rest, a failure, an index notice), posted
    from its thread; the screen asks the session whether it is still current before showing it."""

    event: SessionEvent


@dataclass
class DownloadProgress(Message):
    """Part of a list has been downloaded: `done` of `total` (None: unknown) bytes or papers."""

    spec: str
    done: int
    total: int | None
    unit: str


@dataclass
class DownloadFailed(Message):
    """A list could not be got; the library is as it was."""

    spec: str
    error: str


@dataclass
class ListDownloaded(Message):
    """A list is in the library; `engine` has every loaded list plus it, not yet indexed."""

    name: str
    papers: int
    engine: SearchEngine
