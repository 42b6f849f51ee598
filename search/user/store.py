"""UserStore: bookmarks (with notes and tags), removed bookmarks, read marks and saved searches in SQLite,
the only writer of user data.

SQLite in WAL mode gives crash safety (an acknowledged write survives SIGKILL) and safe concurrent
writers (two app instances never lose each other's changes: every change is a small transaction on
one row, never a rewrite of the whole file, and a toggle acts on what the store holds, not on what a
stale screen showed).

Nothing the user wrote is deleted by a key press: removing a bookmark moves it, with its note and tags,
to the removed list (kept across restarts), from which `restore` brings it back.

Failures are told apart by SQLite's error code (search/user/faults.py), never by message text: a full
disk, a lock or a read-only file is a clear refusal that keeps what is stored; only real damage
(CORRUPT, NOTADB, or a failed quick_check) leads to a repair. A repair salvages every readable row into
a fresh database (search/user/salvage.py), keeps the damaged file beside it, says how much came back,
and happens only when no other iclr-reader has the database open (search/user/locking.py). A read-only
data dir or database still reads (list, get, export); writes are refused with the reason.

Every string read back passes the terminal sanitiser (the database may hold text written by an older
version or another tool), and no string, lone surrogates included, makes a read or write raise.
"""

from __future__ import annotations

import glob
import json
import math
import os
import sqlite3
import time
from collections.abc import Iterable, Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass, replace
from pathlib import Path

from search import paths
from search.errors import StoreError
from search.models import Bookmark, Link, links_from_records
from search.text.sanitize import sanitize, sanitize_line
from search.untrusted import fix_surrogates
from search.user import salvage
from search.user.faults import Fault, fault, is_damage, words
from search.user.locking import StoreLock

DB_NAME = "user.sqlite3"
BUSY_TIMEOUT = 30.0
"""Seconds a write waits for another instance's transaction to finish."""
REMOVED_KEPT = 1000
"""The removed list keeps the newest 1,000 removals; beyond that the oldest go, those without a note or
tags first."""

# Characters sanitize_line changes (controls, bidi controls, whitespace other than single spaces, the
# private-use plane, U+FFFD from bytes that were not UTF-8): a stored key holding one is found by what it
# looks like once sanitised, so a bookmark with a hostile id can still be opened and removed.
_ODD = (
    "*[\x01-\x1f\x7f-\xa0\u061c\u1680\u180e\u2000-\u200f\u2028-\u202f\u205f\u2066-\u2069\u3000\ufeff\ufffd"
    "\U000f0000-\U000fffff]*"
)


def _odd(column: str) -> str:
    """SQL for "this key is odd": in a partial index (built-in functions only, so any tool can still
    write the database), it makes finding odd keys cost nothing when there are none."""
    spaces = f"{column} GLOB '*  *' OR {column} GLOB ' *' OR {column} GLOB '* '"  # a single space is not odd
    return f"({column} GLOB '{_ODD}' OR {spaces} OR typeof({column}) != 'text')"


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
    # 4: removed bookmarks, with their note and tags, so that a removal can be undone (after a restart too).
    """
    CREATE TABLE removed_bookmarks (
        removal_id INTEGER PRIMARY KEY AUTOINCREMENT, paper_id TEXT NOT NULL,
        venue TEXT, headline TEXT NOT NULL, name TEXT, title TEXT,
        authors TEXT NOT NULL DEFAULT '[]', year INTEGER,
        links TEXT NOT NULL DEFAULT '[]', abstract TEXT NOT NULL DEFAULT '', abstract_hash TEXT,
        note TEXT NOT NULL DEFAULT '', tags TEXT NOT NULL DEFAULT '[]',
        created_at REAL NOT NULL, updated_at REAL NOT NULL, removed_at REAL NOT NULL
    );
    CREATE INDEX removed_bookmarks_by_paper ON removed_bookmarks (paper_id);
    """
    # ... and the keys that read differently once sanitised (written by another tool), found by index.
    + f"""
    CREATE INDEX bookmarks_odd_ids ON bookmarks (paper_id) WHERE {_odd("paper_id")};
    CREATE INDEX removed_bookmarks_odd_ids ON removed_bookmarks (paper_id) WHERE {_odd("paper_id")};
    CREATE INDEX saved_searches_odd_names ON saved_searches (name) WHERE {_odd("name")};
    """,
]
SCHEMA_VERSION = len(MIGRATIONS)


@dataclass(frozen=True)
class ToggleResult:
    bookmarked: bool
    """The paper's state in the store afterwards."""
    changed: bool
    """False when the store already differed from what the screen showed (nothing was done)."""
    removed: Bookmark | None = None
    """The bookmark moved to the removed list, with its note and tags."""


class _Damaged(Exception):
    """The database file is damaged (internal: leads to a repair)."""


