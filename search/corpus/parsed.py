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
from collections.abc import Callable
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
