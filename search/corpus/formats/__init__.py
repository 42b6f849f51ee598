"""Corpus file formats, told apart by content (not by extension): JSON / JSON Lines records
(paperlists style or OpenReview notes), BibTeX, CSV with a header, and the bundled paragraph list."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from search.corpus.formats.bibtex import looks_like_bibtex, parse_bibtex
from search.corpus.formats.common import CorpusError
from search.corpus.formats.csv_list import looks_like_csv, parse_csv
from search.corpus.formats.paragraphs import parse_paragraphs
from search.corpus.formats.records import parse_json
from search.models import Paper

__all__ = ["CorpusError", "Parsed", "detect", "parse"]


@dataclass(frozen=True)
class Parsed:
    papers: list[Paper]
    skipped: int
    """Records without an abstract (or unreadable entries)."""
    venue: str | None
    format: str
    ends: list[bytes | None] | None = None
    """Each paper's `merge.abstract_ends`, when known (the cache of parsed files keeps them, so a
    merge need not read abstracts it keeps on disk); None: computed when merged."""


def detect(text: str) -> str:
    """json, bibtex, csv or list."""
    start = text.lstrip()[:1]
    if start in "[{":
        return "json"
    if looks_like_bibtex(text):
        return "bibtex"
    if looks_like_csv(text):
        return "csv"
    return "list"


def parse(path: Path, text: str) -> Parsed:
    kind = detect(text)
    if kind == "json":
        return Parsed(*parse_json(path, text), "json")
    if kind == "bibtex":
        return Parsed(*parse_bibtex(path, text), "bibtex")
    if kind == "csv":
        return Parsed(*parse_csv(path, text), "csv")
    papers, venue = parse_paragraphs(path, text)
    return Parsed(papers, 0, venue, "list")
