"""Messages posted by workers to the main screen. Workers never touch widgets themselves."""

from __future__ import annotations

from dataclasses import dataclass

from textual.message import Message

from search import IndexStatus, SearchResult


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
