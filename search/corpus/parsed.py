"""Each corpus file's parsed papers, kept in the cache dir, so a start with a changed list reads the
other lists' papers instead of parsing and sanitising every record again (at 100,000 papers in ten
lists, the nine unchanged ones: 4.5 s of reading and checking JSON rows become about 0.4 s).

An entry is one of snapshot.py's sealed entries, for one file: keyed by the file's path and stamp
(device, inode, size, mode, modification and change time), the engine's code, Python's version and
marshal's format, written with marshal and sealed with this user's key, so it is trusted only if
this user's reader wrote it (one byte changed anywhere, an entry for another file or another key:
the file is parsed afresh and the entry rewritten). Like the saved corpus it leaves the abstracts in
the entry, read when a paper's abstract is (kept.py): unchanged lists do not hold theirs in memory,
and the merge reads none of them (each paper's merge.abstract_ends is kept with it).
It is derived data: deleting it costs one slower start, and failing to write it costs nothing.
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import operator
import os
import threading
from collections.abc import Callable, Iterator, Sequence
from itertools import accumulate
from pathlib import Path

from search import paths
from search.corpus import snapshot
from search.corpus.formats import Parsed
from search.corpus.merge import abstract_ends

CACHE_FOLDER = "parsed"
KEPT_ENTRIES = 64
"""At most this many files' parses are kept (the least recently used go first): lists removed,
or parsed once in a download's staging folder, do not pile up."""


def parsed_file(
    path: Path, limit: int, parse: Callable[[], Parsed], later: list[Callable[[], None]] | None = None
) -> Parsed:
    """The file's parse from the cache when the file is unchanged, else `parse()` (cached for next
    time: now, or by the call appended to `later`). A file that is no regular file of at most
    `limit` bytes is left to `parse` to refuse."""
    # The change time too: nobody can set it back, so a same-size edit whose modification time was
    # restored (rsync -t, touch -r) or a file recreated on a reused inode with an archive's date shows.
    key = snapshot.stamps([path], limit)
    if key is None:
        return parse()
    found = snapshot.read(key, CACHE_FOLDER)
    if found is not None:
        with contextlib.suppress(KeyError, TypeError, ValueError):
            papers, ends = list(found["papers"]), found["ends"]
            if len(ends) == len(papers):
                return Parsed(papers, found["skipped"], found["venue"], found["format"], ends)
    result = parse()  # the stamp was taken before reading, so a file changed meanwhile is re-parsed next time
    result = dataclasses.replace(result, ends=[abstract_ends(paper.abstract) for paper in result.papers])
    if later is None:
        _write(key, result)
    else:
        later.append(lambda: _write(key, result))
    return result


def keep_written(path: Path, limit: int, result: Parsed, written: os.stat_result) -> None:
    """Keep `result`, the parse of the bytes this process has just written to the new file `path`
    (`written`: its status once written), as that file's entry, so that its first load reads it
    instead of parsing the same bytes again (`add`: the check's parse kept for the library's copy).
    Kept only while the file is as it was written: its key is the one a load takes then, so the
    entry is trusted as any other is (sealed, and re-parsed once the file changes)."""
    key = snapshot.stamps([path], limit)
    if key is None or key[1][0][1] != snapshot.stamp_of(written):  # changed since it was written: parsed when loaded
        return
    if result.ends is None or len(result.ends) != len(result.papers):
        result = dataclasses.replace(result, ends=[abstract_ends(paper.abstract) for paper in result.papers])
    _write(key, result)


def _write(key: tuple, result: Parsed) -> None:
    fields = {
        "papers": result.papers,
        "skipped": result.skipped,
        "venue": result.venue,
        "format": result.format,
        "ends": result.ends,
    }
    # The facts a parse left unmade stay so (a cold start's other process wrote each entry's 1.5 times
    # slower than it parsed the list, making them; the load here shows none of them).
    snapshot.write(key, fields, CACHE_FOLDER, KEPT_ENTRIES, unmade=True)
    folder = paths.cache_dir() / CACHE_FOLDER
    with contextlib.suppress(OSError):
        snapshot.prune(folder, 0, ".json")  # the JSON entries of earlier versions