class UserStore:
    """Bookmarks, notes, tags, removed bookmarks, read marks and saved searches. Every method is one
    short transaction."""

    def __init__(self, path: Path | None = None) -> None:
        self.path = Path(path) if path is not None else paths.data_dir() / DB_NAME
        self.notice: str | None = None
        """Set when something had to be repaired or cannot be written (said once, at start-up)."""
        self.read_only: str | None = None
        """Why writes are refused (a read-only data dir, a full disk during an upgrade, ...), or None."""
        self._identity: tuple[int, int] | None = None
        self._lock = StoreLock(salvage.sibling(self.path, ".lock"))
        try:
            self._connection = self._open()
        except (OSError, sqlite3.Error) as error:  # whatever slipped through is still one line, not a traceback
            self._lock.release()
            reason = words(error, self.path.parent) if isinstance(error, sqlite3.Error) else error.strerror or error
            raise StoreError(f"cannot open {self.path}: {reason}") from None
        except BaseException:
            self._lock.release()
            raise

    # -- opening ------------------------------------------------------------------------------

    def _open(self) -> sqlite3.Connection:
        folder = self.path.parent
        try:
            folder.mkdir(parents=True, exist_ok=True)
        except OSError as error:
            raise StoreError(f"cannot create the data dir {folder}: {error.strerror or error}") from None
        self._lock.acquire_shared()
        if not self.path.exists():
            self._before_creating()
        problem = self._unwritable()
        if problem:
            return self._open_read_only(problem)
        try:
            return self._open_writable()
        except _Damaged:
            return self._repair()

    def _unwritable(self) -> str | None:
        folder = self.path.parent
        if not os.access(folder, os.W_OK):
            return f"the data dir {folder} is read-only"
        if self.path.exists() and not os.access(self.path, os.W_OK):
            return f"{self.path} is read-only"
        return None

    def _open_writable(self) -> sqlite3.Connection:
        try:
            connection = _connect(self.path)
        except sqlite3.Error as error:
            if is_damage(error):
                raise _Damaged() from None
            if fault(error) in (Fault.READONLY, Fault.CANTOPEN, Fault.PERM) and self.path.exists():
                return self._open_read_only(f"{self.path} cannot be written ({words(error)})")
            raise StoreError(f"cannot open {self.path}: {words(error, self.path.parent)}") from None
        try:
            self._prepare(connection)
        except sqlite3.Error as error:
            _close(connection)
            if is_damage(error):
                raise _Damaged() from None
            raise StoreError(f"cannot open {self.path}: {words(error, self.path.parent)}") from None
        except BaseException:
            _close(connection)
            raise
        self._identity = _identity(self.path)
        return connection

    def _prepare(self, connection: sqlite3.Connection, writable: bool = True) -> None:
        """Check the version and the pages, then upgrade the schema (only when it is old: opening writes
        nothing, so a full disk still opens)."""
        version = connection.execute("PRAGMA user_version").fetchone()[0]
        if version > SCHEMA_VERSION:
            raise StoreError(f"{self.path} was written by a newer iclr-reader (schema {version})")
        if connection.execute("PRAGMA quick_check").fetchall() != [("ok",)]:
            raise _Damaged()
        marker = salvage.sibling(self.path, ".damaged")
        if marker.exists():  # damage seen while running that quick_check may not catch (an index)
            if connection.execute("PRAGMA integrity_check").fetchall() != [("ok",)]:
                raise _Damaged()
            if writable:
                with suppress(OSError):
                    marker.unlink(missing_ok=True)
        if version == SCHEMA_VERSION or not writable:
            return
        try:
            _migrate(connection, self.path)
        except sqlite3.Error as error:
            if is_damage(error) or version == 0:
                raise
            # The data is all there in the old schema, which reads fine: read, and refuse writes.
            self.read_only = f"{words(error, self.path.parent)} (cannot upgrade it; restart iclr-reader later)"

    def _open_read_only(self, problem: str) -> sqlite3.Connection:
        """Reading without writing: mode=ro (which still reads the WAL through an existing -shm), or,
        when that cannot open (no -shm, and none can be made), immutable=1."""
        if not self.path.exists():
            raise StoreError(f"cannot create {self.path}: {problem}")
        uri = self.path.absolute().as_uri()
        last: sqlite3.Error | None = None
        for query, stale in (("?mode=ro", False), ("?mode=ro&immutable=1", True)):
            try:
                connection = _connect(uri + query, uri=True)
            except sqlite3.Error as error:
                if is_damage(error):
                    return self._salvage_in_memory(problem)
                last = error
                continue
            try:
                self._prepare(connection, writable=False)
            except sqlite3.Error as error:
                _close(connection)
                if is_damage(error):
                    return self._salvage_in_memory(problem)
                last = error
                continue
            except _Damaged:
                _close(connection)
                return self._salvage_in_memory(problem)
            except BaseException:
                _close(connection)
                raise
            self.read_only = problem
            wal = salvage.sibling(self.path, "-wal")
            recent = stale and wal.exists() and wal.stat().st_size > 0
            self.notice = f"Bookmarks can be read but not changed: {problem}." + (
                " The latest changes may be missing from what is shown." if recent else ""
            )
            return connection
        raise StoreError(f"cannot read {self.path}: {words(last) if last else problem}")

    # -- repairing ----------------------------------------------------------------------------

    def _repair(self) -> sqlite3.Connection:
        """Salvage a damaged database into a fresh one, keeping the damaged file; only when no other
        iclr-reader has it open."""
        version = salvage.header_version(self.path)
        if version is not None and version > SCHEMA_VERSION:
            raise StoreError(f"{self.path} is damaged and was written by a newer iclr-reader (schema {version})")
        if not self._lock.try_exclusive():
            raise StoreError(
                f"the bookmarks database {self.path} is damaged; close other iclr-reader windows and try again"
            )
        try:
            return self._salvage_into_place()
        finally:
            self._lock.share()

    def _salvage_into_place(self) -> sqlite3.Connection:
        recovered = salvage.recover(self.path)
        fresh = self.path.with_name(f".{self.path.name}.salvage-{os.getpid()}")
        _remove_database(fresh)
        try:
            connection = _connect(fresh)
            try:
                _migrate(connection, fresh)
                connection.execute("BEGIN IMMEDIATE")
                counts = salvage.fill(connection, recovered, time.time())
                connection.execute("COMMIT")
            finally:
                _close(connection)
            if salvage.sibling(fresh, "-wal").exists():
                raise StoreError("the new database could not be finished")
            kept = self._move_aside()
            os.replace(fresh, self.path)
        except (sqlite3.Error, OSError, StoreError) as error:
            _remove_database(fresh)
            if isinstance(error, sqlite3.Error) and fault(error) in (Fault.FULL, Fault.READONLY, Fault.IOERR):
                return self._salvage_in_memory(
                    f"it cannot be repaired now: {words(error, self.path.parent)}", recovered
                )
            raise StoreError(
                f"the bookmarks database {self.path} is damaged and cannot be repaired: {_reason(error, self.path)}"
            ) from None
        _sync_folder(self.path.parent)
        with suppress(OSError):
            salvage.sibling(self.path, ".damaged").unlink(missing_ok=True)
        if counts.total:
            self.notice = (
                f"The bookmarks database was damaged: recovered {counts.describe()} into a new one; "
                f"the damaged file was kept as {kept}."
            )
        else:
            self.notice = (
                f"The bookmarks database was damaged and nothing in it could be read; it was kept as {kept} "
                "and a new one was started."
            )
        try:
            return self._open_writable()
        except _Damaged:
            raise StoreError(f"{self.path} was repaired but still reads as damaged; its disk may be failing") from None

    def _salvage_in_memory(self, problem: str, recovered: salvage.Recovered | None = None) -> sqlite3.Connection:
        """A damaged database that cannot be replaced (read-only, full disk): what can be read is shown
        from memory, the file is left as it is, and writes are refused."""
        if recovered is None:
            recovered = salvage.recover(self.path)
        try:
            connection = _connect(":memory:")
            _migrate(connection, self.path)
            connection.execute("BEGIN")
            counts = salvage.fill(connection, recovered, time.time())
            connection.execute("COMMIT")
        except sqlite3.Error as error:
            raise StoreError(f"the bookmarks database {self.path} is damaged, and {problem}: {words(error)}") from None
        self.read_only = f"it is damaged and {problem}"
        self._identity = None
        self.notice = (
            f"The bookmarks database {self.path} is damaged, and {problem}: showing the {counts.describe()} "
            "that could be read; nothing can be changed until it can be repaired (restart iclr-reader then)."
        )
        return connection

    def _move_aside(self) -> Path:
        target = _unique(self.path.with_name(f"{self.path.name}.corrupt-{time.strftime('%Y%m%d-%H%M%S')}"))
        for suffix in ("-wal", "-shm", ""):
            source = salvage.sibling(self.path, suffix)
            if source.exists():
                os.replace(source, salvage.sibling(target, suffix))
        return target

    def _before_creating(self) -> None:
        """There is no database file. Bring back the copy an instance saved when the file was deleted
        under it (see _check_file), and set aside the -wal and -shm a deleted database left (SQLite
        deletes a -wal it finds beside a new database, and would lay it over a copy brought back): both
        only when no other instance has the old files open."""
        copies = sorted(self.path.parent.glob(f"{glob.escape(self.path.name)}.saved-*[0-9]"))
        leftovers = [salvage.sibling(self.path, s) for s in ("-wal", "-shm") if salvage.sibling(self.path, s).exists()]
        if not copies and not leftovers:
            return
        if not self._lock.try_exclusive():
            raise StoreError(
                f"{self.path} was moved or deleted while another iclr-reader has it open; close other iclr-reader "
                "windows and try again"
            )
        try:
            if self.path.exists():
                return
            kept = _unique(self.path.with_name(f"{self.path.name}.orphan-{time.strftime('%Y%m%d-%H%M%S')}"))
            for leftover in leftovers:
                os.replace(leftover, salvage.sibling(kept, leftover.name[len(self.path.name) :]))
            if copies:
                os.replace(copies[-1], self.path)
                self.notice = f"The bookmarks database had been deleted; it was brought back from {copies[-1]}."
            elif salvage.sibling(kept, "-wal").exists():  # SQLite would delete it beside a new database
                self.notice = (
                    f"The bookmarks database was missing but its journal was not; the journal was kept as {kept}-wal."
                )
        except OSError as error:
            raise StoreError(f"cannot restore {self.path}: {error.strerror or error}") from None
        finally:
            self._lock.share()

    def close(self) -> None:
        _close(self._connection)
        self._lock.release()

    # -- running --------------------------------------------------------------------------------

    def _check_file(self) -> None:
        """Never go on writing into a file that is no longer the database at `path` (moved, replaced or
        deleted by another program): writes are refused from then on, and a deleted database is first
        copied out, to come back on the next start."""
        if self._identity is None:
            return
        try:
            now = _identity(self.path)
        except FileNotFoundError:
            now = None
        except OSError:
            return
        if now == self._identity:
            return
        self._identity = None
        if now is not None:
            self.read_only = (
                f"it was moved or replaced while iclr-reader was running; restart iclr-reader to use {self.path}"
            )
            return
        copy = _unique(self.path.with_name(f"{self.path.name}.saved-{time.strftime('%Y%m%d-%H%M%S')}"))
        partial = self.path.with_name(f".{copy.name}.partial")
        try:
            target = sqlite3.connect(partial)
            try:
                self._connection.backup(target)
            finally:
                target.close()
            os.replace(partial, copy)
            self.read_only = (
                f"it was moved or deleted while iclr-reader was running; its bookmarks were saved to {copy} "
                "and come back when iclr-reader restarts"
            )
        except (sqlite3.Error, OSError):
            partial.unlink(missing_ok=True)
            self.read_only = "it was moved or deleted while iclr-reader was running"

    def _error(self, verb: str, error: sqlite3.Error) -> StoreError:
        if is_damage(error):
            with suppress(OSError):  # the next start checks it thoroughly and repairs it
                salvage.sibling(self.path, ".damaged").touch()
            # Writing into a damaged b-tree can spread the damage: no more writes until the repair.
            self.read_only = "it is damaged; restart iclr-reader to recover what can be read"
            return StoreError(
                f"the bookmarks database {self.path} is damaged; restart iclr-reader to recover what can be read"
            )
        return StoreError(f"cannot {verb} {self.path}: {words(error, self.path.parent)}")

    @contextmanager
    def _reading(self) -> Iterator[sqlite3.Connection]:
        """Reads report failures as StoreError, like writes: one kind of error for the interface."""
        self._check_file()
        try:
            yield self._connection
        except sqlite3.Error as error:
            raise self._error("read", error) from None

    @contextmanager
    def _transaction(self) -> Iterator[sqlite3.Connection]:
        self._check_file()
        if self.read_only:
            raise StoreError(f"cannot write {self.path}: {self.read_only}")
        connection = self._connection
        try:
            connection.execute("BEGIN IMMEDIATE")
        except sqlite3.Error as error:
            raise self._error("write", error) from None
        try:
            yield connection
            connection.execute("COMMIT")
        except sqlite3.Error as error:
            _rollback(connection)
            raise self._error("write", error) from None
        except BaseException:
            _rollback(connection)
            raise

    def _has(self, table: str) -> bool:
        """Whether the table exists (a database opened read-only may have an older schema)."""
        with self._reading() as db:
            return (
                db.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", (table,)).fetchone()
                is not None
            )

    # -- bookmarks ----------------------------------------------------------------------------

    def add(self, bookmark: Bookmark) -> None:
        """Bookmark a paper (a no-op for its note and tags when it is already bookmarked)."""
        with self._transaction() as db:
            _add(db, bookmark)

    def remove(self, paper_id: str) -> Bookmark | None:
        """Move the bookmark, with its note and tags, to the removed list; what was removed, or None."""
        with self._transaction() as db:
            rowid = _find(db, "bookmarks", "paper_id", paper_id)
            return None if rowid is None else _move_to_removed(db, rowid)

    def toggle(self, bookmark: Bookmark, shown: bool | None = None) -> ToggleResult:
        """Add the bookmark if absent, else move it to the removed list, in one transaction.

        `shown` is whether the screen showed the paper as bookmarked: when the store differs from it
        (another instance changed it since), nothing is done and `changed` is False."""
        with self._transaction() as db:
            rowid = _find(db, "bookmarks", "paper_id", bookmark.paper_id)
            bookmarked = rowid is not None
            if shown is not None and bool(shown) != bookmarked:
                return ToggleResult(bookmarked=bookmarked, changed=False)
            if rowid is not None:
                return ToggleResult(bookmarked=False, changed=True, removed=_move_to_removed(db, rowid))
            _add(db, bookmark)
            return ToggleResult(bookmarked=True, changed=True)

    def removed(self, limit: int | None = None) -> list[Bookmark]:
        """Removed bookmarks with their notes and tags, most recently removed first."""
        if not self._has("removed_bookmarks"):
            return []
        with self._reading() as db:
            cursor = db.execute(
                "SELECT * FROM removed_bookmarks ORDER BY removal_id DESC LIMIT ?", (-1 if limit is None else limit,)
            )
            return _bookmarks(cursor)

    def restore(self, paper_id: str | None = None) -> Bookmark | None:
        """Bring back the given (default: the most recently) removed bookmark with its note and tags.

        If the paper was bookmarked again meanwhile, its current note stays when it has one (else the
        removed one comes back) and the tags are united. The restored bookmark, or None."""
        with self._transaction() as db:
            if paper_id is None:
                found = db.execute(
                    "SELECT removal_id FROM removed_bookmarks ORDER BY removal_id DESC LIMIT 1"
                ).fetchone()
                removal = found[0] if found else None
            else:
                removal = _find(db, "removed_bookmarks", "paper_id", paper_id)
            if removal is None:
                return None
            cursor = db.execute("SELECT * FROM removed_bookmarks WHERE removal_id = ?", (removal,))
            old = _row(cursor)
            assert old is not None
            now = time.time()
            current = db.execute(
                "SELECT rowid, note, tags FROM bookmarks WHERE paper_id = ?", (old["paper_id"],)
            ).fetchone()
            if current is None:
                db.execute(
                    f"INSERT INTO bookmarks ({_COPIED}, updated_at) SELECT {_COPIED}, ? FROM removed_bookmarks"
                    " WHERE removal_id = ?",
                    (now, removal),
                )
            else:
                rowid, note, tags = current
                keep = _both_notes(note, old["note"])
                united = list(dict.fromkeys([*_stored_list(tags), *_stored_list(old["tags"])]))
                db.execute(
                    "UPDATE bookmarks SET note = ?, tags = ?, updated_at = ? WHERE rowid = ?",
                    (keep, json.dumps(united), now, rowid),
                )
            db.execute("DELETE FROM removed_bookmarks WHERE removal_id = ?", (removal,))
            restored = _row(db.execute("SELECT * FROM bookmarks WHERE paper_id = ?", (old["paper_id"],)))
            return _bookmark(restored) if restored else None

    def set_note(self, paper_id: str, note: str, paper: Bookmark | None = None) -> bool:
        """Set the note. If the paper is not bookmarked (another instance removed it) and `paper` is
        given, it is bookmarked with this note in the same transaction; True when it was added. Without
        `paper`, clearing the note of a bookmark that is gone does nothing (False), and a note with
        nowhere to go is a StoreError: never dropped without a word."""
        with self._transaction() as db:
            rowid = _find(db, "bookmarks", "paper_id", paper_id)
            if rowid is not None:
                db.execute(
                    "UPDATE bookmarks SET note = ?, updated_at = ? WHERE rowid = ?", (_clean(note), time.time(), rowid)
                )
                return False
            if paper is None:
                if not note.strip():
                    return False
                raise StoreError(f"cannot save the note: {sanitize_line(_clean(paper_id))} is not bookmarked")
            _add(db, replace(paper, paper_id=paper_id, note=note))
            return True

    def set_tags(self, paper_id: str, tags: Iterable[str], paper: Bookmark | None = None) -> bool:
        """Set the tags (trimmed, without duplicates or empty ones); like set_note for a paper that is
        not bookmarked."""
        clean = _tags(tags)
        with self._transaction() as db:
            rowid = _find(db, "bookmarks", "paper_id", paper_id)
            if rowid is not None:
                db.execute(
                    "UPDATE bookmarks SET tags = ?, updated_at = ? WHERE rowid = ?",
                    (json.dumps(clean), time.time(), rowid),
                )
                return False
            if paper is None:
                if not clean:
                    return False
                raise StoreError(f"cannot save the tags: {sanitize_line(_clean(paper_id))} is not bookmarked")
            _add(db, replace(paper, paper_id=paper_id, tags=tuple(clean)))
            return True

    def get(self, paper_id: str) -> Bookmark | None:
        if not self._has("bookmarks"):
            return None
        with self._reading() as db:
            rowid = _find(db, "bookmarks", "paper_id", paper_id)
            row = None if rowid is None else _row(db.execute("SELECT * FROM bookmarks WHERE rowid = ?", (rowid,)))
            return _bookmark(row) if row else None

    def bookmarks(self) -> list[Bookmark]:
        """Every bookmark, newest first."""
        if not self._has("bookmarks"):
            return []
        with self._reading() as db:
            return _bookmarks(db.execute("SELECT * FROM bookmarks ORDER BY created_at DESC, paper_id"))

    def bookmarked_ids(self) -> set[str]:
        if not self._has("bookmarks"):
            return set()
        with self._reading() as db:
            return {_line(row[0]) for row in db.execute("SELECT paper_id FROM bookmarks")}

    def merge(self, bookmarks: Iterable[Bookmark]) -> tuple[int, int]:
        """Import bookmarks: new ones are added; existing ones keep their note (or take the imported one)
        and gain missing tags. Importing a bookmark that is in the removed list brings it back, with its
        removed note (or the imported one) and both sets of tags: the user asked for it by importing.

        Returns (added, merged)."""
        added = merged = 0
        with self._transaction() as db:
            for bookmark in bookmarks:
                rowid = _find(db, "bookmarks", "paper_id", bookmark.paper_id)
                if rowid is not None:
                    note, tags = db.execute("SELECT note, tags FROM bookmarks WHERE rowid = ?", (rowid,)).fetchone()
                    db.execute(
                        "UPDATE bookmarks SET note = ?, tags = ?, updated_at = ? WHERE rowid = ?",
                        (*_merged(note, tags, bookmark), time.time(), rowid),
                    )
                    merged += 1
                    continue
                removal = _find(db, "removed_bookmarks", "paper_id", bookmark.paper_id)
                if removal is None:
                    db.execute(_INSERT, _values(bookmark))
                else:
                    note, tags = db.execute(
                        "SELECT note, tags FROM removed_bookmarks WHERE removal_id = ?", (removal,)
                    ).fetchone()
                    now = time.time()
                    inserted = db.execute(
                        f"INSERT INTO bookmarks ({_COPIED}, updated_at) SELECT {_COPIED}, ? FROM removed_bookmarks"
                        " WHERE removal_id = ?",
                        (now, removal),
                    ).lastrowid
                    db.execute(
                        "UPDATE bookmarks SET note = ?, tags = ?, updated_at = ? WHERE rowid = ?",
                        (*_merged(note, tags, bookmark), now, inserted),
                    )
                    db.execute("DELETE FROM removed_bookmarks WHERE removal_id = ?", (removal,))
                added += 1
        return added, merged

    # -- read marks ---------------------------------------------------------------------------

    def mark_opened(self, paper_id: str) -> None:
        now = time.time()
        with self._transaction() as db:
            db.execute(
                """INSERT INTO opened (paper_id, first_at, last_at) VALUES (?, ?, ?)
                   ON CONFLICT(paper_id) DO UPDATE SET last_at = excluded.last_at, times = times + 1""",
                (_clean(paper_id), now, now),
            )

    def opened_ids(self) -> set[str]:
        if not self._has("opened"):
            return set()
        with self._reading() as db:
            return {_line(row[0]) for row in db.execute("SELECT paper_id FROM opened")}

    # -- saved searches -------------------------------------------------------------------------

    def save_search(self, name: str, query: str) -> None:
        """Save (or overwrite) a named query."""
        with self._transaction() as db:
            db.execute(
                "INSERT INTO saved_searches (name, query, created_at) VALUES (?, ?, ?)"
                " ON CONFLICT(name) DO UPDATE SET query = excluded.query",
                (_clean(name), _clean(query), time.time()),
            )

    def saved_searches(self) -> list[tuple[str, str]]:
        """(name, query) pairs, oldest first: their order gives the number keys."""
        if not self._has("saved_searches"):
            return []
        with self._reading() as db:
            rows = db.execute("SELECT name, query FROM saved_searches ORDER BY created_at, name")
            return [(_line(name), _line(query)) for name, query in rows]

    def delete_search(self, name: str) -> bool:
        with self._transaction() as db:
            rowid = _find(db, "saved_searches", "name", name)
            return rowid is not None and db.execute("DELETE FROM saved_searches WHERE rowid = ?", (rowid,)).rowcount > 0


