"""arXiv's API: an Atom feed of search results, paged with start/max_results, written as JSON
records the JSON importer reads (title, abstract, author ';'-joined, site = the abs page, pdf,
keywords = the categories, year, venue "arXiv", the arXiv id and the dates).

arXiv's terms ask for one request every 3 seconds and at most 2000 results a call, and refuse paging
past about 30,000 results; the client keeps to that. The feed is untrusted XML, parsed with
defusedxml, which refuses DTDs and entity declarations (so no entity-expansion bomb is expanded).

Each page is streamed into a file and read back a piece at a time by a parser that keeps only what a
record needs, one entry at a time: no tree of the page is built, so its memory does not grow with the
page. What a page may hold is bounded (entries: no more than asked; nesting, elements, element names,
a field's text, the bytes between two '>'), each past its bound one line. Paging stops with one line,
and nothing saved, when arXiv sends the same results again or far fewer than asked before the end it
counts (as when a page cannot be read): otherwise such pages would go on for up to --max requests."""

from __future__ import annotations

import re
import urllib.parse
from collections.abc import Callable
from pathlib import Path
from typing import Any
from xml.etree.ElementTree import ParseError

import defusedxml  # type: ignore[import-untyped]
import defusedxml.ElementTree as SafeElementTree  # type: ignore[import-untyped]

from search.corpus.library import ListOrigin
from search.errors import SourceError
from search.sources.common import Downloaded, JsonListWriter, base_url, not_paging
from search.sources.http import Client, HTTPStatusError, host_of
from search.sources.request import ListRequest, Progress

URL_VARIABLE = "ICLR_READER_ARXIV_URL"
DEFAULT_URL = "https://export.arxiv.org"
PATH = "/api/query"
PAUSE = 3.0
"""Seconds between requests (arXiv's terms of use)."""
PAGE_SIZE = 2000
"""Results per request (arXiv's maximum)."""
DEFAULT_MAX = 1000
MAX_RESULTS = 30000
"""arXiv refuses to page further than about this."""
PAGE_BYTES = 64 * 1024 * 1024
MAX_DEPTH = 32
"""XML nesting (an arXiv feed nests 4 deep: feed, entry, author, name)."""
MAX_ELEMENTS = 2_000_000
"""Elements in one page (a real page of 2000 entries holds about 60,000; 64 MiB of dense but real
entries about 1.3 million): past it, reading on would only cost time."""
MAX_NAMES = 1000
"""Different element and attribute names in one page (a feed uses about 30; the parser remembers each)."""
MAX_TEXT = 100_000
"""Characters of one field (an abstract is at most 1,920)."""
MAX_RUN = 1024 * 1024
"""Bytes without a '>': a start tag must be read whole, so this bounds one tag and its attributes."""
CHUNK = 64 * 1024
_ATOM = "{http://www.w3.org/2005/Atom}"
_ARXIV = "{http://arxiv.org/schemas/atom}"
_FEED, _ENTRY, _AUTHOR, _NAME = f"{_ATOM}feed", f"{_ATOM}entry", f"{_ATOM}author", f"{_ATOM}name"
_TOTAL = "{http://a9.com/-/spec/opensearch/1.1/}totalResults"
_FIELDS = {
    f"{_ATOM}id": "id",
    f"{_ATOM}title": "title",
    f"{_ATOM}summary": "summary",
    f"{_ATOM}published": "published",
    f"{_ATOM}updated": "updated",
    f"{_ARXIV}doi": "doi",
    f"{_ARXIV}journal_ref": "journal_ref",
}
"""An entry's children whose text a record uses, and their names in it."""
_VERSION = re.compile(r"v\d+$")

Entry = dict[str, Any]
"""One feed entry as read: its fields' raw text, "authors", "links" (rel, title, href), "categories",
"primary"."""


