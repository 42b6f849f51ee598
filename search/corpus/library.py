"""The user's library of paper lists: files copied into the data dir, loaded with the bundled list.

Each list is a folder <data>/lists/<name>/ holding a copy of the file under its original name (which
can say the venue, e.g. iclr2017.json). `list:NAME` in a query picks it. The copy is what the app
loads, so the user's original file can move or change without breaking anything.

A list downloaded by `get` (search/sources/) also has a small metadata file beside it,
`.source.json` (`ListOrigin`: where it came from, when, and the ETag / Last-Modified needed to ask
the server whether it changed). Downloads are staged in a hidden folder of the library
(`staging()`), so moving one in is a rename on the same filesystem."""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import tempfile
import time
from collections.abc import Iterator
from dataclasses import asdict, dataclass, fields
from pathlib import Path
from typing import Any

from search import paths
from search.corpus.loader import CorpusError, bundled_paths, load_corpus
from search.errors import LibraryError

BUNDLED_LIST = "iclr2025"
"""The name of the bundled ICLR 2025 list (its two files count as one list)."""
METADATA_FILE = ".source.json"
"""Beside a downloaded list's file: where it came from (never taken for the list itself)."""
_NAME = re.compile(r"^[a-z0-9][a-z0-9_.-]{0,63}$")
_STAGING_PREFIX = ".get-"
_STALE_STAGING_SECONDS = 24 * 3600


@dataclass(frozen=True)
class AddedList:
    name: str
    path: Path
    papers: int
    skipped: int
    duplicates: int


@dataclass(frozen=True)
class ListOrigin:
    """Where a downloaded list came from (kept in its folder as METADATA_FILE)."""

    kind: str
    """The source: paperlists, openreview or arxiv."""
    source: str
    """What was asked for: a paperlists name (iclr2025), an OpenReview venue id, an arXiv query."""
    url: str
    """The (first) URL it was downloaded from."""
    fetched_at: str
    """When its content was last downloaded (ISO 8601, UTC)."""
    checked_at: str | None = None
    """When `get --update` last asked whether it changed."""
    etag: str | None = None
    last_modified: str | None = None
    sha256: str | None = None
    """Of the list file: an update whose content is the same is no change."""
    all_submissions: bool = False
    """OpenReview: every submission, not only the accepted papers."""
    max_results: int | None = None
    """arXiv: how many results were asked for."""

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, data: Any) -> ListOrigin | None:
        if not isinstance(data, dict):
            return None
        known = {field.name for field in fields(cls)}
        try:
            return cls(**{key: value for key, value in data.items() if key in known})
        except TypeError:  # a required field is missing
            return None


def list_name(source: str) -> str:
    """The list a corpus file belongs to: bundled, a library list (its folder), or the file's stem."""
    path = Path(source)
    if any(path == bundled for bundled in bundled_paths()):
        return BUNDLED_LIST
    if path.parent.parent == Library().folder:
        return path.parent.name
    return path.stem.lower()


