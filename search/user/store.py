"""UserStore: bookmarks (with notes and tags) and read marks in SQLite, the only writer of user data.

SQLite in WAL mode gives crash safety (an acknowledged write survives SIGKILL) and safe concurrent
writers (two app instances never lose each other's changes: every change is a small transaction on
one row, never a rewrite of the whole file). A database that cannot be read is moved aside, never
deleted, and the user is told where it went.
"""

from __future__ import annotations

import json
import os
import sqlite3
import time
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path

from search import paths
from search.errors import StoreError
from search.models import Bookmark, link_records, links_from_records

DB_NAME = "user.sqlite3"

# Each entry moves the schema from version i to i+1. Never edit a released entry: append one.
MIGRATIONS: list[str] = [
    # 1: bookmarks with enough of the paper to show and export it without its corpus.
    """
    CREATE TABLE bookmarks (
        paper_id TEXT PRIMARY KEY,
        venue TEXT, headline TEXT NOT NULL, name TEXT, title TEXT,
        authors TEXT NOT NULL DEFAULT '[]', year INTEGER,
        links TEXT NOT NULL DEFAULT '[]', abstract TEXT NOT NULL DEFAULT '', abstract_hash TEXT,
        note TEXT NOT NULL DEFAULT '', created_at REAL NOT NULL, updated_at REAL NOT NULL
    );
    """,
    # 2: tags on bookmarks, and the papers already opened.
    """
    ALTER TABLE bookmarks ADD COLUMN tags TEXT NOT NULL DEFAULT '[]';
    CREATE TABLE opened (paper_id TEXT PRIMARY KEY, first_at REAL NOT NULL, last_at REAL NOT NULL,
                         times INTEGER NOT NULL DEFAULT 1);
    """,
    # 3: saved searches.
    """
    CREATE TABLE saved_searches (name TEXT PRIMARY KEY, query TEXT NOT NULL, created_at REAL NOT NULL);
    """,
]
SCHEMA_VERSION = len(MIGRATIONS)


