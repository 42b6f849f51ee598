"""Paper Copilot's paperlists: one JSON array of paper records per conference and year, at
<base>/<conf>/<conf><year>.json (the format search/corpus/formats/records.py reads). One GET,
streamed to the staging file; updates are conditional requests (ETag, Last-Modified)."""

from __future__ import annotations

from pathlib import Path

from search.corpus.library import ListOrigin
from search.corpus.loader import MAX_CORPUS_BYTES
from search.errors import SourceError
from search.sources import catalogue
from search.sources.common import Downloaded, base_url
from search.sources.http import Client, HTTPStatusError, host_of
from search.sources.request import ListRequest, Progress

URL_VARIABLE = "ICLR_READER_PAPERLISTS_URL"
DEFAULT_URL = "https://raw.githubusercontent.com/papercopilot/paperlists/main"
MAX_BYTES = MAX_CORPUS_BYTES
"""A bigger file could not be loaded (search/corpus/loader.py), so it is refused as it downloads."""


def url_of(name: str) -> str:
    parts = catalogue.split(name)
    if parts is None:
        raise SourceError(f"{name!r} is not a paperlists name like iclr2025 (`get --available` lists them)")
    conference, year = parts
    return f"{base_url(URL_VARIABLE, DEFAULT_URL)}/{conference}/{conference}{year}.json"


def download(
    request: ListRequest, folder: Path, on_progress: Progress | None = None, previous: ListOrigin | None = None
) -> Downloaded | None:
    """The list's file in `folder`, or None when `previous` is still current (304 Not Modified)."""
    url = url_of(request.target)
    host = host_of(url)
    path = folder / request.file_name

    def progress(done: int, total: int | None) -> None:
        if on_progress is not None:
            on_progress(done, total, "bytes")

    try:
        with path.open("wb") as sink:
            response = Client().download(
                url,
                sink,
                headers={"Accept": "application/json"},
                etag=previous.etag if previous else None,
                last_modified=previous.last_modified if previous else None,
                max_bytes=MAX_BYTES,
                on_progress=progress,
            )
    except HTTPStatusError as error:
        raise _explain(error, request.target) from None
    if response.not_modified:
        return None
    _check_array(path, host)
    return Downloaded(path, url, host, response.size, 1, response.etag, response.last_modified)


def _explain(error: HTTPStatusError, name: str) -> SourceError:
    if error.status == 404:
        return SourceError(f"no list named {name!r} at paperlists ({error.host}); `get --available` lists them")
    if error.status in (401, 403):
        return SourceError(f"{error.host} refused access to {name!r} (HTTP {error.status})")
    return error


def _check_array(path: Path, host: str) -> None:
    """A paperlists file is a JSON array: anything else (an HTML page from a captive portal, say) would
    otherwise be read as a paragraph list."""
    with path.open("rb") as file:
        start = file.read(512).lstrip(b"\xef\xbb\xbf \t\r\n")
    if not start:
        raise SourceError(f"{host}: the answer is empty, not a paper list")
    if not start.startswith(b"["):
        snippet = start[:40].decode("utf-8", "replace").split("\n")[0]
        raise SourceError(f"{host}: the answer is not a JSON list of papers (it starts {snippet!r})")


__all__ = ["DEFAULT_URL", "URL_VARIABLE", "download", "url_of"]