# -- connections ----------------------------------------------------------------------------------


def _connect(target: Path | str, uri: bool = False) -> sqlite3.Connection:
    connection = sqlite3.connect(
        target if uri else str(target), timeout=BUSY_TIMEOUT, isolation_level=None, check_same_thread=False, uri=uri
    )
    try:
        connection.text_factory = salvage.decode_text
        connection.execute(f"PRAGMA busy_timeout = {int(BUSY_TIMEOUT * 1000)}")
        if not uri:  # a read-only connection reads whatever journal mode the file has
            mode = connection.execute("PRAGMA journal_mode = WAL").fetchone()[0]
            if str(target) != ":memory:" and mode.lower() != "wal":
                raise StoreError(f"cannot use {target}: its file system does not support SQLite's WAL mode ({mode})")
            connection.execute("PRAGMA synchronous = FULL")
        connection.execute("PRAGMA foreign_keys = ON")
    except BaseException:
        connection.close()
        raise
    return connection


def _migrate(connection: sqlite3.Connection, path: Path) -> None:
    connection.execute("BEGIN IMMEDIATE")
    try:
        version = connection.execute("PRAGMA user_version").fetchone()[0]
        if version > SCHEMA_VERSION:
            raise StoreError(f"{path} was written by a newer iclr-reader (schema {version})")
        for number in range(version, SCHEMA_VERSION):
            for statement in MIGRATIONS[number].split(";"):
                if statement.strip():
                    connection.execute(statement)
        connection.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
        connection.execute("COMMIT")
    except BaseException:
        _rollback(connection)
        raise


