"""Corpus files -> Papers: the bundled paragraph lists and JSON / JSON Lines paper records."""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass, replace
from importlib import resources
from pathlib import Path
from typing import Any, Iterable, Sequence

from search.models import Paper
from search.sanitize import sanitize, sanitize_line

MAX_CORPUS_BYTES = 64 * 1024 * 1024
"""Larger files are refused with a clear message rather than read into memory."""

_VENUE_NAMES = {"nips": "NeurIPS", "neurips": "NeurIPS", "colm": "COLM", "www": "WWW"}
_VENUE_YEAR = re.compile(r"\b([A-Za-z]{2,12})[\s_\-']*((?:19|20)\d\d)\b")
_FILENAME_VENUE = re.compile(r"^([A-Za-z]{2,12})[_\-]?((?:19|20)\d\d)")
_BLANK_LINES = re.compile(r"\n[ \t]*\n\s*")


class CorpusError(Exception):
    """A corpus file that cannot be used; the message is one line naming the file and problem."""


@dataclass(frozen=True)
class Corpus:
    """Papers from one or more files, in corpus order, with counts of what was left out."""

    name: str
    papers: tuple[Paper, ...]
    sources: tuple[str, ...]
    skipped: int = 0
    """Records without an abstract."""
    duplicates: int = 0
    """Papers whose id was already loaded (kept once)."""


def bundled_paths() -> list[Path]:
    """The ICLR 2025 list files shipped in assets/."""
    folder = resources.files("assets")
    return sorted(Path(str(entry)) for entry in folder.iterdir() if entry.name.endswith(".txt"))


def load_corpus(paths: Sequence[str | Path] | None = None) -> Corpus:
    """Load and merge corpus files (default: the bundled list). Raises CorpusError."""
    files = [Path(p) for p in paths] if paths else bundled_paths()
    papers: list[Paper] = []
    seen: set[str] = set()
    skipped = duplicates = 0
    venues: list[str] = []
    for path in files:
        records, file_skipped, venue = _read_file(path)
        skipped += file_skipped
        if venue and venue not in venues:
            venues.append(venue)
        for paper in records:
            if paper.id in seen:
                duplicates += 1
                continue
            seen.add(paper.id)
            papers.append(replace(paper, position=len(papers)))
    names = venues or [p.stem for p in files]
    name = ", ".join(names) if len(names) <= 3 else f"{names[0]}, {names[1]} and {len(names) - 2} more"
    return Corpus(name, tuple(papers), tuple(str(p) for p in files), skipped, duplicates)


def stable_id(abstract: str) -> str:
    """A short hash of the abstract with whitespace and case folded: survives reloads and reordering."""
    normalised = " ".join(sanitize(abstract).split()).casefold()
    return hashlib.sha256(normalised.encode("utf-8")).hexdigest()[:12]


def _read_file(path: Path) -> tuple[list[Paper], int, str | None]:
    text = _read_text(path)
    stripped = text.lstrip()
    if stripped[:1] in "[{":
        return _parse_json(path, text)
    papers, venue = _parse_list(path, text)
    return papers, 0, venue


def _read_text(path: Path) -> str:
    try:
        if path.is_dir():
            raise CorpusError(f"{path}: is a directory, not a corpus file")
        size = path.stat().st_size
        if size > MAX_CORPUS_BYTES:
            raise CorpusError(f"{path}: {size / 1e6:.0f} MB is larger than the {MAX_CORPUS_BYTES // 2**20} MiB limit")
        data = path.read_bytes()
    except FileNotFoundError:
        raise CorpusError(f"{path}: no such file") from None
    except PermissionError:
        raise CorpusError(f"{path}: permission denied") from None
    except OSError as error:
        raise CorpusError(f"{path}: cannot read ({error.strerror or error})") from None
    if b"\x00" in data[:4096]:
        raise CorpusError(f"{path}: binary file, not a text corpus")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        raise CorpusError(f"{path}: not UTF-8 text (bad byte at offset {error.start})") from None
    if not text.strip():
        raise CorpusError(f"{path}: empty file")
    return text.replace("\r\n", "\n").replace("\r", "\n")


def _parse_list(path: Path, text: str) -> tuple[list[Paper], str | None]:
    """Header line naming the list, then one abstract per blank-line-separated paragraph."""
    paragraphs = [p.strip() for p in _BLANK_LINES.split(text.strip()) if p.strip()]
    venue = None
    if paragraphs and _is_header(paragraphs[0]):
        venue = _venue_from_text(paragraphs.pop(0))
    venue = venue or _venue_from_filename(path)
    papers = [
        Paper(id=stable_id(p), abstract=_trim_lines(p), venue=venue, year=_year(venue), source=str(path))
        for p in paragraphs
    ]
    if not papers:
        raise CorpusError(f"{path}: no abstracts found")
    return papers, venue


