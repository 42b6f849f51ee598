"""Bookmarks out (BibTeX, Markdown, CSV, JSON) and back in (JSON), plus citations of one paper.

Both directions treat the text as untrusted. An import file is read through `search.untrusted` (size
limit, regular files only, bounded JSON) and every field of every record is checked and sanitised
where it enters: a record that cannot be used is skipped and counted, never stored. Every export
(and every citation copied to the clipboard) cleans each bookmark again first, so rows stored before
this check, or by another version, still never put an escape sequence or a lone surrogate in a file
or on a terminal. Each format then escapes what its readers would take for syntax: spreadsheet
formulas in CSV, links and block structure in Markdown, braces in BibTeX.
"""

from __future__ import annotations

import contextlib
import csv
import errno
import io
import json
import math
import os
import re
import secrets
import stat
import time
import unicodedata
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from search.errors import BookmarkImportError, ReaderError
from search.models import NO_FACTS, Bookmark, Link, Paper, link_records
from search.text.describe import display_label, primary_link
from search.text.links import safe_url
from search.text.sanitize import sanitize, sanitize_line
from search.untrusted import fix_surrogates, load_json, read_bytes, shown

FORMATS = ("bibtex", "markdown", "csv", "json", "ris")
MAX_IMPORT_BYTES = 64 * 1024 * 1024
"""The largest import file read (a JSON export of 10,000 bookmarks with abstracts is about 20 MB)."""
MAX_ID_CHARS = 1000
LINK_KINDS = frozenset({"code", "project", "paper", "pdf", "arxiv", "search", "link"})
YEARS = range(1000, 10000)

_ARXIV_ABS = re.compile(r"https?://arxiv\.org/abs/(\d{4}\.\d{4,5}|[a-z][a-z.\-]*/\d{7})(?:v\d+)?$")
_HASH = re.compile(r"[0-9a-f]{1,64}")
CSV_FIELDS = (
    *("id", "headline", "name", "title", "authors", "venue", "year", "url", "note", "tags"),
    *("status", "rating_avg", "ratings", "confidences", "citations", "institutions", "countries", "tldr", "area"),
)
"""The columns of a CSV export; those after `tags` come from the loaded paper (empty when its list
is not loaded or does not say)."""


class ExportError(ReaderError):
    """An export target that cannot be written: one line naming it and the problem."""


# -- cleaning: one place for every text field, used by import and by every export -------------------


def _line(value: object) -> str:
    """A one-line field (title, name, author, tag, label): text only, sanitised, whitespace folded."""
    return sanitize_line(fix_surrogates(value)) if isinstance(value, str) else ""


def _text(value: object) -> str:
    """A multi-line field (abstract, note): text only, sanitised, newlines kept."""
    return sanitize(fix_surrogates(value)).strip() if isinstance(value, str) else ""


def _lines(value: object, unique: bool = False) -> tuple[str, ...]:
    """A list of one-line strings (authors, tags): anything not text, or empty, is left out."""
    if not isinstance(value, (list, tuple)):
        return ()
    items = [item for item in map(_line, value) if item]
    return tuple(dict.fromkeys(items) if unique else items)


def _year(value: object) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, float) and math.isfinite(value) and value.is_integer():
        value = int(value)
    if isinstance(value, str) and value.strip().isdigit() and len(value.strip()) == 4:
        value = int(value.strip())
    return value if isinstance(value, int) and value in YEARS else None


def _created_at(value: object) -> float | None:
    """A plausible timestamp (after 1970, at most a day ahead), else now; None stays None (the store
    reads a missing time as now)."""
    if value is None:
        return None
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        try:
            seconds = float(value)
        except OverflowError:
            return time.time()
        if math.isfinite(seconds) and 0 < seconds < time.time() + 86400:
            return seconds
    return time.time()


def _links(value: object) -> tuple[Link, ...]:
    """http(s) links only, each with a one-line label (the URL when it has none) and a known kind."""
    links: list[Link] = []
    for item in value if isinstance(value, (list, tuple)) else ():
        url: object
        label: object
        kind: object
        if isinstance(item, Link):
            url, label, kind = item.url, item.label, item.kind
        elif isinstance(item, dict):
            url, label, kind = item.get("url"), item.get("label"), item.get("kind")
        else:
            continue
        clean_url = safe_url(fix_surrogates(url)) if isinstance(url, str) else None
        if clean_url is None or any(link.url == clean_url for link in links):
            continue
        clean_kind = _line(kind)
        links.append(Link(_line(label) or clean_url, clean_url, clean_kind if clean_kind in LINK_KINDS else "link"))
    return tuple(links)


