"""Open the Whoosh index for a corpus, or build it in a temporary directory and swap it in atomically."""

from __future__ import annotations

import hashlib
import json
import os
import pickle
import re
import secrets
import shutil
import signal
import tempfile
import threading
import time
import zlib
from bisect import bisect_left
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import accumulate
from pathlib import Path
from typing import NoReturn

from whoosh import index as whoosh_index
from whoosh.filedb.filestore import RamStorage

from search.corpus.fingerprint import fingerprint
from search.errors import IndexCancelled
from search.index.analysis import folded
from search.index.codec import codec
from search.index.schema import SCHEMA_VERSION, build_schema
from search.index.writer import GroupingWriter
from search.models import Paper
from search.text.describe import Description, Summary
from search.text.mathtext import searchable
from search.version import __version__

Progress = Callable[[int, int], None]
"""Called as on_progress(done, total) while building."""
Stamps = dict[str, tuple[int, int, int]]
"""file name -> (inode, size, modification time in ns): cheap to compare, to notice a file of an open
index written, replaced or deleted."""


class Descriptions(Sequence[Description | Summary]):
    """Papers described on demand, so markup conversion is part of the build's reported progress: in
    full, or only as much as the index keeps (`summarize`, for a child build)."""

    def __init__(self, papers: Sequence[Paper], describe: Callable[[Paper], Description | Summary]) -> None:
        self._papers = papers
        self._describe = describe

    def __len__(self) -> int:
        return len(self._papers)

    @property
    def papers(self) -> Sequence[Paper]:
        """The papers, not described."""
        return self._papers

    def __getitem__(self, index):
        return self._describe(self._papers[index])


@dataclass(frozen=True)
class IndexLocation:
    """Where one corpus file's index lives: <cache>/index/<file>-<content>."""

    root: Path
    set_key: str
    content_key: str
    replace: bool = field(default=False, compare=False)
    """A build for this location replaces the index already there (`index --rebuild`). Otherwise a
    sound index already there is kept: another process finished the same build first. It travels
    with the location to child builds (children.py)."""

    @property
    def path(self) -> Path:
        return self.root / f"{self.set_key}-{self.content_key}"


def _source_key(source: str) -> str:
    return hashlib.sha256(os.path.abspath(source).encode("utf-8", "surrogatepass")).hexdigest()[:10]


def forget(root: Path, source: str) -> None:
    """Delete every index built for this corpus file (it was removed)."""
    prefix = _source_key(source) + "-"
    for entry in root.iterdir() if root.is_dir() else ():
        if entry.name.lstrip(".").startswith(prefix):
            shutil.rmtree(entry, ignore_errors=True)


def locate(root: Path, source: str, papers: Sequence[Paper], stored: str | None = None) -> IndexLocation:
    """The index directory for one file's papers; any change of content, schema or version moves it.

    Each corpus file has its own index (a shard), so adding or changing one list re-indexes only it.
    The content is the papers' fingerprint: `stored`, the one the corpus computed when it read the
    file (search/corpus/fingerprint.py), else computed now (which reads every abstract)."""
    content = stored if stored is not None else fingerprint(papers)
    key = hashlib.sha256(f"{SCHEMA_VERSION}\0{__version__}\0{MANIFEST_FORMAT}\0{content}".encode())
    return IndexLocation(root, _source_key(source), key.hexdigest()[:16])


@dataclass(frozen=True)
class OpenIndex:
    """An open Whoosh index plus its side data, read without touching Whoosh's stored fields."""

    ix: object
    rows: Mapping[str, Sequence]
    """paper id -> (name, headline, has_code): the result list, without markup conversion (a list
    when read from rows.json)."""
    words: list[str]
    """Sorted vocabulary of the plain texts, for spelling correction and completing typed words."""
    counts: list[int]
    """In how many papers each word of `words` occurs."""
    manifest: str = ""
    """The text of the build's manifest (which build of the location is open); "" in memory."""
    stamps: Stamps = field(default_factory=dict)
    """Each of its files' inode, size and modification time when it was checked or written."""
    light: bool = False
    """Its rows and vocabulary are not held: a shard on disk is opened without them, and they are
    let go once merged with the other shards' (lifecycle.py keeps only the merged ones: at 100,000
    papers the shards' own were 45 MB); `with_side_data` reads them from its files."""

    def without_side_data(self) -> OpenIndex:
        """The shard without its rows and vocabulary, when its files can give them again (a shard in
        memory keeps them)."""
        if not self.manifest:
            return self
        return OpenIndex(self.ix, {}, [], [], self.manifest, self.stamps, light=True)


