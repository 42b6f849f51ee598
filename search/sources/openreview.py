"""OpenReview API v2: a venue's notes, paged with limit/offset until `count`, written as one
`{"notes": [...]}` file, the format search/corpus/formats/openreview.py reads (the paper page is the
forum, the PDF the note's pdf, the status read from the venue: "ICLR 2025 Oral" -> Oral).

Accepted papers: `content.venueid=<venue>`; every submission (`--all`, or a venue id with /-/ in it):
`invitation=<venue>/-/Submission`. One request at a time with a pause between pages; a token from
ICLR_READER_OPENREVIEW_TOKEN is sent as `Authorization: Bearer` (never on to a redirect's target).

With --reviews, each forum's replies are fetched too, once every page is in (reviews.py).

Each page is streamed into a file and read a note at a time, each note parsed alone from a window of
the page no larger than NOTE_BYTES, so no page is ever parsed whole in memory. A page may hold no more notes than `limit` asked, a note at most NOTE_BYTES.
Paging stops with one line, and nothing saved, when the server sends the same notes again or far
fewer than `limit` before the `count` it gives (as when a page cannot be read)."""

from __future__ import annotations

import json
import os
import re
import urllib.parse
from collections.abc import Callable
from pathlib import Path
from typing import Any

from search.corpus.library import REVIEWS_FILE, ListOrigin
from search.errors import SourceError
from search.sources import reviews
from search.sources.common import Downloaded, JsonListWriter, base_url, counted, not_paging
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
NOTE_BYTES = 2 * 1024 * 1024
"""The most one note (or any other value of a page) may take: a real one takes a few kB. Parsed, JSON can
take 25 times its size (`[{},{},...]`), so this bounds what one note costs while it is read."""
NOTE_BRACKETS = 2000
"""The most arrays and objects one note may hold (a real one holds about 30, and a few dozen braces of
LaTeX, which are counted too): containers are what parsing JSON spends its time and memory on, so a
page of 1,000 notes builds at most 2 million of them."""
SMALL_PAGE = 1024 * 1024
"""An answer that is not a JSON object is parsed whole only up to this size (to say what it is)."""
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
    page_file = folder / ".page.json"
    seen: set[str] = set()
    offset = requests = 0
    total: int | None = None
    with JsonListWriter(path, host, key="notes") as writer:
        while True:
            if requests >= MAX_PAGES:
                raise SourceError(f"{host}: more than {MAX_PAGES} pages of notes for {request.target}; stopped")
            new = repeated = 0

            def take(note: Any) -> None:
                nonlocal new, repeated
                if not isinstance(note, dict):
                    return
                key = str(note.get("id") or note.get("forum") or "")
                if key and key in seen:
                    repeated += 1
                    return
                if key:
                    seen.add(key)
                    new += 1
                if isinstance(note.get("content"), dict):
                    writer.add(_trim(note))

            with page_file.open("w+b") as sink:
                try:
                    client.download(
                        _page_url(base, request, offset),
                        sink,
                        headers={"Accept": "application/json"},
                        private_headers=private,
                        max_bytes=PAGE_BYTES,
                    )
                except HTTPStatusError as error:
                    raise _explain(error, bool(token)) from None
                requests += 1
                sink.seek(0)
                body = sink.read()
            page_file.unlink()
            received, count = _read_page(body, host, PAGE_SIZE, take)
            del body
            total = count if total is None else total
            offset += received
            if on_progress is not None:
                on_progress(writer.count, total, "papers")
            if (total is not None and offset >= total) or (total is None and received < PAGE_SIZE):
                break
            if not new or new * 2 < PAGE_SIZE:
                raise _not_paging(host, offset - received, (received, new, repeated), total, writer.count)
        if writer.count == 0:
            what = "submissions to" if "invitation" in query(request) else "accepted papers of"
            raise SourceError(
                f"{host}: no {what} {request.target!r} (check the venue id, e.g. ICLR.cc/2025/Conference;"
                " --all gets every submission)"
            )
        writer.finish(count=writer.count)
    if not request.reviews:
        return Downloaded(path, first_url, host, writer.size, requests)
    return _with_reviews(path, folder, base, host, client, private, on_progress, requests, first_url, bool(token))