def _usable_id(value: object) -> str | None:
    """An id is the bookmark's identity, so it is never altered: one with control characters, escape
    sequences, surrogates (or the U+FFFD a reader put in their place) or surrounding whitespace, or
    none at all, makes the record unusable."""
    if not isinstance(value, str) or not value or len(value) > MAX_ID_CHARS or "\ufffd" in value:
        return None
    return value if fix_surrogates(value) == value and sanitize_line(value) == value else None


def clean_bookmark(bookmark: Bookmark) -> Bookmark:
    """The bookmark with every field fit to print, store or export: no escape sequences, control or
    bidi characters, lone surrogates, non-http(s) links, implausible years or timestamps."""
    paper_id = _usable_id(bookmark.paper_id) or _line(bookmark.paper_id) or "?"
    title = _line(bookmark.title) or None
    name = _line(bookmark.name) or None
    abstract_hash = bookmark.abstract_hash if isinstance(bookmark.abstract_hash, str) else None
    created = bookmark.created_at
    return Bookmark(
        paper_id=paper_id,
        headline=_line(bookmark.headline) or title or name or paper_id,
        venue=_line(bookmark.venue) or None,
        name=name,
        title=title,
        authors=_lines(bookmark.authors),
        year=_year(bookmark.year),
        links=_links(bookmark.links),
        abstract=_text(bookmark.abstract),
        abstract_hash=abstract_hash if abstract_hash and _HASH.fullmatch(abstract_hash) else None,
        note=_text(bookmark.note),
        tags=_lines(bookmark.tags, unique=True),
        created_at=_created_at(created) if created is not None else None,
    )


# -- import -----------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Imported:
    """What an import file held: the usable bookmarks, and how many records were skipped and why."""

    bookmarks: tuple[Bookmark, ...]
    skipped: int = 0
    first_problem: str | None = None
    """Why the first skipped record was skipped ("bookmark 3 has no id")."""


def read_bookmark_file(path: str | Path) -> Imported:
    """The bookmarks of an import file (as written by `export(..., "json")`). A file that cannot be
    used at all raises a ReaderError with one line; bad records in a good file are skipped and counted."""
    data = read_bytes(path, limit=MAX_IMPORT_BYTES, what="bookmarks file", error=BookmarkImportError)
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as problem:
        raise BookmarkImportError(f"{shown(path)}: not UTF-8 text (bad byte at offset {problem.start})") from None
    return parse_bookmarks(text, shown(path))


def parse_bookmarks(text: str, source: str = "input") -> Imported:
    """Bookmarks from the text of a JSON export. Raises BookmarkImportError (one line) for a document
    that is not one, or one whose every record is unusable."""
    data = load_json(text, source=source, error=BookmarkImportError)
    records = data.get("bookmarks") if isinstance(data, dict) else data
    if not isinstance(records, list):
        raise BookmarkImportError(
            f'{source}: expected {{"bookmarks": [...]}} as written by `bookmarks export --format json`'
        )
    bookmarks: list[Bookmark] = []
    problems: list[str] = []
    for number, record in enumerate(records, 1):
        problem = _record_problem(record)
        if problem:
            problems.append(f"bookmark {number} {problem}")
            continue
        bookmarks.append(_from_record(record))
    if problems and not bookmarks:
        count = f"{len(problems)} bad record{'s' if len(problems) != 1 else ''}"
        raise BookmarkImportError(f"{source}: no bookmark could be imported ({count}; {problems[0]})")
    return Imported(tuple(bookmarks), len(problems), problems[0] if problems else None)


def parse_json_export(text: str, source: str = "input") -> list[Bookmark]:
    """The usable bookmarks of a JSON export (see parse_bookmarks). Raises BookmarkImportError."""
    return list(parse_bookmarks(text, source).bookmarks)


def _record_problem(record: object) -> str | None:
    if not isinstance(record, dict):
        return "is not an object"
    if "id" not in record or record["id"] in ("", None):
        return "has no id"
    if _usable_id(record["id"]) is None:
        return "has an unusable id (not text, or with control characters)"
    return None


def _from_record(r: dict[str, Any]) -> Bookmark:
    """A record's fields, each of the wrong type left out (see clean_bookmark for the rest)."""
    title = r.get("title")
    return clean_bookmark(
        Bookmark(
            paper_id=r["id"],
            headline=_line(r.get("headline")) or _line(title),
            venue=_line(r.get("venue")) or None,
            name=_line(r.get("name")) or None,
            title=_line(title) or None,
            authors=_lines(r.get("authors")),
            year=_year(r.get("year")),
            links=_links(r.get("links")),
            abstract=_text(r.get("abstract")),
            abstract_hash=r["abstract_hash"] if isinstance(r.get("abstract_hash"), str) else None,
            note=_text(r.get("note")),
            tags=_lines(r.get("tags"), unique=True),
            created_at=_created_at(r.get("created_at")),
        )
    )


