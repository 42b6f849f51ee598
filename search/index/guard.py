"""The open index, guarded against damage while it is read.

On damaged files Whoosh raises all sorts (struct.error, ValueError, KeyError, IndexError, EOFError,
zlib.error, UnicodeDecodeError, pickle errors, ...), and a damaged id column gives ids the corpus
does not know (or one paper twice). `GuardedIndex` owns the `ShardedIndex` and whatever reads it
(a reader made from each newly opened index: the query runner, which this layer does not know), and
on either sign of damage checks the index on disk, rebuilds the damaged shards, reads with a reader
of the repaired index once more and says so, once. Every FILES_CHECK_INTERVAL, a read first checks
that the open index's files are as they were, so damage that reading would not notice (a lengths
column is any bytes) is repaired too. An error the index on disk does not explain is raised as it
was.
"""

from __future__ import annotations

import dataclasses
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Generic, TypeVar

from search.index.lifecycle import DAMAGED_NOTICE, IndexStatus, OpenedIndex, ShardedIndex
from search.index.shard import Progress
from search.models import Paper
from search.text.describe import Description

FILES_CHECK_INTERVAL = 2.0
"""At most this often (in seconds), a read first checks that the open index's files are as they
were when checked (a stat each); one written, replaced or deleted meanwhile has the index repaired."""

ADOPT_ATTEMPTS = 5
"""How many readers are made, at most, for an index whose shards other processes keep replacing
while the reader is made (see GuardedIndex._adopt)."""

R = TypeVar("R")
"""What reads the open index (the query runner)."""
T = TypeVar("T")


def may_be_damage(error: Exception) -> bool:
    """Errors of the engine's own (a ReaderError, a search stopped by its budget, a cancelled build)
    say what the user or the caller did; any other error while reading the index may come from
    damaged files."""
    module = type(error).__module__
    return module != "search" and not module.startswith("search.")


