"""Salvage: every readable row of a damaged user database, to be copied into a fresh one.

One bad page must cost only the rows on it, so rows are read two ways and the two are combined:

1. Through SQLite, row by row: each table's rowids are walked in order on the table itself (never an
   index, which may be the damaged part), a stretch that raises is stepped over one rowid at a time,
   and a row whose full read raises is read column by column (a bad overflow page costs the columns
   stored on it, not the bookmark).
2. Straight from the file's pages, with the committed frames of the WAL laid over them: every table
   leaf page outside the freelist is decoded, so the rows under a damaged interior page, or in a file
   whose first page (the schema) is gone, are still found. A cell on a leaf page that is not free is a
   live row, so when the freelist is known such rows are kept even where a garbled interior page
   makes SQLite answer "no such row". When it is not (the first page is gone, and free pages keep the
   rows they held), a row found only this way is used only where SQLite cannot answer for its rowid:
   a rowid SQLite reads as absent was deleted, and stays deleted.

The damaged file itself is only read (SQLite reads a copy of it, when there is room for one).
"""

from __future__ import annotations

import json
import math
import shutil
import sqlite3
import struct
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from pathlib import Path

# The columns of each table in the order the store's migrations create them (their order on disk).
BOOKMARK_COLUMNS = (
    "paper_id", "venue", "headline", "name", "title", "authors", "year", "links", "abstract",
    "abstract_hash", "note", "created_at", "updated_at", "tags",
)  # fmt: skip
REMOVED_COLUMNS = (
    "removal_id", "paper_id", "venue", "headline", "name", "title", "authors", "year", "links",
    "abstract", "abstract_hash", "note", "tags", "created_at", "updated_at", "removed_at",
)  # fmt: skip
OPENED_COLUMNS = ("paper_id", "first_at", "last_at", "times")
SAVED_COLUMNS = ("name", "query", "created_at")
TABLES: dict[str, tuple[str, ...]] = {
    "bookmarks": BOOKMARK_COLUMNS,
    "removed_bookmarks": REMOVED_COLUMNS,
    "opened": OPENED_COLUMNS,
    "saved_searches": SAVED_COLUMNS,
}


class _Missing:
    """A value that could not be read."""

    def __repr__(self) -> str:
        return "MISSING"


MISSING = _Missing()
Row = dict[str, object]

_BATCH = 512
_GAP = 1000
"""How far past the last rowid known to exist a damaged stretch is searched for more rows."""
_HEADER_MAGIC = b"SQLite format 3\x00"
_PAGE_SIZES = (4096, 1024, 2048, 8192, 16384, 32768, 65536, 512)
_WAL_MAGIC = (0x377F0682, 0x377F0683)
_MAX_PAYLOAD = 1 << 30


@dataclass(frozen=True)
class Found:
    rowid: int
    values: Row
    raw: bool
    """Read from the pages only: SQLite could not vouch for it."""


@dataclass
class Recovered:
    rows: dict[str, list[Found]] = field(default_factory=dict)


@dataclass
class Counts:
    bookmarks: int = 0
    notes: int = 0
    tags: int = 0
    removed: int = 0
    saved_searches: int = 0
    opened: int = 0

    @property
    def total(self) -> int:
        return self.bookmarks + self.removed + self.saved_searches + self.opened

    def describe(self) -> str:
        """ "1,499 bookmarks (300 with notes, 612 tags), 2 saved searches and 40 read marks"."""
        parts = []
        if self.bookmarks or not self.total:
            part = _plural(self.bookmarks, "bookmark")
            details = [
                f"{self.notes:,} with notes" if self.notes else "",
                _plural(self.tags, "tag") if self.tags else "",
            ]
            if any(details):
                part += f" ({', '.join(d for d in details if d)})"
            parts.append(part)
        if self.removed:
            parts.append(_plural(self.removed, "removed bookmark"))
        if self.saved_searches:
            parts.append(_plural(self.saved_searches, "saved search", "saved searches"))
        if self.opened:
            parts.append(_plural(self.opened, "read mark"))
        return parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1]


def _plural(count: int, word: str, words: str | None = None) -> str:
    return f"{count:,} {word if count == 1 else (words or word + 's')}"


def decode_text(data: bytes) -> str:
    """SQLite text as str: bytes that are not UTF-8 become U+FFFD instead of failing the whole read."""
    return data.decode("utf-8", "replace")


