"""JSON and JSON Lines paper records (paperlists style: id, title, abstract, author, status, site, ...)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from search.corpus.formats import common, facts
from search.corpus.formats.common import CorpusError
from search.corpus.formats.openreview import is_note, paper_from_note
from search.models import Paper
from search.untrusted import MalformedJSON, load_json, shown

_WRAPPERS = ("papers", "notes", "records", "items", "data")


def parse_json(path: Path, text: str) -> tuple[list[Paper], int, str | None]:
    records = _records(path, text)
    common.check_count(path, len(records), "records")
    venue_default = common.venue_from_filename(path)
    return common.collect(path, (_paper(record, path, venue_default) for record in records), "records", venue_default)


def _paper(record: Any, path: Path, venue_default: str | None) -> Paper | None:
    if not isinstance(record, dict):
        return None
    if is_note(record):
        return paper_from_note(record, path, venue_default)
    return paper_from_record(record, path, venue_default)


def paper_from_record(record: dict[str, Any], path: Path, venue_default: str | None) -> Paper | None:
    """A paper from a flat record; None without an abstract, or for a placeholder record."""
    get = record.get
    abstract = common.abstract(get("abstract"))
    if abstract is None or facts.is_placeholder(get):
        return None
    text = common.text
    venue = text(get("venue")) or text(get("conference")) or venue_default
    paper_year = common.year(get("year")) or common.year_of(venue)
    site = text(get("site")) or text(get("url"))
    pdf = text(get("pdf"))
    authors = common.names(get("authors", get("author")))
    rating, citations, known = facts.read_later(record, len(authors))
    # Positionally, in Paper's field order: a record is made 100,000 times in a big library's first
    # start, and a named tuple's keyword arguments cost a fifth of making it.
    return tuple.__new__(
        Paper,
        (
            text(get("id")) or common.stable_id(abstract),  # id
            abstract,
            common.venue_with_year(venue, paper_year),  # venue
            common.title(get("title")),
            authors,
            common.names(get("keywords")),
            text(get("status")),
            text(get("track")),
            paper_year,  # year
            site,
            pdf,
            common.addresses(get("github") or get("code")),  # github
            common.addresses(get("project")),
            _arxiv(record, site, pdf),
            str(path),  # source
            0,  # position
            (),  # also_in
            False,  # title_added
            rating,
            citations,
            known,  # facts: a LaterFacts, which Paper.facts makes Facts when first read
        ),
    )


_IN_ORDER = (
    *("id", "abstract", "venue", "title", "authors", "keywords", "status", "track", "year", "site", "pdf", "github"),
    *("project", "arxiv", "source", "position", "also_in", "title_added", "rating", "citations", "facts"),
)
assert Paper._fields == _IN_ORDER, "paper_from_record makes a Paper's fields in this order"


def _arxiv(record: dict[str, Any], site: str | None, pdf: str | None) -> str | None:
    """From an arxiv / arxiv_id / eprint field, else an arxiv.org paper page or PDF."""
    get = record.get
    for value in (get("arxiv"), get("arxiv_id"), get("eprint"), site, pdf):
        if value is not None:
            found = common.arxiv_id(value)
            if found:
                return found
    return None


def _records(path: Path, text: str) -> list[Any]:
    try:
        data = load_json(text)
    except MalformedJSON as first_error:
        if first_error.line is None:  # nested too deep, a huge number, NaN: not JSON Lines either
            raise CorpusError(f"{shown(path)}: {first_error}") from None
        data = _json_lines(path, text, first_error.line)
    if isinstance(data, dict):
        for key in _WRAPPERS:
            if isinstance(data.get(key), list):
                return data[key]
        if "abstract" in data or is_note(data):
            return [data]
        raise CorpusError(f"{shown(path)}: JSON object has no list of papers (expected one of: {', '.join(_WRAPPERS)})")
    if not isinstance(data, list):
        raise CorpusError(f"{shown(path)}: JSON must be a list of paper records, not {type(data).__name__}")
    return data


def _json_lines(path: Path, text: str, first_error_line: int) -> list[Any]:
    records: list[Any] = []
    for number, line in enumerate(text.split("\n"), 1):
        if not line.strip():
            continue
        if len(records) >= common.MAX_LIST_PAPERS:  # one too many: refused before it is parsed
            raise CorpusError(common.too_many(path, "records"))
        try:
            records.append(load_json(line))
        except MalformedJSON as error:
            if error.line is None:
                raise CorpusError(f"{shown(path)}: {error} at line {number}") from None
            where = f"line {first_error_line}" if not records else f"line {number}"
            raise CorpusError(f"{shown(path)}: malformed JSON at {where}") from None
    return records
