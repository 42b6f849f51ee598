"""The index's lifecycle, in one place: locate each corpus file's shard, open the ones that are up to
date, build the missing, stale or damaged ones (in child processes for big corpora, else here, in
memory when the cache dir cannot be written), merge the shards' side data for searching, and repair
the open index when reading it fails.

"Build" always means writing one shard (shard.build); everything else here opens or orchestrates.
"""

from __future__ import annotations

import dataclasses
import threading
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from search.index import children, shard
from search.models import Paper
from search.text.describe import Description

CHILD_BUILD_MIN_PAPERS = 3000
"""From this many papers to index, shards are built by child processes (see children.py)."""

DAMAGED_NOTICE = "The search index was damaged and has been rebuilt"
"""What the user is told, once, when a shard was found damaged (at opening or while searching)."""


@dataclass(frozen=True)
class IndexStatus:
    """What opening the index did: built (any shard) or reused, where, and any notice for the user."""

    built: bool
    paths: tuple[Path, ...] = ()
    """One index directory per corpus file; empty when the index lives only in memory."""
    notice: str | None = None
    damaged: tuple[Path, ...] = ()
    """The shards that were found damaged (a file missing, cut short or changed) and were rebuilt."""

    @property
    def path(self) -> Path | None:
        """The folder holding the shards, or None when the index lives in memory."""
        return self.paths[0].parent if self.paths else None


@dataclass(frozen=True)
class OpenedIndex:
    """Every shard open, with their side data merged: what queries run against."""

    indexes: list
    """One Whoosh index per corpus file, searched as one."""
    rows: dict[str, tuple[str | None, str | None, bool]]
    """paper id -> (name, headline, has_code), as stored by the builds, but with None for a headline
    that is the paper's title (in most lists every one: a second copy of each title was a tenth of
    the memory a 100,000-paper session held). Keyed by the papers' own id strings."""
    words: list[str]
    """The sorted vocabulary of all shards."""
    counts: list[int]
    """In how many papers each word occurs."""