def header_version(path: Path) -> int | None:
    """The schema version (user_version) in the file's header, if the header is intact."""
    try:
        with open(path, "rb") as file:
            header = file.read(100)
    except OSError:
        return None
    if len(header) < 100 or not header.startswith(_HEADER_MAGIC):
        return None
    return int.from_bytes(header[60:64], "big", signed=True)


# -- recovering ---------------------------------------------------------------------------------


def recover(path: Path) -> Recovered:
    """Every row that can be read from the database at `path` (with its -wal), per table, by rowid."""
    try:
        raw, pages_are_live = _scan_file(path)
    except (ValueError, IndexError, KeyError, struct.error, OverflowError, MemoryError):
        raw, pages_are_live = {}, False  # the page scan is a bonus: SQLite's reading still counts
    recovered = Recovered()
    with _sql_source(path) as source:
        for table, columns in TABLES.items():
            recovered.rows[table] = _combine(_Table(source, table, columns), raw.get(table, {}), pages_are_live)
    return recovered


def _combine(table: _Table, raw: dict[int, Row], pages_are_live: bool) -> list[Found]:
    found = {rowid: Found(rowid, values, False) for rowid, values in table.walk(max(raw, default=0)).items()}
    for rowid, values in raw.items():
        if rowid in found:  # what SQLite could not read of the row, the page may still hold
            sql = found[rowid].values
            merged = {
                column: raw_value if sql.get(column, MISSING) is MISSING else sql[column]
                for column, raw_value in values.items()
            }
            found[rowid] = Found(rowid, {**sql, **merged}, False)
            continue
        state = table.probe(rowid)
        if state is False and not pages_are_live:  # perhaps an old copy of a deleted row, on a free page
            continue
        row = table.read(rowid) if state else None
        found[rowid] = Found(rowid, row, False) if row is not None else Found(rowid, values, True)
    return [found[rowid] for rowid in sorted(found)]


@contextmanager
def _sql_source(path: Path) -> Iterator[sqlite3.Connection | None]:
    """A connection to a copy of the damaged file (so that opening it, which may replay its WAL, leaves
    the original as it was); without room for a copy, a read-only connection to the original."""
    folder: Path | None = None
    try:
        folder = Path(tempfile.mkdtemp(prefix=".salvage-", dir=path.parent))
        copy = folder / path.name
        shutil.copyfile(path, copy)
        wal = sibling(path, "-wal")
        if wal.exists():
            shutil.copyfile(wal, sibling(copy, "-wal"))
        target, uri = str(copy), False
    except OSError:
        target, uri = path.absolute().as_uri() + "?mode=ro", True
    connection: sqlite3.Connection | None = None
    try:
        try:
            connection = sqlite3.connect(target, uri=uri, isolation_level=None, check_same_thread=False)
        except sqlite3.Error:
            connection = None
        if connection is not None:
            connection.text_factory = decode_text
            with suppress(sqlite3.Error):  # report damaged cells rather than read garbage
                connection.execute("PRAGMA cell_size_check = ON")
        yield connection
    finally:
        if connection is not None:
            with suppress(sqlite3.Error):
                connection.close()
        if folder is not None:
            shutil.rmtree(folder, ignore_errors=True)


def sibling(path: Path, suffix: str) -> Path:
    return path.with_name(path.name + suffix)


