"""Corpus files -> Papers: read a set of files (any supported format), give the bundled list its facts,
and keep each paper once (merge.py: the same paper in two lists is one paper, in both lists)."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, fields, replace
from pathlib import Path

from search.corpus import fingerprint, snapshot
from search.corpus.bundled import bundled_paths, is_bundled, with_facts
from search.corpus.formats import CorpusError, Parsed, parse
from search.corpus.formats.common import MAX_LIST_PAPERS, stable_id
from search.corpus.merge import abstract_ends, merge
from search.corpus.parsed import begun_ahead, parsed_ahead, parsed_file
from search.models import Paper
from search.untrusted import MAX_BYTES, read_bytes, shown

__all__ = [
    "MAX_CORPUS_BYTES",
    "MAX_LIST_PAPERS",
    "Corpus",
    "CorpusError",
    "bundled_paths",
    "load_corpus",
    "parsing_ahead",
    "read_corpus_file",
    "stable_id",
]

MAX_CORPUS_BYTES = MAX_BYTES
"""Larger files are refused with a clear message rather than read into memory. A file of more than
MAX_LIST_PAPERS records is refused too, before its papers are made (formats/common.py says why)."""


@dataclass(frozen=True)
class Corpus:
    """Papers from one or more files, in corpus order, with counts of what was left out."""

    name: str
    papers: tuple[Paper, ...]
    sources: tuple[str, ...]
    skipped: int = 0
    """Records without an abstract."""
    duplicates: int = 0
    """Papers already loaded from another record (the same id, or the same paper in another list): kept once."""
    problems: tuple[str, ...] = ()
    """Files left out because they could not be loaded (only with skip_broken)."""
    aliases: Mapping[str, str] = field(default_factory=dict)
    """The id of each paper merged into another -> the id it is kept under."""
    fingerprints: Mapping[str, str] = field(default_factory=dict)
    """Each file's (`source`'s) papers as one digest (fingerprint.py), computed once, when the index
    is opened or the corpus saved, and saved with it: what the file's index shard is found by.
    Empty for a corpus made otherwise (the index then computes it)."""


@contextlib.contextmanager
def parsing_ahead(paths: Sequence[str | Path] | None = None) -> Iterator[None]:
    """A cold start's other parsing process (parsed.py) forked now for the files a load of `paths`
    will read (default: the bundled list plus the library), before the caller imports the rest of
    the engine: a load of the same files inside this block takes it over."""
    if paths:
        files = [Path(p) for p in paths]
    else:
        from search.corpus.library import Library  # (it imports this module)

        files = Library().default_sources()
    with begun_ahead(files, MAX_CORPUS_BYTES, _parse):
        yield


def load_corpus(
    paths: Sequence[str | Path] | None = None,
    skip_broken: bool = False,
    *,
    contents: Mapping[Path, bytes] | None = None,
    keep: bool = False,
    later: list[Callable[[], None]] | None = None,
    meanwhile: Callable[[], None] | None = None,
    parses: dict[Path, Parsed] | None = None,
) -> Corpus:
    """Load and merge corpus files (default: the bundled list). Raises CorpusError; with
    `skip_broken`, a file that cannot be loaded is left out and named in `problems` instead
    (unless none can be loaded). `contents` gives files already read (`read_corpus_file`), so what
    is checked is exactly what the caller then copies. `keep` saves the merged corpus for the next
    load of the same unchanged files (snapshot.py): the engine's loads do, not a list looked at alone
    (which would push the app's set out of the few kept). With `later`, what is saved for the next
    load (each file's parse, the merged corpus) is not written now: the calls that write it are
    appended to `later`, for the app to make once it is up. `meanwhile` is called once, in this
    process, when the lists left to take in turn with the other process are few (parsed.py's
    MEANWHILE_LEAD_BYTES: what the other parses meanwhile) and before it waits for the other's (a
    cold start's app imports the interface then, instead of after the merge), or before the merge
    when nothing is parsed ahead. `parses` receives the parse of each file in `contents` (with its
    abstracts' ends), for the caller to keep for the copy it writes (parsed.keep_written)."""
    bundled = bundled_paths()
    files = [Path(p) for p in paths] if paths else bundled
    # Stamped before reading: a file changed meanwhile is read again next time.
    key = snapshot.stamps(files, MAX_CORPUS_BYTES) if contents is None else None
    saved = snapshot.read(key) if key is not None else None
    if saved is not None:
        return Corpus(**saved)
    found: list[Paper] = []
    ends: list[bytes | None] = []
    skipped = 0
    venues: list[str] = []
    problems: list[str] = []
    loaded: list[Path] = []
    with parsed_ahead(files if contents is None else [], MAX_CORPUS_BYTES, _parse) as ahead:
        # The lists this process takes in turn with the other one, and the ones it alone reads; then
        # every file in corpus order, each parsed here or read from the entry the other process wrote.
        mine = {}
        for path in ahead.claims():
            mine[path] = _attempt(path, later)
            if meanwhile is not None and ahead.nearly_taken():
                meanwhile()  # while the other process parses what is left, taken in turn after it
                meanwhile = None
        mine.update((path, _attempt(path, later)) for path in files if contents is None and path not in ahead.shared)
        if meanwhile is not None:
            meanwhile()  # (a saved corpus returned above: no parse to overlap, and nothing to call)
        mine.update((path, _attempt(path, later)) for path in ahead.finished())  # each as the other is done with it
        ahead.wait()
    for path in files:
        try:
            data = contents.get(path) if contents else None
            if data is not None:
                parsed = parse(path, _decode(path, data))
                if parses is not None:
                    parsed = replace(parsed, ends=[abstract_ends(paper.abstract) for paper in parsed.papers])
                    parses[path] = parsed
            else:
                attempt = mine.pop(path) if path in mine else _attempt(path, later)  # (let go as it goes)
                if isinstance(attempt, CorpusError):
                    raise attempt
                parsed = attempt
        except CorpusError as error:
            if not skip_broken:
                raise
            problems.append(str(error))
            continue
        loaded.append(path)
        skipped += parsed.skipped
        if parsed.venue and parsed.venue not in venues:
            venues.append(parsed.venue)
        found.extend(with_facts(parsed.papers) if is_bundled(path, bundled) else parsed.papers)
        ends.extend(parsed.ends if parsed.ends is not None else map(abstract_ends, (p.abstract for p in parsed.papers)))
    if not loaded:
        raise CorpusError(problems[0])
    merged = merge(found, ends)
    del ends
    papers = tuple(map(_numbered, merged.papers, range(len(merged.papers))))
    files = loaded
    names = venues or [shown(p.stem) for p in files]
    name = ", ".join(names) if len(names) <= 3 else f"{names[0]}, {names[1]} and {len(names) - 2} more"
    sources = tuple(str(p) for p in files)
    corpus = Corpus(
        name,
        papers,
        sources,
        skipped,
        merged.duplicates,
        tuple(problems),
        merged.aliases,
        fingerprint.BySource(papers),
    )
    if keep and key is not None and not problems:
        saved_fields = {field.name: getattr(corpus, field.name) for field in fields(Corpus)}
        if later is None:
            snapshot.write(key, {**saved_fields, "fingerprints": dict(corpus.fingerprints)})
        else:
            later.append(lambda: snapshot.write(key, {**saved_fields, "fingerprints": dict(corpus.fingerprints)}))
    return corpus


def _numbered(paper: Paper, number: int) -> Paper:
    """The paper at this position in corpus order."""
    if paper.position == number:
        return paper
    row = list(paper)  # the slots as they are (an abstract kept on disk stays there)
    row[_POSITION] = number
    return tuple.__new__(Paper, row)


_POSITION = Paper._fields.index("position")


def _parse(path: Path) -> Parsed:
    return parse(path, _decode(path, read_corpus_file(path)))


def _parsed(path: Path, later: list[Callable[[], None]] | None = None) -> Parsed:
    """The file's papers, from the cache of parsed files when it is unchanged (see parsed.py)."""
    return parsed_file(path, MAX_CORPUS_BYTES, lambda: _parse(path), later)


def _attempt(path: Path, later: list[Callable[[], None]] | None) -> Parsed | CorpusError:
    """_parsed, or why the file cannot be loaded."""
    try:
        return _parsed(path, later)
    except CorpusError as error:
        return error


def read_corpus_file(path: Path) -> bytes:
    """A corpus file's bytes, through the one reader of outside files (regular files only, the size
    limit held while reading); every problem is a CorpusError of one line naming the file."""
    return read_bytes(path, limit=MAX_CORPUS_BYTES, what="corpus file", error=CorpusError)


def _decode(path: Path, data: bytes) -> str:
    if b"\x00" in data[:4096]:
        raise CorpusError(f"{shown(path)}: binary file, not a text corpus")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        raise CorpusError(f"{shown(path)}: not UTF-8 text (bad byte at offset {error.start})") from None
    if not text.strip():
        raise CorpusError(f"{shown(path)}: empty file")
    if "\r" not in text:  # the usual case: one scan for it, not two for nothing (13 ms a 14 MB list)
        return text
    return text.replace("\r\n", "\n").replace("\r", "\n")