def _with_reviews(
    path: Path,
    folder: Path,
    base: str,
    host: str,
    client: Client,
    private: dict[str, str] | None,
    on_progress: Progress | None,
    requests: int,
    first_url: str,
    has_token: bool,
) -> Downloaded:
    """--reviews: each forum's replies (reviews.py), their numbers and decisions written into the
    list's notes (the list is written again), their text into the side file beside it."""
    data = load_json(path.read_text(encoding="utf-8"))  # the file just written: our own, within the list limit
    notes = data["notes"]
    side_file = folder / REVIEWS_FILE
    asked, reviewed, cached = reviews.fetch_reviews(
        notes, base, host, client, side_file, private, on_progress, lambda error: _explain(error, has_token)
    )
    with JsonListWriter(path, host, key="notes") as writer:
        for note in notes:
            writer.add(note)
        writer.finish(count=writer.count)
    return Downloaded(
        path, first_url, host, writer.size, requests + asked, reviews=side_file, reviewed=reviewed, cached=tuple(cached)
    )


def _page_url(base: str, request: ListRequest, offset: int) -> str:
    parameters = {**query(request), "limit": str(PAGE_SIZE), "offset": str(offset)}
    return f"{base}?{urllib.parse.urlencode(parameters, safe='/')}"


def _not_paging(host: str, offset: int, counts: tuple[int, int, int], total: int | None, got: int) -> SourceError:
    """One line for a page that leaves paging going nowhere (or crawling) before the end the server gives."""
    what = not_paging("note", f"offset={offset:,}", f"limit={PAGE_SIZE:,}", counts)
    though = f", though it counts {total:,}" if total is not None else ""
    return SourceError(
        f"{host} {what}{though}: it is not paging as asked; stopped at {counted(got, 'paper')} and saved nothing"
        " (try again later)"
    )


def _read_page(body: bytes, host: str, limit: int, take: Callable[[Any], None]) -> tuple[int, int | None]:
    """Give each note of one page to `take`, parsed one at a time; returns how many the page held and
    the total count it gives. A page holding more than `limit` notes is refused at the note past it."""
    position = _skip(body, 3 if body.startswith(b"\xef\xbb\xbf") else 0)
    if body[position : position + 1] != b"{":
        if len(body) <= SMALL_PAGE:
            _value_at(body, position, host)  # malformed JSON is said to be
        raise SourceError(f'{host}: the answer is not OpenReview notes (no "notes" list in it)')
    received = 0
    count: int | None = None
    listed = False
    position = _skip(body, position + 1)
    if body[position : position + 1] == b"}":
        position += 1
    else:
        while True:
            if body[position : position + 1] != b'"':
                raise _malformed(host, body, position, "Expecting property name enclosed in double quotes")
            key, position = _value_at(body, position, host)
            position = _skip(body, position)
            if body[position : position + 1] != b":":
                raise _malformed(host, body, position, "Expecting ':' delimiter")
            position = _skip(body, position + 1)
            if key == "notes" and body[position : position + 1] == b"[":
                listed = True
                position = _skip(body, position + 1)
                while body[position : position + 1] != b"]":
                    if received >= limit:
                        raise SourceError(
                            f"{host} sent more than {limit:,} notes in one page where limit={limit:,} was asked;"
                            " stopped and saved nothing"
                        )
                    note, position = _value_at(body, position, host)
                    take(note)
                    received += 1
                    position = _skip(body, position)
                    if body[position : position + 1] == b",":
                        position = _skip(body, position + 1)
                    elif body[position : position + 1] != b"]":
                        raise _malformed(host, body, position, "Expecting ',' delimiter")
                position += 1
            else:
                value, position = _value_at(body, position, host)
                if key == "count":
                    valid = isinstance(value, int) and not isinstance(value, bool) and value >= 0
                    count = value if valid else None
            position = _skip(body, position)
            if body[position : position + 1] == b",":
                position = _skip(body, position + 1)
            elif body[position : position + 1] == b"}":
                position += 1
                break
            else:
                raise _malformed(host, body, position, "Expecting ',' delimiter")
    if _skip(body, position) != len(body):
        raise _malformed(host, body, _skip(body, position), "Extra data")
    if not listed:
        raise SourceError(f'{host}: the answer is not OpenReview notes (no "notes" list in it)')
    return received, count


