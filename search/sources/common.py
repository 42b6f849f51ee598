"""What the sources share: the result of one download, base URLs from the environment, the list-size
limit and a streaming writer for the JSON files the sources assemble from pages."""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import IO, Any

from search.corpus.loader import MAX_CORPUS_BYTES
from search.errors import SourceError


@dataclass(frozen=True)
class Downloaded:
    """A list file written into the staging folder, not yet checked or in the library."""

    path: Path
    url: str
    """The (first) URL asked."""
    host: str
    size: int
    """Bytes of the list file."""
    requests: int
    etag: str | None = None
    last_modified: str | None = None
    reviews: Path | None = None
    """OpenReview with --reviews: the reviews' side file, staged beside the list file."""
    reviewed: int = 0
    """With --reviews: how many papers have at least one review."""
    cached: tuple[Path, ...] = ()
    """Cache files a resumed run would read (search/sources/reviews.py): removed once the list is in."""


def base_url(variable: str, default: str) -> str:
    """A source's base URL: the environment variable (for mirrors and tests) or the default."""
    return (os.environ.get(variable) or default).rstrip("/")


class JsonListWriter:
    """Writes `{"<key>": [...], ...}` (or a bare array without a key) one record at a time, so a
    list assembled from many pages never sits in memory whole; refuses to pass MAX_CORPUS_BYTES."""

    def __init__(self, path: Path, host: str, key: str | None = None) -> None:
        self.path = path
        self.host = host
        self.key = key
        self.count = 0
        self.size = 0
        self._file: IO[str] | None = None

    def __enter__(self) -> JsonListWriter:
        self._file = self.path.open("w", encoding="utf-8")
        self._write("[\n" if self.key is None else f'{{"{self.key}": [\n')
        return self

    def add(self, record: Any) -> None:
        text = json.dumps(record, ensure_ascii=False)
        self._write((",\n" if self.count else "") + text)
        self.count += 1

    def finish(self, **extra: Any) -> None:
        tail = "".join(f", {json.dumps(key)}: {json.dumps(value)}" for key, value in extra.items())
        self._write("\n]\n" if self.key is None else f"\n]{tail}}}\n")

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, traceback: TracebackType | None
    ) -> None:
        if self._file is not None:
            self._file.close()

    def _write(self, text: str) -> None:
        assert self._file is not None
        self.size += len(text.encode("utf-8"))
        if self.size > MAX_CORPUS_BYTES:
            raise SourceError(
                f"{self.host}: the list comes to more than {MAX_CORPUS_BYTES // 2**20} MiB, the most a list may hold"
                " (ask for fewer papers)"
            )
        self._file.write(text)


def counted(count: int, thing: str) -> str:
    """1 note, 2,000 notes."""
    return f"{count:,} {thing}" + ("" if count == 1 else "s")


def not_paging(noun: str, place: str, asked: str, counts: tuple[int, int, int]) -> str:
    """What a page that leaves paging going nowhere (or crawling) sent, for the source's one line:
    `counts` are the page's items, the new ones among them and those sent before; `place` is where
    it was asked for ("offset=1,000") and `asked` how many ("limit=1,000")."""
    received, new, repeated = counts
    if not received:
        return f"sent no {noun}s for {place}"
    if not new:
        again = f"the same {noun}s again" if repeated == received else f"no new {noun}s"
        return f"sent {again} for {place}"
    some = f"{counted(received, noun)}, {new:,} of them new," if received > new else counted(received, noun)
    return f"sent {some} for {place} where {asked} was asked"


__all__ = ["Downloaded", "JsonListWriter", "base_url", "counted", "not_paging"]