ROWS_FILE = "rows.json"
WORDS_FILE = "words.txt"
MANIFEST_FILE = "manifest.json"
"""Every file of a finished build with its size and CRC-32: a file deleted, cut short or changed
(one byte is enough, whatever its size) makes the shard damaged, and it is rebuilt."""
MANIFEST_FORMAT = 2
"""2: sizes and checksums; 1 had sizes only. Part of each shard's location, so a shard built before
checksums is rebuilt as out of date rather than reported as damaged."""
_CHUNK = 1 << 18
_WORD = re.compile(r"[^\W\d_]{3,}")
"""A word of the spelling vocabulary: three letters or more, of the folded text."""
_ASCII_WORD = re.compile(r"[a-z]{3,}")
"""`_WORD` for ASCII text, lower-cased (which is its folding): the same words, found in half the time."""


def open_existing(location: IndexLocation) -> OpenIndex | None:
    """The index if a complete, undamaged one exists for exactly this content, else None."""
    return open_checked(location)[0]


def open_checked(location: IndexLocation) -> tuple[OpenIndex | None, bool]:
    """The index if a complete, undamaged one exists for exactly this content, and whether a damaged
    one is there instead: a file missing, cut short or changed (its checksum is not the manifest's),
    or anything Whoosh or the side files cannot read. Checking reads every file once: 30 to 50 ms
    for the 208 files (43 MB) of the 10,750 real papers' 17 shards."""
    if not os.path.lexists(location.path):
        return None, False
    try:
        checked = verified(location)
        if checked is None:
            return None, True
        ix = whoosh_index.open_dir(str(location.path))
        with ix.searcher() as searcher:
            searcher.doc_count()
        # Its rows and vocabulary are read when merged with the other shards' (lifecycle.py), one
        # shard at a time; files whose checksums are the manifest's are the build's own.
        return OpenIndex(ix, {}, [], [], *checked, light=True), False
    except Exception:  # noqa: BLE001 - a damaged index is rebuilt, never trusted
        return None, True


def with_side_data(location: IndexLocation, opened: OpenIndex) -> OpenIndex | None:
    """The shard with its rows and vocabulary, read again from its files if it let them go (see
    OpenIndex.light); None when they cannot be read (the shard is damaged). Its files were checked
    against its manifest when it was opened, and again by a repair before it merges them anew.
    A rows file that is no JSON object, or a vocabulary file of an odd number of fields, is damage."""
    if not opened.light:
        return opened
    try:
        side = _side_data(location)
    except Exception:  # noqa: BLE001 - as open_checked: damaged, never trusted
        side = None
    return None if side is None else OpenIndex(opened.ix, *side, opened.manifest, opened.stamps)


def _side_data(location: IndexLocation) -> tuple[dict, list[str], list[int]] | None:
    """The shard's rows and its vocabulary with each word's count, from its files; None if damaged."""
    rows = json.loads((location.path / ROWS_FILE).read_text(encoding="utf-8"))
    if type(rows) is not dict:
        return None
    fields = (location.path / WORDS_FILE).read_text(encoding="utf-8").split()  # word, count, word, ...
    if len(fields) % 2:
        return None
    return rows, fields[0::2], list(map(int, fields[1::2]))


def verified(location: IndexLocation) -> tuple[str, Stamps] | None:
    """The manifest's text and every file's stamp when each file it lists is there with its size and
    checksum, else None. Each stamp is taken before its file is read, so a write during the check
    shows at the next comparison."""
    folder = location.path
    try:
        with open(folder / MANIFEST_FILE, "rb") as file:
            stamps = {MANIFEST_FILE: _stamp(os.fstat(file.fileno()))}
            text = file.read().decode("utf-8")
        manifest = json.loads(text)
        files = manifest["files"]
        if manifest.get("format") != MANIFEST_FORMAT or not isinstance(files, dict) or not files:
            return None
        buffer = bytearray(_CHUNK)
        for name, (size, checksum) in files.items():
            if "/" in name or name.startswith("."):
                return None
            with open(folder / name, "rb", buffering=0) as file:
                status = os.fstat(file.fileno())
                if status.st_size != size or _crc32(file, buffer) != checksum:
                    return None
            stamps[name] = _stamp(status)
        return text, stamps
    except (OSError, ValueError, TypeError, KeyError, AttributeError):
        return None


def stamps_differ(location: IndexLocation, stamps: Stamps) -> bool:
    """Whether any of the files was written, replaced or deleted since it was stamped (a stat each)."""
    folder = str(location.path)
    for name, stamp in stamps.items():
        try:
            status = os.stat(f"{folder}/{name}")
        except OSError:
            return True
        if (status.st_ino, status.st_size, status.st_mtime_ns) != stamp:
            return True
    return False


def _stamp(status: os.stat_result) -> tuple[int, int, int]:
    return status.st_ino, status.st_size, status.st_mtime_ns


