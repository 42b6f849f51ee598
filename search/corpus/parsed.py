"""Each corpus file's parsed papers, kept in the cache dir, so a start with unchanged files reads one
JSON document per file instead of parsing and sanitising every record again (the 17 real lists:
1.3 s of parsing become about 0.6 s of reading and checking).

A cached parse is used only when the corpus file has the same path, device, inode, size, mode,
modification and change time as when it was parsed, and the engine's code is the same (a digest of
search/'s sources, so an upgrade or an edit of a format parser re-parses). An entry is read as
untrusted input and every row is checked: types, and text the sanitiser would leave as it is.
Anything else, an entry that cannot be read or has the wrong shape included, is parsed afresh and
the entry rewritten. It is derived data: deleting it costs one slower start, and failing to write it
costs nothing.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import stat
import tempfile
import time
from collections.abc import Callable
from functools import lru_cache
from pathlib import Path
from typing import Any

from search import paths
from search.corpus.formats import Parsed
from search.models import NO_FACTS, Facts, Paper
from search.text.sanitize import sanitize, sanitize_line
from search.untrusted import MAX_BYTES, UntrustedInputError, load_json, read_bytes

CACHE_FOLDER = "parsed"
FORMAT = 3
"""The entries' layout: 3 added rating, citations and facts to each row."""
KEPT_ENTRIES = 64
"""At most this many files' parses are kept (the least recently written go first): lists removed,
or parsed once in a download's staging folder, do not pile up."""
_MAX_ENTRY_BYTES = 4 * MAX_BYTES
_STALE_WRITE_SECONDS = 3600
_FIELDS = (
    *("id", "abstract", "venue", "title", "authors", "keywords", "status", "track", "year", "site", "pdf"),
    *("github", "project", "arxiv", "title_added", "rating", "citations", "facts"),
)
"""What a parser sets (source, position and also_in are the loader's)."""


def parsed_file(
    path: Path, limit: int, parse: Callable[[], Parsed], later: list[Callable[[], None]] | None = None
) -> Parsed:
    """The file's parse from the cache when the file is unchanged, else `parse()` (cached for next
    time: now, or by the call appended to `later`). A file that is no regular file of at most
    `limit` bytes is left to `parse` to refuse."""
    try:
        status = os.stat(path)
    except (OSError, ValueError):
        return parse()
    if not stat.S_ISREG(status.st_mode) or status.st_size > limit:
        return parse()
    # The change time too: nobody can set it back, so a same-size edit whose modification time was
    # restored (rsync -t, touch -r) or a file recreated on a reused inode with an archive's date shows.
    stamp = [status.st_dev, status.st_ino, status.st_size, status.st_mode, status.st_mtime_ns, status.st_ctime_ns]
    entry = _entry(path)
    found = _read(entry, path, stamp)
    if found is not None:
        return found
    result = parse()  # the stamp was taken before reading, so a file changed meanwhile is re-parsed next time
    if later is None:
        _write(entry, path, stamp, result)
    else:
        later.append(lambda: _write(entry, path, stamp, result))
    return result


def _entry(path: Path) -> Path:
    name = os.path.abspath(path).encode("utf-8", "surrogatepass")
    return paths.cache_dir() / CACHE_FOLDER / f"{hashlib.sha256(name).hexdigest()[:20]}.json"


@lru_cache(maxsize=1)
def code_digest() -> str:
    """A digest of the engine's source files: any change to how files are parsed changes it."""
    digest = hashlib.sha256(str(FORMAT).encode())
    root = Path(__file__).resolve().parents[1]
    for source in sorted(root.rglob("*.py")):
        with contextlib.suppress(OSError):
            digest.update(source.relative_to(root).as_posix().encode() + b"\0" + source.read_bytes())
    return digest.hexdigest()[:20]


def _read(entry: Path, path: Path, stamp: list[int]) -> Parsed | None:
    try:
        # Through the readers of outside files: a FIFO put there never blocks, lone surrogates go.
        document = load_json(read_bytes(entry, limit=_MAX_ENTRY_BYTES).decode("utf-8"))
        if document["file"] != os.path.abspath(path) or document["stamp"] != stamp or document["code"] != code_digest():
            return None
        skipped, venue, kind, rows = document["skipped"], document["venue"], document["format"], document["papers"]
        if type(skipped) is not int or not _optional_text(venue) or type(kind) is not str or type(rows) is not list:
            return None
        source = str(path)
        papers = [_paper(row, source) for row in rows]
    except (UntrustedInputError, OSError, ValueError, TypeError, KeyError, RecursionError):
        return None
    return Parsed(papers, skipped, venue, kind)