class _Table:
    """One table of the damaged database, read through SQLite a row at a time."""

    def __init__(self, connection: sqlite3.Connection | None, name: str, columns: tuple[str, ...]) -> None:
        self.connection = connection
        self.name = name
        self.columns = columns
        self.usable = False
        self.absent = False
        """The schema is readable and has no such table (an older version's database)."""
        if connection is None:
            return
        try:
            names = tuple(row[1] for row in connection.execute(f'PRAGMA table_info("{name}")'))
            if not names:
                self.absent = True
                return
            connection.execute(f'SELECT rowid FROM "{name}" NOT INDEXED LIMIT 0').fetchall()
        except (sqlite3.Error, ValueError, OverflowError):
            return
        self.columns = tuple(c for c in columns if c in names) + tuple(c for c in names if c not in columns)
        self.usable = True

    def _execute(self, sql: str, parameters: tuple = ()) -> list[tuple]:
        assert self.connection is not None
        return self.connection.execute(sql, parameters).fetchall()

    def probe(self, rowid: int) -> bool | None:
        """Whether the row exists (True/False), or None when SQLite cannot tell (the lookup raises)."""
        if self.absent:
            return False
        if not self.usable:
            return None
        try:
            return bool(self._execute(f'SELECT 1 FROM "{self.name}" NOT INDEXED WHERE rowid = ?', (rowid,)))
        except (sqlite3.Error, ValueError, OverflowError):
            return None

    def read(self, rowid: int) -> Row | None:
        """The row, or None if there is none; a column that cannot be read is MISSING."""
        where = f'FROM "{self.name}" NOT INDEXED WHERE rowid = ?'
        try:
            rows = self._execute(f"SELECT {', '.join(_quoted(c) for c in self.columns)} {where}", (rowid,))
            return dict(zip(self.columns, rows[0])) if rows else None
        except (sqlite3.Error, ValueError, OverflowError):
            pass
        values: Row = {}
        for column in self.columns:
            try:
                rows = self._execute(f"SELECT {_quoted(column)} {where}", (rowid,))
                values[column] = rows[0][0] if rows else MISSING
            except (sqlite3.Error, ValueError, OverflowError):
                values[column] = MISSING
        return values

    def walk(self, highest_known: int) -> dict[int, Row]:
        """Every row SQLite can reach, by rowid, stepping over stretches that raise."""
        found: dict[int, Row] = {}
        if not self.usable:
            return found
        after: int | None = None
        while True:
            batch, failed = self._rowids_after(after)
            for rowid in batch:
                row = self.read(rowid)
                if row is not None:
                    found[rowid] = row
            if batch:
                after = batch[-1]
            if not failed:
                if len(batch) < _BATCH:
                    return found
                continue
            start = 1 if after is None else after + 1
            resumed = None
            for rowid in range(start, max(highest_known, start) + _GAP):
                state = self.probe(rowid)
                if state is None:
                    continue
                resumed = rowid
                if state:
                    row = self.read(rowid)
                    if row is not None:
                        found[rowid] = row
                break
            if resumed is None:
                return found
            after = resumed

    def _rowids_after(self, after: int | None) -> tuple[list[int], bool]:
        """Up to _BATCH rowids after `after` in order, and whether the walk failed on the way."""
        batch: list[int] = []
        assert self.connection is not None
        sql = f'SELECT rowid FROM "{self.name}" NOT INDEXED WHERE rowid > ? ORDER BY rowid LIMIT {_BATCH}'
        try:
            for (rowid,) in self.connection.execute(sql, (-(2**63) if after is None else after,)):
                last = batch[-1] if batch else after
                if not isinstance(rowid, int) or (last is not None and rowid <= last):
                    return batch, True  # out of order: a damaged page led the walk astray
                batch.append(rowid)
        except (sqlite3.Error, ValueError, OverflowError):
            return batch, True
        return batch, False


