"""OpenReview API v2: a venue's notes, paged with limit/offset until `count`, written as one
`{"notes": [...]}` file, the format search/corpus/formats/openreview.py reads (the paper page is the
forum, the PDF the note's pdf, the status read from the venue: "ICLR 2025 Oral" -> Oral).

Accepted papers: `content.venueid=<venue>`; every submission (`--all`, or a venue id with /-/ in it):
`invitation=<venue>/-/Submission`. One request at a time with a pause between pages; a token from
ICLR_READER_OPENREVIEW_TOKEN is sent as `Authorization: Bearer` (never on to a redirect's target)."""

from __future__ import annotations

import os
import urllib.parse
from pathlib import Path
from typing import Any

from search.corpus.library import ListOrigin
from search.errors import SourceError
from search.sources.common import Downloaded, JsonListWriter, base_url
from search.sources.http import Client, HTTPStatusError, host_of
from search.sources.request import ListRequest, Progress
from search.text.sanitize import sanitize_line
from search.untrusted import MalformedJSON, load_json

URL_VARIABLE = "ICLR_READER_OPENREVIEW_URL"
TOKEN_VARIABLE = "ICLR_READER_OPENREVIEW_TOKEN"
DEFAULT_URL = "https://api2.openreview.net"
PAGE_SIZE = 1000
"""Notes per request (the API's maximum)."""
PAUSE = 1.0
"""Seconds between requests."""
MAX_PAGES = 200
PAGE_BYTES = 64 * 1024 * 1024
_CONTENT = frozenset(
    {"title", "abstract", "authors", "keywords", "venue", "venueid", "pdf", "code", "github", "decision"}
    | {"TL;DR", "primary_area"}
)
"""The content fields kept (the importer reads these; the rest of a note is left out to stay small)."""
_NOTE = ("id", "forum", "number", "cdate", "pdate", "invitations", "invitation")


def query(request: ListRequest) -> dict[str, str]:
    venue = request.target
    if "/-/" in venue:
        return {"invitation": venue}
    if request.all_submissions:
        return {"invitation": f"{venue}/-/Submission"}
    return {"content.venueid": venue}


def download(
    request: ListRequest, folder: Path, on_progress: Progress | None = None, previous: ListOrigin | None = None
) -> Downloaded:
    """Every page of the venue's notes, as one file in `folder`. (The API sends no validators, so an
    update downloads again and compares the content.)"""
    base = f"{base_url(URL_VARIABLE, DEFAULT_URL)}/notes"
    first_url = _page_url(base, request, 0)
    host = host_of(first_url)
    token = os.environ.get(TOKEN_VARIABLE, "").strip()
    private = {"Authorization": f"Bearer {token}"} if token else None
    client = Client(min_interval=PAUSE)
    path = folder / request.file_name
    seen: set[str] = set()
    offset = requests = 0
    total: int | None = None
    with JsonListWriter(path, host, key="notes") as writer:
        while True:
            if requests >= MAX_PAGES:
                raise SourceError(f"{host}: more than {MAX_PAGES} pages of notes for {request.target}; stopped")
            try:
                body = client.get(
                    _page_url(base, request, offset),
                    headers={"Accept": "application/json"},
                    private_headers=private,
                    max_bytes=PAGE_BYTES,
                )
            except HTTPStatusError as error:
                raise _explain(error, bool(token)) from None
            requests += 1
            notes, received, count = _page(body, host)
            total = count if total is None else total
            for note in notes:
                key = str(note.get("id") or note.get("forum") or "")
                if key and key in seen:
                    continue
                seen.add(key)
                writer.add(_trim(note))
            offset += received
            if on_progress is not None:
                on_progress(writer.count, total, "papers")
            if not received or (total is not None and offset >= total) or (total is None and received < PAGE_SIZE):
                break
        if writer.count == 0:
            what = "submissions to" if "invitation" in query(request) else "accepted papers of"
            raise SourceError(
                f"{host}: no {what} {request.target!r} (check the venue id, e.g. ICLR.cc/2025/Conference;"
                " --all gets every submission)"
            )
        writer.finish(count=writer.count)
    return Downloaded(path, first_url, host, writer.size, requests)


def _page_url(base: str, request: ListRequest, offset: int) -> str:
    parameters = {**query(request), "limit": str(PAGE_SIZE), "offset": str(offset)}
    return f"{base}?{urllib.parse.urlencode(parameters, safe='/')}"


def _page(body: bytes, host: str) -> tuple[list[dict[str, Any]], int, int | None]:
    """The page's notes, how many it held, and the total count it gives."""
    try:
        data = load_json(body.decode("utf-8-sig"))  # lone surrogates fixed, depth and numbers bounded
    except UnicodeDecodeError as error:
        raise SourceError(f"{host}: the answer is not OpenReview notes (not UTF-8, at byte {error.start})") from None
    except MalformedJSON as error:
        raise SourceError(f"{host}: the answer is not OpenReview notes (malformed JSON: {error.reason})") from None
    if not isinstance(data, dict) or not isinstance(data.get("notes"), list):
        raise SourceError(f'{host}: the answer is not OpenReview notes (no "notes" list in it)')
    count = data.get("count")
    notes = [note for note in data["notes"] if isinstance(note, dict) and isinstance(note.get("content"), dict)]
    total = count if isinstance(count, int) and not isinstance(count, bool) and count >= 0 else None
    return notes, len(data["notes"]), total


def _trim(note: dict[str, Any]) -> dict[str, Any]:
    trimmed = {key: note[key] for key in _NOTE if key in note}
    trimmed["content"] = {key: value for key, value in note["content"].items() if key in _CONTENT}
    return trimmed


def _explain(error: HTTPStatusError, has_token: bool) -> SourceError:
    detail = _message(error.body)
    detail = f" ({detail})" if detail else ""
    if error.status in (401, 403):
        if has_token:
            return SourceError(
                f"{error.host} refused access (HTTP {error.status}){detail}: the token in {TOKEN_VARIABLE} was not accepted"
            )
        return SourceError(
            f"{error.host} refused access (HTTP {error.status}){detail}: OpenReview may need a token; "
            f"set {TOKEN_VARIABLE}"
        )
    if error.status in (400, 404):
        return SourceError(f"{error}{detail}")
    return error


def _message(body: bytes) -> str:
    """OpenReview's own wording of an error ({"name": ..., "message": ...}), if it sent one."""
    try:
        data = load_json(body.decode("utf-8", "replace"))
    except MalformedJSON:
        return ""
    message = data.get("message") if isinstance(data, dict) else None
    return sanitize_line(message)[:160] if isinstance(message, str) else ""


__all__ = ["DEFAULT_URL", "TOKEN_VARIABLE", "URL_VARIABLE", "download", "query"]
