"""`get` and `get --update`: download a list into the library's staging area, check it with the corpus
importer, then move it into the library (Library.add / Library.replace) with its origin beside it.

Whatever goes wrong (a network failure, a body in the wrong format, ctrl+c), the staging folder is
removed and the library is exactly as it was. An update whose server says 304 Not Modified, or whose
new download has the same content, changes nothing but the origin's `checked_at`."""

from __future__ import annotations

import hashlib
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from pathlib import Path

from search.corpus.library import AddedList, Library, ListOrigin
from search.errors import CorpusError, LibraryError, SourceError
from search.sources import arxiv, openreview, paperlists
from search.sources.common import Downloaded
from search.sources.http import host_of
from search.sources.request import ARXIV, OPENREVIEW, PAPERLISTS, ListRequest, Progress
from search.untrusted import shown

_Download = Callable[[ListRequest, Path, Progress | None, ListOrigin | None], Downloaded | None]
_SOURCES: dict[str, _Download] = {
    PAPERLISTS: paperlists.download,
    OPENREVIEW: openreview.download,
    ARXIV: arxiv.download,
}


@dataclass(frozen=True)
class GotList:
    """What one `get` (or update) did."""

    name: str
    path: Path
    """The list's file in the library."""
    changed: bool
    """False when an update found the list as it was (nothing re-indexed)."""
    papers: int = 0
    """0 when unchanged (the list was not reloaded)."""
    skipped: int = 0
    duplicates: int = 0
    host: str = ""
    size: int = 0
    """Bytes of the list file."""
    requests: int = 0
    seconds: float = 0.0


def get_list(request: ListRequest, library: Library | None = None, on_progress: Progress | None = None) -> GotList:
    """Download a new list into the library. Raises SourceError, CorpusError or LibraryError."""
    library = library or Library()
    name = library.check_name(request.name, downloaded=True)  # before any download
    started = time.monotonic()
    with library.staging() as folder:
        downloaded = _SOURCES[request.kind](request, folder, on_progress, None)
        assert downloaded is not None  # only an update can be told "not modified"
        origin = _origin(request, downloaded)
        added = _install(downloaded, lambda: library.add(downloaded.path, name, origin))
    return _got(added, downloaded, started)


def update_list(name: str, library: Library | None = None, on_progress: Progress | None = None) -> GotList:
    """Download a list again if it changed. Raises SourceError, CorpusError or LibraryError."""
    library = library or Library()
    path = library.find(name)
    if path is None:
        raise LibraryError(f"no list named {name!r} (`lists` shows them)")
    previous = library.origin(name)
    if previous is None:
        raise LibraryError(f"{name!r} was added from a file, not downloaded with `get`: there is nothing to update")
    request = ListRequest(previous.kind, previous.source, name.lower(), previous.all_submissions, previous.max_results)
    if request.kind not in _SOURCES:
        raise LibraryError(f"{name!r} came from an unknown source {previous.kind!r}")
    started = time.monotonic()
    with library.staging() as folder:
        downloaded = _SOURCES[request.kind](request, folder, on_progress, previous)
        now = _now()
        if downloaded is None or _sha256(downloaded.path) == previous.sha256:
            etag = downloaded.etag if downloaded else previous.etag
            last_modified = downloaded.last_modified if downloaded else previous.last_modified
            library.record_origin(
                name, replace(previous, checked_at=now, etag=etag or previous.etag, last_modified=last_modified)
            )
            host = downloaded.host if downloaded else host_of(previous.url)
            return GotList(shown(name.lower()), path, False, host=host, seconds=time.monotonic() - started)
        origin = _origin(request, downloaded)
        added = _install(downloaded, lambda: library.replace(name, downloaded.path, origin))
    return _got(added, downloaded, started)


def downloaded_lists(library: Library | None = None) -> list[str]:
    """The names of the lists `get --update` can refresh (those downloaded with `get`)."""
    library = library or Library()
    return [shown(path.parent.name) for path in library.files() if library.origin(path.parent.name) is not None]


def _install(downloaded: Downloaded, move_in: Callable[[], AddedList]) -> AddedList:
    """Check the download with the importer as it moves in; a file it cannot read is the source's fault."""
    try:
        return move_in()
    except CorpusError as error:
        message = str(error)
        prefix = f"{downloaded.path}: "
        detail = message[len(prefix) :] if message.startswith(prefix) else message
        raise SourceError(f"{downloaded.host}: the download is not a usable paper list: {detail}") from None


def _origin(request: ListRequest, downloaded: Downloaded) -> ListOrigin:
    now = _now()
    return ListOrigin(
        kind=request.kind,
        source=request.target,
        url=downloaded.url,
        fetched_at=now,
        checked_at=now,
        etag=downloaded.etag,
        last_modified=downloaded.last_modified,
        sha256=_sha256(downloaded.path),
        all_submissions=request.all_submissions,
        max_results=request.max_results,
    )


def _got(added: AddedList, downloaded: Downloaded, started: float) -> GotList:
    return GotList(
        added.name,
        added.path,
        True,
        added.papers,
        added.skipped,
        added.duplicates,
        downloaded.host,
        downloaded.size,
        downloaded.requests,
        time.monotonic() - started,
    )


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as file:
        while block := file.read(1 << 20):
            digest.update(block)
    return digest.hexdigest()


def _now() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


__all__ = ["GotList", "downloaded_lists", "get_list", "update_list"]
