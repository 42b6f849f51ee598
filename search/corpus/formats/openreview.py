"""OpenReview notes, as the API returns them from /notes (v2: `content.<field>.value`; v1: plain values)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from search.corpus.formats import common, facts
from search.models import Paper

FORUM = "https://openreview.net/forum?id="
_NOTE_FIELDS = {"tldr": "TL;DR", "or_profile": "authorids", "bibtex": "_bibtex"}
"""paperlists field names (facts.read's) -> a note's content field of the same meaning."""
_GITHUB = re.compile(r"https?://github\.com/[^\s\"'<>)\]]+")


def is_note(record: dict[str, Any]) -> bool:
    return isinstance(record.get("content"), dict) and (
        "forum" in record or "invitations" in record or "invitation" in record or "id" in record
    )


def paper_from_note(note: dict[str, Any], path: Path, venue_default: str | None) -> Paper | None:
    content = note["content"]

    def field(name: str) -> Any:
        value = content.get(name)
        return value.get("value") if isinstance(value, dict) else value

    abstract = common.abstract(field("abstract"))
    if abstract is None or facts.is_placeholder(field):
        return None
    forum = common.text(note.get("forum")) or common.text(note.get("id"))
    venue_text = common.text(field("venue"))  # "ICLR 2025 Oral", "Submitted to ICLR 2025"
    decision = common.text(field("decision"))
    status = common.status_of(decision, venue_text)
    venue = _venue(venue_text) or venue_default
    paper_year = common.year_of(venue)
    pdf = common.text(field("pdf"))
    in_abstract = _GITHUB.search(abstract)  # a note without a code field often names its repository here
    github = common.addresses(field("code")) or common.addresses(field("github"))
    authors = common.names(field("authors"))
    rating, citations, known = facts.read(lambda name: field(_NOTE_FIELDS.get(name, name)), len(authors))
    return Paper(
        id=forum or common.stable_id(abstract),
        abstract=abstract,
        venue=venue,
        title=common.title(field("title")),
        authors=authors,
        keywords=common.names(field("keywords"), ";,"),
        status=status.capitalize() if status else decision,
        year=paper_year,
        site=FORUM + forum if forum else None,
        pdf=f"https://openreview.net{pdf}" if pdf and pdf.startswith("/") else pdf,
        github=github or (in_abstract.group().rstrip(".,;") if in_abstract else None),
        arxiv=common.arxiv_id(field("arxiv")) or common.arxiv_id(field("html")),
        source=str(path),
        rating=rating,
        citations=citations,
        facts=known,
    )


def _venue(value: str | None) -> str | None:
    """ "ICLR 2025 Oral" -> "ICLR 2025"; "Submitted to ICLR 2025" -> "ICLR 2025"."""
    if not value:
        return None
    value = re.sub(r"^(?:Submitted to|Under review (?:at|as a conference paper at))\s+", "", value, flags=re.I)
    value = re.sub(r"\s+(?:oral|spotlight|poster|notable[\w -]*|top[\w -]*%?)$", "", value, flags=re.I)
    return value.strip() or None