def _is_header(paragraph: str) -> bool:
    return "\n" not in paragraph and len(paragraph) <= 120 and not paragraph.endswith(".")


def _trim_lines(paragraph: str) -> str:
    return "\n".join(line.rstrip() for line in paragraph.split("\n"))


def _parse_json(path: Path, text: str) -> tuple[list[Paper], int, str | None]:
    records = _json_records(path, text)
    venue_default = _venue_from_filename(path)
    papers: list[Paper] = []
    skipped = 0
    for record in records:
        paper = _paper_from_record(record, path, venue_default) if isinstance(record, dict) else None
        if paper is None:
            skipped += 1
        else:
            papers.append(paper)
    if not papers:
        raise CorpusError(f"{path}: no records with an abstract ({skipped} skipped)")
    venues = {p.venue for p in papers if p.venue}
    return papers, skipped, venues.pop() if len(venues) == 1 else venue_default


def _json_records(path: Path, text: str) -> list[Any]:
    try:
        data = json.loads(text)
    except json.JSONDecodeError as first_error:
        data = _json_lines(path, text, first_error)
    if isinstance(data, dict):
        for key in ("papers", "notes", "records", "items"):
            if isinstance(data.get(key), list):
                return data[key]
        return [data]
    if not isinstance(data, list):
        raise CorpusError(f"{path}: JSON must be a list of paper records, not {type(data).__name__}")
    return data


def _json_lines(path: Path, text: str, first_error: json.JSONDecodeError) -> list[Any]:
    records = []
    for number, line in enumerate(text.split("\n"), 1):
        if not line.strip():
            continue
        try:
            records.append(json.loads(line))
        except json.JSONDecodeError:
            error = first_error if len(records) == 0 else None
            where = f"line {error.lineno}" if error else f"line {number}"
            raise CorpusError(f"{path}: malformed JSON at {where}") from None
    return records


def _paper_from_record(record: dict[str, Any], path: Path, venue_default: str | None) -> Paper | None:
    abstract = record.get("abstract")
    if not isinstance(abstract, str) or not abstract.strip():
        return None
    venue = _text(record.get("venue")) or _text(record.get("conference")) or venue_default
    year = _int(record.get("year")) or _year(venue)
    if venue and year and str(year) not in venue:
        venue = f"{venue} {year}"
    record_id = _text(record.get("id"))
    return Paper(
        id=record_id or stable_id(abstract),
        abstract=abstract.strip(),
        venue=venue,
        title=_text(record.get("title")),
        authors=_names(record.get("authors", record.get("author"))),
        keywords=_names(record.get("keywords")),
        status=_text(record.get("status")),
        track=_text(record.get("track")),
        year=year,
        site=_text(record.get("site")) or _text(record.get("url")),
        pdf=_text(record.get("pdf")),
        github=_text(record.get("github")),
        project=_text(record.get("project")),
        source=str(path),
    )


def _text(value: Any) -> str | None:
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, (int, float)):
        value = str(value)
    if not isinstance(value, str):
        return None
    value = sanitize_line(value)
    return value or None


def _int(value: Any) -> int | None:
    try:
        number = int(str(value).strip())
    except (TypeError, ValueError):
        return None
    return number if 1900 <= number <= 2200 else None


def _names(value: Any) -> tuple[str, ...]:
    if isinstance(value, str):
        parts: Iterable[Any] = value.split(";")
    elif isinstance(value, list):
        parts = value
    else:
        return ()
    names = (_text(part.get("name") if isinstance(part, dict) else part) for part in parts)
    return tuple(name for name in names if name)


def _venue_from_text(header: str) -> str | None:
    match = _VENUE_YEAR.search(header)
    return _venue(match.group(1), match.group(2)) if match else sanitize_line(header) or None


def _venue_from_filename(path: Path) -> str | None:
    match = _FILENAME_VENUE.match(path.stem)
    return _venue(match.group(1), match.group(2)) if match else None


def _venue(name: str, year: str) -> str:
    return f"{_VENUE_NAMES.get(name.lower(), name.upper())} {year}"


def _year(venue: str | None) -> int | None:
    match = re.search(r"(?:19|20)\d\d", venue or "")
    return int(match.group()) if match else None
