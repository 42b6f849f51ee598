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
import os
import threading
from collections.abc import Callable, Iterator, Sequence
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


def _write(key: tuple, result: Parsed) -> None:
    fields = {
        "papers": result.papers,
        "skipped": result.skipped,
        "venue": result.venue,
        "format": result.format,
        "ends": result.ends,
    }
    snapshot.write(key, fields, CACHE_FOLDER, KEPT_ENTRIES)
    folder = paths.cache_dir() / CACHE_FOLDER
    with contextlib.suppress(OSError):
        snapshot.prune(folder, 0, ".json")  # the JSON entries of earlier versions


AHEAD_MIN_BYTES = 48 << 20
"""From this many bytes of lists to parse, another process parses a share of them meanwhile. Below
it the gain is small and can be a loss: the other process writes its entries, making each paper's
facts for them (which a start here leaves for later), so on the 17 real lists (36 MB, full of
reviews and people) it took 0.57 s of CPU for 45% of them, while the whole load here takes 0.65 s."""


class Ahead:
    """The files another process is parsing into the cache (`theirs`), and the wait for it."""

    def __init__(self, theirs: frozenset[Path] = frozenset(), pid: int = 0) -> None:
        self.theirs = theirs
        self._pid = pid

    def wait(self) -> None:
        """Until the other process is done (its entries written, or not: then they are parsed here)."""
        if self._pid:
            pid, self._pid = self._pid, 0
            with contextlib.suppress(ChildProcessError):
                os.waitpid(pid, 0)

    def stop(self) -> None:
        if self._pid:
            with contextlib.suppress(ProcessLookupError):
                os.kill(self._pid, 9)
            self.wait()


@contextlib.contextmanager
def parsed_ahead(files: Sequence[Path], limit: int, parse: Callable[[Path], Parsed]) -> Iterator[Ahead]:
    """A cold start's lists parsed on two CPUs: a forked process parses about half of the files
    whose entries are missing or older than the file, writing each one's entry, while this process
    parses the others (then reads that process's entries: a failure there only means parsing them
    here). At 100,000 papers a cold start's parse is seconds of Python. Only from a process with
    one thread (a fork copies no other thread, nor a lock one of them holds), on two CPUs or more,
    with the cache's key at hand, for AHEAD_MIN_BYTES or more; else nothing is parsed ahead."""
    ahead = Ahead()
    sizes = _uncached(files, limit) if len(files) > 1 else {}
    if (
        sum(sizes.values()) >= AHEAD_MIN_BYTES
        and len(sizes) > 1
        and (os.cpu_count() or 1) > 1
        and hasattr(os, "fork")
        and threading.active_count() == 1
        and snapshot.key_at_hand()
    ):
        theirs = _share(sizes)
        try:
            pid = os.fork()
        except OSError:  # no process to be had: everything is parsed here
            pid = -1
        if pid == 0:  # the other process: parse, write each entry, and leave without a trace
            code = 1
            try:
                for path in files:
                    if path in theirs:
                        with contextlib.suppress(Exception):
                            parsed_file(path, limit, functools.partial(parse, path))
                code = 0
            finally:
                os._exit(code)
        if pid > 0:
            ahead = Ahead(frozenset(theirs), pid)
    try:
        yield ahead
    finally:
        ahead.stop()


_THEIR_SHARE = 0.45
"""Of the bytes to parse, what the other process takes: it also writes its entries."""


def _share(sizes: dict[Path, int]) -> set[Path]:
    """The files the other process parses: the largest first while they fit its share."""
    wanted = _THEIR_SHARE * sum(sizes.values())
    theirs: set[Path] = set()
    taken = 0
    for path, size in sorted(sizes.items(), key=lambda item: -item[1]):
        if taken + size <= wanted or not theirs:
            theirs.add(path)
            taken += size
    return theirs


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
