"""Bookmarks out (BibTeX, Markdown, CSV, JSON) and back in (JSON), plus citations of one paper."""

from __future__ import annotations

import csv
import io
import json
import os
import re
import tempfile
import unicodedata
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from search.errors import BookmarkImportError
from search.models import Bookmark, link_records, links_from_records
from search.text.describe import display_label, primary_link

FORMATS = ("bibtex", "markdown", "csv", "json")
_ARXIV_ABS = re.compile(r"https?://arxiv\.org/abs/(\d{4}\.\d{4,5}|[a-z][a-z.\-]*/\d{7})(?:v\d+)?$")
CSV_FIELDS = ("id", "headline", "name", "title", "authors", "venue", "year", "url", "note", "tags")


def export(bookmarks: Sequence[Bookmark], fmt: str) -> str:
    if fmt == "bibtex":
        return "\n".join(bibtex_entry(b) for b in bookmarks)
    if fmt == "markdown":
        return "".join(f"- {markdown_citation(b)}" + (f" — {b.note}" if b.note else "") + "\n" for b in bookmarks)
    if fmt == "csv":
        return _csv(bookmarks)
    if fmt == "json":
        return json.dumps({"bookmarks": [_to_record(b) for b in bookmarks]}, ensure_ascii=False, indent=2) + "\n"
    raise ValueError(f"unknown format {fmt!r}; choose one of {', '.join(FORMATS)}")


def url_of(bookmark: Bookmark) -> str:
    return primary_link(bookmark.links).url if bookmark.links else ""


def markdown_citation(bookmark: Bookmark) -> str:
    """[title](url). Authors. Venue, with the characters Markdown would misread escaped."""
    text = _markdown_escape(display_label(bookmark))
    url = url_of(bookmark).replace("(", "%28").replace(")", "%29").replace(" ", "%20")
    parts = [f"[{text}]({url})"]
    if bookmark.authors:
        parts.append(_markdown_escape(", ".join(bookmark.authors)))
    venue = _venue_and_year(bookmark)
    if venue:
        parts.append(_markdown_escape(venue))
    return ". ".join(parts)


def _markdown_escape(text: str) -> str:
    return re.sub(r"([\[\]\\])", r"\\\1", text)


def _venue_and_year(bookmark: Bookmark) -> str:
    """ "ICLR 2025"; the year is added when the venue does not say it."""
    venue = bookmark.venue or ""
    year = str(bookmark.year) if bookmark.year else ""
    if year and year in venue:
        return venue
    return ", ".join(part for part in (venue, year) if part)


def arxiv_of(bookmark: Bookmark) -> str | None:
    """The arXiv id of the bookmark's arXiv page link, if it has one."""
    for link in bookmark.links:
        match = _ARXIV_ABS.match(link.url)
        if match and link.kind in ("arxiv", "paper"):
            return match.group(1)
    return None


def bibtex_entry(bookmark: Bookmark) -> str:
    """An @inproceedings entry (@misc without a venue) that BibTeX parsers accept: title, every
    author, booktitle, year, url, and eprint with archivePrefix for an arXiv paper."""
    kind = "inproceedings" if bookmark.venue else "misc"
    fields: list[tuple[str, str]] = [("title", display_label(bookmark, short=True))]
    if bookmark.authors:
        fields.append(("author", " and ".join(bookmark.authors)))
    if bookmark.venue:
        fields.append(("booktitle", bookmark.venue))
    if bookmark.year:
        fields.append(("year", str(bookmark.year)))
    if url_of(bookmark):
        fields.append(("url", url_of(bookmark)))
    arxiv = arxiv_of(bookmark)
    if arxiv:
        fields += [("eprint", arxiv), ("archivePrefix", "arXiv")]
    if bookmark.note:
        fields.append(("note", bookmark.note))
    if bookmark.abstract:
        fields.append(("abstract", bookmark.abstract))
    body = ",\n".join(f"  {name} = {{{_bibtex_value(name, value)}}}" for name, value in fields)
    return f"@{kind}{{{_citation_key(bookmark)},\n{body}\n}}\n"