def _close(connection: sqlite3.Connection) -> None:
    with suppress(sqlite3.Error):
        connection.close()


def _rollback(connection: sqlite3.Connection) -> None:
    # SQLite has already rolled back after some errors (a full disk during COMMIT).
    try:
        if connection.in_transaction:
            connection.execute("ROLLBACK")
    except sqlite3.Error:
        pass


def _reason(error: BaseException, path: Path) -> str:
    if isinstance(error, sqlite3.Error):
        return words(error, path.parent)
    if isinstance(error, OSError):
        return str(error.strerror or error)
    return str(error)


def _unique(path: Path) -> Path:
    """`path`, or `path-2`, `path-3`, ...: a name nothing (nor its -wal or -shm) has yet."""
    candidate, number = path, 1
    while any(salvage.sibling(candidate, suffix).exists() for suffix in ("", "-wal", "-shm")):
        number += 1
        candidate = path.with_name(f"{path.name}-{number}")
    return candidate


def _identity(path: Path) -> tuple[int, int]:
    stat = os.stat(path)
    return stat.st_dev, stat.st_ino


def _remove_database(path: Path) -> None:
    for suffix in ("", "-wal", "-shm", "-journal"):
        salvage.sibling(path, suffix).unlink(missing_ok=True)


def _sync_folder(folder: Path) -> None:
    try:
        descriptor = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(descriptor)
    except OSError:
        pass
    finally:
        os.close(descriptor)


