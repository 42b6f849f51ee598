"""What every corpus format shares: the error type and turning loose field values into Paper fields.

This is where text from a corpus file enters: every string field of a Paper is built through
`text`, `names`, `title`, `from_latex`, `addresses` or `abstract` here, which sanitise it (no
escape sequences, control characters or lone surrogates), and every message naming the file shows
it with `shown`."""

from __future__ import annotations

import hashlib
import re
from collections import deque
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from search.errors import CorpusError
from search.models import Paper
from search.text.links import field_urls
from search.text.sanitize import sanitize, sanitize_line
from search.untrusted import shown

VENUE_LABELS = {
    "nips": "NeurIPS",
    "neurips": "NeurIPS",
    "corl": "CoRL",
    "automl": "AutoML",
    "siggraphasia": "SIGGRAPH Asia",
    "acmmm": "ACM MM",
}
"""Venues as they write their names, where that is not the upper-cased name (CoRL, not CORL); one
table for the venues read from file names and the catalogue of lists to download."""
_VENUE_YEAR = re.compile(r"\b([A-Za-z]{2,12})[\s_\-']*((?:19|20)\d\d)\b")
_FILENAME_VENUE = re.compile(r"^([A-Za-z]{2,12})[_\-]?((?:19|20)\d\d)")
STATUSES = ("oral", "spotlight", "poster")
"""The presentation kinds a longer decision, venue or track names ("Accept (Oral)", "ICLR 2025
Spotlight"). They are not the only statuses: any other ("Reject", "Workshop", "Withdraw") is taken
from the data as it is (see `status_key`)."""
_NOT_IN_KEY = re.compile(r"[\W_]+")
MAX_LIST_PAPERS = 100_000
"""The most records (papers, with an abstract or not) one list may hold; a file with more is refused
before its papers are made. The largest real lists hold about 25,000 (a conference's every
submission); four times that leaves room for their growth, while 1,000,000 tiny papers (64 MiB
holds that many) took 450 s and 1.3 GB to index and 16 s a search: a list that big is an attack or a
mistake. A library of several lists may hold more papers than this in all."""


def check_count(path: Path, count: int, what: str) -> None:
    """Refuse a file of more than MAX_LIST_PAPERS records, counted before any paper is made."""
    if count > MAX_LIST_PAPERS:
        raise CorpusError(too_many(path, what))


def too_many(path: Path, what: str) -> str:
    return f"{shown(path)}: more than {MAX_LIST_PAPERS:,} {what}, the most one list may hold"


def collect(path: Path, candidates: Iterable[Paper | None], what: str, venue_default: str | None, skipped: int = 0):
    """(papers, how many were skipped, the file's venue) from a format's candidates, None for an
    entry without an abstract. A file with no paper at all is an error, and so is one of more than
    MAX_LIST_PAPERS records (refused as soon as the one too many is reached)."""
    papers: list[Paper] = []
    check_count(path, skipped, what)
    for paper in candidates:
        if paper is None:
            skipped += 1
        else:
            papers.append(paper)
        if len(papers) + skipped > MAX_LIST_PAPERS:
            raise CorpusError(too_many(path, what))
    if not papers:
        raise CorpusError(f"{shown(path)}: no {what} with an abstract ({skipped} skipped)")
    venues = {paper.venue for paper in papers if paper.venue}
    return papers, skipped, venues.pop() if len(venues) == 1 else venue_default


def stable_id(abstract: str) -> str:
    """A short hash of the abstract with whitespace and case folded: survives reloads and reordering."""
    normalised = " ".join(sanitize(abstract).split()).casefold()
    return hashlib.sha256(normalised.encode("utf-8")).hexdigest()[:12]


_LATEX = re.compile(r"[\\$]")
_ARXIV_ID = r"(\d{4}\.\d{4,5}|[a-z][a-z.\-]*/\d{7})(?:v\d+)?"
_ARXIV_BARE = re.compile(rf"^(?:arxiv:\s*)?{_ARXIV_ID}$", re.I)
_ARXIV_URL = re.compile(rf"arxiv\.org/(?:abs|pdf)/{_ARXIV_ID}", re.I)
_FORUM_PAGE = re.compile(r"openreview\.net/(?:forum|pdf)/?\?", re.I)
_FORUM_ID = re.compile(r"id=([A-Za-z0-9_\-]+)", re.I)
_LATER_FORUM_ID = re.compile(r"&id=([A-Za-z0-9_\-]+)", re.I)
_QUERY_END = re.compile(r"[#\s]")


def arxiv_id(value: Any) -> str | None:
    """An arXiv identifier without its version, from an id ("2410.23918v2", "arXiv:2410.23918",
    "cs/0112017") or an arxiv.org abs or PDF address; None for anything else."""
    plain = text(value)
    if not plain:
        return None
    match = _ARXIV_BARE.match(plain) or _ARXIV_URL.search(plain)
    return match.group(1) if match else None


