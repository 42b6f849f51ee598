"""The whole loaded corpus kept in the cache dir, so a start whose files are all unchanged reads one
file instead of reading each file's parse, checking every row and merging the lists again (at
100,000 papers: 10.5 s become 2.6 s; at 10,745: 0.28 s).

An entry is keyed by the files given, in order, each with its stamp (path, device, inode, size,
mode, modification and change time) and its resolved path, by the bundled facts file's stamp, the
engine's code (a digest of its sources), Python's version and its marshal format. It is written with marshal, which only builds plain values (no code runs when it is read),
and sealed with a keyed hash (HMAC-SHA256): the key is a random file beside the entries, in a
folder only the user can read (a key or folder that others could read, or that another user owns,
is not used), so an entry is trusted only if this user's reader wrote it, and one byte changed
anywhere makes it a miss. Anything else (no key to be had, a damaged entry, a corpus with
problems) only costs the slower load. It is derived data: deleting it costs one start. Each
file's parse (parsed.py) is kept in entries of the same kind, in a folder of their own.

The abstracts stay in the entry, read when a paper's abstract is (kept.py): a start holds the
papers without them (at 100,000 papers the app's peak memory went from 410 to 167 MB). So do the
venues' BibTeX entries (Facts.bibtex: 10 MB at 10,745 papers, read by an export or a copy).
"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import io
import marshal
import os
import stat
import sys
import tempfile
import time
from array import array
from collections.abc import Sequence
from functools import lru_cache
from pathlib import Path
from typing import Any, BinaryIO

from search import paths
from search.corpus.bundled import facts_path
from search.corpus.formats.facts import LaterFacts, SavedLaterFacts
from search.corpus.kept import Kept, KeptAbstracts, KeptFacts, abstracts
from search.models import NO_FACTS, Facts, Paper, tldr_of

CACHE_FOLDER = "corpus"
KEY_FILE = "key"
KEPT_ENTRIES = 3
"""Sets of files kept (the app's default set, and a few --corpus sets); each holds every paper."""
_MAGIC = b"iclr-reader corpus 5\n"  # 5: the rows in chunks
_SEAL = 32
_LENGTH = 8
_TRAILER = 2 * _LENGTH
_CHUNK_ROWS = 25_000
"""Rows marshalled at a time when an entry is written: never all 100,000 papers' rows and their
marshalled bytes in memory at once (that was 60 MB on top of the app after the first frame). Names
are shared within a chunk only, so smaller chunks cost the read memory: at 100,000 papers of
replicated lists, 4,096 rows a chunk made a start 21 MB larger, 25,000 rows 7 MB."""
_CHUNK = 1 << 20
_KEY_BYTES = 64
_MAX_ENTRY_BYTES = 4 << 30
_STALE_WRITE_SECONDS = 3600


@lru_cache(maxsize=1)
def code_digest() -> str:
    """A digest of the engine's source files: any change to how files are parsed changes it."""
    digest = hashlib.sha256(_MAGIC)
    root = Path(__file__).resolve().parents[1]
    for source in sorted(root.rglob("*.py")):
        with contextlib.suppress(OSError):
            digest.update(source.relative_to(root).as_posix().encode() + b"\0" + source.read_bytes())
    return digest.hexdigest()[:20]


def prune(folder: Path, kept: int, suffix: str) -> None:
    """Keep the `kept` entries (files named *suffix) modified last, and no temporary file (named
    ".*") a killed writer left behind; anything else in the folder is left alone."""
    now = time.time()
    entries = []
    for child in folder.iterdir():
        with contextlib.suppress(OSError):
            written = child.stat().st_mtime
            if child.name.startswith("."):
                if now - written > _STALE_WRITE_SECONDS:
                    child.unlink()
            elif child.suffix == suffix:
                entries.append((written, child))
    for _, child in sorted(entries, reverse=True)[kept:]:
        with contextlib.suppress(OSError):
            child.unlink()


def stamps(files: Sequence[Path], limit: int) -> tuple | None:
    """What decides whether a saved corpus is still the corpus of these files; None when one of them
    is not a regular file of at most `limit` bytes (the loader refuses or reports it)."""
    code = (code_digest(), sys.version, marshal.version)  # Python's own parsers (csv, re) too
    found = []
    for path in (*files, facts_path()):  # the facts give the bundled list its titles
        try:
            status = os.stat(path)
            # As given (papers name their file so), absolute, and resolved (a symlink moved to
            # another file, which may be the bundled list or not).
            names = (str(path), os.path.abspath(path), os.path.realpath(path))
        except (OSError, ValueError):
            return None
        if not stat.S_ISREG(status.st_mode) or status.st_size > limit:
            return None
        found.append((names, stamp_of(status)))
    return code, tuple(found)


def stamp_of(status: os.stat_result) -> tuple:
    """A file's stamp in a key: a file changed in any way (rewritten, replaced, touched) has another."""
    return (status.st_dev, status.st_ino, status.st_size, status.st_mode, status.st_mtime_ns, status.st_ctime_ns)


def read(key: tuple, folder: str = CACHE_FOLDER) -> dict[str, Any] | None:
    """The corpus saved under `key` (Corpus's fields, papers as Paper, their abstracts kept on disk
    until read: kept.py), or None. `folder`: which kind of entry (parsed.py keeps each file's parse
    in its own folder, sealed with the same key)."""
    secret = _key(create=False)
    if secret is None:
        return None
    file = None
    try:
        entry = entry_path(key, folder)
        flags = os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0)  # a FIFO put there never blocks
        file = os.fdopen(os.open(entry, flags), "rb", buffering=0)
        fields = _checked(file, secret, key)
        if fields is None:
            file.close()
            return None
        with contextlib.suppress(OSError):
            os.utime(entry)  # used: the last to be pruned
        return fields
    except Exception:  # noqa: BLE001 - any entry that cannot be read is a miss, never an error
        if file is not None:
            file.close()
        return None


