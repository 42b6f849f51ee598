"""CSV (or TSV) with a header row: title, abstract, authors, url, ... in any case, common synonyms."""

from __future__ import annotations

import csv
import io
from pathlib import Path

from search.corpus.formats import common, facts
from search.corpus.formats.common import CorpusError
from search.models import Paper
from search.untrusted import shown

COLUMNS = {
    "abstract": ("abstract", "summary", "paper abstract", "description"),
    "title": ("title", "paper title", "paper", "name"),
    "authors": ("authors", "author", "author names", "creators", "by"),
    "site": ("url", "link", "site", "page", "paper url", "forum", "openreview", "html"),
    "pdf": ("pdf", "pdf url", "pdf link"),
    "doi": ("doi",),
    "arxiv": ("arxiv", "arxiv id", "eprint"),
    "venue": ("venue", "conference", "journal", "booktitle", "proceedings"),
    "year": ("year", "date", "published"),
    "keywords": ("keywords", "keyword", "tags", "topics", "subjects"),
    "status": ("status", "decision", "presentation", "type"),
    "github": ("github", "code", "code url", "repository", "repo"),
    "id": ("id", "paper id", "key", "uid"),
}
_DELIMITERS = ",\t;|"


def looks_like_csv(text: str) -> bool:
    """A header row with an abstract column, split by one of the usual delimiters."""
    header = text.split("\n", 1)[0].lower()
    return any(delimiter in header for delimiter in _DELIMITERS) and any(name in header for name in COLUMNS["abstract"])


def parse_csv(path: Path, text: str) -> tuple[list[Paper], int, str | None]:
    header = text.split("\n", 1)[0]
    delimiter = max(_DELIMITERS, key=header.count)
    rows = csv.reader(io.StringIO(text), delimiter=delimiter)
    try:
        header_row = next(rows)
        columns = _columns(header_row)
    except (StopIteration, csv.Error) as error:
        raise CorpusError(f"{shown(path)}: unreadable CSV header ({error})") from None
    if "abstract" not in columns:
        raise CorpusError(f"{shown(path)}: CSV has no abstract column (looked for: {', '.join(COLUMNS['abstract'])})")
    venue_default = common.venue_from_filename(path)
    filled = (row for row in rows if any(cell.strip() for cell in row))  # blank rows are not papers
    try:
        return common.collect(
            path,
            (_paper(row, columns, _named(header_row), path, venue_default) for row in filled),
            "rows",
            venue_default,
        )
    except csv.Error as error:
        raise CorpusError(f"{shown(path)}: malformed CSV at line {rows.line_num} ({error})") from None


def _columns(header: list[str]) -> dict[str, int]:
    """Our field -> column number; the first matching column wins."""
    found: dict[str, int] = {}
    normalised = [" ".join(name.strip().lower().replace("_", " ").split()) for name in header]
    for field, synonyms in COLUMNS.items():
        for synonym in synonyms:
            if synonym in normalised and normalised.index(synonym) not in found.values():
                found[field] = normalised.index(synonym)
                break
    return found


_FACT_ALIASES = {"gs_citation": ("citations", "cited by"), "tldr": ("tl;dr",), "primary_area": ("primary area", "area")}


def _named(header: list[str]) -> dict[str, int]:
    """Each column by its own name, case-folded, for the paperlists fields (rating, aff, ...)."""
    named: dict[str, int] = {}
    for at, name in enumerate(header):
        named.setdefault(name.strip().lower(), at)
    for field, aliases in _FACT_ALIASES.items():
        for alias in aliases:
            if field not in named and alias in named:
                named[field] = named[alias]
    return named


def _paper(
    row: list[str], columns: dict[str, int], named: dict[str, int], path: Path, venue_default: str | None
) -> Paper | None:
    def get(field: str) -> str | None:
        index = columns.get(field)
        return common.text(row[index]) if index is not None and index < len(row) else None

    def cell(name: str) -> str | None:
        index = named.get(name)
        return row[index] if index is not None and index < len(row) else None

    index = columns["abstract"]
    abstract = common.abstract(row[index]) if index < len(row) else None
    if abstract is None or facts.is_placeholder(cell):
        return None
    venue = get("venue") or venue_default
    paper_year = common.year((get("year") or "")[:4]) or common.year_of(venue)
    status = get("status")
    doi, arxiv = get("doi"), get("arxiv")
    authors = get("authors") or ""
    separators = ";" if ";" in authors else ","
    if " and " in authors and ";" not in authors:
        authors = authors.replace(" and ", ";" if separators == ";" else ",")
    names = common.names(authors, separators)
    rating, citations, known = facts.read(cell, len(names))
    return Paper(
        id=get("id") or common.stable_id(abstract),
        abstract=abstract,
        venue=common.venue_with_year(venue, paper_year),
        title=common.title(get("title")),
        authors=names,
        keywords=common.names(get("keywords") or "", ";,"),
        status=status,
        year=paper_year,
        site=get("site")
        or (f"https://doi.org/{doi}" if doi else None)
        or (f"https://arxiv.org/abs/{arxiv}" if arxiv else None),
        pdf=get("pdf"),
        github=common.addresses(get("github")),
        arxiv=common.arxiv_id(arxiv) or common.arxiv_id(get("site")) or common.arxiv_id(get("pdf")),
        source=str(path),
        rating=rating,
        citations=citations,
        facts=known,
    )
