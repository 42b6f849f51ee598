"""Build a corpus set's index in a child process: `python -m search.build --cache DIR FILE...`.

Whoosh's two-process writer forks, which is unsafe in a process that runs threads (the app), so
big builds run here, in a fresh single-threaded process. Progress goes to stdout as
`progress DONE TOTAL` lines; the exit status says whether the index was swapped in.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from search import index as index_module
from search.corpus import CorpusError, load_corpus
from search.describe import describe


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m search.build")
    parser.add_argument("--cache", type=Path, required=True, help="the index root (<cache dir>/index)")
    parser.add_argument("sources", nargs="+", help="corpus files, as the engine loaded them")
    args = parser.parse_args(argv)
    try:
        corpus = load_corpus(args.sources)
    except CorpusError as error:
        print(f"error {error}", flush=True)
        return 2
    location = index_module.locate(args.cache, corpus.sources, corpus.papers)
    descriptions = index_module.Descriptions(corpus.papers, describe)

    def progress(done: int, total: int) -> None:
        print(f"progress {done} {total}", flush=True)

    index_module.build(location, descriptions, progress, procs=2)
    print(f"done {location.path}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
