"""Build corpus files' indexes in a child process:
`python -m search.build --cache DIR --shard FILE [--shard FILE ...] [--procs N] FILE...`.

The app builds big corpora's shards in parallel child processes, and Whoosh's two-process writer
(for one big shard) forks, which is unsafe in a process that runs threads (the app).
All the corpus files are loaded, so duplicates are dropped exactly as the app drops them. Progress goes to stdout as
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
    parser.add_argument("--shard", action="append", required=True, help="a corpus file whose papers to index")
    parser.add_argument("--procs", type=int, default=1, help="processes for Whoosh's writer")
    parser.add_argument("sources", nargs="+", help="corpus files, as the engine loaded them")
    args = parser.parse_args(argv)
    try:
        corpus = load_corpus(args.sources)
    except CorpusError as error:
        print(f"error {error}", flush=True)
        return 2
    done_before = 0
    for shard in args.shard:
        papers = [paper for paper in corpus.papers if paper.source == shard]
        location = index_module.locate(args.cache, shard, papers)

        def progress(done: int, total: int, before: int = done_before) -> None:
            print(f"progress {before + done} {total}", flush=True)

        index_module.build(location, index_module.Descriptions(papers, describe), progress, procs=max(1, args.procs))
        done_before += len(papers)
        print(f"done {location.path}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