# -- export -----------------------------------------------------------------------------------------


def export(bookmarks: Sequence[Bookmark], fmt: str, papers: Mapping[str, Paper] | None = None) -> str:
    """The bookmarks in one format; the text holds no escape sequence, control character or lone
    surrogate, whatever the bookmarks hold. `papers` (the loaded papers by id) add what the lists
    say: the venue's own BibTeX entry, and the status, ratings, citations, institutions,
    countries, TL;DR and area in CSV and JSON."""
    clean = [clean_bookmark(b) for b in bookmarks]
    found = papers or {}
    if fmt == "bibtex":
        text = "\n".join(_venue_entry(found.get(b.paper_id)) or _bibtex_entry(b) for b in clean)
    elif fmt == "markdown":
        text = "".join(f"- {_markdown_citation(b)}{_markdown_note(b.note)}\n" for b in clean)
    elif fmt == "csv":
        text = _csv(clean, found)
    elif fmt == "json":
        records = [
            {**bookmark_record(b), **paper_facts(found.get(b.paper_id))} if papers is not None else bookmark_record(b)
            for b in clean
        ]
        text = json.dumps({"bookmarks": records}, ensure_ascii=False, indent=2) + "\n"
    elif fmt == "ris":
        text = "".join(_ris_entry(b, found.get(b.paper_id)) for b in clean)
    else:
        raise ValueError(f"unknown format {fmt!r}; choose one of {', '.join(FORMATS)}")
    return fix_surrogates(text)


def url_of(bookmark: Bookmark) -> str:
    return primary_link(bookmark.links).url if bookmark.links else ""


def markdown_citation(bookmark: Bookmark) -> str:
    """[title](url). Authors. Venue, with the characters Markdown would misread escaped; a paper
    without an http(s) link is named without a link."""
    return fix_surrogates(_markdown_citation(clean_bookmark(bookmark)))


def _markdown_citation(bookmark: Bookmark) -> str:
    text = _markdown_escape(display_label(bookmark))
    url = safe_url(url_of(bookmark))
    parts = [f"[{text}]({_markdown_url(url)})" if url else text]
    if bookmark.authors:
        parts.append(_markdown_escape(", ".join(bookmark.authors)))
    venue = _venue_and_year(bookmark)
    if venue:
        parts.append(_markdown_escape(venue))
    return ". ".join(parts)


_MARKDOWN_SPECIAL = re.compile(r"([\\`*_\[\]()<>|~])")
# What starts a block when it begins a line: a heading, quote, list item, rule, fence, table, setext
# underline, definition; and "1." or "1)" (an ordered list).
_MARKDOWN_LINE_START = re.compile(r"^(?:([#>+\-=:*_~`|])|(\d+)([.)]))")


def _markdown_escape(text: str) -> str:
    return _MARKDOWN_SPECIAL.sub(r"\\\1", text)


def _markdown_url(url: str) -> str:
    for character in "\\()<> `":
        url = url.replace(character, f"%{ord(character):02X}")
    return url


def _markdown_note(note: str) -> str:
    """A note after the citation: " — first line", and each further line on its own line indented
    into the same list item (a hard line break before it). Every line is escaped, including what
    would start a block, so a note cannot make a link, a heading or a new list item."""
    lines = [_MARKDOWN_LINE_START.sub(_escape_line_start, _markdown_escape(line.strip())) for line in note.splitlines()]
    lines = [line for line in lines if line]
    return " — " + "\\\n  ".join(lines) if lines else ""


def _escape_line_start(match: re.Match[str]) -> str:
    if match.group(1):
        return "\\" + match.group(1)
    return match.group(2) + "\\" + match.group(3)


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


def bibtex_entry(bookmark: Bookmark, paper: Paper | None = None) -> str:
    """The venue's own entry, with its citation key, when the paper's list has one that BibTeX can
    read; else an @inproceedings entry (@misc without a venue) that BibTeX parsers accept: title,
    every author, booktitle, year, url, and eprint with archivePrefix for an arXiv paper. No field
    can end the entry early: backslashes and braces inside one are escaped."""
    return fix_surrogates(_venue_entry(paper) or _bibtex_entry(clean_bookmark(bookmark)))


_ENTRY_START = re.compile(r"@[A-Za-z]+\s*\{\s*[^\s,{}]+\s*,")