class UserStore:
    """Bookmarks, notes, tags and read marks. Every method is one short transaction."""

    def __init__(self, path: Path | None = None) -> None:
        self.path = path or paths.data_dir() / DB_NAME
        self.notice: str | None = None
        """Set when something had to be repaired, e.g. a corrupt database moved aside."""
        self._connection = self._open()

    # -- opening ------------------------------------------------------------------------------

    def _open(self) -> sqlite3.Connection:
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as error:
            raise StoreError(f"cannot create the data dir {self.path.parent}: {error.strerror or error}") from None
        try:
            return self._connect()
        except sqlite3.DatabaseError as error:
            if not self.path.exists() or _is_access_problem(error):
                raise StoreError(f"cannot open {self.path}: {error}") from None
        moved = self._move_aside()
        self.notice = f"The bookmarks database was unreadable and was moved to {moved}; starting a new one."
        try:
            return self._connect()
        except sqlite3.DatabaseError as error:
            raise StoreError(f"cannot open {self.path}: {error}") from None

    def _connect(self) -> sqlite3.Connection:
        connection = sqlite3.connect(self.path, timeout=30, isolation_level=None, check_same_thread=False)
        try:
            connection.execute("PRAGMA busy_timeout = 30000")
            mode = connection.execute("PRAGMA journal_mode = WAL").fetchone()[0]
            if mode.lower() != "wal":
                raise sqlite3.DatabaseError(f"cannot use WAL journal mode ({mode})")
            connection.execute("PRAGMA synchronous = FULL")
            connection.execute("PRAGMA foreign_keys = ON")
            self._migrate(connection)
            connection.execute("PRAGMA quick_check").fetchone()
        except BaseException:
            connection.close()
            raise
        return connection

    def _migrate(self, connection: sqlite3.Connection) -> None:
        connection.execute("BEGIN IMMEDIATE")
        try:
            version = connection.execute("PRAGMA user_version").fetchone()[0]
            if version > SCHEMA_VERSION:
                raise StoreError(f"{self.path} was written by a newer iclr-reader (schema {version})")
            for number in range(version, SCHEMA_VERSION):
                for statement in MIGRATIONS[number].split(";"):
                    if statement.strip():
                        connection.execute(statement)
            connection.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
            connection.execute("COMMIT")
        except BaseException:
            connection.execute("ROLLBACK")
            raise

    def _move_aside(self) -> Path:
        stamp = time.strftime("%Y%m%d-%H%M%S")
        target = self.path.with_name(f"{self.path.name}.corrupt-{stamp}")
        for suffix in ("", "-wal", "-shm"):
            source = Path(str(self.path) + suffix)
            if source.exists():
                os.replace(source, Path(str(target) + suffix))
        return target

    def close(self) -> None:
        self._connection.close()

    @contextmanager
    def _reading(self) -> Iterator[sqlite3.Connection]:
        """Reads report failures as StoreError, like writes: one kind of error for the interface."""
        try:
            yield self._connection
        except sqlite3.Error as error:
            raise StoreError(f"cannot read {self.path}: {error}") from None

    @contextmanager
    def _transaction(self) -> Iterator[sqlite3.Connection]:
        connection = self._connection
        try:
            connection.execute("BEGIN IMMEDIATE")
        except sqlite3.Error as error:
            raise StoreError(f"cannot write {self.path}: {error}") from None
        try:
            yield connection
            connection.execute("COMMIT")
        except sqlite3.Error as error:
            _rollback(connection)
            raise StoreError(f"cannot write {self.path}: {error}") from None
        except BaseException:
            _rollback(connection)
            raise

    # -- bookmarks ----------------------------------------------------------------------------

    def add(self, bookmark: Bookmark) -> None:
        """Bookmark a paper (a no-op for its note and tags when it is already bookmarked)."""
        with self._transaction() as db:
            db.execute(_UPSERT, _values(bookmark))

    def remove(self, paper_id: str) -> bool:
        with self._transaction() as db:
            return db.execute("DELETE FROM bookmarks WHERE paper_id = ?", (paper_id,)).rowcount > 0

    def toggle(self, bookmark: Bookmark) -> bool:
        """Add the bookmark if absent, else remove it; True when the paper is now bookmarked.
        One transaction, so two instances toggling at once never both see it absent."""
        with self._transaction() as db:
            if db.execute("DELETE FROM bookmarks WHERE paper_id = ?", (bookmark.paper_id,)).rowcount:
                return False
            db.execute(_UPSERT, _values(bookmark))
            return True

    def set_note(self, paper_id: str, note: str) -> None:
        with self._transaction() as db:
            db.execute(
                "UPDATE bookmarks SET note = ?, updated_at = ? WHERE paper_id = ?", (note, time.time(), paper_id)
            )

    def set_tags(self, paper_id: str, tags: Iterable[str]) -> None:
        clean = list(dict.fromkeys(tag.strip() for tag in tags if tag.strip()))
        with self._transaction() as db:
            db.execute(
                "UPDATE bookmarks SET tags = ?, updated_at = ? WHERE paper_id = ?",
                (json.dumps(clean), time.time(), paper_id),
            )

    def get(self, paper_id: str) -> Bookmark | None:
        with self._reading() as db:
            row = db.execute("SELECT * FROM bookmarks WHERE paper_id = ?", (paper_id,)).fetchone()
            return _bookmark(row, self._columns()) if row else None

    def bookmarks(self) -> list[Bookmark]:
        """Every bookmark, newest first."""
        with self._reading() as db:
            rows = db.execute("SELECT * FROM bookmarks ORDER BY created_at DESC, paper_id").fetchall()
            columns = self._columns()
            return [_bookmark(row, columns) for row in rows]

    def bookmarked_ids(self) -> set[str]:
        with self._reading() as db:
            return {row[0] for row in db.execute("SELECT paper_id FROM bookmarks")}

    def merge(self, bookmarks: Iterable[Bookmark]) -> tuple[int, int]:
        """Import bookmarks: new ones are added; existing ones keep their note and gain missing tags.

        Returns (added, merged)."""
        added = merged = 0
        with self._transaction() as db:
            for bookmark in bookmarks:
                row = db.execute("SELECT note, tags FROM bookmarks WHERE paper_id = ?", (bookmark.paper_id,)).fetchone()
                if row is None:
                    db.execute(_INSERT, _values(bookmark))
                    added += 1
                    continue
                note = row[0] or bookmark.note
                tags = list(dict.fromkeys([*json.loads(row[1]), *bookmark.tags]))
                db.execute(
                    "UPDATE bookmarks SET note = ?, tags = ?, updated_at = ? WHERE paper_id = ?",
                    (note, json.dumps(tags), time.time(), bookmark.paper_id),
                )
                merged += 1
        return added, merged

    # -- read marks ---------------------------------------------------------------------------

    def mark_opened(self, paper_id: str) -> None:
        now = time.time()
        with self._transaction() as db:
            db.execute(
                """INSERT INTO opened (paper_id, first_at, last_at) VALUES (?, ?, ?)
                   ON CONFLICT(paper_id) DO UPDATE SET last_at = excluded.last_at, times = times + 1""",
                (paper_id, now, now),
            )

    def opened_ids(self) -> set[str]:
        with self._reading() as db:
            return {row[0] for row in db.execute("SELECT paper_id FROM opened")}

    # -- saved searches -------------------------------------------------------------------------

    def save_search(self, name: str, query: str) -> None:
        """Save (or overwrite) a named query."""
        with self._transaction() as db:
            db.execute(
                "INSERT INTO saved_searches (name, query, created_at) VALUES (?, ?, ?)"
                " ON CONFLICT(name) DO UPDATE SET query = excluded.query",
                (name, query, time.time()),
            )

    def saved_searches(self) -> list[tuple[str, str]]:
        """(name, query) pairs, oldest first: their order gives the number keys."""
        with self._reading() as db:
            rows = db.execute("SELECT name, query FROM saved_searches ORDER BY created_at, name")
            return [(name, query) for name, query in rows]

    def delete_search(self, name: str) -> bool:
        with self._transaction() as db:
            return db.execute("DELETE FROM saved_searches WHERE name = ?", (name,)).rowcount > 0

    def _columns(self) -> list[str]:
        return [row[1] for row in self._connection.execute("PRAGMA table_info(bookmarks)")]