def _quoted(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


# -- reading pages ------------------------------------------------------------------------------


class _Pages:
    def __init__(self, data: bytes, frames: dict[int, bytes], size: int, reserved: int, count: int) -> None:
        self.data = data
        self.frames = frames
        self.size = size
        self.usable = size - reserved
        self.count = count

    def page(self, number: int) -> bytes | None:
        if number < 1 or number > self.count:
            return None
        if number in self.frames:
            return self.frames[number]
        chunk = self.data[(number - 1) * self.size : number * self.size]
        return chunk if len(chunk) == self.size else None


def _scan_file(path: Path) -> tuple[dict[str, dict[int, Row]], bool]:
    """Rows decoded from the table leaf pages of the file (and its WAL), per table and rowid, and whether
    the freelist was read whole (so that every page scanned holds live rows)."""
    try:
        data = path.read_bytes()
    except OSError:
        data = b""
    try:
        wal = sibling(path, "-wal").read_bytes()
    except OSError:
        wal = b""
    wal_size, frames, wal_pages = _wal_frames(wal)
    header = frames.get(1, data[:100]) if wal_size else data[:100]
    size = _header_page_size(header)
    reserved = header[20] if size else 0
    if size:
        candidates = [size]
    elif wal_size:
        candidates = [wal_size]
    else:
        candidates = list(_PAGE_SIZES)
    best: tuple[dict[str, dict[int, Row]], bool] = ({}, False)
    best_score = -1
    for candidate in candidates:
        usable_frames = frames if candidate == wal_size else {}
        count = wal_pages if (wal_pages and candidate == wal_size) else len(data) // candidate
        count = max(count, max(usable_frames, default=0))
        pages = _Pages(data, usable_frames, candidate, reserved, count)
        free, whole = _freelist(pages) if size else (set(), False)
        rows = _scan(pages, free)
        score = sum(len(table) for table in rows.values())
        if score > best_score:
            best, best_score = (rows, whole), score
    return best


def _header_page_size(header: bytes) -> int:
    if len(header) < 100 or not header.startswith(_HEADER_MAGIC):
        return 0
    size = int.from_bytes(header[16:18], "big")
    size = 65536 if size == 1 else size
    return size if size in _PAGE_SIZES and header[20] < size - 480 else 0


def _wal_frames(wal: bytes) -> tuple[int, dict[int, bytes], int]:
    """(page size, the pages of every committed transaction in the WAL, the database's size in pages
    after the last one), checking the salts and checksums as SQLite does; (0, {}, 0) without a WAL."""
    if len(wal) < 32:
        return 0, {}, 0
    magic, _version, size, _checkpoint, salt1, salt2, sum1, sum2 = struct.unpack(">8I", wal[:32])
    if magic not in _WAL_MAGIC or size not in _PAGE_SIZES:
        return 0, {}, 0
    big_endian = bool(magic & 1)
    sums = _checksum(wal[:24], 0, 0, big_endian)
    if sums != (sum1, sum2):
        return 0, {}, 0
    frames: dict[int, bytes] = {}
    pending: dict[int, bytes] = {}
    pages = 0
    offset, length = 32, 24 + size
    while offset + length <= len(wal):
        number, commit, frame_salt1, frame_salt2, frame_sum1, frame_sum2 = struct.unpack(
            ">6I", wal[offset : offset + 24]
        )
        if (frame_salt1, frame_salt2) != (salt1, salt2):
            break
        sums = _checksum(wal[offset : offset + 8], *sums, big_endian)
        sums = _checksum(wal[offset + 24 : offset + length], *sums, big_endian)
        if sums != (frame_sum1, frame_sum2):
            break
        pending[number] = wal[offset + 24 : offset + length]
        if commit:
            frames.update(pending)
            pending = {}
            pages = commit
        offset += length
    return size, frames, pages


def _checksum(data: bytes, first: int, second: int, big_endian: bool) -> tuple[int, int]:
    words = struct.unpack(f"{'>' if big_endian else '<'}{len(data) // 4}I", data)
    for i in range(0, len(words) - 1, 2):
        first = (first + words[i] + second) & 0xFFFFFFFF
        second = (second + words[i + 1] + first) & 0xFFFFFFFF
    return first, second


def _freelist(pages: _Pages) -> tuple[set[int], bool]:
    """The free pages (their old contents would bring back deleted rows), and whether the list was read
    whole: as many pages as the header counts, every one of them a page of the file."""
    first = pages.page(1)
    free: set[int] = set()
    if first is None:
        return free, False
    trunk, expected = int.from_bytes(first[32:36], "big"), int.from_bytes(first[36:40], "big")
    while trunk and trunk not in free and len(free) <= pages.count:
        page = pages.page(trunk)
        if page is None:
            return free, False
        free.add(trunk)
        count = int.from_bytes(page[4:8], "big")
        if count > (pages.usable - 8) // 4:
            return free, False
        free.update(int.from_bytes(page[8 + 4 * i : 12 + 4 * i], "big") for i in range(count))
        trunk = int.from_bytes(page[0:4], "big")
    whole = not trunk and len(free) == expected and all(1 < number <= pages.count for number in free)
    return free, whole


def _scan(pages: _Pages, free: set[int]) -> dict[str, dict[int, Row]]:
    found: dict[str, dict[int, Row]] = {table: {} for table in TABLES}
    for number in range(1, pages.count + 1):
        if number in free:
            continue
        page = pages.page(number)
        start = 100 if number == 1 else 0
        if page is None or page[start] != 0x0D:  # a table leaf page
            continue
        cells = int.from_bytes(page[start + 3 : start + 5], "big")
        if start + 8 + 2 * cells > pages.usable:
            continue
        for i in range(cells):
            pointer = int.from_bytes(page[start + 8 + 2 * i : start + 10 + 2 * i], "big")
            try:
                cell = _cell(pages, page, pointer)
            except (IndexError, ValueError, struct.error):
                continue
            if cell is None:
                continue
            rowid, payload, complete = cell
            record = _record(payload, complete)
            if record is None:
                continue
            types, values = record
            table = _shape(types)
            if table is None:
                continue
            columns = TABLES[table]
            row: Row = {column: values[i] if i < len(values) else MISSING for i, column in enumerate(columns)}
            if table == "bookmarks" and len(values) == 13:  # written before tags existed
                row["tags"] = "[]"
            if table == "removed_bookmarks":
                row["removal_id"] = rowid  # an INTEGER PRIMARY KEY is the rowid, stored as NULL
            found[table].setdefault(rowid, row)
    return found


def _cell(pages: _Pages, page: bytes, pointer: int) -> tuple[int, bytes, bool] | None:
    """(rowid, payload, whether the payload is whole) of the table leaf cell at `pointer`."""
    usable = pages.usable
    if pointer < 8 or pointer >= usable:
        return None
    size, i = _varint(page, pointer)
    rowid, i = _varint(page, i)
    if rowid >= 1 << 63:
        rowid -= 1 << 64
    if size > _MAX_PAYLOAD:
        return None
    most = usable - 35
    if size <= most:
        local = size
    else:
        least = (usable - 12) * 32 // 255 - 23
        local = least + (size - least) % (usable - 4)
        local = local if local <= most else least
    if i + local > usable:
        return None
    payload = bytearray(page[i : i + local])
    if size > local:
        following = int.from_bytes(page[i + local : i + local + 4], "big")
        seen: set[int] = set()
        while following and len(payload) < size and following not in seen:
            seen.add(following)
            overflow = pages.page(following)
            if overflow is None:
                break
            payload += overflow[4:usable]
            following = int.from_bytes(overflow[0:4], "big")
    whole = len(payload) >= size
    return rowid, bytes(payload[:size]), whole


def _varint(data: bytes | bytearray, i: int) -> tuple[int, int]:
    value = 0
    for k in range(8):
        byte = data[i + k]
        value = (value << 7) | (byte & 0x7F)
        if byte < 0x80:
            return value, i + k + 1
    return (value << 8) | data[i + 8], i + 9


_FIXED = {0: 0, 1: 1, 2: 2, 3: 3, 4: 4, 5: 6, 6: 8, 7: 8, 8: 0, 9: 0}


def _record(payload: bytes, whole: bool) -> tuple[list[int], list[object]] | None:
    """The serial types and values of a record; values past the readable bytes are MISSING."""
    try:
        header, i = _varint(payload, 0)
        if header < 1 or header > min(len(payload), 1024):
            return None
        types = []
        while i < header:
            kind, i = _varint(payload, i)
            types.append(kind)
    except IndexError:
        return None
    if i != header:
        return None
    values: list[object] = []
    position = header
    for kind in types:
        if kind in (10, 11):
            return None
        length = _FIXED[kind] if kind < 12 else (kind - 12) // 2
        chunk = payload[position : position + length]
        position += length
        values.append(_value(kind, chunk) if len(chunk) == length else MISSING)
    if whole and position != len(payload):
        return None
    return types, values


def _value(kind: int, chunk: bytes) -> object:
    if kind == 0:
        return None
    if kind <= 6:
        return int.from_bytes(chunk, "big", signed=True)
    if kind == 7:
        return struct.unpack(">d", chunk)[0]
    if kind in (8, 9):
        return kind - 8
    if kind % 2 == 0:
        return bytes(chunk)
    return decode_text(chunk)


def _is_text(kind: int) -> bool:
    return kind >= 13 and kind % 2 == 1


def _is_number(kind: int) -> bool:
    return 1 <= kind <= 9


def _shape(types: list[int]) -> str | None:
    """Which table a row belongs to, told by its number of columns and their types."""
    count = len(types)
    if count in (13, 14) and _is_text(types[0]) and _is_text(types[2]) and all(map(_is_number, types[11:13])):
        return "bookmarks"
    if count == 16 and types[0] == 0 and _is_text(types[1]) and _is_text(types[3]) and all(map(_is_number, types[13:])):
        return "removed_bookmarks"
    if count == 4 and _is_text(types[0]) and all(map(_is_number, types[1:])):
        return "opened"
    if count == 3 and _is_text(types[0]) and _is_text(types[1]) and _is_number(types[2]):
        return "saved_searches"
    return None


# -- filling the fresh database -------------------------------------------------------------------


def fill(connection: sqlite3.Connection, recovered: Recovered, now: float) -> Counts:
    """Insert what was recovered into a fresh database (its schema created, inside a transaction)."""
    counts = Counts()
    removals: dict[str, float] = {}
    for found in recovered.rows.get("removed_bookmarks", []):
        values = _bookmark_values(found.values, now)
        if values is None:
            continue
        removed_at = _finite(found.values.get("removed_at")) or now
        connection.execute(
            "INSERT INTO removed_bookmarks (paper_id, venue, headline, name, title, authors, year, links, abstract,"
            " abstract_hash, note, tags, created_at, updated_at, removed_at)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (*values, removed_at),
        )
        counts.removed += 1
        removals[values[0]] = max(removals.get(values[0], 0.0), removed_at)
    for found in recovered.rows.get("bookmarks", []):
        values = _bookmark_values(found.values, now)
        if values is None:
            continue
        paper_id, updated_at = values[0], values[-1]
        if found.raw and paper_id in removals and removals[paper_id] >= updated_at:
            continue  # an old copy of a bookmark that was removed since (it is in the removed list)
        inserted = connection.execute(
            "INSERT OR IGNORE INTO bookmarks (paper_id, venue, headline, name, title, authors, year, links,"
            " abstract, abstract_hash, note, tags, created_at, updated_at)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            values,
        ).rowcount
        if inserted:
            counts.bookmarks += 1
            counts.notes += bool(str(values[10]).strip())
            counts.tags += len(_json_list(values[11]))
    for found in recovered.rows.get("opened", []):
        paper_id = _text(found.values.get("paper_id"))
        if not paper_id:
            continue
        first = _finite(found.values.get("first_at")) or now
        last = _finite(found.values.get("last_at")) or first
        times = found.values.get("times")
        count = times if isinstance(times, int) and not isinstance(times, bool) and 0 < times < 1 << 62 else 1
        counts.opened += connection.execute(
            "INSERT OR IGNORE INTO opened (paper_id, first_at, last_at, times) VALUES (?, ?, ?, ?)",
            (paper_id, first, last, count),
        ).rowcount
    for found in recovered.rows.get("saved_searches", []):
        name, query = _text(found.values.get("name")), _text(found.values.get("query"))
        if not name or query is None:
            continue
        counts.saved_searches += connection.execute(
            "INSERT OR IGNORE INTO saved_searches (name, query, created_at) VALUES (?, ?, ?)",
            (name, query, _finite(found.values.get("created_at")) or now),
        ).rowcount
    return counts


def _bookmark_values(values: Row, now: float) -> tuple | None:
    """A row for the bookmark tables (paper_id ... updated_at, as `fill` inserts them), or None."""
    paper_id = _text(values.get("paper_id"))
    if not paper_id:
        return None
    title = _text(values.get("title"))
    year = values.get("year")
    created = _finite(values.get("created_at")) or now
    return (
        paper_id,
        _text(values.get("venue")),
        _text(values.get("headline")) or title or paper_id,
        _text(values.get("name")),
        title,
        _json_text(values.get("authors")),
        year if isinstance(year, int) and not isinstance(year, bool) and 0 < year < 10_000 else None,
        _json_text(values.get("links")),
        _text(values.get("abstract")) or "",
        _text(values.get("abstract_hash")),
        _text(values.get("note")) or "",
        _json_text(values.get("tags")),
        created,
        _finite(values.get("updated_at")) or created,
    )


def _text(value: object) -> str | None:
    if isinstance(value, str):
        return value
    if isinstance(value, bytes):
        return decode_text(value)
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return str(value)
    return None


def _json_text(value: object) -> str:
    """A JSON list column as stored (the store reads it leniently), or an empty list."""
    text = _text(value)
    return text if text is not None else "[]"


def _json_list(text: object) -> list:
    try:
        value = json.loads(str(text))
    except (ValueError, RecursionError):
        return []
    return value if isinstance(value, list) else []


def _finite(value: object) -> float | None:
    if isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value):
        return float(value)
    return None