def _paper(row: Any, source: str) -> Paper:
    """A cached row as a Paper; TypeError when it is not a row this module wrote."""
    if type(row) is not list or len(row) != len(_FIELDS):
        raise TypeError("not a paper row")
    (
        paper_id,
        abstract,
        venue,
        title,
        authors,
        keywords,
        status,
        track,
        year,
        *links,
        added,
        rating,
        citations,
        known,
    ) = row
    texts = (venue, title, status, track, *links)
    if (
        type(paper_id) is not str
        or type(abstract) is not str
        or not all(value is None or type(value) is str for value in texts)
        or not (year is None or type(year) is int)
        or type(added) is not bool
        or type(authors) is not list
        or type(keywords) is not list
        or not all(type(name) is str for name in (*authors, *keywords))
    ):
        raise TypeError("not a paper row")
    # What a parser writes is sanitised: anything the sanitiser would change was not written here.
    lines = (paper_id, *texts, *authors, *keywords)
    if not paper_id or sanitize(abstract).strip() != abstract or any(v and sanitize_line(v) != v for v in lines):
        raise TypeError("not a paper row")
    if not (rating is None or type(rating) is float) or not (citations is None or type(citations) is int):
        raise TypeError("not a paper row")
    site, pdf, github, project, arxiv = links
    return Paper(
        paper_id,
        abstract,
        venue,
        title,
        tuple(authors),
        tuple(keywords),
        status,
        track,
        year,
        site,
        pdf,
        github,
        project,
        arxiv,
        source,
        title_added=added,
        rating=rating,
        citations=citations,
        facts=NO_FACTS if known is None else _facts(known),
    )


_NUMBERS = ("ratings", "confidences")
_FLOATS = ("rating_std", "confidence_avg")
_MULTILINE = ("bibtex",)


def _facts(row: Any) -> Facts:
    """A cached paper's facts; TypeError when they are not what this module wrote."""
    if type(row) is not list or len(row) != len(Facts._fields):
        raise TypeError("not a paper's facts")
    values: list[Any] = []
    for name, value in zip(Facts._fields, row, strict=True):
        if name in _NUMBERS:
            if type(value) is not list or not all(type(number) is float for number in value):
                raise TypeError("not a paper's facts")
            value = tuple(value)
        elif name in _FLOATS:
            if not (value is None or type(value) is float):
                raise TypeError("not a paper's facts")
        elif type(value) is list:
            if not all(type(one) is str and sanitize_line(one) == one for one in value):
                raise TypeError("not a paper's facts")
            value = tuple(value)
        elif value is not None:
            clean = (
                sanitize(value).strip() if name in _MULTILINE else sanitize_line(value) if type(value) is str else None
            )
            if clean != value:
                raise TypeError("not a paper's facts")
        values.append(value)
    return Facts(*values)


def _optional_text(value: Any) -> bool:
    return value is None or type(value) is str


def _write(entry: Path, path: Path, stamp: list[int], result: Parsed) -> None:
    document = {
        "file": os.path.abspath(path),
        "stamp": stamp,
        "code": code_digest(),
        "skipped": result.skipped,
        "venue": result.venue,
        "format": result.format,
        "papers": [
            [*(getattr(paper, name) for name in _FIELDS[:-1]), None if paper.facts == NO_FACTS else paper.facts]
            for paper in result.papers
        ],
    }
    try:
        entry.parent.mkdir(parents=True, exist_ok=True)
        data = json.dumps(document, ensure_ascii=False).encode("utf-8", "surrogatepass")
        descriptor, temporary = tempfile.mkstemp(prefix=".writing-", dir=entry.parent)
        try:
            with os.fdopen(descriptor, "wb") as file:
                file.write(data)
            os.replace(temporary, entry)
            prune(entry.parent, KEPT_ENTRIES, ".json")
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(temporary)
            raise
    except (OSError, ValueError, UnicodeError):
        pass  # a cache that cannot be written only costs the next start its parse


def prune(folder: Path, kept: int, suffix: str) -> None:
    """Keep the `kept` entries (files named *suffix) modified last, and no temporary file (named
    ".*") a killed writer left behind; anything else in the folder is left alone."""
    now = time.time()
    entries = []
    for child in folder.iterdir():
        with contextlib.suppress(OSError):
            written = child.stat().st_mtime
            if child.name.startswith("."):
                if now - written > _STALE_WRITE_SECONDS:
                    child.unlink()
            elif child.suffix == suffix:
                entries.append((written, child))
    for _, child in sorted(entries, reverse=True)[kept:]:
        with contextlib.suppress(OSError):
            child.unlink()
