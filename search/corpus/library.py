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
import dataclasses
import errno
import json
import os
import re
import shutil
import stat
import tempfile
import time
from collections.abc import Iterator
from dataclasses import asdict, dataclass, fields
from pathlib import Path
from typing import Any

from search import paths
from search.corpus import parsed
from search.corpus.formats import Parsed
from search.corpus.loader import MAX_CORPUS_BYTES, CorpusError, bundled_paths, load_corpus, read_corpus_file
from search.errors import LibraryError
from search.text.sanitize import sanitize_line
from search.untrusted import UntrustedInputError, load_json, read_bytes, shown

BUNDLED_LIST = "iclr2025"
"""The name of the bundled ICLR 2025 list (its two files count as one list)."""
METADATA_FILE = ".source.json"
"""Beside a downloaded list's file: where it came from (never taken for the list itself)."""
REVIEWS_FILE = ".reviews.jsonl"
"""Beside a list fetched with `get openreview:VENUE --reviews`: its reviews' text, one JSON line per
forum (search/sources/reviews.py); never taken for the list itself."""
_NAME = re.compile(r"[a-z0-9][a-z0-9_.-]{0,63}")  # the whole name (fullmatch: no trailing newline)
MAX_METADATA_BYTES = 1024 * 1024
_STAGING_PREFIX = ".get-"
REMOVED_PREFIX = ".removed-"
"""A list removed in the app is kept aside under this hidden name until its removal cannot be undone."""
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
    reviews: bool = False
    """OpenReview: each forum's reviews fetched too (`--reviews`)."""
    max_results: int | None = None
    """arXiv: how many results were asked for."""

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, data: Any) -> ListOrigin | None:
        """The origin in a metadata file, its text sanitised (it is shown by `lists`); None when a
        required field is missing or of the wrong type (a wrong optional one is left out)."""
        if not isinstance(data, dict):
            return None
        values: dict[str, Any] = {}
        for field in fields(cls):
            value = data.get(field.name)
            if field.name in ("all_submissions", "reviews"):
                value = value if isinstance(value, bool) else None
            elif field.name == "max_results":
                value = value if isinstance(value, int) and not isinstance(value, bool) else None
            else:
                value = sanitize_line(value) or None if isinstance(value, str) else None
            if value is not None:
                values[field.name] = value
        try:
            return cls(**values)
        except TypeError:  # a required field is missing
            return None


def list_name(source: str) -> str:
    """The list a corpus file belongs to: bundled, a library list (its folder), or the file's stem."""
    path = Path(source)
    if any(path == bundled for bundled in bundled_paths()):
        return BUNDLED_LIST
    if path.parent.parent == Library().folder:
        return shown(path.parent.name)
    return shown(path.stem.lower())


