"""The store's sidecar lock: every open store holds a shared `flock` on `user.sqlite3.lock` for as long
as it is open; moving the database (to repair it) needs the exclusive lock, taken without waiting, so a
database is never renamed while another iclr-reader has it open (it would go on writing into the renamed
file)."""

from __future__ import annotations

import contextlib
import fcntl
import os
import time
from pathlib import Path

from search.errors import StoreError

WAIT = 30.0
"""Seconds a store waits for another instance to finish repairing the database."""


class StoreLock:
    def __init__(self, path: Path) -> None:
        self.path = path
        self._fd: int | None = None

    @property
    def held(self) -> bool:
        return self._fd is not None

    def acquire_shared(self) -> None:
        """Take the shared lock, waiting while another instance repairs the database. Without a lock file
        (a read-only data dir that has none) or lock support, the store goes on without: it then never
        moves the database."""
        if self._fd is None:
            self._fd = _open(self.path)
        if self._fd is None:
            return
        deadline = time.monotonic() + WAIT
        while True:
            try:
                fcntl.flock(self._fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
                return
            except BlockingIOError:
                pass
            except OSError:  # no lock support on this file system
                self.release()
                return
            if time.monotonic() > deadline:
                raise StoreError(f"{self.path.parent} is being repaired by another iclr-reader; try again in a moment")
            time.sleep(0.05)

    def try_exclusive(self) -> bool:
        """The exclusive lock, only if no other store (in any process) holds the lock. On failure the
        shared lock is taken back (a failed conversion drops it)."""
        if self._fd is None:
            return False
        try:
            fcntl.flock(self._fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return True
        except OSError:
            self.acquire_shared()
            return False

    def share(self) -> None:
        """Back from exclusive to shared."""
        if self._fd is not None:
            with contextlib.suppress(OSError):
                fcntl.flock(self._fd, fcntl.LOCK_SH)

    def release(self) -> None:
        fd, self._fd = self._fd, None
        if fd is not None:
            with contextlib.suppress(OSError):
                os.close(fd)

    def __del__(self) -> None:
        self.release()


def _open(path: Path) -> int | None:
    for flags in (os.O_RDWR | os.O_CREAT, os.O_RDONLY):
        try:
            return os.open(path, flags | os.O_CLOEXEC, 0o644)
        except OSError:
            continue
    return None