def download(
    request: ListRequest, folder: Path, on_progress: Progress | None = None, previous: ListOrigin | None = None
) -> Downloaded:
    """Up to max_results results of the query, newest first, as one JSON file in `folder`. (The API
    sends no validators, so an update downloads again and compares the content.)"""
    wanted = request.max_results or DEFAULT_MAX
    if wanted > MAX_RESULTS:
        raise SourceError(f"--max {wanted:,} is more than arXiv pages through ({MAX_RESULTS:,}); narrow the query")
    base = base_url(URL_VARIABLE, DEFAULT_URL) + PATH
    first_url = _page_url(base, request.target, 0, min(PAGE_SIZE, wanted))
    host = host_of(first_url)
    client = Client(min_interval=PAUSE)  # retries too: never two requests within PAUSE
    path = folder / request.file_name
    page_file = folder / ".page.xml"
    seen: set[str] = set()
    start = requests = 0
    with JsonListWriter(path, host) as writer:
        while start < wanted:
            asked = min(PAGE_SIZE, wanted - start)
            url = _page_url(base, request.target, start, asked)
            new = repeated = 0

            def take(entry: Entry) -> None:
                nonlocal new, repeated
                key = _arxiv_id(entry)
                if key is None or key in seen:
                    repeated += key is not None
                    return
                seen.add(key)
                new += 1
                record = _record(entry)
                if record is not None and writer.count < wanted:
                    writer.add(record)

            with page_file.open("w+b") as sink:
                try:
                    client.download(url, sink, headers={"Accept": "application/atom+xml"}, max_bytes=PAGE_BYTES)
                except HTTPStatusError as error:
                    raise _explain(error) from None
                requests += 1
                sink.seek(0)
                total, received = _read_page(sink.read, host, request.target, asked, take)
            page_file.unlink()
            start += received
            end = min(total, wanted)
            if on_progress is not None:
                on_progress(writer.count, end, "papers")
            if start >= end:
                break
            if not new or new * 2 < asked:
                raise _not_paging(host, start - received, asked, (received, new, repeated), total, writer.count, end)
        if writer.count == 0:
            raise SourceError(f"{host}: arXiv found no papers for {request.target!r}")
        writer.finish()
    return Downloaded(path, first_url, host, writer.size, requests)


def _page_url(base: str, query: str, start: int, count: int) -> str:
    parameters = {
        "search_query": query,
        "start": str(start),
        "max_results": str(count),
        "sortBy": "submittedDate",
        "sortOrder": "descending",
    }
    return f"{base}?{urllib.parse.urlencode(parameters)}"


def _not_paging(
    host: str, start: int, asked: int, counts: tuple[int, int, int], total: int, got: int, end: int
) -> SourceError:
    """One line for a page that leaves paging going nowhere (or crawling) before the end arXiv counts."""
    what = not_paging("result", f"start={start:,}", f"max_results={asked:,}", counts)
    return SourceError(
        f"{host}: arXiv {what}, though it counts {total:,}: it is not paging as asked; stopped at {got:,} of"
        f" {end:,} papers and saved nothing (try again later)"
    )


