"""Build index shards in a child process: `python -m search.index.child [--procs N] < shards`.

The app builds big corpora's shards in parallel child processes, and Whoosh's two-process writer
(for one big shard) forks, which is unsafe in a process that runs threads (the app).
Stdin carries the pickled [(IndexLocation, papers), ...] from the parent (search/index/children.py), so
the child indexes exactly the papers the app loaded without parsing any corpus file again.
Progress goes to stdout as `progress DONE TOTAL` lines; the exit status says whether every shard
was swapped in.
"""

from __future__ import annotations

import argparse
import pickle
import sys

from search.index import shard as index_module
from search.text.describe import describe


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m search.index.child")
    parser.add_argument("--procs", type=int, default=1, help="processes for Whoosh's writer")
    args = parser.parse_args(argv)
    shards = pickle.load(sys.stdin.buffer)  # written by our own parent process: trusted
    total = sum(len(papers) for _, papers in shards)
    done_before = 0
    for location, papers in shards:

        def progress(done: int, _total: int, before: int = done_before) -> None:
            print(f"progress {before + done} {total}", flush=True)

        index_module.build(location, index_module.Descriptions(papers, describe), progress, procs=max(1, args.procs))
        done_before += len(papers)
        print(f"done {location.path}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
