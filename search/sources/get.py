"""`get` and `get --update`: download a list into the library's staging area, check it with the corpus
importer, then move it into the library (Library.add / Library.replace) with its origin beside it.

Whatever goes wrong (a network failure, a body in the wrong format, a full disk, ctrl+c, a cancel),
the staging folder is removed and the library is exactly as it was. Every failure is one SourceError
line (or the progress callback's own exception, or KeyboardInterrupt): a network failure names the
host that failed, a disk problem names the library's folder, and anything else a source raises on a
hostile answer (a bug reading it) is worded as one line naming the host it came from. A `cancel`
callable stops the download within about http.CANCEL_CHECK seconds of saying so, whatever the
server does (DownloadCancelled, a SourceError). An update whose server says 304 Not Modified, or whose
new download has the same content, changes nothing but the origin's `checked_at`."""

from __future__ import annotations

import hashlib
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from pathlib import Path

from search.corpus.library import REVIEWS_FILE, AddedList, Library, ListOrigin
from search.errors import CorpusError, LibraryError, ReaderError, SourceError
from search.sources import arxiv, openreview, paperlists
from search.sources.common import Downloaded
from search.sources.http import Cancel, DownloadCancelled, WriteError, downloading, host_of, write_problem
from search.sources.request import ARXIV, OPENREVIEW, PAPERLISTS, ListRequest, Progress
from search.sources.reviews import forget_cached
from search.text.sanitize import sanitize_line
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
    reviewed: int | None = None
    """With --reviews: how many papers have at least one review (None: reviews not asked for)."""


def get_list(
    request: ListRequest,
    library: Library | None = None,
    on_progress: Progress | None = None,
    cancel: Cancel | None = None,
) -> GotList:
    """Download a new list into the library. Raises SourceError, CorpusError or LibraryError."""
    library = library or Library()
    name = library.check_name(request.name, downloaded=True)  # before any download
    started = time.monotonic()
    with library.staging() as folder:
        downloaded = _download(request, folder, on_progress, None, cancel, library)
        assert downloaded is not None  # only an update can be told "not modified"
        _check(cancel, downloaded.host)
        origin = _origin(request, downloaded)
        added = _install(downloaded, lambda: library.add(downloaded.path, name, origin, downloaded.reviews))
    forget_cached(list(downloaded.cached))
    return _got(added, downloaded, started)


def update_list(
    name: str, library: Library | None = None, on_progress: Progress | None = None, cancel: Cancel | None = None
) -> GotList:
    """Download a list again if it changed. Raises SourceError, CorpusError or LibraryError."""
    library = library or Library()
    path = library.find(name)
    if path is None:
        raise LibraryError(f"no list named {name!r} (`lists` shows them)")
    previous = library.origin(name)
    if previous is None:
        raise LibraryError(f"{name!r} was added from a file, not downloaded with `get`: there is nothing to update")
    request = ListRequest(
        previous.kind, previous.source, name.lower(), previous.all_submissions, previous.max_results, previous.reviews
    )
    if request.kind not in _SOURCES:
        raise LibraryError(f"{name!r} came from an unknown source {previous.kind!r}")
    started = time.monotonic()
    with library.staging() as folder:
        downloaded = _download(request, folder, on_progress, previous, cancel, library)
        _check(cancel, downloaded.host if downloaded else host_of(previous.url))
        now = _now()
        if downloaded is None or (_sha256(downloaded.path) == previous.sha256 and _same_reviews(downloaded, path)):
            if downloaded is not None:
                forget_cached(list(downloaded.cached))
            etag = downloaded.etag if downloaded else previous.etag
            last_modified = downloaded.last_modified if downloaded else previous.last_modified
            library.record_origin(
                name, replace(previous, checked_at=now, etag=etag or previous.etag, last_modified=last_modified)
            )
            host = downloaded.host if downloaded else host_of(previous.url)
            return GotList(shown(name.lower()), path, False, host=host, seconds=time.monotonic() - started)
        origin = _origin(request, downloaded)
        added = _install(downloaded, lambda: library.replace(name, downloaded.path, origin, downloaded.reviews))
    forget_cached(list(downloaded.cached))
    return _got(added, downloaded, started)


def downloaded_lists(library: Library | None = None) -> list[str]:
    """The names of the lists `get --update` can refresh (those downloaded with `get`)."""
    library = library or Library()
    return [shown(path.parent.name) for path in library.files() if library.origin(path.parent.name) is not None]


def _download(
    request: ListRequest,
    folder: Path,
    on_progress: Progress | None,
    previous: ListOrigin | None,
    cancel: Cancel | None,
    library: Library,
) -> Downloaded | None:
    """The source's download, every failure made one line (see the module's docstring)."""
    relay = _Relay(on_progress) if on_progress is not None else None
    with downloading(cancel) as asked:
        try:
            return _SOURCES[request.kind](request, folder, relay, previous)
        except _Relayed as relayed:  # the caller's own exception (ctrl+c in the app): as it was
            raise relayed.error from None
        except WriteError as error:
            raise _disk_error(library, error.error) from None
        except ReaderError:
            raise
        except OSError as error:  # the staging file: a full disk, a folder gone (the network's are SourceErrors)
            raise _disk_error(library, error) from None
        except Exception as error:  # noqa: BLE001 - a source tripped over a hostile answer: one line, never a traceback
            host = asked.host or "the server"
            text = sanitize_line(str(error)).strip()[:120] or type(error).__name__
            raise SourceError(f"{host}: its answer could not be read ({type(error).__name__}: {text})") from None


class _Relayed(Exception):
    """The progress callback raised `error`: carried past the handling of the sources' failures."""

    def __init__(self, error: Exception) -> None:
        super().__init__(error)
        self.error = error


class _Relay:
    """The caller's progress callback, its exceptions carried through as _Relayed (BaseExceptions,
    KeyboardInterrupt among them, pass as they are)."""

    def __init__(self, on_progress: Progress) -> None:
        self.on_progress = on_progress

    def __call__(self, done: int, total: int | None, unit: str) -> None:
        try:
            self.on_progress(done, total, unit)
        except Exception as error:
            raise _Relayed(error) from error


def _check(cancel: Cancel | None, host: str) -> None:
    """A download cancelled as it finished is not moved in."""
    if cancel is not None and cancel():
        raise DownloadCancelled(f"{host}: the download was stopped")


def _disk_error(library: Library, error: OSError) -> SourceError:
    return SourceError(f"cannot write the download into {shown(str(library.folder))}: {write_problem(error)}")


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
        reviews=request.reviews,
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
        downloaded.reviewed if downloaded.reviews is not None else None,
    )


def _same_reviews(downloaded: Downloaded, path: Path) -> bool:
    """Whether a download's reviews (if it fetched any) are those the list already has."""
    if downloaded.reviews is None:
        return True
    kept = path.parent / REVIEWS_FILE
    return kept.is_file() and _sha256(kept) == _sha256(downloaded.reviews)


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as file:
        while block := file.read(1 << 20):
            digest.update(block)
    return digest.hexdigest()


def _now() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


__all__ = ["GotList", "downloaded_lists", "get_list", "update_list"]