def _checked(file: io.FileIO, secret: bytes, key: tuple) -> dict[str, Any] | None:
    """The entry's fields if its seal is this user's and its key is `key`. Its layout: the magic,
    the seal, every paper's abstract and venue BibTeX entry in UTF-8 one after another, the
    papers' rows marshalled a chunk at a time, the marshalled (key, fields without the papers, where
    each of those texts ends, each chunk's length), and in 8 bytes each that header's length and the
    texts' length."""
    status = os.fstat(file.fileno())
    head = len(_MAGIC) + _SEAL
    size = status.st_size
    if not stat.S_ISREG(status.st_mode) or not head + _TRAILER <= size <= _MAX_ENTRY_BYTES:
        return None
    start = os.pread(file.fileno(), head, 0)
    trailer = os.pread(file.fileno(), _TRAILER, size - _TRAILER)
    header_length = int.from_bytes(trailer[:_LENGTH], "little")
    region = int.from_bytes(trailer[_LENGTH:], "little")
    if not start.startswith(_MAGIC) or len(trailer) != _TRAILER or head + region + header_length > size - _TRAILER:
        return None
    # SHA-256: where the processor computes it (x86 SHA extensions, ARMv8), 2.6 times as fast as
    # blake2b (133 MB at 100,000 papers: 0.08 against 0.2 s).
    seal = hmac.new(secret, digestmod=hashlib.sha256)
    # Everything is sealed a chunk at a time: checked, never all in memory (the abstracts are not
    # counted in the app's resident memory: the page cache holds them; the rows are read again, a
    # chunk at a time, once the seal holds).
    buffer = memoryview(bytearray(_CHUNK))
    file.seek(head)
    left = size - _TRAILER - head
    while left:
        got = file.readinto(buffer[: min(left, _CHUNK)])
        if not got:
            return None
        seal.update(buffer[:got])
        left -= got
    seal.update(trailer)
    if not hmac.compare_digest(start[len(_MAGIC) :], seal.digest()[:_SEAL]):
        return None
    del buffer
    header = os.pread(file.fileno(), header_length, size - _TRAILER - header_length)
    saved_key, fields, ends, lengths = marshal.loads(header)
    at = head + region
    if saved_key != key or at + sum(lengths) != size - _TRAILER - header_length:
        return None
    offsets = array("Q")
    offsets.frombytes(ends)
    if offsets and offsets[-1] != region:
        return None
    abstracts = KeptAbstracts(file, head, offsets)
    make = tuple.__new__  # sealed rows of our own: no defaults to fill in, nothing to check
    papers: list[Paper] = []
    for length in lengths:
        # One chunk's rows at a time, each made a Paper as soon as it is read: never every paper's
        # row list beside every Paper (at 100,000 papers that peak was 40 MB, which the allocator
        # kept afterwards).
        rows = marshal.loads(os.pread(file.fileno(), length, at))
        at += length
        index = len(papers)
        if 2 * (index + len(rows)) > len(offsets):
            return None
        for row in rows:
            row[_ABSTRACT] = Kept(abstracts, 2 * index)
            known = row[_FACTS]
            if known is None:
                row[_FACTS] = NO_FACTS
            else:  # made when first asked for; the venue's BibTeX entry is kept on disk too
                kept = Kept(abstracts, 2 * index + 1) if offsets[2 * index + 1] > offsets[2 * index] else None
                lazy = SavedLaterFacts if len(known) > 2 else KeptFacts
                row[_FACTS] = lazy(known[0], kept, known[1])
            papers.append(make(Paper, row))
            index += 1
        del rows
    if len(offsets) != 2 * len(papers):
        return None
    fields["papers"] = tuple(papers)
    return fields


