"""Common words' scores written ahead, in a niced child process, so no keystroke computes them first.

A common word's scores (impacts.py) were written only after a keystroke had computed them: at
100,000 papers the first keystroke to reach "learn" or "model" paid 50-130 ms of search CPU for
it. So once the index is open and has answered its first search (the first matches are not kept
waiting), the query runner starts `python -m search.query.ahead`: at AHEAD_NICENESS, dying with
the app, it opens the same shards as the runner (the same segments in the same order, so the same
docnums and statistics: the set's folder name says so, or it writes nothing), lists the text
fields' words and the authors' names in at least MIN_PAPERS papers, commonest first, and writes
the scores files of those that have none yet, within AHEAD_BYTES of the set's folder (impacts.py's
bound is above it: room is left for the words typed). The scores are TermScorer's own computation, so the floats are
those a keystroke would have made. The files are read as untrusted anyway (impacts.py).

`write_ahead` is the work itself (tests run it in-process); `Ahead` starts and stops the child.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import subprocess
import sys
import threading
from collections.abc import Callable, Sequence
from pathlib import Path

from search.query import scoring
from search.query.impacts import ScoreFiles

AHEAD_NICENESS = 19
"""The child's CPU priority below the app's: the lowest. Its work is never urgent, and a keystroke
that arrives while it runs must not wait for it (on two cores the app's search thread and its
repaint share one)."""
AHEAD_BYTES = 96 << 20
"""What the set's folder may hold when a word is written ahead (impacts.MAX_FOLDER_BYTES, 128 MB,
bounds it for the words typed too). At 99,979 papers the commonest 721-737 words fit (100.7 MB,
16 bytes a paper each: the folder is checked before each word), down to about 2,500 papers a word;
the rarer ones take about 5 ms each to compute when typed, and are written then."""
_CODE_ROOT = str(Path(__file__).resolve().parents[2])
"""The folder the `search` package was imported from."""
TEXT_FIELDS = tuple(sorted(scoring.FIELD_WEIGHTS))
"""The fields a plain word is scored across (the key its scores are kept under, with the word);
the authors' names are scored on their own."""


def common_words(reader, min_papers: int) -> list[tuple[str, tuple[str, ...]]]:
    """The keys (word, fields) a query scores words under: the text fields' words and the authors'
    names in at least `min_papers` papers (for a word, the sum of its fields' counts: an upper bound
    of the papers with it), commonest first, ties in word order; each word as text, as a query's
    terms name it."""
    counts: dict[tuple[bytes, tuple[str, ...]], int] = {}
    get = counts.get
    for segment, _ in reader.leaf_readers():
        for field in (*TEXT_FIELDS, "authors"):
            fields = TEXT_FIELDS if field in TEXT_FIELDS else (field,)
            with contextlib.suppress(KeyError):  # no paper has the field in this segment
                for text, info in segment.iter_field(field):
                    key = (text, fields)
                    counts[key] = get(key, 0) + info.doc_frequency()
    common = [(count, key) for key, count in counts.items() if count >= min_papers]
    common.sort(key=lambda pair: (-pair[0], pair[1]))
    return [(text.decode("utf-8", "replace"), fields) for _, (text, fields) in common]


def write_ahead(
    reader, files: ScoreFiles, min_papers: int | None = None, stop: Callable[[], bool] = lambda: False
) -> int:
    """Write the scores files of the reader's common words that have none (commonest first, while
    the folder holds less than AHEAD_BYTES and `stop` says go on); how many were written."""
    if min_papers is None:
        min_papers = scoring.MIN_PAPERS
    scorer = scoring.TermScorer(reader, files)
    written = 0
    for key in common_words(reader, min_papers):
        if stop() or files.size() >= AHEAD_BYTES:
            break
        if files.has(key):
            continue
        scores = scorer._compute(*key)
        if len(scores) >= min_papers:
            files.write(key, scores, scoring.best_first(scores))
            written += 1
        for cached in list(scorer._field_cache):  # each word's fields are needed once
            scorer._field_cache.forget(cached)
    return written