# -- rows -------------------------------------------------------------------------------------------


def _find(db: sqlite3.Connection, table: str, column: str, key: str) -> int | None:
    """The rowid of the newest row whose `column` is `key`, or reads as `key` once sanitised."""
    key = _clean(key)
    row = db.execute(f"SELECT rowid FROM {table} WHERE {column} = ? ORDER BY rowid DESC LIMIT 1", (key,)).fetchone()
    if row:
        return int(row[0])
    wanted = sanitize_line(key)
    odd = [
        int(rowid)
        for rowid, stored in db.execute(f"SELECT rowid, {column} FROM {table} WHERE {_odd(column)}")
        if _line(stored) == wanted
    ]
    return max(odd, default=None)


_COPIED = (
    "paper_id, venue, headline, name, title, authors, year, links, abstract, abstract_hash, note, tags, created_at"
)
_INSERT = f"""INSERT INTO bookmarks ({_COPIED}, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"""
_REFRESH = """UPDATE bookmarks SET venue = ?, headline = ?, name = ?, title = ?, authors = ?, year = ?, links = ?,
    abstract = ?, abstract_hash = ?, updated_at = ? WHERE rowid = ?"""
"""Refresh what the paper says about itself; its note and tags stay."""


def _add(db: sqlite3.Connection, bookmark: Bookmark) -> None:
    values = _values(bookmark)
    rowid = _find(db, "bookmarks", "paper_id", bookmark.paper_id)
    if rowid is None:
        db.execute(_INSERT, values)
    else:
        db.execute(_REFRESH, (*values[1:10], values[13], rowid))