class GuardedIndex(Generic[R]):
    """The index of one loaded corpus and the reader of its open shards, repaired when damaged.

    `make_reader` makes a reader of a newly opened index (it may raise on damaged files: the index
    is then checked and repaired, once); `close_reader` closes one no longer read. `describe` gives
    a paper's description, for the shards a repair builds again."""

    def __init__(
        self,
        make_reader: Callable[[OpenedIndex], R],
        close_reader: Callable[[R], None],
        describe: Callable[[Paper], Description],
    ) -> None:
        self._make_reader = make_reader
        self._close_reader = close_reader
        self._describe = describe
        self._index: ShardedIndex | None = None
        self.reader: R | None = None
        """The reader of the open index (None before the index is opened and after `close`)."""
        self.opened: OpenedIndex | None = None
        """The open index `reader` reads: its shards and their side data (rows, vocabulary)."""
        self._lock = threading.Lock()
        """Held while the index is opened or repaired (a build holds it for seconds)."""
        self._files_checked = 0.0
        self._notice: str | None = None

    def open(
        self,
        root: Path,
        papers: Sequence[Paper],
        on_progress: Progress | None = None,
        cancel: threading.Event | None = None,
        rebuild: bool = False,
        fingerprints: Mapping[str, str] | None = None,
    ) -> IndexStatus:
        """Open the index of `papers` under `root` (ShardedIndex.open: each corpus file's shard,
        building the ones that are missing, stale or damaged, every one with `rebuild`) and read it
        from now on. Damage found when the reader is made (another process at work between checking
        the files and opening them) is repaired (see _adopt)."""
        with self._lock:
            if self._index is None or self._index.root != root:
                self._index = ShardedIndex(root)
            status = self._index.open(papers, self._describe, on_progress, cancel, rebuild, fingerprints)
            for repaired in self._adopt():
                built, damaged = status.built or repaired.built, status.damaged + repaired.damaged
                status = dataclasses.replace(
                    status, built=built, notice=repaired.notice or status.notice, damaged=damaged
                )
            return status

    def read(self, call: Callable[[R, int], T], sound: Callable[[T], bool]) -> tuple[T, bool]:
        """call(reader, attempt), and once more with the repaired index's reader after an error that
        may be damage or a value that is not `sound`; and whether damaged shards were rebuilt
        meanwhile. `attempt` is 0 for a read of the index as it was, 1 and up for a read after a
        repair (a time budget may start afresh: the time a repair took, seconds for a rebuild, is
        not the read's). When the index on disk is sound and is the one open, an error is raised as
        it was and a value not sound is returned as it is, for the caller to deal with. The index
        must be open (`open`)."""
        current = self.reader
        assert current is not None, "the index is not open"
        reader, rebuilt = self._checked(current)
        attempt = 0 if reader is current else 1
        try:
            value = call(reader, attempt)
        except Exception as error:
            if not may_be_damage(error):
                raise
            repaired = self._repaired(reader)
            if repaired is None:
                raise
            return call(repaired[0], attempt + 1), rebuilt or repaired[1]
        if sound(value):
            return value, rebuilt
        repaired = self._repaired(reader)
        if repaired is None:
            return value, rebuilt
        return call(repaired[0], attempt + 1), rebuilt or repaired[1]

    def take_notice(self) -> str | None:
        """What to tell the user, once, about the index since the last call, or None: that it was found
        damaged while being read, and rebuilt."""
        notice, self._notice = self._notice, None
        return notice

    def close(self) -> None:
        """Close the reader (`open` makes another)."""
        if self.reader is not None:
            self._close_reader(self.reader)
            self.reader = None

    def _adopt(self) -> list[IndexStatus]:
        """Read the index's open shards, unless they are the ones read already; the repairs this took.

        Whoosh opens a shard's files by name, some only when the reader is made (the id and lengths
        columns), after the shard's files were checked: another process's build may have renamed
        a new shard over it meanwhile (`index --rebuild`), whose files have other names. So a
        reader is kept only when it was made without an error that may be damage and every open
        shard's files are still the ones checked; else it is let go, the index repaired (the
        shards that changed opened afresh, damaged ones rebuilt) and a reader made again, up to
        ADOPT_ATTEMPTS times (the last reader is kept: the next read's check sees any change)."""
        assert self._index is not None
        repairs: list[IndexStatus] = []
        if self._index.opened is None or (self._index.opened is self.opened and self.reader is not None):
            return repairs
        for attempt in range(ADOPT_ATTEMPTS):
            last = attempt == ADOPT_ATTEMPTS - 1
            opened = self._index.opened
            assert opened is not None
            try:
                reader = self._make_reader(opened)
            except Exception as error:
                if last or not may_be_damage(error):
                    raise
                repaired = self._index.repair(self._describe)
                if repaired is None:  # the files are the ones checked: not the index's doing
                    raise
                repairs.append(repaired)
                continue
            if last or not self._index.changed_on_disk():
                if self.reader is not None:
                    self._close_reader(self.reader)
                self.reader, self.opened = reader, opened
                self._files_checked = time.monotonic()
                return repairs
            self._close_reader(reader)
            repaired = self._index.repair(self._describe)  # None: the same build (its stamps renewed)
            if repaired is not None:
                repairs.append(repaired)
        raise AssertionError("unreachable: the last attempt keeps its reader or raises")

    def _checked(self, reader: R) -> tuple[R, bool]:
        """The reader to read with: `reader`, or a repaired index's if files of the open index changed
        on disk (checked every FILES_CHECK_INTERVAL; not while the index is being opened); and
        whether damaged shards were rebuilt."""
        now = time.monotonic()
        if now - self._files_checked < FILES_CHECK_INTERVAL or not self._lock.acquire(blocking=False):
            return reader, False
        try:
            self._files_checked = now
            changed = self._index is not None and self._index.changed_on_disk()
        finally:
            self._lock.release()
        return (self._repaired(reader) or (reader, False)) if changed else (reader, False)

    def _repaired(self, failed: R) -> tuple[R, bool] | None:
        """After `failed` raised while reading the index, or read a value not sound: the reader to try
        again with (every file checked on disk, damaged shards rebuilt) and whether shards were
        rebuilt; None when the index on disk is sound and the one open, so the error was not damage."""
        with self._lock:
            if self.reader is not failed:  # another thread repaired it already (or the index was closed)
                return None if self.reader is None else (self.reader, False)
            assert self._index is not None
            status = self._index.repair(self._describe)
            if status is None:
                return None
            repairs = self._adopt()
            damaged = any(repaired.damaged for repaired in [status, *repairs])
            if damaged:
                self._notice = DAMAGED_NOTICE
            assert self.reader is not None
            return self.reader, damaged