def write(
    key: tuple, fields: dict[str, Any], folder: str = CACHE_FOLDER, kept: int = KEPT_ENTRIES, unmade: bool = False
) -> None:
    """Save a loaded corpus (Corpus's fields, or any plain fields with "papers") under `key`, in
    `folder`, where the `kept` entries read or written last are kept; a failure only costs the next
    start. `unmade`: a paper's facts not made yet (a JSON record's LaterFacts) are kept as the
    record's raw fields, made when first read (SavedLaterFacts), not made now."""
    secret = _key(create=True)
    if secret is None:
        return
    papers = fields["papers"]
    try:
        entry = entry_path(key, folder)
        entry.parent.mkdir(mode=0o700, exist_ok=True)
        descriptor, temporary = tempfile.mkstemp(prefix=".writing-", dir=entry.parent)
        try:
            with os.fdopen(descriptor, "wb") as file:
                file.write(_MAGIC + bytes(_SEAL))  # the seal, once all is written
                seal = hmac.new(secret, digestmod=hashlib.sha256)
                ends = array("Q")
                end = 0
                # Each paper's abstract (those kept on disk read a run at a time), then its venue's
                # BibTeX entry ("" for none; for facts kept unmade, the record's own text).
                raws = [_unmade(paper) for paper in papers] if unmade else [None] * len(papers)
                run: list[bytes] = []  # written and sealed a run of texts at a time, not each alone
                for paper, abstract, raw in zip(papers, abstracts(papers), raws, strict=True):
                    bibtex = paper.facts.bibtex if raw is None else raw[0].get("bibtex")
                    for text in (abstract, bibtex if isinstance(bibtex, str) else ""):
                        data = text.encode("utf-8", "surrogatepass")
                        run.append(data)
                        end += len(data)
                        ends.append(end)
                    if len(run) >= _TEXTS_RUN:
                        _sealed(file, seal, b"".join(run))
                        run.clear()
                _sealed(file, seal, b"".join(run))
                one: dict[str, str] = {}
                lengths = []
                for at in range(0, len(papers), _CHUNK_ROWS):
                    chunk = marshal.dumps(_rows(papers[at : at + _CHUNK_ROWS], one, raws[at : at + _CHUNK_ROWS]))
                    _sealed(file, seal, chunk)
                    lengths.append(len(chunk))
                    del chunk
                header = marshal.dumps((key, {**fields, "papers": None}, ends.tobytes(), lengths))
                trailer = len(header).to_bytes(_LENGTH, "little") + end.to_bytes(_LENGTH, "little")
                _sealed(file, seal, header + trailer)
                file.seek(len(_MAGIC))
                file.write(seal.digest()[:_SEAL])
            os.replace(temporary, entry)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(temporary)
            raise
        prune(entry.parent, kept, ".bin")  # the entry read last is the newest (read() touches it)
    except (OSError, ValueError):
        pass


def _sealed(file: BinaryIO, seal: hmac.HMAC, data: bytes) -> None:
    file.write(data)
    seal.update(data)


_TEXTS_RUN = 512
_ABSTRACT = Paper._fields.index("abstract")
_SHARED = tuple(Paper._fields.index(name) for name in ("venue", "status", "track", "source"))
_SHARED_LISTS = tuple(Paper._fields.index(name) for name in ("authors", "keywords", "also_in"))
_FACTS = Paper._fields.index("facts")
_BIBTEX = Facts._fields.index("bibtex")
_FACTS_SHARED = tuple(Facts._fields.index(name) for name in ("area", "session"))
_FACTS_SHARED_LISTS = tuple(
    Facts._fields.index(name) for name in ("affiliations", "institutions", "abbreviations", "countries", "positions")
)