def _move_to_removed(db: sqlite3.Connection, rowid: int) -> Bookmark:
    row = _row(db.execute("SELECT * FROM bookmarks WHERE rowid = ?", (rowid,)))
    assert row is not None
    db.execute(
        f"INSERT INTO removed_bookmarks ({_COPIED}, updated_at, removed_at)"
        f" SELECT {_COPIED}, updated_at, ? FROM bookmarks WHERE rowid = ?",
        (time.time(), rowid),
    )
    db.execute("DELETE FROM bookmarks WHERE rowid = ?", (rowid,))
    (count,) = db.execute("SELECT count(*) FROM removed_bookmarks").fetchone()
    if count > REMOVED_KEPT:
        db.execute(
            "DELETE FROM removed_bookmarks WHERE removal_id IN (SELECT removal_id FROM removed_bookmarks"
            " WHERE removal_id < (SELECT max(removal_id) FROM removed_bookmarks)"  # never the one just made: u undoes it
            " ORDER BY (note != '' OR tags NOT IN ('', '[]')), removal_id LIMIT ?)",
            (count - REMOVED_KEPT,),
        )
    return _bookmark(row)


def _values(bookmark: Bookmark) -> tuple:
    now = time.time()
    year = bookmark.year
    return (
        _clean(bookmark.paper_id),
        _optional(bookmark.venue),
        _clean(bookmark.headline) or _clean(bookmark.paper_id),
        _optional(bookmark.name),
        _optional(bookmark.title),
        json.dumps([_clean(author) for author in bookmark.authors if isinstance(author, str)]),
        year if isinstance(year, int) and not isinstance(year, bool) and 0 < year < 10_000 else None,
        json.dumps(
            [
                {"label": _clean(link.label), "url": _clean(link.url), "kind": _clean(link.kind)}
                for link in bookmark.links
                if isinstance(link, Link) and isinstance(link.url, str)
            ]
        ),
        _clean(bookmark.abstract or ""),
        _optional(bookmark.abstract_hash),
        _clean(bookmark.note or ""),
        json.dumps(_tags(bookmark.tags)),
        _created(bookmark.created_at, now),
        now,
    )