def openreview_forum(url: str | None) -> str | None:
    """The forum id of an openreview.net forum or PDF address ("...forum?id=X" -> "X"; of several
    `id=` in its query, the last). Linear in the text, whatever it holds: each query (up to a `#` or
    a space) is searched once, however many forum addresses start inside it (one regular expression
    for the whole took seconds on a field of a few thousand "openreview.net/forum?")."""
    text = url or ""
    searched_to = -1  # the end of the query already searched for "&id=": it holds none
    for page in _FORUM_PAGE.finditer(text):
        start = page.end()
        if start >= searched_to:
            end_found = _QUERY_END.search(text, start)
            searched_to = end_found.start() if end_found else len(text)
            last = deque(_LATER_FORUM_ID.finditer(text, start, searched_to), maxlen=1)
            if last:
                return last[0].group(1)
        first = _FORUM_ID.match(text, start)
        if first is not None:
            return first.group(1)
    return None


def title(value: Any) -> str | None:
    """A title as one line of plain text: LaTeX in it ("Top-$k$", "Schr\\"odinger") is converted."""
    plain = text(value)
    return from_latex(plain) if plain and _LATEX.search(plain) else plain


def from_latex(value: Any) -> str | None:
    """LaTeX source (braces, accents, math) as one line of plain text."""
    plain = text(value)
    if not plain:
        return None
    from search.text.markup import convert  # only fields written in LaTeX need the converter

    return text(convert(plain).text)


def abstract(value: Any) -> str | None:
    """An abstract's source, sanitised (newlines kept, ends stripped), or None when there is none."""
    if not isinstance(value, str):
        return None
    return sanitize(value).strip() or None


def text(value: Any) -> str | None:
    """A one-line string from a scalar field, or None."""
    if value.__class__ is not str:  # a string is the usual case (20 fields a paper, at every parse)
        if value is None or isinstance(value, bool):
            return None
        if isinstance(value, (int, float)):
            value = str(value)
        elif not isinstance(value, str):
            return None
    if value.isprintable():  # sanitize_line's own fast path, without its call (every field passes here)
        return " ".join(value.split()) or None
    return sanitize_line(value) or None


def addresses(value: Any) -> str | None:
    """The addresses in a link field (github, code, project), separated by spaces, or None: however
    the list wrote them (Markdown links, several URLs, no scheme; see `field_urls`)."""
    if value is None:  # most records have no such field
        return None
    return " ".join(field_urls(text(value))) or None


def year(value: Any) -> int | None:
    if value is None:  # most records have no year field: no exception raised and caught
        return None
    try:
        number = int(str(value).strip())
    except (TypeError, ValueError):
        return None
    return number if 1900 <= number <= 2200 else None


def names(value: Any, separators: str = ";") -> tuple[str, ...]:
    """Author or keyword names from a list (of strings or {"name": ...}) or a separated string."""
    if value.__class__ is str:
        parts: list[Any] = (
            value.split(separators) if len(separators) == 1 else re.split(f"[{re.escape(separators)}]", value)
        )
    elif isinstance(value, list):
        parts = value
    elif isinstance(value, str):
        return names(str(value), separators)
    else:
        return ()
    if all(part.__class__ is str for part in parts) and "".join(parts).isprintable():
        # The usual case (every name a printable string): what `text` makes of each, without a call each.
        found = [" ".join(part.split()) for part in parts]
        return tuple([name for name in found if name])
    found_names = (text(part.get("name") if isinstance(part, dict) else part) for part in parts)
    return tuple([name for name in found_names if name])


def status_of(*values: str | None) -> str | None:
    """oral / spotlight / poster, when one of the values says so (a decision, a venue, a track)."""
    for value in values:
        lowered = (value or "").lower()
        for status in STATUSES:
            if status in lowered:
                return status
    return None


def status_key(status: str | None, track: str | None = None) -> str | None:
    """The status a paper has for `status:` filters, lower-case: the presentation kind its status
    or track names (oral, spotlight, poster), else its status itself normalised ("Reject" -> reject,
    "Desk Reject" -> desk-reject); None when it has none."""
    return status_of(status, track) or normalised_status(status)


def normalised_status(value: str | None) -> str | None:
    """A status as `status:` reads it, from the data or as typed: case-folded, every run of spaces
    and punctuation one hyphen, so that it can be typed without quotes."""
    key = _NOT_IN_KEY.sub("-", (value or "").casefold()).strip("-")
    return key or None


def venue_with_year(venue: str | None, paper_year: int | None) -> str | None:
    if venue and paper_year and str(paper_year) not in venue:
        return f"{venue} {paper_year}"
    return venue


def venue_from_text(header: str) -> str | None:
    match = _VENUE_YEAR.search(header)
    return _venue(match.group(1), match.group(2)) if match else sanitize_line(header) or None


def venue_from_filename(path: Path) -> str | None:
    match = _FILENAME_VENUE.match(path.stem)
    return _venue(match.group(1), match.group(2)) if match else None


def year_of(venue: str | None) -> int | None:
    if not venue:
        return None
    found = _YEARS.get(venue, _YEARS)
    if found is _YEARS:  # a list's papers share a few venues: each searched once
        match = _YEAR.search(venue)
        found = int(match.group()) if match else None
        if len(_YEARS) >= 4096:
            _YEARS.clear()
        _YEARS[venue] = found
    return found  # type: ignore[return-value]


_YEAR = re.compile(r"(?:19|20)\d\d")
_YEARS: dict[str, int | None] = {}


def venue_label(name: str) -> str:
    """corl -> CoRL, iclr -> ICLR: a venue's short name as the venue writes it."""
    return VENUE_LABELS.get(name.lower(), name.upper())


def _venue(name: str, year_text: str) -> str:
    return f"{venue_label(name)} {year_text}"
