"""What a SQLite failure means, told by its error code (never by its message text), in words for the user.

Only CORRUPT and NOTADB mean the database is damaged. A full disk, a lock held by another program, a
read-only file or an I/O error say nothing about the file's contents, and must never lead to moving a
healthy database aside.
"""

from __future__ import annotations

import os
import sqlite3
from enum import Enum
from pathlib import Path


class Fault(Enum):
    FULL = "full"
    BUSY = "busy"
    READONLY = "readonly"
    IOERR = "ioerr"
    CANTOPEN = "cantopen"
    PERM = "perm"
    NOMEM = "nomem"
    DAMAGED = "damaged"
    OTHER = "other"


_BY_CODE = {
    sqlite3.SQLITE_FULL: Fault.FULL,
    sqlite3.SQLITE_BUSY: Fault.BUSY,
    sqlite3.SQLITE_LOCKED: Fault.BUSY,
    sqlite3.SQLITE_READONLY: Fault.READONLY,
    sqlite3.SQLITE_IOERR: Fault.IOERR,
    sqlite3.SQLITE_CANTOPEN: Fault.CANTOPEN,
    sqlite3.SQLITE_PERM: Fault.PERM,
    sqlite3.SQLITE_AUTH: Fault.PERM,
    sqlite3.SQLITE_NOMEM: Fault.NOMEM,
    sqlite3.SQLITE_CORRUPT: Fault.DAMAGED,
    sqlite3.SQLITE_NOTADB: Fault.DAMAGED,
}

_WORDS = {
    Fault.FULL: "the disk is full",
    Fault.BUSY: "another program holds it locked; try again in a moment",
    Fault.READONLY: "it is read-only",
    Fault.IOERR: "a disk I/O error",
    Fault.CANTOPEN: "it cannot be opened",
    Fault.PERM: "permission denied",
    Fault.NOMEM: "out of memory",
    Fault.DAMAGED: "the database is damaged",
}


def fault(error: BaseException) -> Fault:
    """The kind of failure, from the SQLite result code (the primary code: its low byte)."""
    code = getattr(error, "sqlite_errorcode", None)
    if not isinstance(code, int):
        return Fault.OTHER
    return _BY_CODE.get(code & 0xFF, Fault.OTHER)


def is_damage(error: BaseException) -> bool:
    return fault(error) is Fault.DAMAGED


def words(error: BaseException, folder: Path | None = None) -> str:
    """What went wrong, in a few words. An I/O error on a disk with no space left is a full disk."""
    kind = fault(error)
    if kind is Fault.IOERR and folder is not None and disk_full(folder):
        kind = Fault.FULL
    if kind is Fault.OTHER:
        name = getattr(error, "sqlite_errorname", None)
        text = " ".join(str(error).split()) or type(error).__name__
        return f"{text} ({name})" if isinstance(name, str) and name not in text else text
    return _WORDS[kind]


def disk_full(folder: Path) -> bool:
    try:
        stats = os.statvfs(folder)
    except OSError:
        return False
    return stats.f_bavail == 0
