"""The bundled list format: a header line naming the list, then one abstract per paragraph."""

from __future__ import annotations

import re
from pathlib import Path

from search.corpus.formats.common import (
    CorpusError,
    check_count,
    stable_id,
    venue_from_filename,
    venue_from_text,
    year_of,
)
from search.models import Paper
from search.text.sanitize import sanitize
from search.untrusted import shown

_BLANK_LINES = re.compile(r"\n[ \t]*\n\s*")


def parse_paragraphs(path: Path, text: str) -> tuple[list[Paper], str | None]:
    paragraphs = [p.strip() for p in _BLANK_LINES.split(text.strip()) if p.strip()]
    venue = None
    if paragraphs and _is_header(paragraphs[0]):
        venue = venue_from_text(paragraphs.pop(0))
    venue = venue or venue_from_filename(path)
    check_count(path, len(paragraphs), "abstracts")
    papers = [
        Paper(id=stable_id(p), abstract=_trim_lines(sanitize(p)), venue=venue, year=year_of(venue), source=str(path))
        for p in paragraphs
    ]
    if not papers:
        raise CorpusError(f"{shown(path)}: no abstracts found")
    return papers, venue


def _is_header(paragraph: str) -> bool:
    return "\n" not in paragraph and len(paragraph) <= 120 and not paragraph.endswith(".")


def _trim_lines(paragraph: str) -> str:
    return "\n".join(line.rstrip() for line in paragraph.split("\n"))