def _citation_key(bookmark: Bookmark) -> str:
    surname = bookmark.authors[0].split()[-1] if bookmark.authors else (bookmark.name or "paper")
    words = re.findall(r"[A-Za-z0-9]+", _ascii(display_label(bookmark)))
    word = next((w for w in words if w.lower() not in {"a", "an", "the", "on", "of", "for"}), "")
    key = f"{_ascii(surname)}{bookmark.year or ''}{word}".lower()
    return re.sub(r"[^a-z0-9]", "", key) + "_" + re.sub(r"[^A-Za-z0-9]", "", bookmark.paper_id)[:8]


def _ascii(text: str) -> str:
    return unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode()


def _bibtex_value(name: str, value: str) -> str:
    if name == "url":  # URLs stay verbatim; only braces, which would end the field, are encoded
        return value.replace("{", "%7B").replace("}", "%7D")
    return _bibtex_escape(value)


def _bibtex_escape(value: str) -> str:
    value = " ".join(value.split())
    value = value.replace("\\", "\\textbackslash ")
    value = re.sub(r"([{}%&#_$])", r"\\\1", value)
    return value.replace("~", "\\textasciitilde ").replace("^", "\\textasciicircum ")


def _csv(bookmarks: Sequence[Bookmark]) -> str:
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=CSV_FIELDS, lineterminator="\n")
    writer.writeheader()
    for b in bookmarks:
        writer.writerow(
            {
                "id": b.paper_id,
                "headline": b.headline,
                "name": b.name or "",
                "title": b.title or "",
                "authors": "; ".join(b.authors),
                "venue": b.venue or "",
                "year": b.year or "",
                "url": url_of(b),
                "note": b.note,
                "tags": "; ".join(b.tags),
            }
        )
    return buffer.getvalue()


def _to_record(b: Bookmark) -> dict[str, Any]:
    return {
        "id": b.paper_id,
        "headline": b.headline,
        "name": b.name,
        "title": b.title,
        "authors": list(b.authors),
        "venue": b.venue,
        "year": b.year,
        "links": link_records(b.links),
        "abstract": b.abstract,
        "abstract_hash": b.abstract_hash,
        "note": b.note,
        "tags": list(b.tags),
        "created_at": b.created_at,
    }


def parse_json_export(text: str, source: str = "input") -> list[Bookmark]:
    """Bookmarks from a JSON export (as written by export(..., 'json')). Raises BookmarkImportError."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as error:
        raise BookmarkImportError(f"{source}: malformed JSON at line {error.lineno}") from None
    records = data.get("bookmarks") if isinstance(data, dict) else data
    if not isinstance(records, list):
        raise BookmarkImportError(
            f'{source}: expected {{"bookmarks": [...]}} as written by `bookmarks export --format json`'
        )
    bookmarks = []
    for number, record in enumerate(records, 1):
        if not isinstance(record, dict) or not isinstance(record.get("id"), str) or not record["id"]:
            raise BookmarkImportError(f"{source}: bookmark {number} has no id")
        bookmarks.append(_from_record(record))
    return bookmarks


def _from_record(r: dict[str, Any]) -> Bookmark:
    def text(key: str) -> str | None:
        value = r.get(key)
        return value if isinstance(value, str) and value else None

    def strings(key: str) -> tuple[str, ...]:
        value = r.get(key)
        return tuple(v for v in value if isinstance(v, str)) if isinstance(value, list) else ()

    links = links_from_records(r.get("links"))
    year = r.get("year")
    created = r.get("created_at")
    return Bookmark(
        paper_id=r["id"],
        headline=text("headline") or text("title") or r["id"],
        venue=text("venue"),
        name=text("name"),
        title=text("title"),
        authors=strings("authors"),
        year=year if isinstance(year, int) else None,
        links=links,
        abstract=text("abstract") or "",
        abstract_hash=text("abstract_hash"),
        note=text("note") or "",
        tags=strings("tags"),
        created_at=float(created) if isinstance(created, (int, float)) else None,
    )


def write_atomic(path: Path, text: str) -> None:
    """Write a file so that it is either the old or the new content, never half of one."""
    path = Path(path)
    handle, temporary = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent or ".")
    try:
        with os.fdopen(handle, "w", encoding="utf-8", newline="") as file:
            file.write(text)
            file.flush()
            os.fsync(file.fileno())
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