def _rollback(connection: sqlite3.Connection) -> None:
    # SQLite has already rolled back after some errors (a full disk during COMMIT).
    if connection.in_transaction:
        connection.execute("ROLLBACK")


def _is_access_problem(error: sqlite3.DatabaseError) -> bool:
    text = str(error).lower()
    return any(word in text for word in ("unable to open", "readonly", "read-only", "locked", "disk i/o"))


_INSERT = """INSERT INTO bookmarks (paper_id, venue, headline, name, title, authors, year, links, abstract,
                                   abstract_hash, note, tags, created_at, updated_at)
             VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"""
_UPSERT = (
    _INSERT
    + """ ON CONFLICT(paper_id) DO UPDATE SET venue = excluded.venue,
    headline = excluded.headline, name = excluded.name, title = excluded.title,
    authors = excluded.authors, year = excluded.year, links = excluded.links,
    abstract = excluded.abstract, abstract_hash = excluded.abstract_hash,
    updated_at = excluded.updated_at"""
)
"""Add a bookmark, or refresh what the paper says about itself; its note and tags stay."""


def _values(bookmark: Bookmark) -> tuple:
    now = time.time()
    return (
        bookmark.paper_id,
        bookmark.venue,
        bookmark.headline,
        bookmark.name,
        bookmark.title,
        json.dumps(list(bookmark.authors)),
        bookmark.year,
        json.dumps(link_records(bookmark.links)),
        bookmark.abstract,
        bookmark.abstract_hash,
        bookmark.note,
        json.dumps(list(bookmark.tags)),
        bookmark.created_at or now,
        now,
    )


def _bookmark(row: tuple, columns: list[str]) -> Bookmark:
    values = dict(zip(columns, row))
    return Bookmark(
        paper_id=values["paper_id"],
        headline=values["headline"],
        venue=values["venue"],
        name=values["name"],
        title=values["title"],
        authors=tuple(json.loads(values["authors"])),
        year=values["year"],
        links=links_from_records(json.loads(values["links"])),
        abstract=values["abstract"],
        abstract_hash=values["abstract_hash"],
        note=values["note"],
        tags=tuple(json.loads(values["tags"])),
        created_at=values["created_at"],
    )