class Library:
    def __init__(self, folder: Path | None = None) -> None:
        self.folder = folder or paths.data_dir() / "lists"

    def files(self) -> list[Path]:
        """Each list's file, by list name (a missing folder is an empty library). Never raises: a
        library folder that cannot be read (a file, a symlink loop) is an empty library, and a list
        folder that cannot be read is left out; `problems()` says why, in one line each."""
        return self._scan()[0]

    def problems(self) -> list[str]:
        """Why lists are left out of `files()`: the library folder, or a list's folder, cannot be read."""
        return self._scan()[1]

    def _scan(self) -> tuple[list[Path], list[str]]:
        try:
            entries = sorted(self.folder.iterdir(), key=lambda e: e.name)
        except FileNotFoundError:
            why = self._unusable()
            return [], [f"the lists in {shown(self.folder)} ({why})"] if why else []  # else: none added yet
        except OSError as error:
            return [], [f"the lists in {shown(self.folder)} ({self._unusable() or _why(error)})"]
        found: list[Path] = []
        problems: list[str] = []
        for entry in entries:
            if entry.name.startswith(".") or not entry.is_dir():
                continue
            try:
                found.extend(_list_files(entry)[:1])
            except OSError as error:
                problems.append(f"the list in {shown(entry)} ({_why(error)})")
        return found, problems

    def default_sources(self) -> list[Path]:
        """What the app loads when no --corpus is given: the bundled list, then the library."""
        return [*bundled_paths(), *self.files()]

    def find(self, name: str) -> Path | None:
        """The file of the list with this name: as it is on disk, or as `shown` prints it (so a
        name holding control characters, made by an older version, can still be removed)."""
        wanted = name.lower()
        files = self.files()
        return next((path for path in files if path.parent.name.lower() == wanted), None) or next(
            (path for path in files if shown(path.parent.name).lower() == wanted), None
        )

    def check_name(self, name: str, downloaded: bool = False) -> str:
        """The name, lowercased, if a new list may take it. A downloaded list may take the bundled
        list's name (the full list supersedes the bundled sample). Raises LibraryError."""
        name = name.lower()
        if not _NAME.fullmatch(name):
            raise LibraryError(f"'{shown(name)}' is not a usable list name (letters, digits, - _ . ; up to 64)")
        if (name == BUNDLED_LIST and not downloaded) or self.find(name) is not None:
            hint = (
                "use `get --update` to refresh it, or remove it first"
                if downloaded
                else "pick another with --name, or remove it first"
            )
            raise LibraryError(f"a list named {name!r} already exists ({hint})")
        return name

    def _unusable(self) -> str | None:
        """Why the library folder cannot be used: a file, a symlink loop, a symlink to nothing (None:
        it is a folder, or just not made yet)."""
        try:
            mode = os.stat(self.folder).st_mode
        except FileNotFoundError:
            return "a symbolic link to nothing" if os.path.islink(self.folder) else None
        except OSError as error:
            return _why(error)
        return None if stat.S_ISDIR(mode) else "a file, not a folder"

    def _make_folder(self) -> None:
        """Make the library folder if need be; one line saying why it cannot be used otherwise."""
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
        except OSError as error:
            why = self._unusable() or _why(error)
            raise LibraryError(f"cannot add lists to {shown(self.folder)} ({why})") from None

    def add(
        self, source: Path, name: str | None = None, origin: ListOrigin | None = None, reviews: Path | None = None
    ) -> AddedList:
        """Check the file loads, then copy it in under its name (a file staged inside the library is
        moved, not copied). With an origin (a download), the metadata is written beside it and the
        bundled list's name may be taken; `reviews` (a staged REVIEWS_FILE) is moved in beside it.
        Raises CorpusError or LibraryError."""
        name = self.check_name(_default_name(source) if name is None else name, downloaded=origin is not None)
        data = read_corpus_file(source)  # read once: what is checked is what is copied
        parses: dict[Path, Parsed] = {}
        corpus = load_corpus([source], contents={source: data}, parses=parses)  # refuse a broken file first
        folder = self.folder / name
        staging = self.folder / f".adding-{name}"
        written = None
        try:
            self._make_folder()
            shutil.rmtree(staging, ignore_errors=True)
            staging.mkdir()
            if self._holds(source):
                os.rename(source, staging / source.name)
            else:
                written = _write_new(staging / source.name, data)
            if origin is not None:
                _write_json(staging / METADATA_FILE, origin.to_json())
            if reviews is not None:
                os.rename(reviews, staging / REVIEWS_FILE)
            os.rename(staging, folder)  # the list appears whole or not at all
        except OSError as error:
            shutil.rmtree(staging, ignore_errors=True)
            raise LibraryError(f"cannot copy into {shown(self.folder)} ({error.strerror or error})") from None
        except BaseException:  # ctrl+c: leave nothing half-made behind
            shutil.rmtree(staging, ignore_errors=True)
            raise
        if written is not None and source in parses:
            # The check's parse, of the bytes just written, is the copy's: its load reads it instead
            # of parsing them again (at 100,000 papers in ten lists, 2.7 s of CPU).
            copy = folder / source.name
            checked = parses.pop(source)
            papers = [paper._replace(source=str(copy)) for paper in checked.papers]  # as a load names them
            parsed.keep_written(copy, MAX_CORPUS_BYTES, dataclasses.replace(checked, papers=papers), written)
        return AddedList(name, folder / source.name, len(corpus.papers), corpus.skipped, corpus.duplicates)

    def replace(self, name: str, source: Path, origin: ListOrigin, reviews: Path | None = None) -> AddedList:
        """Swap a downloaded list's file for a new download (staged in the library), after checking
        it loads; then its reviews (the new ones, or none) and its metadata. Each is an atomic rename.
        Raises CorpusError or LibraryError."""
        old = self._existing(name)
        corpus = load_corpus([source])
        target = old.parent / source.name
        try:
            os.replace(source, target)
            if target != old:
                old.unlink()
            if reviews is not None:
                os.replace(reviews, old.parent / REVIEWS_FILE)
            else:
                (old.parent / REVIEWS_FILE).unlink(missing_ok=True)
            _write_json(old.parent / METADATA_FILE, origin.to_json())
        except OSError as error:
            raise LibraryError(f"cannot write into {shown(old.parent)} ({error.strerror or error})") from None
        return AddedList(shown(name.lower()), target, len(corpus.papers), corpus.skipped, corpus.duplicates)

    def origin(self, name: str) -> ListOrigin | None:
        """Where a downloaded list came from; None for a list added from a file (or unreadable metadata)."""
        path = self.find(name)
        if path is None:
            return None
        try:
            data = read_bytes(path.parent / METADATA_FILE, limit=MAX_METADATA_BYTES)
            return ListOrigin.from_json(load_json(data.decode("utf-8")))
        except (UntrustedInputError, UnicodeDecodeError):
            return None

    def record_origin(self, name: str, origin: ListOrigin) -> None:
        """Rewrite a downloaded list's metadata (say, when an update found it unchanged)."""
        folder = self._existing(name).parent
        try:
            _write_json(folder / METADATA_FILE, origin.to_json())
        except OSError as error:
            raise LibraryError(f"cannot write into {shown(folder)} ({error.strerror or error})") from None

    @contextlib.contextmanager
    def staging(self) -> Iterator[Path]:
        """A fresh hidden folder inside the library for a download, removed afterwards whatever happens
        (what was moved out of it into the library stays)."""
        try:
            self._make_folder()
            self._sweep_stale_staging()
            folder = Path(tempfile.mkdtemp(prefix=_STAGING_PREFIX, dir=self.folder))
        except OSError as error:
            raise LibraryError(f"cannot write into {shown(self.folder)} ({error.strerror or error})") from None
        try:
            yield folder
        finally:
            shutil.rmtree(folder, ignore_errors=True)

    def remove(self, name: str, keep: bool = False) -> Path:
        """Remove a list; its file's path is returned. With `keep` (the app's removal, which can be
        undone), the list's folder is moved aside, hidden, until `restore` brings it back or the next
        kept removal (or `purge_removed`) deletes it. Raises LibraryError."""
        path = self.find(name)
        if path is None:
            known = ", ".join(shown(p.parent.name) for p in self.files()) or "none"
            if name.lower() == BUNDLED_LIST:
                raise LibraryError(f"{BUNDLED_LIST!r} is the bundled list and cannot be removed")
            raise LibraryError(f"no list named '{shown(name)}' (lists: {known})")
        try:
            if keep:
                self.purge_removed()  # one removal can be undone: the last
                os.rename(path.parent, self.folder / f"{REMOVED_PREFIX}{path.parent.name}")
            else:
                shutil.rmtree(path.parent)
        except OSError as error:
            raise LibraryError(f"cannot remove {shown(path.parent)} ({error.strerror or error})") from None
        return path

    def removed(self) -> list[str]:
        """The names of the lists removed with `keep` that `restore` can bring back."""
        try:
            return sorted(
                entry.name.removeprefix(REMOVED_PREFIX)
                for entry in self.folder.iterdir()
                if entry.name.startswith(REMOVED_PREFIX) and entry.is_dir()
            )
        except OSError:
            return []

    def restore(self, name: str) -> Path:
        """Bring back a list removed with `keep`; its file's path. Raises LibraryError."""
        kept = self.folder / f"{REMOVED_PREFIX}{name}"
        if not kept.is_dir():
            raise LibraryError(f"no removed list named '{shown(name)}' to bring back")
        if self.find(name) is not None:
            raise LibraryError(f"a list named '{shown(name)}' exists again: remove it first to bring the old one back")
        try:
            os.rename(kept, self.folder / name)
            return _list_files(self.folder / name)[0]
        except (OSError, IndexError) as error:
            raise LibraryError(f"cannot bring back '{shown(name)}' ({error})") from None

    def purge_removed(self) -> list[Path]:
        """Delete the lists kept by `remove(keep=True)`; the paths their files had in the library (whose
        index the caller may forget)."""
        purged = []
        for name in self.removed():
            kept = self.folder / f"{REMOVED_PREFIX}{name}"
            with contextlib.suppress(OSError, IndexError):
                purged.append(self.folder / name / _list_files(kept)[0].name)
            shutil.rmtree(kept, ignore_errors=True)
        return purged

    def _existing(self, name: str) -> Path:
        path = self.find(name)
        if path is None:
            raise LibraryError(f"no list named '{shown(name)}'")
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
    return [
        file
        for file in sorted(folder.iterdir())
        if not file.name.startswith((METADATA_FILE, REVIEWS_FILE)) and file.is_file()
    ]


def _why(error: OSError) -> str:
    """Why a folder cannot be read, in a few words."""
    if error.errno == errno.ELOOP:
        return "a symbolic link loop"
    if error.errno == errno.ENOTDIR:
        return "a file, not a folder"
    if error.errno in (errno.EACCES, errno.EPERM):
        return "permission denied"
    return f"cannot read it: {error.strerror or error}"


def _write_new(path: Path, data: bytes) -> os.stat_result:
    """Write a new file; its status once written (what parsed.keep_written compares with)."""
    with open(path, "xb") as file:
        file.write(data)
        file.flush()
        return os.fstat(file.fileno())


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