class ShardedIndex:
    """The shards of one loaded corpus set under <cache>/index, opened or built as needed."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.opened: OpenedIndex | None = None
        """Every shard, open (None before the first open)."""
        self._locations: tuple[shard.IndexLocation, ...] = ()
        self._papers: Sequence[Paper] | None = None
        """The papers the open shards were located for (the same object: nothing to locate again)."""
        self._groups: list[tuple[Paper, ...]] = []
        self._shards: dict[shard.IndexLocation, shard.OpenIndex] = {}
        self._stamps: dict[shard.IndexLocation, shard.Stamps] = {}
        """Each open shard on disk's files as they were checked (in-memory shards have none)."""
        self._memory_notice: str | None = None

    def open(
        self,
        papers: Sequence[Paper],
        describe: Callable[[Paper], Description],
        on_progress: shard.Progress | None = None,
        cancel: threading.Event | None = None,
        rebuild: bool = False,
        fingerprints: Mapping[str, str] | None = None,
    ) -> IndexStatus:
        """Open every corpus file's shard, building those that are missing, stale or damaged (every
        file is checked against the checksum its build recorded). With `rebuild`, every shard is
        built again and replaces the one on disk. Shards already open for exactly these papers are
        kept: the same papers (the same object) are not even located again. `fingerprints` gives
        each corpus file's papers' fingerprint, as the corpus computed it (a file without one has
        its papers read to compute it). Raises IndexCancelled when `cancel` is set during a build."""
        if self.opened is not None and not rebuild and papers is self._papers:
            return IndexStatus(False, self._on_disk())
        locations, groups = self._locate(papers, fingerprints or {})
        if self.opened is not None and not rebuild and locations == self._locations:
            self._papers = papers
            return IndexStatus(False, self._on_disk())
        found: dict[shard.IndexLocation, shard.OpenIndex | None] = {}
        damaged: set[shard.IndexLocation] = set()
        if rebuild:
            locations = tuple(dataclasses.replace(location, replace=True) for location in locations)
        else:
            for location in locations:
                found[location], broken = shard.open_checked(location)
                if broken:
                    damaged.add(location)
        status = self._complete(locations, groups, found, damaged, describe, on_progress, cancel)
        self._papers = papers
        return status

    def repair(self, describe: Callable[[Paper], Description]) -> IndexStatus | None:
        """After an error while reading the open index (or an id the corpus does not know): check
        every shard on disk again, file by file. Shards damaged or deleted since they were opened are
        rebuilt (status.damaged names them); a shard another process built again is opened afresh.
        None when every shard on disk is sound and is the build that is open, so the error was not
        the index's (and shards in memory cannot be damaged on disk)."""
        if self.opened is None:
            return None
        changed = []
        for location in self._stamps:
            checked = shard.verified(location)
            if checked is not None and checked[0] == self._shards[location].manifest:
                self._stamps[location] = checked[1]  # sound, and the build that is open
            else:
                changed.append(location)
        if not changed:
            return None
        found: dict[shard.IndexLocation, shard.OpenIndex | None] = dict(self._shards)
        damaged: set[shard.IndexLocation] = set()
        for location in changed:
            found[location], _ = shard.open_checked(location)
            if found[location] is None:
                damaged.add(location)  # damaged or deleted while open: either way, rebuilt
        return self._complete(self._locations, self._groups, found, damaged, describe, None, None)

    def changed_on_disk(self) -> bool:
        """Whether a file of an open shard was written, replaced or deleted since it was checked (its
        inode, size or modification time differ): one stat per file, about 225 at 10,750 papers."""
        return any(shard.stamps_differ(location, stamps) for location, stamps in self._stamps.items())

    def _complete(
        self,
        locations: tuple[shard.IndexLocation, ...],
        groups: list[tuple[Paper, ...]],
        found: dict[shard.IndexLocation, shard.OpenIndex | None],
        damaged: set[shard.IndexLocation],
        describe: Callable[[Paper], Description],
        on_progress: shard.Progress | None,
        cancel: threading.Event | None,
    ) -> IndexStatus:
        """Build the shards not found, then merge them all into self.opened. Each shard's rows and
        vocabulary are read, merged and let go one shard at a time (see _Merged): never every
        shard's at once (at 100,000 papers that was 45 MB, which the allocator kept afterwards)."""
        merged = _Merged(dict(zip(locations, groups)))
        opened: dict[shard.IndexLocation, shard.OpenIndex | None] = {}
        for location in locations:
            opened[location] = merged.add(location, found.get(location))
            if found.get(location) is not None and opened[location] is None:
                damaged.add(location)  # its side files cannot be read: built again
        missing = [(location, group) for location, group in zip(locations, groups) if opened.get(location) is None]
        total = sum(len(group) for _, group in missing)
        progress = children.Progress(total, on_progress)
        if total >= CHILD_BUILD_MIN_PAPERS:
            for location, built in children.build_shards(missing, progress, cancel).items():
                opened[location] = merged.add(location, built)
        memory_notice = None
        in_memory = {location for location, built in opened.items() if built is not None and not built.manifest}
        for location, group in missing:
            if opened.get(location) is not None:
                continue
            descriptions = shard.Descriptions(group, describe)
            report = progress.shard(location)
            try:
                built = shard.build(location, descriptions, report, cancel)
            except OSError as error:
                built = shard.build_in_memory(descriptions, report, cancel)
                memory_notice = f"index kept in memory: cannot write {self.root} ({error.strerror or error})"
                in_memory.add(location)
            opened[location] = merged.add(location, built)
            assert opened[location] is not None  # a shard just built has its side data in memory
        shards = {location: opened[location] for location in locations}
        self.opened = merged.opened([built.ix for built in shards.values() if built is not None])
        self._locations = locations
        self._groups = groups
        self._shards = {location: built for location, built in shards.items() if built is not None}
        self._stamps = {location: built.stamps for location, built in self._shards.items() if built.manifest}
        self._memory_notice = memory_notice if memory_notice or not in_memory else self._memory_notice
        rebuilt = tuple(location.path for location in locations if location in damaged)
        notice = "; ".join(filter(None, [self._memory_notice, DAMAGED_NOTICE if rebuilt else None])) or None
        return IndexStatus(bool(missing), self._on_disk(), notice, rebuilt)

    def _on_disk(self) -> tuple[Path, ...]:
        """Each shard's directory, or nothing when any shard lives only in memory."""
        if self._memory_notice is not None:
            return ()
        return tuple(location.path for location in self._locations)

    def _locate(
        self, papers: Sequence[Paper], fingerprints: Mapping[str, str]
    ) -> tuple[tuple[shard.IndexLocation, ...], list[tuple[Paper, ...]]]:
        """Each corpus file's shard location and papers, in corpus order (a file with no papers has none)."""
        by_source: dict[str, list[Paper]] = {}
        for paper in papers:
            by_source.setdefault(paper.source, []).append(paper)
        groups = [tuple(group) for group in by_source.values()]
        locations = tuple(
            shard.locate(self.root, source, group, fingerprints.get(source)) for source, group in zip(by_source, groups)
        )
        return locations, groups


class _Merged:
    """The shards' side data merged into one, a shard at a time: the rows of each shard's group of
    papers (see OpenedIndex.rows) and the vocabulary's counts summed."""

    def __init__(self, groups: dict[shard.IndexLocation, tuple[Paper, ...]]) -> None:
        self._groups = groups
        self._rows: dict[str, tuple[str | None, str | None, bool]] = {}
        self._vocabulary: Counter[str] = Counter()

    def add(self, location: shard.IndexLocation, built: shard.OpenIndex | None) -> shard.OpenIndex | None:
        """Merge the shard's side data (read from its files if it let it go); the shard without it
        (see OpenIndex.without_side_data), or None when it is None or its side data cannot be read."""
        full = None if built is None else shard.with_side_data(location, built)
        if full is None:
            return None
        stored, rows = full.rows, self._rows
        for paper in self._groups[location]:
            row = stored.get(paper.id)
            if row is not None:
                rows[paper.id] = _row(row, paper.title)
        self._vocabulary.update(dict(zip(full.words, full.counts)))
        return full.without_side_data()

    def opened(self, indexes: list) -> OpenedIndex:
        vocabulary = self._vocabulary
        words = sorted(vocabulary)
        return OpenedIndex(indexes, self._rows, words, [vocabulary[word] for word in words])


_UNNAMED = {False: (None, None, False), True: (None, None, True)}
"""The rows of most papers: no name, the title for a headline, with or without code (one object each)."""


def _row(stored: Sequence, title: str | None) -> tuple[str | None, str | None, bool]:
    """A stored (name, headline, has_code) row, its headline None when it is the paper's title."""
    name, headline, has_code = stored
    if headline == title and headline:
        return _UNNAMED[bool(has_code)] if name is None else (name, None, bool(has_code))
    return name, headline, bool(has_code)


def forget(root: Path, source: str) -> None:
    """Delete every shard built for this corpus file (it was removed from the library)."""
    shard.forget(root, source)