def _created(value: object, default: float) -> float:
    """A creation time that is a real moment, not in the future (an import may say anything)."""
    if isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value) and value > 0:
        return min(float(value), time.time())
    return default


def _both_notes(current: object, removed: object) -> str:
    """The note of a bookmark made again and the note of its removed copy: both, when they differ."""
    texts = [text.strip() for text in (current, removed) if isinstance(text, str) and text.strip()]
    return "\n\n".join(dict.fromkeys(texts))


def _merged(note: object, tags: object, bookmark: Bookmark) -> tuple[str, str]:
    """The stored note (or the imported one, when there is none) and the union of the tags."""
    kept = note if isinstance(note, str) and note.strip() else _clean(bookmark.note or "")
    return kept, json.dumps(list(dict.fromkeys([*_stored_list(tags), *_tags(bookmark.tags)])))


def _tags(tags: Iterable[str]) -> list[str]:
    return list(dict.fromkeys(tag for tag in (sanitize_line(_clean(t)) for t in tags if isinstance(t, str)) if tag))


def _optional(value: object) -> str | None:
    return _clean(value) if isinstance(value, str) and value else None


def _clean(text: str) -> str:
    """The text without lone surrogates (they cannot be stored as UTF-8): each becomes U+FFFD."""
    return fix_surrogates(text if isinstance(text, str) else str(text))