def _crc32(file, buffer: bytearray | None = None) -> int:
    """The CRC-32 of the rest of an unbuffered file, read into `buffer` (reused: no copies)."""
    buffer = buffer or bytearray(_CHUNK)
    view = memoryview(buffer)
    checksum = 0
    while count := file.readinto(buffer):
        checksum = zlib.crc32(view[:count], checksum)
    return checksum


def build(
    location: IndexLocation,
    descriptions: Descriptions,
    on_progress: Progress | None = None,
    cancel: threading.Event | None = None,
    procs: int = 1,
) -> OpenIndex:
    """Build into a sibling temp dir, then rename it into place so readers never see half an index.

    procs=2 forks a second process to write about half the papers: only from child.py, whose only
    other thread watches its parent."""
    location.root.mkdir(parents=True, exist_ok=True)
    temporary = Path(tempfile.mkdtemp(prefix=f".{location.path.name}.", dir=location.root))
    try:
        ix = whoosh_index.create_in(str(temporary), build_schema())
        rows, vocabulary = _fill(ix, descriptions, on_progress, cancel, procs)
        ix.close()
        (temporary / ROWS_FILE).write_text(json.dumps(rows, ensure_ascii=False), encoding="utf-8")
        words = "".join(f"{word}\t{count}\n" for word, count in sorted(vocabulary.items()))
        (temporary / WORDS_FILE).write_text(words, encoding="utf-8")
        _write_manifest(temporary)
        _swap_in(temporary, location)
    except BaseException:
        shutil.rmtree(temporary, ignore_errors=True)
        raise
    _remove_stale(location)
    manifest = (location.path / MANIFEST_FILE).read_text(encoding="utf-8")
    stamps: Stamps = {}
    for name in [MANIFEST_FILE, *json.loads(manifest)["files"]]:
        stamps[name] = _stamp(os.stat(location.path / name))
    return _opened(whoosh_index.open_dir(str(location.path)), rows, vocabulary, manifest, stamps)


def _write_manifest(folder: Path) -> None:
    files = {}
    for entry in sorted(folder.iterdir()):
        if entry.is_file() and not entry.name.endswith("LOCK"):
            with open(entry, "rb", buffering=0) as file:
                files[entry.name] = [os.fstat(file.fileno()).st_size, _crc32(file)]
    manifest = {"format": MANIFEST_FORMAT, "files": files}
    (folder / MANIFEST_FILE).write_text(json.dumps(manifest, sort_keys=True), encoding="utf-8")


def _swap_in(temporary: Path, location: IndexLocation) -> None:
    """Rename the finished build into place. An index already there is kept when it is sound and this
    build does not replace it (another process finished the same build first); otherwise it is
    renamed aside and removed. Processes reading it keep their open files (POSIX); between the two
    renames the location is empty for a moment, and a process opening it then builds its own."""
    asides = []
    try:
        for attempt in range(5):
            try:
                os.rename(temporary, location.path)
                return
            except OSError:
                if attempt == 4:
                    raise
            if not location.replace and open_existing(location) is not None:
                shutil.rmtree(temporary, ignore_errors=True)
                return
            aside = location.root / f".{location.path.name}.replaced-{os.getpid()}-{secrets.token_hex(4)}"
            try:
                os.rename(location.path, aside)
            except FileNotFoundError:
                continue  # another process moved it aside first
            asides.append(aside)
    finally:
        for aside in asides:
            shutil.rmtree(aside, ignore_errors=True)


def build_in_memory(descriptions: Descriptions, on_progress: Progress | None = None, cancel=None) -> OpenIndex:
    """An index that lives only in RAM: used when the cache dir cannot be written."""
    ix = RamStorage().create_index(build_schema())
    rows, vocabulary = _fill(ix, descriptions, on_progress, cancel)
    return _opened(ix, rows, vocabulary)


def _opened(
    ix,
    rows: Mapping[str, Sequence],
    vocabulary: Counter[str],
    manifest: str = "",
    stamps: Stamps | None = None,
) -> OpenIndex:
    words = sorted(vocabulary)
    return OpenIndex(ix, rows, words, [vocabulary[word] for word in words], manifest, stamps or {})


def _fill(ix, descriptions: Descriptions, on_progress: Progress | None, cancel, procs: int = 1):
    """Add every paper; returns the result-list rows and each word's number of papers. With procs > 1
    a forked process writes the first half (see _fill_in_two)."""
    if procs > 1 and len(descriptions) > 1:
        return _fill_in_two(ix, descriptions, on_progress, cancel)
    writer = GroupingWriter(ix, compound=False, codec=codec())
    try:
        rows, vocabulary = _add(writer, descriptions, range(len(descriptions)), on_progress, cancel)
        writer.commit()
    except BaseException:
        writer.cancel()
        raise
    return rows, vocabulary


