"""arXiv's API: an Atom feed of search results, paged with start/max_results, written as JSON
records the JSON importer reads (title, abstract, author ';'-joined, site = the abs page, pdf,
keywords = the categories, year, venue "arXiv", the arXiv id and the dates).

arXiv's terms ask for one request every 3 seconds and at most 2000 results a call, and refuse paging
past about 30,000 results; the client keeps to that. The feed is untrusted XML, parsed with
defusedxml, which refuses DTDs and entity declarations (so no entity-expansion bomb is expanded)."""

from __future__ import annotations

import re
import urllib.parse
from pathlib import Path
from typing import Any
from xml.etree.ElementTree import Element, ParseError

import defusedxml  # type: ignore[import-untyped]
import defusedxml.ElementTree as SafeElementTree  # type: ignore[import-untyped]

from search.corpus.library import ListOrigin
from search.errors import SourceError
from search.sources.common import Downloaded, JsonListWriter, base_url
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
_NS = {
    "atom": "http://www.w3.org/2005/Atom",
    "opensearch": "http://a9.com/-/spec/opensearch/1.1/",
    "arxiv": "http://arxiv.org/schemas/atom",
}
_VERSION = re.compile(r"v\d+$")


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
    seen: set[str] = set()
    start = requests = 0
    with JsonListWriter(path, host) as writer:
        while start < wanted:
            url = _page_url(base, request.target, start, min(PAGE_SIZE, wanted - start))
            try:
                body = client.get(url, headers={"Accept": "application/atom+xml"}, max_bytes=PAGE_BYTES)
            except HTTPStatusError as error:
                raise _explain(error) from None
            requests += 1
            total, entries = _page(body, host, request.target)
            for entry in entries:
                record = _record(entry)
                if record is None or record["id"] in seen or writer.count >= wanted:
                    continue
                seen.add(record["id"])
                writer.add(record)
            start += len(entries)
            if on_progress is not None:
                on_progress(writer.count, min(total, wanted), "papers")
            if not entries or start >= total:
                break
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


def _page(body: bytes, host: str, query: str) -> tuple[int, list[Element]]:
    """(totalResults, the entries) of one feed page."""
    try:
        root = SafeElementTree.fromstring(body, forbid_dtd=True)
    except defusedxml.DefusedXmlException as error:
        raise SourceError(
            f"{host}: refused the answer: it declares a DTD or XML entities ({type(error).__name__}),"
            " which an arXiv feed never does (an entity-expansion attack?)"
        ) from None
    except ParseError as error:
        raise SourceError(f"{host}: the answer is not an Atom feed (malformed XML: {error})") from None
    if root.tag != f"{{{_NS['atom']}}}feed":
        raise SourceError(f"{host}: the answer is not an Atom feed (its root is <{_local(root.tag)}>)")
    entries = root.findall("atom:entry", _NS)
    if len(entries) == 1 and _text(entries[0], "atom:title") == "Error":
        message = _text(entries[0], "atom:summary") or "an error"
        raise SourceError(f"{host}: arXiv refused the query {query!r}: {message}")
    try:
        total = int(_text(root, "opensearch:totalResults") or len(entries))
    except ValueError:
        total = len(entries)
    return total, entries


def _record(entry: Element) -> dict[str, Any] | None:
    abstract = _paragraphs(entry.findtext("atom:summary", "", _NS))
    entry_id = _text(entry, "atom:id")
    if not abstract or not entry_id:
        return None
    arxiv_id = _VERSION.sub("", entry_id.rsplit("/abs/", 1)[-1])
    site = pdf = None
    for link in entry.findall("atom:link", _NS):
        href = _https(link.get("href"))
        if link.get("title") == "pdf":
            pdf = href
        elif link.get("rel") == "alternate":
            site = href
    authors = [name for name in (_text(author, "atom:name") for author in entry.findall("atom:author", _NS)) if name]
    categories = [term for term in (c.get("term") for c in entry.findall("atom:category", _NS)) if term]
    primary = entry.find("arxiv:primary_category", _NS)
    published = _text(entry, "atom:published") or ""
    record: dict[str, Any] = {
        "id": arxiv_id,
        "arxiv": arxiv_id,
        "title": _text(entry, "atom:title"),
        "abstract": abstract,
        "author": "; ".join(authors),
        "site": site or _https(entry_id),
        "pdf": pdf,
        "keywords": "; ".join(categories),
        "primary_category": primary.get("term") if primary is not None else None,
        "venue": "arXiv",
        "year": int(published[:4]) if published[:4].isdigit() else None,
        "published": published or None,
        "updated": _text(entry, "atom:updated"),
        "doi": _text(entry, "arxiv:doi"),
        "journal_ref": _text(entry, "arxiv:journal_ref"),
    }
    return {key: value for key, value in record.items() if value not in (None, "")}


def _text(element: Element, path: str) -> str | None:
    """The element's text with its whitespace (hard wraps) folded, or None."""
    value = element.findtext(path, None, _NS)
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