def _venue_entry(paper: Paper | None) -> str | None:
    """The list's own BibTeX entry for the paper, as the venue wrote it, when it is one whole
    entry: its key and type, braces balanced, ending with the entry's closing brace."""
    entry = paper.facts.bibtex if paper is not None else None
    if not entry:
        return None
    entry = sanitize(fix_surrogates(entry)).strip()
    if not _ENTRY_START.match(entry) or not entry.endswith("}") or not _balanced(entry):
        return None
    depth = 0
    for at, character in enumerate(entry):  # the first brace closes only at the end: one entry
        depth += (character == "{") - (character == "}")
        if depth == 0 and character == "}" and at != len(entry) - 1:
            return None
    return entry + "\n"


def paper_facts(paper: Paper | None) -> dict[str, Any]:
    """What a loaded paper's list says beyond the bookmark, for the JSON export (None: not loaded,
    or not said)."""
    facts = paper.facts if paper is not None else NO_FACTS
    return {
        "status": paper.status if paper else None,
        "rating_avg": paper.rating if paper else None,
        "ratings": list(facts.ratings) or None,
        "confidences": list(facts.confidences) or None,
        "citations": paper.citations if paper else None,
        "institutions": _unique(facts.institutions) or None,
        "countries": _unique(facts.countries) or None,
        "tldr": facts.tldr,
        "area": facts.area,
        "bibtex": facts.bibtex,
    }


def _unique(per_author: Sequence[str]) -> list[str]:
    return list(dict.fromkeys(part for value in per_author for part in value.split(" + ") if part))


def _ris_entry(bookmark: Bookmark, paper: Paper | None) -> str:
    """One RIS record (Zotero, EndNote, Mendeley read it): type, title, authors, year, venue, URL,
    abstract, DOI-free; tags as keywords and the note as N1."""
    lines = [("TY", "CONF" if bookmark.venue else "GEN"), ("TI", display_label(bookmark))]
    lines += [("AU", author) for author in bookmark.authors]
    if bookmark.year:
        lines.append(("PY", str(bookmark.year)))
    if bookmark.venue:
        lines.append(("T2", bookmark.venue))
    if url_of(bookmark):
        lines.append(("UR", url_of(bookmark)))
    if bookmark.abstract:
        lines.append(("AB", " ".join(bookmark.abstract.split())))
    lines += [("KW", tag) for tag in bookmark.tags]
    if paper is not None and paper.facts.tldr:
        lines.append(("N2", paper.facts.tldr))
    if bookmark.note:
        lines.append(("N1", " ".join(bookmark.note.split())))
    lines.append(("ER", ""))
    return "".join(f"{tag}  - {_line(value)}".rstrip() + "\n" for tag, value in lines)


def _bibtex_entry(bookmark: Bookmark) -> str:
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
    if name == "url":  # URLs stay verbatim; braces and backslashes, which would end the field, are encoded
        return value.replace("\\", "%5C").replace("{", "%7B").replace("}", "%7D")
    return _bibtex_escape(value)


def _bibtex_escape(value: str) -> str:
    value = " ".join(value.split())
    braces_balanced = _balanced(value)
    value = value.replace("\\", "\\textbackslash ")
    if braces_balanced:
        value = re.sub(r"([{}%&#_$])", r"\\\1", value)
    else:
        # BibTeX counts braces even when escaped, so unbalanced ones are spelled out instead.
        value = value.replace("{", "\\textbraceleft ").replace("}", "\\textbraceright ")
        value = re.sub(r"([%&#_$])", r"\\\1", value)
    return value.replace("~", "\\textasciitilde ").replace("^", "\\textasciicircum ")


def _balanced(value: str) -> bool:
    depth = 0
    for character in value:
        if character == "{":
            depth += 1
        elif character == "}":
            depth -= 1
            if depth < 0:
                return False
    return depth == 0


_FORMULA_START = (*"=+-@\t\r\n", "\uff1d", "\uff0b", "\uff0d", "\uff20")  # and their full-width forms


def _csv_cell(value: str) -> str:
    """A cell a spreadsheet will not run: one starting with = + - @ tab or CR (or with them after
    spaces) gets a leading apostrophe, as OWASP's CSV injection guidance recommends."""
    return "'" + value if value.lstrip(" ").startswith(_FORMULA_START) else value


