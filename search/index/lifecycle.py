"""The index's lifecycle, in one place: locate each corpus file's shard, open the ones that are up to
date, build the missing, stale or damaged ones (in child processes for big corpora, else here, in
memory when the cache dir cannot be written), and merge the shards' side data for searching.

"Build" always means writing one shard (shard.build); everything else here opens or orchestrates.
"""

from __future__ import annotations

import threading
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from search.index import children, shard
from search.models import Paper
from search.text.describe import Description

CHILD_BUILD_MIN_PAPERS = 3000
"""From this many papers to index, shards are built by child processes (see children.py)."""


@dataclass(frozen=True)
class IndexStatus:
    """What opening the index did: built (any shard) or reused, where, and any notice for the user."""

    built: bool
    paths: tuple[Path, ...] = ()
    """One index directory per corpus file; empty when the index lives only in memory."""
    notice: str | None = None

    @property
    def path(self) -> Path | None:
        """The folder holding the shards, or None when the index lives in memory."""
        return self.paths[0].parent if self.paths else None


@dataclass(frozen=True)
class OpenedIndex:
    """Every shard open, with their side data merged: what queries run against."""

    indexes: list
    """One Whoosh index per corpus file, searched as one."""
    rows: dict[str, tuple[str | None, str, bool]]
    """paper id -> (name, headline, has_code), as stored by the builds."""
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

    def open(
        self,
        papers: Sequence[Paper],
        describe: Callable[[Paper], Description],
        on_progress: shard.Progress | None = None,
        cancel: threading.Event | None = None,
        rebuild: bool = False,
    ) -> IndexStatus:
        """Open every corpus file's shard, building those that are missing, stale or damaged (all of
        them with `rebuild`); shards already open for exactly these papers are kept. Raises
        IndexCancelled when `cancel` is set during a build."""
        locations, groups = self._locate(papers)
        if self.opened is not None and not rebuild and locations == self._locations:
            return IndexStatus(False, tuple(location.path for location in locations))
        opened: dict[shard.IndexLocation, shard.OpenIndex | None] = (
            {} if rebuild else {location: shard.open_existing(location) for location in locations}
        )
        missing = [(location, group) for location, group in zip(locations, groups) if opened.get(location) is None]
        total = sum(len(group) for _, group in missing)
        progress = children.Progress(total, on_progress)
        if total >= CHILD_BUILD_MIN_PAPERS:
            opened.update(children.build_shards(missing, progress, cancel))
        notice = None
        for location, group in missing:
            if opened.get(location) is not None:
                continue
            descriptions = shard.Descriptions(group, describe)
            report = progress.shard(location)
            try:
                opened[location] = shard.build(location, descriptions, report, cancel)
            except OSError as error:
                opened[location] = shard.build_in_memory(descriptions, report, cancel)
                notice = f"index kept in memory: cannot write {self.root} ({error.strerror or error})"
        self.opened = _merged([opened[location] for location in locations])
        self._locations = locations
        on_disk = () if notice else tuple(location.path for location in locations)
        return IndexStatus(bool(missing), on_disk, notice)

    def _locate(self, papers: Sequence[Paper]) -> tuple[tuple[shard.IndexLocation, ...], list[tuple[Paper, ...]]]:
        """Each corpus file's shard location and papers, in corpus order (a file with no papers has none)."""
        by_source: dict[str, list[Paper]] = {}
        for paper in papers:
            by_source.setdefault(paper.source, []).append(paper)
        groups = [tuple(group) for group in by_source.values()]
        locations = tuple(shard.locate(self.root, source, group) for source, group in zip(by_source, groups))
        return locations, groups


def _merged(shards: list[shard.OpenIndex | None]) -> OpenedIndex:
    """One set of side data over all shards (every shard is open by now: builds raise otherwise)."""
    rows: dict[str, tuple[str | None, str, bool]] = {}
    vocabulary: Counter[str] = Counter()
    for opened in shards:
        assert opened is not None
        rows.update(opened.rows)
        vocabulary.update(dict(zip(opened.words, opened.counts)))
    words = sorted(vocabulary)
    return OpenedIndex(
        [opened.ix for opened in shards if opened is not None], rows, words, [vocabulary[word] for word in words]
    )


def forget(root: Path, source: str) -> None:
    """Delete every shard built for this corpus file (it was removed from the library)."""
    shard.forget(root, source)