def _row(cursor: sqlite3.Cursor) -> dict[str, object] | None:
    row = cursor.fetchone()
    return None if row is None else dict(zip([d[0] for d in cursor.description], row))


def _bookmarks(cursor: sqlite3.Cursor) -> list[Bookmark]:
    columns = [d[0] for d in cursor.description]
    return [_bookmark(dict(zip(columns, row))) for row in cursor]


# -- reading rows back: the database may hold anything (an older version, another tool, damage) ----


def _text(value: object) -> str:
    if isinstance(value, str):
        return _clean(value)
    if isinstance(value, bytes):
        return salvage.decode_text(value)
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return str(value)
    return ""


def _line(value: object) -> str:
    return sanitize_line(_text(value))


def _stored_list(value: object) -> list[str]:
    """A JSON list column, leniently: text that is not a JSON list is kept as one item."""
    text = _text(value)
    if not text.strip():
        return []
    try:
        parsed = json.loads(text)
    except (ValueError, RecursionError):
        return [text]
    items = parsed if isinstance(parsed, list) else [parsed]
    return [_text(item) for item in items if isinstance(item, (str, int, float)) and not isinstance(item, bool)]


def _bookmark(values: dict[str, object]) -> Bookmark:
    paper_id = _line(values.get("paper_id"))
    title = _line(values.get("title")) or None
    year = values.get("year")
    created = values.get("created_at")
    return Bookmark(
        paper_id=paper_id,
        headline=_line(values.get("headline")) or title or paper_id,
        venue=_line(values.get("venue")) or None,
        name=_line(values.get("name")) or None,
        title=title,
        authors=tuple(author for author in map(sanitize_line, _stored_list(values.get("authors"))) if author),
        year=year if isinstance(year, int) and not isinstance(year, bool) and 0 < year < 10_000 else None,
        links=_links(values.get("links")),
        abstract=sanitize(_text(values.get("abstract"))),
        abstract_hash=_line(values.get("abstract_hash")) or None,
        note=sanitize(_text(values.get("note"))),
        tags=tuple(dict.fromkeys(tag for tag in map(sanitize_line, _stored_list(values.get("tags"))) if tag)),
        created_at=float(created)
        if isinstance(created, (int, float)) and not isinstance(created, bool) and math.isfinite(created)
        else None,
    )


def _links(value: object) -> tuple[Link, ...]:
    try:
        records = json.loads(_text(value) or "[]")
    except (ValueError, RecursionError):
        return ()
    links = []
    for link in links_from_records(records):
        url = "".join(sanitize(_clean(link.url)).split())
        if url.lower().startswith(("http://", "https://")):
            links.append(
                Link(sanitize_line(_clean(link.label)) or url, url, sanitize_line(_clean(link.kind)) or "link")
            )
    return tuple(links)
