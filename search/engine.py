"""SearchEngine: the facade the CLI and the app use. Loads papers, keeps the index fresh, answers queries."""

from __future__ import annotations

import subprocess
import sys
import threading
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Sequence

from search import index as index_module
from search import paths
from search.corpus import Corpus, load_corpus
from search.describe import Description, describe, quick_headline
from search.models import Paper, SearchResult
from search.query import QueryRunner


@dataclass(frozen=True, slots=True)
class Row:
    """What the result list shows for a paper."""

    name: str | None
    headline: str
    has_code: bool


CHILD_BUILD_MIN_PAPERS = 3000
"""From this size on, the index is built by a two-process child (about twice as fast)."""


class UnknownPaper(KeyError):
    """No paper with that id is loaded."""

    def __str__(self) -> str:
        return f"no paper with id {self.args[0]!r}"


@dataclass(frozen=True)
class IndexStatus:
    """What ensure_index did: built or reused, where, and any notice for the user."""

    built: bool
    path: Path | None
    notice: str | None = None


class SearchEngine:
    """Papers in memory, an on-disk Whoosh index (rebuilt only when its content changes), queries."""

    def __init__(self, corpus: Corpus, cache_dir: Path | None = None) -> None:
        self.corpus = corpus
        self.papers: tuple[Paper, ...] = corpus.papers
        self._by_id = {paper.id: paper for paper in corpus.papers}
        self._cache_dir = cache_dir
        self._runner: QueryRunner | None = None
        self._location = None
        self._lock = threading.Lock()
        self._stored_rows: dict[str, Row] = {}
        self.describe = lru_cache(maxsize=None)(self._describe)

    @classmethod
    def from_paths(cls, paths_: Sequence[str | Path] | None = None) -> "SearchEngine":
        return cls(load_corpus(paths_))

    # -- papers -------------------------------------------------------------------------------

    def paper(self, paper_id: str) -> Paper:
        try:
            return self._by_id[paper_id]
        except KeyError:
            raise UnknownPaper(paper_id) from None

    def _describe(self, paper_id: str) -> Description:
        return describe(self.paper(paper_id))

    def row(self, paper_id: str) -> Row:
        """The result-list row, from the index when it has it: no markup conversion needed."""
        stored = self._stored_rows.get(paper_id)
        if stored is not None:
            return stored
        description = self.describe(paper_id)
        return Row(description.name, description.headline, description.has_code)

    def quick_row(self, paper_id: str) -> Row:
        """A row that never converts markup: the stored one, or the title or raw first words."""
        stored = self._stored_rows.get(paper_id)
        if stored is not None:
            return stored
        paper = self.paper(paper_id)
        return Row(None, quick_headline(paper), bool(paper.github))

    # -- index --------------------------------------------------------------------------------

    @property
    def ready(self) -> bool:
        return self._runner is not None

    def ensure_index(self, on_progress=None, cancel: threading.Event | None = None, rebuild: bool = False) -> IndexStatus:
        """Open the index for this corpus, building it first if it is missing, stale or damaged."""
        with self._lock:
            root = (self._cache_dir or paths.cache_dir()) / "index"
            location = index_module.locate(root, self.corpus.sources, self.papers)
            if self._runner is not None and not rebuild and location == self._location:
                return IndexStatus(False, location.path)  # already open: reopening would only add risk
            opened = None if rebuild else index_module.open_existing(location)
            status = IndexStatus(False, location.path)
            if opened is None and len(self.papers) >= CHILD_BUILD_MIN_PAPERS:
                opened = self._build_in_child(root, location, on_progress, cancel)
                status = IndexStatus(True, location.path)
            if opened is None:
                descriptions = index_module.Descriptions(self.papers, lambda paper: self.describe(paper.id))
                try:
                    opened = index_module.build(location, descriptions, on_progress, cancel)
                    status = IndexStatus(True, location.path)
                except OSError as error:
                    opened = index_module.build_in_memory(descriptions, on_progress, cancel)
                    reason = error.strerror or str(error)
                    status = IndexStatus(True, None, f"index kept in memory: cannot write {root} ({reason})")
            self._stored_rows = {key: Row(*row) for key, row in opened.rows.items()}
            if self._runner is not None:
                self._runner.close()
            self._runner = QueryRunner(opened.ix, opened.words, opened.counts)
            self._location = location
            return status

    def _build_in_child(self, root: Path, location, on_progress, cancel) -> "index_module.OpenIndex | None":
        """Build with two processes in a fresh child (see search/build.py); None if that did not work."""
        sources = self.corpus.sources
        if not sources or not all(Path(source).is_file() for source in sources):
            return None
        child = subprocess.Popen(
            [sys.executable, "-m", "search.build", "--cache", str(root), *sources],
            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL, text=True,
        )
        try:
            for line in child.stdout:
                if cancel is not None and cancel.is_set():
                    raise index_module.IndexCancelled
                parts = line.split()
                if on_progress is not None and len(parts) == 3 and parts[0] == "progress":
                    on_progress(int(parts[1]), int(parts[2]))
            child.wait()
        finally:
            if child.poll() is None:
                child.kill()
                child.wait()
            child.stdout.close()
        return index_module.open_existing(location) if child.returncode == 0 else None

    # -- queries ------------------------------------------------------------------------------

    def search(self, text: str, limit: int = 50, partial: bool = False, hit_terms: bool = True) -> SearchResult:
        """Ranked hits for a query; `partial`: the last word is still being typed; `hit_terms`: fill
        each hit's matched terms (the result's own `terms` are always there, for highlighting)."""
        if self._runner is None:
            self.ensure_index()
        assert self._runner is not None
        return self._runner.run(text, limit, partial, hit_terms)

    def close(self) -> None:
        if self._runner is not None:
            self._runner.close()
            self._runner = None