class Library:
    def __init__(self, folder: Path | None = None) -> None:
        self.folder = folder or paths.data_dir() / "lists"

    def files(self) -> list[Path]:
        """Each list's file, by list name (a missing folder is an empty library)."""
        try:
            folders = sorted(
                (entry for entry in self.folder.iterdir() if entry.is_dir() and not entry.name.startswith(".")),
                key=lambda e: e.name,
            )
            return [file for folder in folders for file in _list_files(folder)[:1]]
        except FileNotFoundError:
            return []
        except OSError as error:
            raise LibraryError(f"cannot read {self.folder} ({error.strerror or error})") from None

    def default_sources(self) -> list[Path]:
        """What the app loads when no --corpus is given: the bundled list, then the library."""
        return [*bundled_paths(), *self.files()]

    def find(self, name: str) -> Path | None:
        """The file of the list with this name."""
        wanted = name.lower()
        return next((path for path in self.files() if path.parent.name == wanted), None)

    def check_name(self, name: str, downloaded: bool = False) -> str:
        """The name, lowercased, if a new list may take it. A downloaded list may take the bundled
        list's name (the full list supersedes the bundled sample). Raises LibraryError."""
        name = name.lower()
        if not _NAME.match(name):
            raise LibraryError(f"{name!r} is not a usable list name (letters, digits, - _ . ; up to 64)")
        if (name == BUNDLED_LIST and not downloaded) or self.find(name) is not None:
            hint = (
                "use `get --update` to refresh it, or remove it first"
                if downloaded
                else "pick another with --name, or remove it first"
            )
            raise LibraryError(f"a list named {name!r} already exists ({hint})")
        return name

    def add(self, source: Path, name: str | None = None, origin: ListOrigin | None = None) -> AddedList:
        """Check the file loads, then copy it in under its name (a file staged inside the library is
        moved, not copied). With an origin (a download), the metadata is written beside it and the
        bundled list's name may be taken. Raises CorpusError or LibraryError."""
        name = self.check_name(name or _default_name(source), downloaded=origin is not None)
        corpus = load_corpus([source])  # refuse a broken file before it enters the library
        folder = self.folder / name
        staging = self.folder / f".adding-{name}"
        try:
            shutil.rmtree(staging, ignore_errors=True)
            staging.mkdir(parents=True)
            if self._holds(source):
                os.rename(source, staging / source.name)
            else:
                shutil.copyfile(source, staging / source.name)
            if origin is not None:
                _write_json(staging / METADATA_FILE, origin.to_json())
            os.rename(staging, folder)  # the list appears whole or not at all
        except OSError as error:
            shutil.rmtree(staging, ignore_errors=True)
            raise LibraryError(f"cannot copy into {self.folder} ({error.strerror or error})") from None
        except BaseException:  # ctrl+c: leave nothing half-made behind
            shutil.rmtree(staging, ignore_errors=True)
            raise
        return AddedList(name, folder / source.name, len(corpus.papers), corpus.skipped, corpus.duplicates)

    def replace(self, name: str, source: Path, origin: ListOrigin) -> AddedList:
        """Swap a downloaded list's file for a new download (staged in the library), after checking
        it loads; then its metadata. Each is an atomic rename. Raises CorpusError or LibraryError."""
        old = self._existing(name)
        corpus = load_corpus([source])
        target = old.parent / source.name
        try:
            os.replace(source, target)
            if target != old:
                old.unlink()
            _write_json(old.parent / METADATA_FILE, origin.to_json())
        except OSError as error:
            raise LibraryError(f"cannot write into {old.parent} ({error.strerror or error})") from None
        return AddedList(name.lower(), target, len(corpus.papers), corpus.skipped, corpus.duplicates)

    def origin(self, name: str) -> ListOrigin | None:
        """Where a downloaded list came from; None for a list added from a file (or unreadable metadata)."""
        path = self.find(name)
        if path is None:
            return None
        try:
            return ListOrigin.from_json(json.loads((path.parent / METADATA_FILE).read_text(encoding="utf-8")))
        except (OSError, ValueError):
            return None

    def record_origin(self, name: str, origin: ListOrigin) -> None:
        """Rewrite a downloaded list's metadata (say, when an update found it unchanged)."""
        folder = self._existing(name).parent
        try:
            _write_json(folder / METADATA_FILE, origin.to_json())
        except OSError as error:
            raise LibraryError(f"cannot write into {folder} ({error.strerror or error})") from None

    @contextlib.contextmanager
    def staging(self) -> Iterator[Path]:
        """A fresh hidden folder inside the library for a download, removed afterwards whatever happens
        (what was moved out of it into the library stays)."""
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
            self._sweep_stale_staging()
            folder = Path(tempfile.mkdtemp(prefix=_STAGING_PREFIX, dir=self.folder))
        except OSError as error:
            raise LibraryError(f"cannot write into {self.folder} ({error.strerror or error})") from None
        try:
            yield folder
        finally:
            shutil.rmtree(folder, ignore_errors=True)

    def remove(self, name: str) -> Path:
        path = self.find(name)
        if path is None:
            known = ", ".join(p.parent.name for p in self.files()) or "none"
            if name.lower() == BUNDLED_LIST:
                raise LibraryError(f"{BUNDLED_LIST!r} is the bundled list and cannot be removed")
            raise LibraryError(f"no list named {name!r} (lists: {known})")
        try:
            shutil.rmtree(path.parent)
        except OSError as error:
            raise LibraryError(f"cannot remove {path.parent} ({error.strerror or error})") from None
        return path

    def _existing(self, name: str) -> Path:
        path = self.find(name)
        if path is None:
            raise LibraryError(f"no list named {name!r}")
        return path

    def _holds(self, source: Path) -> bool:
        try:
            return source.resolve().is_relative_to(self.folder.resolve())
        except OSError:
            return False

    def _sweep_stale_staging(self) -> None:
        """Staging folders left by a killed download (a day old: a running one is never that old)."""
        cutoff = time.time() - _STALE_STAGING_SECONDS
        for entry in self.folder.glob(f"{_STAGING_PREFIX}*"):
            with contextlib.suppress(OSError):
                if entry.is_dir() and entry.stat().st_mtime < cutoff:
                    shutil.rmtree(entry, ignore_errors=True)


def _list_files(folder: Path) -> list[Path]:
    """A list folder's candidate list files: everything but the metadata (and its temporary file)."""
    return [file for file in sorted(folder.iterdir()) if not file.name.startswith(METADATA_FILE) and file.is_file()]


def _write_json(path: Path, data: dict[str, Any]) -> None:
    temporary = path.with_name(f"{path.name}.tmp")
    temporary.write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    os.replace(temporary, path)


def _default_name(source: Path) -> str:
    name = re.sub(r"[^a-z0-9_.-]+", "-", source.stem.lower()).strip("-.")
    return name or "list"


__all__ = [
    "BUNDLED_LIST",
    "METADATA_FILE",
    "AddedList",
    "CorpusError",
    "Library",
    "LibraryError",
    "ListOrigin",
    "list_name",
]