def _read_page(
    read: Callable[[int], bytes], host: str, query: str, asked: int, take: Callable[[Entry], None]
) -> tuple[int, int]:
    """Feed one page to the parser a chunk at a time, giving each entry to `take` as it ends (the
    first one held back: a page whose only entry is titled "Error" is arXiv refusing the query).
    Returns (totalResults, or the page's entries when it gives none; the entries received)."""
    feed = _Feed(host, asked)
    parser = SafeElementTree.DefusedXMLParser(target=feed, forbid_dtd=True)
    first: Entry | None = None
    run = 0

    def drain() -> None:
        nonlocal first
        for entry in feed.done:
            if feed.entries == 1:
                first = entry
                continue
            if first is not None:
                take(first)
                first = None
            take(entry)
        feed.done.clear()

    try:
        while chunk := read(CHUNK):
            close = chunk.find(b">")
            if (run + close if close >= 0 else run + len(chunk)) > MAX_RUN:
                size = f"{MAX_RUN // 2**20} MiB" if MAX_RUN % 2**20 == 0 else f"{MAX_RUN:,} bytes"
                raise feed.refuse(f"more than {size} without a '>'")
            run = len(chunk) - 1 - chunk.rfind(b">") if close >= 0 else run + len(chunk)
            parser.feed(chunk)
            drain()
        parser.close()
        drain()
    except defusedxml.DefusedXmlException as error:
        raise SourceError(
            f"{host}: refused the answer: it declares a DTD or XML entities ({type(error).__name__}),"
            " which an arXiv feed never does (an entity-expansion attack?)"
        ) from None
    except ParseError as error:
        raise SourceError(f"{host}: the answer is not an Atom feed (malformed XML: {error})") from None
    if first is not None:
        if feed.entries == 1 and _fold(first.get("title")) == "Error":
            message = _fold(first.get("summary")) or "an error"
            raise SourceError(f"{host}: arXiv refused the query {query!r}: {message}")
        take(first)
    said = _fold(feed.total) or ""
    total = int(said) if said.isascii() and said.isdigit() and len(said) <= 9 else feed.entries
    return total, feed.entries


class _Feed:
    """The parser's target: keeps the entries' fields, one entry at a time, and nothing else; refuses
    (SourceError) what no arXiv feed holds, as soon as it is seen."""

    def __init__(self, host: str, asked: int) -> None:
        self.host = host
        self.asked = asked
        self.done: list[Entry] = []
        """Entries finished since the reader last took them (those of one chunk at most)."""
        self.entries = 0
        self.total: str | None = None
        self._depth = 0
        self._elements = 0
        self._names: set[str] = set()
        self._entry: Entry | None = None
        self._field: str | None = None
        """Where the text being read goes: a field of the entry, "author", "total", or None."""
        self._field_depth = 0
        self._author = False
        """Inside an <author> whose name is not read yet."""
        self._text: list[str] = []
        self._size = 0

    def refuse(self, why: str) -> SourceError:
        return SourceError(f"{self.host}: the answer is not an arXiv feed ({why})")

    def start(self, tag: str, attrib: dict[str, str]) -> None:
        self._depth += 1
        self._elements += 1 + len(attrib)
        if self._depth > MAX_DEPTH:
            raise self.refuse(f"XML nested deeper than {MAX_DEPTH} levels")
        if self._elements > MAX_ELEMENTS:
            raise self.refuse(f"more than {MAX_ELEMENTS:,} XML elements and attributes in one page")
        if tag not in self._names or len(attrib) > 0:
            self._names.add(tag)
            self._names.update(attrib)
            if len(self._names) > MAX_NAMES:
                raise self.refuse(f"more than {MAX_NAMES:,} different element and attribute names")
        depth, entry = self._depth, self._entry
        if depth == 1:
            if tag != _FEED:
                raise SourceError(f"{self.host}: the answer is not an Atom feed (its root is <{_local(tag)}>)")
        elif depth == 2:
            if tag == _ENTRY:
                self.entries += 1
                if self.entries > self.asked:
                    raise SourceError(
                        f"{self.host}: arXiv sent more than {self.asked:,} results in one page where"
                        f" max_results={self.asked:,} was asked; stopped and saved nothing"
                    )
                self._entry = {"authors": [], "links": [], "categories": []}
            elif tag == _TOTAL and self.total is None:
                self._capture("total")
        elif entry is None:
            return
        elif depth == 3:
            if tag in _FIELDS and _FIELDS[tag] not in entry:
                self._capture(_FIELDS[tag])
            elif tag == f"{_ATOM}link":
                entry["links"].append((attrib.get("rel"), attrib.get("title"), attrib.get("href")))
            elif tag == f"{_ATOM}category":
                entry["categories"].append(attrib.get("term"))
            elif tag == f"{_ARXIV}primary_category" and "primary" not in entry:
                entry["primary"] = attrib.get("term")
            elif tag == _AUTHOR:
                self._author = True
        elif depth == 4 and tag == _NAME and self._author:
            self._author = False  # an author's first name
            self._capture("author")

    def end(self, tag: str) -> None:
        if self._field is not None and self._depth == self._field_depth:
            text = "".join(self._text)
            if self._field == "total":
                self.total = text
            elif self._field == "author":
                assert self._entry is not None
                self._entry["authors"].append(text)
            elif self._entry is not None:
                self._entry[self._field] = text
            self._field, self._text, self._size = None, [], 0
        if self._depth == 3:
            self._author = False
        elif self._depth == 2 and self._entry is not None:
            self.done.append(self._entry)
            self._entry = None
        self._depth -= 1

    def data(self, text: str) -> None:
        if self._field is not None:
            self._size += len(text)
            if self._size > MAX_TEXT:
                raise self.refuse(f"an entry's <{self._field}> holds more than {MAX_TEXT:,} characters")
            self._text.append(text)

    def close(self) -> None:
        return None

    def _capture(self, field: str) -> None:
        self._field, self._field_depth = field, self._depth