def _csv(bookmarks: Sequence[Bookmark], papers: Mapping[str, Paper]) -> str:
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=CSV_FIELDS, lineterminator="\n")
    writer.writeheader()
    for b in bookmarks:
        known = paper_facts(papers.get(b.paper_id))
        row = {
            "id": b.paper_id,
            "headline": b.headline,
            "name": b.name or "",
            "title": b.title or "",
            "authors": "; ".join(b.authors),
            "venue": b.venue or "",
            "year": str(b.year or ""),
            "url": url_of(b),
            "note": b.note,
            "tags": "; ".join(b.tags),
            **{key: _csv_value(known[key]) for key in CSV_FIELDS[10:]},
        }
        writer.writerow({key: _csv_cell(value) for key, value in row.items()})
    return buffer.getvalue()


def _csv_value(value: Any) -> str:
    """A fact as one cell: lists `; `-joined, numbers as written, absent values empty."""
    if value is None:
        return ""
    if isinstance(value, list):
        return "; ".join(f"{item:g}" if isinstance(item, float) else _line(item) for item in value)
    if isinstance(value, float):
        return f"{value:g}"
    return _line(str(value))


def bookmark_record(b: Bookmark) -> dict[str, Any]:
    """One bookmark as the JSON export writes it (and the import reads it back)."""
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


# -- writing a file -----------------------------------------------------------------------------------


def write_atomic(path: str | Path, text: str) -> Path:
    """Write `text` to `path` so that it holds either the old or the whole new content, never part.

    - A symbolic link to a regular file: the file it points to is replaced and the link kept (links
      are how people keep a bibliography in a synced folder); a dangling link or a loop is refused.
    - Anything but a regular file (a directory, a device, a FIFO, a socket) is refused before
      anything is written: one line, ExportError.
    - A new file gets the mode 0666 less the umask, like any tool's; a replaced file keeps its mode
      (and, where allowed, its owner).
    The text is written as UTF-8 (a lone surrogate as U+FFFD). Returns the file written."""
    name = shown(path)
    target = Path(os.path.realpath(path)) if os.path.islink(path) else Path(path)
    try:
        status: os.stat_result | None = os.stat(target)
    except FileNotFoundError:
        if os.path.islink(path):
            raise ExportError(f"{name}: a symbolic link to a missing file ({shown(target)})") from None
        status = None
    except OSError as problem:
        raise ExportError(f"{name}: cannot write ({_reason(problem)})") from None
    if status is not None and not stat.S_ISREG(status.st_mode):
        raise ExportError(f"{name}: {_not_regular(status.st_mode)}; give the path of a file")
    if status is not None and not os.access(target, os.W_OK):
        raise ExportError(f"{name}: cannot write (permission denied)")
    data = fix_surrogates(text).encode("utf-8")
    folder = target.parent
    try:
        temporary, descriptor = _create_temporary(folder, target.name)
    except OSError as problem:
        raise ExportError(f"{name}: cannot write ({_reason(problem)})") from None
    try:
        with os.fdopen(descriptor, "wb") as file:
            if status is not None:
                os.fchmod(file.fileno(), stat.S_IMODE(status.st_mode))
                with contextlib.suppress(OSError):  # only root may give a file away
                    os.fchown(file.fileno(), status.st_uid, status.st_gid)
            file.write(data)
            file.flush()
            os.fsync(file.fileno())
        os.replace(temporary, target)
    except BaseException as problem:
        Path(temporary).unlink(missing_ok=True)
        if isinstance(problem, OSError):
            raise ExportError(f"{name}: cannot write ({_reason(problem)})") from None
        raise
    _sync_folder(folder)
    return target


def _create_temporary(folder: Path, name: str) -> tuple[Path, int]:
    """A new file beside the target, created with mode 0666 so the umask (and any default ACL)
    applies as it would to the file itself."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_NOFOLLOW", 0)
    for _ in range(100):
        temporary = folder / f".{name}.{secrets.token_hex(4)}.tmp"
        try:
            return temporary, os.open(temporary, flags, 0o666)
        except FileExistsError:
            continue
    raise FileExistsError(errno.EEXIST, "cannot create a temporary file", str(folder))


def _sync_folder(folder: Path) -> None:
    with contextlib.suppress(OSError):
        descriptor = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(descriptor)
        finally:
            os.close(descriptor)


def _not_regular(mode: int) -> str:
    if stat.S_ISDIR(mode):
        return "is a directory"
    kinds = {stat.S_IFCHR: "a character device", stat.S_IFBLK: "a block device", stat.S_IFIFO: "a FIFO (named pipe)"}
    return f"not a regular file ({kinds.get(stat.S_IFMT(mode), 'a socket' if stat.S_ISSOCK(mode) else 'special')})"


def _reason(problem: OSError) -> str:
    if problem.errno == errno.ENOENT:
        return "no such folder"
    return problem.strerror or str(problem)