def _fill_in_two(ix, descriptions: Descriptions, on_progress: Progress | None, cancel):
    """Two processes, each writing about half the text as a segment of its own (Whoosh searches an
    index's segments as one): a forked process the first papers, this one the rest, then this one
    lists both. For one big list on two CPUs, from child.py, whose only other thread watches its
    parent."""
    total = len(descriptions)
    half = _halfway(descriptions)

    def report(done: int, _total: int) -> None:  # the halves take about as long
        if on_progress is not None:
            on_progress(min(total - 1, (done - half) * total // (total - half)), total)

    readable, writable = os.pipe()
    pid = 0
    writer = None
    try:
        pid = os.fork()
        if pid == 0:
            _write_first_papers(ix, descriptions, half, readable, writable)
        os.close(writable)
        writable = -1
        writer = GroupingWriter(ix, compound=False, codec=codec())
        rows, vocabulary = _add(writer, descriptions, range(half, total), report, cancel)
        with os.fdopen(readable, "rb") as receiving:
            readable = -1
            written = receiving.read()
        _, status = os.waitpid(pid, 0)
        pid = 0
        if status != 0 or not written:
            raise OSError("the index build's other process failed")
        segment, first_rows, first_vocabulary = pickle.loads(written)  # from our own fork: trusted
        writer.commit(mergetype=lambda _writer, _segments: [segment])  # listed first: corpus order
    except BaseException:
        if writer is not None:
            writer.cancel()
        raise
    finally:
        for descriptor in (readable, writable):
            if descriptor >= 0:
                os.close(descriptor)
        if pid:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
    if on_progress is not None:
        on_progress(total, total)
    return first_rows | rows, first_vocabulary + vocabulary


def _write_first_papers(ix, descriptions: Descriptions, count: int, readable: int, writable: int) -> NoReturn:
    """In the forked process: write the first `count` papers as a segment and send it back, with
    their rows and words, through the pipe."""
    code = 1
    try:
        os.close(readable)
        writer = GroupingWriter(ix, _lk=False, compound=False, codec=codec())
        rows, vocabulary = _add(writer, descriptions, range(count), None, None)
        segment = writer._finalize_segment()
        with os.fdopen(writable, "wb") as sending:
            pickle.dump((segment, rows, vocabulary), sending)
        code = 0
    finally:
        os._exit(code)


def _halfway(descriptions: Descriptions) -> int:
    """How many of the first papers make about half the work (papers differ: see work())."""
    done = list(accumulate(map(work, descriptions.papers)))
    return max(1, min(len(done) - 1, bisect_left(done, done[-1] / 2) + 1))


def work(paper: Paper) -> int:
    """How long a paper takes to index, in characters: measured on the real lists, a paper costs
    about what 30 characters of abstract cost (markup conversion and analysis read every one)."""
    return len(paper.abstract) + 30


def _add(writer, descriptions: Descriptions, numbers: range, on_progress: Progress | None, cancel):
    """Add these papers to the writer; returns their result-list rows and each word's number of papers."""
    total = len(descriptions)
    rows: dict[str, tuple[str | None, str, bool]] = {}
    vocabulary: Counter[str] = Counter()
    for number in numbers:
        if cancel is not None and cancel.is_set():
            raise IndexCancelled
        description = descriptions[number]
        paper = description.paper
        text = searchable(description.rendered.text)
        if paper.facts.tldr:  # the list's TL;DR is searched as words of the abstract
            text = f"{text}\n{searchable(paper.facts.tldr)}"
        writer.add_document(
            id=paper.id,
            name=description.name or "",
            title=paper.title or "",
            abstract=text,
            authors=" ; ".join(paper.authors),
            keywords=" ; ".join(paper.keywords),
        )
        rows[paper.id] = (description.name, description.headline, description.has_code)
        vocabulary.update(vocabulary_words(f"{paper.title or ''} {text}"))
        done = number + 1
        if on_progress is not None and (done % 100 == 0 or done == total):
            on_progress(done, total)
    return rows, vocabulary


def vocabulary_words(text: str) -> set[str]:
    """The distinct words of the text that the spelling vocabulary counts (folded, three letters or more)."""
    if text.isascii():
        return set(_ASCII_WORD.findall(text.lower()))
    return set(_WORD.findall(folded(text)))


def _remove_stale(location: IndexLocation) -> None:
    """Older builds of the same corpus set, and temp dirs abandoned by killed builds, are not needed."""
    now = time.time()
    for entry in location.root.iterdir():
        if entry == location.path or not entry.name.lstrip(".").startswith(location.set_key + "-"):
            continue
        abandoned = entry.name.startswith(".") and now - entry.stat().st_mtime > 3600
        if abandoned or not entry.name.startswith("."):
            shutil.rmtree(entry, ignore_errors=True)