AHEAD_MIN_BYTES = 8 << 20
"""From this many bytes of lists to parse, another process parses a share of them meanwhile. Below
it the gain is a few ms. It was 48 MB while writing an entry made each paper's facts (on the 17 real
lists, 36 MB full of reviews and people, the other process then took 0.57 s for 45% of them, where
this one took 0.65 s for all); the entries keep them unmade now, and those 17 lists, a cold start
of 10,744 papers, are parsed on two cores."""


MEANWHILE_LEAD_BYTES = 8 << 20
"""When this process has taken a list and at most this many bytes of lists are left to take, it does
what it has to do meanwhile (`load_corpus`'s `meanwhile`: the app's imports, 0.12-0.15 s of CPU),
then takes the rest in turn: the other process parses about this much in that time. Done only once
no list was left, as before, the other process idled through it when the lists were small (the 17
real lists: 2 MB, 40 ms each)."""


class Ahead:
    """The lists another process may be parsing into the cache (`shared`): this process and that one
    each take the next of them as they finish one (`claims`), so neither waits long for the other
    whatever the lists' sizes or the machine's load; `wait` for the other to be done."""

    def __init__(
        self, shared: Sequence[Path] = (), pid: int = 0, queue: int = -1, done: int = -1, sizes: Sequence[int] = ()
    ) -> None:
        self.shared = frozenset(shared)
        self._order = list(shared)
        self._pid = pid
        self._queue = queue
        self._done = done
        self._left = sum(sizes)
        self._after = list(accumulate(sizes, operator.sub, initial=self._left))[1:]
        """The bytes of the lists queued after each one (up to 16,000 lists: not a sum for each)."""

    def claims(self) -> Iterator[Path]:
        """The shared lists this process takes, one at a time, until none is left."""
        while self._queue >= 0:
            taken = _claim(self._queue)
            if taken is None:
                os.close(self._queue)
                self._queue = -1
                self._left = 0
                return
            self._left = self._after[taken] if taken < len(self._after) else 0
            yield self._order[taken]

    def nearly_taken(self) -> bool:
        """Whether at most MEANWHILE_LEAD_BYTES of lists were queued after the last one this process
        took (the other process may have taken some of them since)."""
        return self._left <= MEANWHILE_LEAD_BYTES

    def finished(self) -> Iterator[Path]:
        """Each list the other process is done with (its entry written, or not), as it finishes it,
        until it has no more: read while it parses its last, not all after it."""
        while self._done >= 0:
            taken = _claim(self._done)
            if taken is None:
                os.close(self._done)
                self._done = -1
                return
            yield self._order[taken]

    def wait(self) -> None:
        """Until the other process is done (its entries written, or not: then they are parsed here)."""
        if self._pid:
            pid, self._pid = self._pid, 0
            with contextlib.suppress(ChildProcessError):
                os.waitpid(pid, 0)

    def stop(self) -> None:
        for pipe in (self._queue, self._done):
            if pipe >= 0:
                os.close(pipe)
        self._queue = self._done = -1
        if self._pid:
            with contextlib.suppress(ProcessLookupError):
                os.kill(self._pid, 9)
            self.wait()


_QUEUED = 2
"""Bytes a list's number takes in the queue of lists to claim (a pipe: one read takes one number, as
reads of a pipe do not interleave)."""
_MAX_QUEUED = 16_000
"""More lists than this (a pipe holds 64 KiB) are parsed here alone."""


def _claim(queue: int) -> int | None:
    """The next list's number from the queue, or None when it is empty (every list taken, or the
    other process gone)."""
    taken = os.read(queue, _QUEUED)
    return int.from_bytes(taken, "big") if len(taken) == _QUEUED else None