class Ahead:
    """The child writing a set's common words ahead (module docstring): started from a thread of
    its own, which waits for it (on Linux a child dies with the thread that started it)."""

    def __init__(self, folders: Sequence[str], expected: str, min_papers: int) -> None:
        self._request = json.dumps({"folders": list(folders), "set": expected, "min_papers": min_papers})
        self._child: subprocess.Popen | None = None
        self._stopped = False
        self._lock = threading.Lock()
        self.done = threading.Event()
        """Set when the child has exited (or never started)."""
        self.returncode: int | None = None
        threading.Thread(target=self._run, name="scores-ahead", daemon=True).start()

    def _run(self) -> None:
        try:
            with self._lock:
                if self._stopped:
                    return
                self._child = subprocess.Popen(
                    [sys.executable, "-m", "search.query.ahead", "--parent", str(os.getpid())],
                    stdin=subprocess.PIPE,
                    stdout=subprocess.DEVNULL,
                    stderr=subprocess.DEVNULL,
                    text=True,
                    cwd=_CODE_ROOT,  # the child runs the app's own code, wherever it was imported from
                )
            assert self._child.stdin is not None
            with contextlib.suppress(OSError):
                self._child.stdin.write(self._request)
                self._child.stdin.close()
            self.returncode = self._child.wait()
        except OSError:  # no process can be started: the words are computed when typed, as before
            pass
        finally:
            self.done.set()

    def wait(self, timeout: float | None = None) -> bool:
        """Whether the child has exited, waiting up to `timeout` seconds."""
        return self.done.wait(timeout)

    def stop(self) -> None:
        """Kill the child (the index it reads is closed); the files it wrote stay, each whole."""
        with self._lock:
            self._stopped = True
            child = self._child
        if child is not None and child.poll() is None:
            with contextlib.suppress(OSError):
                child.kill()


def start(indexes: Sequence, files: ScoreFiles | None, doc_count: int) -> Ahead | None:
    """The child for the runner's shards (Whoosh indexes on disk) and their scores files; None when
    there is nothing to write (an index in memory, or too few papers for any word to be common)."""
    min_papers = scoring.MIN_PAPERS
    if files is None or doc_count < min_papers:
        return None
    folders = [getattr(ix.storage, "folder", None) for ix in indexes]
    if not all(folders):
        return None
    return Ahead([str(folder) for folder in folders], files.folder.name, min_papers)


def _open(folders: Sequence[str]):
    """The shards' indexes and one reader over them, made as the query runner makes its own."""
    from whoosh import index as whoosh_index
    from whoosh.reading import MultiReader

    indexes = [whoosh_index.open_dir(folder) for folder in folders]
    segments = [segment for ix in indexes for segment, _ in ix.reader().leaf_readers()]
    return indexes, segments[0] if len(segments) == 1 else MultiReader(segments)


def main(argv: list[str] | None = None) -> int:
    from search.index.child import die_with_parent

    parser = argparse.ArgumentParser(prog="python -m search.query.ahead")
    parser.add_argument("--parent", type=int, default=None, help="exit when this process does")
    args = parser.parse_args(argv)
    die_with_parent(os.getppid() if args.parent is None else args.parent)
    with contextlib.suppress(OSError, AttributeError):  # (no os.nice on Windows)
        os.nice(AHEAD_NICENESS)
    try:
        request = json.loads(sys.stdin.read())  # from our own parent process
        indexes, reader = _open(request["folders"])
        files = scoring.score_files(indexes, reader)
        if files is None or files.folder.name != request["set"]:
            return 2  # not the shards the app has open (rebuilt meanwhile): their scores would differ
        write_ahead(reader, files, int(request["min_papers"]))
    except Exception:  # noqa: BLE001 - a damaged or vanished index: the words are computed when typed
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
