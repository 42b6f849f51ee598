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
    abstract = common.abstract(record.get("abstract"))
    if abstract is None or facts.is_placeholder(record.get):
        return None
    venue = common.text(record.get("venue")) or common.text(record.get("conference")) or venue_default
    paper_year = common.year(record.get("year")) or common.year_of(venue)
    status = common.text(record.get("status"))
    site = common.text(record.get("site")) or common.text(record.get("url"))
    pdf = common.text(record.get("pdf"))
    authors = common.names(record.get("authors", record.get("author")))
    rating, citations, known = facts.read_later(record, len(authors))
    return Paper(
        id=common.text(record.get("id")) or common.stable_id(abstract),
        abstract=abstract,
        venue=common.venue_with_year(venue, paper_year),
        title=common.title(record.get("title")),
        authors=authors,
        keywords=common.names(record.get("keywords")),
        status=status,
        track=common.text(record.get("track")),
        year=paper_year,
        site=site,
        pdf=pdf,
        github=common.addresses(record.get("github") or record.get("code")),
        project=common.addresses(record.get("project")),
        arxiv=_arxiv(record, site, pdf),
        source=str(path),
        rating=rating,
        citations=citations,
        facts=known,  # type: ignore[arg-type]  # LaterFacts: Paper.facts makes them when first read
    )


def _arxiv(record: dict[str, Any], site: str | None, pdf: str | None) -> str | None:
    """From an arxiv / arxiv_id / eprint field, else an arxiv.org paper page or PDF."""
    for value in (record.get("arxiv"), record.get("arxiv_id"), record.get("eprint"), site, pdf):
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