def _unmade(paper: Paper) -> tuple[dict[str, Any], int] | None:
    """A paper's facts as its record's raw fields and number of authors, while they are not made."""
    slot = tuple.__getitem__(paper, _FACTS)
    return slot.unmade() if slot.__class__ is LaterFacts else None


def _rows(
    papers: Sequence[Paper], one: dict[str, str], raws: Sequence[tuple[dict[str, Any], int] | None]
) -> list[list[Any]]:
    """The papers as rows marshal writes (lists, which the read fills with each abstract's Kept),
    without their abstracts. Equal names are made one string (`one`, across the chunks), which
    marshal writes once a chunk and the read shares: a venue, status or list path stands once a
    chunk, not in each of 100,000 papers, and so does an author of several papers. `raws`: each
    paper's facts kept unmade (_unmade, taken once, with the BibTeX entry written), or None."""
    rows = []
    for paper, raw in zip(papers, raws, strict=True):
        row: list[Any] = list(paper)
        row[_ABSTRACT] = None
        for at in _SHARED:
            if row[at] is not None:
                row[at] = one.setdefault(row[at], row[at])
        for at in _SHARED_LISTS:
            row[at] = tuple([one.setdefault(name, name) for name in row[at]])
        if raw is not None:  # (a third item: the raw fields, read as SavedLaterFacts)
            values = {name: value for name, value in raw[0].items() if name != "bibtex" or not isinstance(value, str)}
            row[_FACTS] = (marshal.dumps((values, raw[1])), tldr_of(paper), True)
        else:
            facts = paper.facts
            row[_FACTS] = None if facts == NO_FACTS else (marshal.dumps(_facts_row(facts, one)), facts.tldr)
        rows.append(row)
    return rows


def _facts_row(facts: Facts, one: dict[str, str]) -> tuple:
    """A paper's facts as a plain tuple (marshal writes no named tuple), institutions, countries
    and areas shared as names are."""
    row: list[Any] = list(facts)
    row[_BIBTEX] = None  # kept beside the abstracts, read when asked for
    for at in _FACTS_SHARED:
        if row[at] is not None:
            row[at] = one.setdefault(row[at], row[at])
    for at in _FACTS_SHARED_LISTS:
        row[at] = tuple([one.setdefault(name, name) for name in row[at]])
    return tuple(row)


def key_at_hand() -> bool:
    """Whether entries can be sealed (this user's key is there, or was made now)."""
    return _key(create=True) is not None


def entry_path(key: tuple, folder: str = CACHE_FOLDER) -> Path:
    """Where the entry of `key` is (or would be) written."""
    files = repr([names for names, _ in key[1]]).encode("utf-8", "surrogatepass")  # new stamps replace the entry
    return paths.cache_dir() / folder / f"{hashlib.sha256(files).hexdigest()[:20]}.bin"


def _key(create: bool) -> bytes | None:
    """This user's sealing key, made once; None when it cannot be had. A folder or key that others
    could read is not used: with `create`, the folder is made private again and given a new key."""
    folder = _folder()
    if not _private(folder):
        if not create:
            return None
        try:
            folder.mkdir(mode=0o700, parents=True, exist_ok=True)
            if os.stat(folder).st_uid != os.getuid():
                return None
            os.chmod(folder, 0o700)
            with contextlib.suppress(FileNotFoundError):
                os.unlink(folder / KEY_FILE)  # others may have read it
        except OSError:
            return None
    path = folder / KEY_FILE
    with contextlib.suppress(OSError):
        with open(path, "rb") as file:
            private = _private(file.fileno())
            secret = file.read(_KEY_BYTES + 1)
        if private and len(secret) == _KEY_BYTES:
            return secret
        if not create:
            return None
        os.unlink(path)  # cut short, or readable by others: replaced
    if not create:
        return None
    try:
        descriptor, temporary = tempfile.mkstemp(prefix=".key-", dir=folder)  # mode 0600
        try:
            with os.fdopen(descriptor, "wb") as file:
                file.write(os.urandom(_KEY_BYTES))
            os.link(temporary, path)  # whole or not at all, and never over a key another instance made
        finally:
            os.unlink(temporary)
    except FileExistsError:
        pass
    except OSError:
        return None
    return _key(create=False)


def _private(where: Path | int) -> bool:
    """Owned by this user, and no one else may read or write it."""
    try:
        status = os.stat(where)
    except OSError:
        return False
    return status.st_uid == os.getuid() and not status.st_mode & 0o077


def _folder() -> Path:
    return paths.cache_dir() / CACHE_FOLDER
