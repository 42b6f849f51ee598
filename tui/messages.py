"""Messages posted by workers to the main screen. Workers never touch widgets themselves."""

from __future__ import annotations

from dataclasses import dataclass

from textual.message import Message

from search import IndexStatus, SearchEngine, SearchResult


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
class SearchFinished(Message):
    """Results for one query; dropped by the handler if the query has changed since."""

    query: str
    result: SearchResult
    index_notice: str | None = None
    """Said even when the result is outdated: the index was found damaged and rebuilt meanwhile."""
    cancelled: bool = False
    """The search was cancelled part-way: its result is never shown, only the index notice."""
    quick: bool = False
    """Quick matches found before the index was open: never shown once it is (ranked results are)."""


@dataclass
class MoreFound(Message):
    """Every match of a query whose first page (`first`, the result listed) is shown: the rest extends
    the list, unless the list shows another result by then."""

    first: SearchResult
    result: SearchResult


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
