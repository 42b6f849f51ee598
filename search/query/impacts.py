"""Common words' scores kept on disk beside the index, best first.

At 100,000 papers a common word's scores ("learn", "model": 50,000-60,000 papers) take 50-120 ms
of CPU to compute from Whoosh's postings (unpickling and decompressing every block, then a float
per posting); read back from a file, 3-6 ms. So after a word's scores are computed (TermScorer),
those of a word in at least MIN_PAPERS papers are written here, and a later miss (the word's kept
scores forgotten within their byte budget, or the next start) reads them instead.

A folder per set of open shards: its name digests each shard's folder, segments and sizes, the
scoring constants and this format, since a word's scores depend on every shard's statistics and a
paper's docnum on the shards' order. A file per word and fields: a header (magic, count, digest),
the papers (int32 docnums, in the order the scores were made), the papers best first (int32), then
the scores of the first (float64). Derived data, read as
untrusted: a file cut short, damaged, written for another key or naming a paper out of range is
ignored (and written again); nothing here raises. The folder is bounded (MAX_FOLDER_BYTES: no more
files past it), and only the KEPT_SETS sets used last are kept.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import shutil
import struct
import time
from array import array
from collections.abc import Sequence
from pathlib import Path

FORMAT = b"iclr-reader scores 1"
MAGIC = b"ICLRSCO1"
MIN_PAPERS = 2000
"""A word in fewer papers is computed again when needed (a few ms at most): no file."""
MAX_FOLDER_BYTES = 128 << 20
"""A set's files stop here (a common word's take up to 16 bytes a paper: 1.6 MB at 100,000 papers;
a session of 1,000 searches there wrote 19 MB, the index itself is 210 MB)."""
KEPT_SETS = 2
_HEADER = struct.Struct("<8sI16s")
_DIGEST = 16

if array("i").itemsize != 4 or array("d").itemsize != 8:  # pragma: no cover - every platform CPython runs on
    raise ImportError("impacts.py needs 4-byte ints and 8-byte doubles")


class ScoreFiles:
    """The words' scores files of one set of open shards."""

    def __init__(self, folder: Path, doc_count: int) -> None:
        self.folder = folder
        self.doc_count = doc_count
        self._bytes: int | None = None
        """What the folder holds, counted when first written to."""
        self._writable = True

    @classmethod
    def beside(cls, indexes: Sequence, segments: Sequence, salt: str) -> ScoreFiles | None:
        """The files for these shards (Whoosh indexes on disk, their leaf readers in docnum order);
        `salt` says how scores are computed (the constants). None for an index in memory."""
        folders = []
        for ix in indexes:
            folder = getattr(ix.storage, "folder", None)
            if not folder:
                return None
            folders.append(Path(folder))
        if not folders:
            return None
        digest = hashlib.sha256(FORMAT + b"\0" + salt.encode())
        for folder in folders:
            digest.update(b"\0" + os.fsencode(folder.name))
        for segment, offset in segments:
            info = segment.segment()
            digest.update(f"\0{info.segment_id()}:{segment.doc_count_all()}:{offset}:{info.deleted_count()}".encode())
        root = folders[0].parent.parent / "scores"
        doc_count = sum(segment.doc_count_all() for segment, _ in segments)
        files = cls(root / digest.hexdigest()[:24], doc_count)
        files._prune(root)
        return files

    def read(self, key: tuple) -> tuple[array, array, array] | None:
        """The word's papers, their scores (in the order the word's scores were made) and its papers
        best first, as written; None when there is no sound file for it."""
        try:
            with open(self._path(key), "rb") as file:
                data = file.read(_HEADER.size + 16 * self.doc_count + 1)
        except OSError:
            return None
        if len(data) < _HEADER.size:
            return None
        magic, count, digest = _HEADER.unpack_from(data)
        if magic != MAGIC or count > self.doc_count or len(data) != _HEADER.size + 16 * count:
            return None
        payload = memoryview(data)[_HEADER.size :]
        if _digest(key, payload) != digest:
            return None
        docs, order, scores = array("i"), array("i"), array("d")
        docs.frombytes(payload[: 4 * count])
        order.frombytes(payload[4 * count : 8 * count])
        scores.frombytes(payload[8 * count :])
        for numbers in (docs, order):
            if count and (min(numbers) < 0 or max(numbers) >= self.doc_count):
                return None
        return docs, scores, order

    def has(self, key: tuple) -> bool:
        """Whether a file for the word is there, of a size its header can say (`read` checks the rest)."""
        try:
            with open(self._path(key), "rb") as file:
                header = file.read(_HEADER.size)
                size = os.fstat(file.fileno()).st_size
        except OSError:
            return False
        if len(header) < _HEADER.size:
            return False
        magic, count, _ = _HEADER.unpack(header)
        return magic == MAGIC and count <= self.doc_count and size == _HEADER.size + 16 * count

    def size(self) -> int:
        """The bytes the set's folder holds (counted once, then kept up to date by `write`)."""
        if self._bytes is None:
            try:
                self._bytes = sum(entry.stat().st_size for entry in self.folder.iterdir())
            except OSError:
                return 0
        return self._bytes

    def write(self, key: tuple, scores: dict[int, float], order: Sequence[int]) -> None:
        """Keep the word's scores, `order` its papers best first; never raises (a full disk, a
        folder that cannot be made: nothing is kept)."""
        if not self._writable:
            return
        parts = [
            array("i", scores.keys()).tobytes(),
            array("i", order).tobytes(),
            array("d", scores.values()).tobytes(),
        ]
        digest = hashlib.blake2b(repr(key).encode(), digest_size=_DIGEST)
        for part in parts:
            digest.update(part)
        header = _HEADER.pack(MAGIC, len(scores), digest.digest())
        size = len(header) + sum(map(len, parts))
        path = self._path(key)
        temporary = path.with_name(f".{path.name}.{os.getpid()}")
        try:
            if self._bytes is None:
                self.folder.mkdir(parents=True, exist_ok=True)
                self._bytes = sum(entry.stat().st_size for entry in self.folder.iterdir())
            if self._bytes + size > MAX_FOLDER_BYTES:
                self._writable = False
                return
            with open(temporary, "wb") as file:
                file.write(header)
                for part in parts:
                    file.write(part)
            os.replace(temporary, path)
            self._bytes += size
        except OSError:
            self._writable = False
            with contextlib.suppress(OSError):
                temporary.unlink()

    def _path(self, key: tuple) -> Path:
        return self.folder / (hashlib.blake2b(repr(key).encode(), digest_size=16).hexdigest() + ".bin")

    def _prune(self, root: Path) -> None:
        """Mark this set used now, and remove the folders of all but the KEPT_SETS sets used last."""
        with contextlib.suppress(OSError):
            if self.folder.is_dir():
                os.utime(self.folder)
            others = sorted(
                (entry.stat().st_mtime, entry) for entry in root.iterdir() if entry.is_dir() and entry != self.folder
            )
            for _, entry in others[: max(0, len(others) - KEPT_SETS + 1)]:
                shutil.rmtree(entry, ignore_errors=True)
            for entry in self.folder.iterdir() if self.folder.is_dir() else ():  # what a killed write left
                if entry.name.startswith(".") and time.time() - entry.stat().st_mtime > 3600:
                    entry.unlink()


def _digest(key: tuple, payload) -> bytes:
    digest = hashlib.blake2b(repr(key).encode(), digest_size=_DIGEST)
    digest.update(payload)
    return digest.digest()
