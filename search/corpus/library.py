"""The user's library of paper lists: files copied into the data dir, loaded with the bundled list.

Each list is a folder <data>/lists/<name>/ holding a copy of the file under its original name (which
can say the venue, e.g. iclr2017.json). `list:NAME` in a query picks it. The copy is what the app
loads, so the user's original file can move or change without breaking anything."""

from __future__ import annotations

import os
import re
import shutil
from dataclasses import dataclass
from pathlib import Path

from search import paths
from search.corpus.loader import CorpusError, bundled_paths, load_corpus
from search.errors import LibraryError

BUNDLED_LIST = "iclr2025"
"""The name of the bundled ICLR 2025 list (its two files count as one list)."""
_NAME = re.compile(r"^[a-z0-9][a-z0-9_.-]{0,63}$")


@dataclass(frozen=True)
class AddedList:
    name: str
    path: Path
    papers: int
    skipped: int
    duplicates: int


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
            return [file for folder in folders for file in sorted(folder.iterdir())[:1] if file.is_file()]
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

    def add(self, source: Path, name: str | None = None) -> AddedList:
        """Check the file loads, then copy it in under its name. Raises CorpusError or LibraryError."""
        name = (name or _default_name(source)).lower()
        if not _NAME.match(name):
            raise LibraryError(f"{name!r} is not a usable list name (letters, digits, - _ . ; up to 64)")
        if name == BUNDLED_LIST or self.find(name) is not None:
            raise LibraryError(f"a list named {name!r} already exists (pick another with --name, or remove it first)")
        corpus = load_corpus([source])  # refuse a broken file before it enters the library
        folder = self.folder / name
        staging = self.folder / f".adding-{name}"
        try:
            shutil.rmtree(staging, ignore_errors=True)
            staging.mkdir(parents=True)
            shutil.copyfile(source, staging / source.name)
            os.rename(staging, folder)  # the list appears whole or not at all
        except OSError as error:
            shutil.rmtree(staging, ignore_errors=True)
            raise LibraryError(f"cannot copy into {self.folder} ({error.strerror or error})") from None
        return AddedList(name, folder / source.name, len(corpus.papers), corpus.skipped, corpus.duplicates)

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


def _default_name(source: Path) -> str:
    name = re.sub(r"[^a-z0-9_.-]+", "-", source.stem.lower()).strip("-.")
    return name or "list"


__all__ = ["BUNDLED_LIST", "AddedList", "CorpusError", "Library", "LibraryError", "list_name"]