_SPACE = re.compile(rb"[ \t\r\n]*")
_OPENERS = re.compile(r"[{\[]")
_DECODER = json.JSONDecoder()
WINDOW = 16 * 1024
"""The first window of a page a note is looked for in (a note takes a few kB); doubled while too small."""


def _skip(body: bytes, position: int) -> int:
    """Past the whitespace at `position`."""
    match = _SPACE.match(body, position)
    return match.end() if match else position


def _value_at(body: bytes, start: int, host: str) -> tuple[Any, int]:
    """The JSON value at `start` (a note, a key, the count), parsed alone as untrusted JSON, and where it
    ends. It is looked for in a window of the page that doubles from WINDOW up to NOTE_BYTES, cut
    before its (NOTE_BRACKETS + 1)th '{' or '[', so a value never costs more than that much JSON builds."""
    size = min(WINDOW, NOTE_BYTES + 1)
    while True:
        stop = min(len(body), start + size)
        text = _decode(body, start, stop, stop < len(body), host)
        crowded = _opener(text, NOTE_BRACKETS + 1)
        if crowded >= 0:
            text = text[:crowded]
        cut = stop < len(body) or crowded >= 0
        try:
            end = _DECODER.raw_decode(text)[1]
            reached_end = end == len(text)  # a number may go on past the window
        except json.JSONDecodeError as error:
            reached_end = error.msg.startswith("Unterminated string") or error.pos >= len(text) - 6
            if not (cut and reached_end):
                raise _malformed(host, body, start, f"{error.msg} at line {error.lineno}") from None
        except (RecursionError, ValueError):  # nested too deep, a number of too many digits
            _parse(text, host)
            raise _malformed(host, body, start, "a value that cannot be read") from None
        if not (cut and reached_end):
            break
        if crowded >= 0:
            raise SourceError(
                f"{host}: the answer is not OpenReview notes (a note or value with more than"
                f" {NOTE_BRACKETS:,} arrays and objects)"
            )
        if size > NOTE_BYTES:
            most = f"{NOTE_BYTES // 2**20} MiB" if NOTE_BYTES % 2**20 == 0 else f"{NOTE_BYTES:,} bytes"
            raise SourceError(f"{host}: the answer is not OpenReview notes (a note or value of more than {most})")
        size = min(2 * size, NOTE_BYTES + 1)
    span = text[:end]
    return _parse(span, host), start + (end if text.isascii() else len(span.encode("utf-8")))


def _opener(text: str, number: int) -> int:
    """Where the text's `number`th '{' or '[' is (strings' too), or -1."""
    if text.count("{") + text.count("[") < number:
        return -1
    for index, match in enumerate(_OPENERS.finditer(text), 1):
        if index == number:
            return match.start()
    raise AssertionError("unreachable")  # pragma: no cover - counted above


def _decode(body: bytes, start: int, stop: int, cut: bool, host: str) -> str:
    """body[start:stop] as text; a character cut in two by the window's end is left out."""
    try:
        return body[start:stop].decode("utf-8")
    except UnicodeDecodeError as error:
        if cut and error.reason == "unexpected end of data":
            return body[start : start + error.start].decode("utf-8")
        raise SourceError(
            f"{host}: the answer is not OpenReview notes (not UTF-8, at byte {start + error.start})"
        ) from None


def _parse(text: str, host: str) -> Any:
    try:
        return load_json(text)  # lone surrogates fixed, depth and numbers bounded
    except MalformedJSON as error:
        raise SourceError(f"{host}: the answer is not OpenReview notes (malformed JSON: {error.reason})") from None


def _malformed(host: str, body: bytes, position: int, reason: str) -> SourceError:
    """Malformed JSON, saying where: "at line 3" in a value is counted from the page's first line."""
    before = body.count(b"\n", 0, position)
    if " at line " in reason:
        reason, line = reason.rsplit(" at line ", 1)
        before += int(line) - 1
    return SourceError(f"{host}: the answer is not OpenReview notes (malformed JSON: {reason} at line {before + 1})")


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