def _arxiv_id(entry: Entry) -> str | None:
    entry_id = _fold(entry.get("id"))
    return _VERSION.sub("", entry_id.rsplit("/abs/", 1)[-1]) if entry_id else None


def _record(entry: Entry) -> dict[str, Any] | None:
    abstract = _paragraphs(entry.get("summary") or "")
    entry_id = _fold(entry.get("id"))
    arxiv_id = _arxiv_id(entry)
    if not abstract or not entry_id or not arxiv_id:
        return None
    site = pdf = None
    for rel, title, href in entry["links"]:
        if title == "pdf":
            pdf = _https(href)
        elif rel == "alternate":
            site = _https(href)
    authors = [name for name in (_fold(author) for author in entry["authors"]) if name]
    categories = [term for term in entry["categories"] if term]
    published = _fold(entry.get("published")) or ""
    record: dict[str, Any] = {
        "id": arxiv_id,
        "arxiv": arxiv_id,
        "title": _fold(entry.get("title")),
        "abstract": abstract,
        "author": "; ".join(authors),
        "site": site or _https(entry_id),
        "pdf": pdf,
        "keywords": "; ".join(categories),
        "primary_category": entry.get("primary"),
        "venue": "arXiv",
        "year": int(published[:4]) if published[:4].isascii() and published[:4].isdigit() else None,
        "published": published or None,
        "updated": _fold(entry.get("updated")),
        "doi": _fold(entry.get("doi")),
        "journal_ref": _fold(entry.get("journal_ref")),
    }
    return {key: value for key, value in record.items() if value not in (None, "")}


def _fold(value: str | None) -> str | None:
    """Text with its whitespace (hard wraps) folded, or None."""
    folded = " ".join(value.split()) if value else ""
    return folded or None


def _paragraphs(value: str) -> str:
    """The abstract unwrapped: lines joined, blank lines kept as paragraph breaks."""
    paragraphs = (" ".join(part.split()) for part in re.split(r"\n\s*\n", value.strip()))
    return "\n\n".join(paragraph for paragraph in paragraphs if paragraph)


def _https(url: str | None) -> str | None:
    if url and url.startswith("http://arxiv.org/"):
        return "https://" + url[len("http://") :]
    return url


def _local(tag: str) -> str:
    return tag.rsplit("}", 1)[-1]


def _explain(error: HTTPStatusError) -> SourceError:
    if error.status in (401, 403):
        return SourceError(
            f"{error.host} refused access (HTTP {error.status}); arXiv may be blocking automated requests"
        )
    return error


__all__ = ["DEFAULT_MAX", "DEFAULT_URL", "MAX_RESULTS", "URL_VARIABLE", "download"]