@contextlib.contextmanager
def parsed_ahead(files: Sequence[Path], limit: int, parse: Callable[[Path], Parsed]) -> Iterator[Ahead]:
    """A cold start's lists parsed on two CPUs: a forked process and this one each take the next of
    the lists whose entries are missing or older than the file (the largest first) until none is left,
    the other process writing each one's entry, which this one then reads (a failure there only means
    parsing it here). At 100,000 papers a cold start's parse is seconds of Python. Only from a
    process with one thread (a fork copies no other thread, nor a lock one of them holds), on two
    CPUs or more, with the cache's key at hand, for AHEAD_MIN_BYTES or more; else nothing is shared
    and this process parses every list. A process begun by `begun_ahead` for the same files is
    taken over instead."""
    global _begun
    if _begun is not None and _begun[0] == tuple(files):
        ahead, _begun = _begun[1], None
        try:
            yield ahead
        finally:
            ahead.stop()
        return
    if _begun is not None:  # begun for other files (the library changed meanwhile): not needed
        _begun[1].stop()
        _begun = None
    ahead = Ahead()
    sizes = _uncached(files, limit) if len(files) > 1 else {}
    if (
        sum(sizes.values()) >= AHEAD_MIN_BYTES
        and 1 < len(sizes) <= _MAX_QUEUED
        and (os.cpu_count() or 1) > 1
        and hasattr(os, "fork")
        and threading.active_count() == 1
        and snapshot.key_at_hand()
    ):
        order = sorted(sizes, key=lambda path: -sizes[path])  # the largest first: the last ones taken are short
        queue, filling = os.pipe()
        os.write(filling, b"".join(number.to_bytes(_QUEUED, "big") for number in range(len(order))))
        os.close(filling)  # (both processes see the end once every list is taken)
        done, telling = os.pipe()
        try:
            pid = os.fork()
        except OSError:  # no process to be had: everything is parsed here
            pid = -1
        if pid == 0:  # the other process: parse, write each entry, say so, and leave without a trace
            code = 1
            try:
                taken = _claim(queue)
                while taken is not None:
                    with contextlib.suppress(Exception):
                        parsed_file(order[taken], limit, functools.partial(parse, order[taken]))
                    os.write(telling, taken.to_bytes(_QUEUED, "big"))
                    taken = _claim(queue)
                code = 0
            finally:
                os._exit(code)
        os.close(telling)  # (its end is read once the other process is gone)
        if pid > 0:
            ahead = Ahead(order, pid, queue, done, [sizes[path] for path in order])
        else:
            os.close(queue)
            os.close(done)
    try:
        yield ahead
    finally:
        ahead.stop()


_begun: tuple[tuple[Path, ...], Ahead] | None = None
"""The files `begun_ahead` forked the other process for, and its Ahead, until a load takes it over."""


@contextlib.contextmanager
def begun_ahead(files: Sequence[Path], limit: int, parse: Callable[[Path], Parsed]) -> Iterator[None]:
    """`parsed_ahead`'s other process forked now, at a command's start, so that it parses while this
    one imports the engine and the interface (0.3-0.5 s of one core); the load of the same files
    (`parsed_ahead`) takes it over. One not taken over is ended on leaving."""
    global _begun
    with parsed_ahead(files, limit, parse) as ahead:
        _begun = (tuple(files), ahead) if ahead.shared else None
        try:
            yield
        finally:
            _begun = None


def _uncached(files: Sequence[Path], limit: int) -> dict[Path, int]:
    """The size of each file whose cache entry is missing or older than it or than the engine's code
    (what a load will parse, as far as dates tell: an entry is trusted only once its seal and key
    are checked, when it is read)."""
    found = {}
    code = _code_written()
    for path in files:
        with contextlib.suppress(OSError, ValueError):
            status = os.stat(path)
            if not 0 < status.st_size <= limit:
                continue
            key = snapshot.stamps([path], limit)
            entry = None if key is None else snapshot.entry_path(key, CACHE_FOLDER)
            try:
                fresh = entry is not None and os.stat(entry).st_mtime_ns >= max(status.st_mtime_ns, code)
            except OSError:
                fresh = False
            if not fresh:
                found[path] = status.st_size
    return found


@functools.lru_cache(maxsize=1)
def _code_written() -> int:
    """When the engine's code was last written (an upgrade makes every entry stale: its key holds a
    digest of the code, snapshot.code_digest)."""
    latest = 0
    for source in Path(snapshot.__file__).resolve().parents[1].rglob("*.py"):
        with contextlib.suppress(OSError):
            latest = max(latest, source.stat().st_mtime_ns)
    return latest
