"""Build index shards in a child process: `python -m search.index.child [--procs N] [--parent PID] < shards`.

The app builds big corpora's shards in parallel child processes, and a build of one big shard in two
processes forks (shard.py), which is unsafe in a process that runs threads (the app).
Stdin carries, pickled by the parent (search/index/children.py), the number of papers of each shard,
then each shard's (IndexLocation, papers) as a pickle of its own: the child indexes exactly the papers
the app loaded without parsing any corpus file again, and starts on its first shard while the parent
is still sending the others (at 100,000 papers, a child's five shards took 2-3 s to send).
Progress goes to stdout as `progress DONE TOTAL` lines; the exit status says whether every shard
was swapped in.

A child dies with its parent (`die_with_parent`): quitting or killing the app must not leave builds
of ~300 MB running for minutes. So must the process a build forks from the child.
"""

from __future__ import annotations

import argparse
import contextlib
import ctypes
import gc
import os
import pickle
import signal
import sys
import threading
import time

from search.index import shard as index_module
from search.text.describe import summarize

BUILD_NICENESS = 10
"""How much lower a build's CPU priority is than the app's: a build is background work, and on a
busy machine the app's first matches and keystrokes must not wait behind it (at 10,744 papers the
time from the first frame to the first matches of a cold start, measured at load 14: 0.71-1.69 s
with builds at the app's priority, 0.31-0.55 s with them at 10)."""
PARENT_POLL_SECONDS = 0.5
"""How often a child checks that its parent is still alive, where the kernel cannot tell it."""
_PR_SET_PDEATHSIG = 1
_watching = False


def die_with_parent(parent: int, use_prctl: bool = True) -> None:
    """Exit when process `parent` exits or is killed, even by SIGKILL: on Linux the kernel sends this
    process SIGKILL then (PR_SET_PDEATHSIG); everywhere a thread polls the parent pid. A parent
    already gone exits at once. Processes forked from this one later (a build in two halves)
    die with this one the same way."""
    global _watching
    if use_prctl:
        _kernel_kills_with_parent()
    if os.getppid() != parent:  # the parent died before the signal was asked for
        os._exit(1)
    threading.Thread(target=_watch_parent, args=(parent,), name="watch-parent", daemon=True).start()
    if not _watching:
        _watching = True
        # The forking process's pid is taken before the fork: read in the new process, getppid() may
        # already be init's, if this process died in between, and init would be watched forever.
        os.register_at_fork(before=_remember_forker, after_in_child=lambda: die_with_parent(_forker, use_prctl))


_forker = 0


def _remember_forker() -> None:
    global _forker
    _forker = os.getpid()


def _kernel_kills_with_parent() -> None:
    if not sys.platform.startswith("linux"):
        return
    try:
        libc = ctypes.CDLL(None, use_errno=True)  # the running process's symbols, libc's among them
        libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    except (OSError, AttributeError):
        pass  # no libc or no prctl: the watching thread is enough


def _watch_parent(parent: int) -> None:
    while os.getppid() == parent:
        time.sleep(PARENT_POLL_SECONDS)
    os._exit(1)  # re-parented: the parent is gone


def lower_priority() -> None:
    """Run this process at BUILD_NICENESS below its parent, where the system allows it."""
    with contextlib.suppress(OSError, AttributeError):  # (no os.nice on Windows)
        os.nice(BUILD_NICENESS)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m search.index.child")
    parser.add_argument("--procs", type=int, default=1, help="processes writing each shard (1 or 2)")
    parser.add_argument("--parent", type=int, default=None, help="exit when this process does")
    args = parser.parse_args(argv)
    die_with_parent(os.getppid() if args.parent is None else args.parent)
    lower_priority()
    sizes = pickle.load(sys.stdin.buffer)  # written by our own parent process: trusted
    total = sum(sizes)
    done_before = 0
    for _ in sizes:
        location, papers = pickle.load(sys.stdin.buffer)
        # The papers live as long as the child: out of the garbage collector's full passes, which
        # would otherwise walk every one of them again and again while the postings grow.
        gc.freeze()

        def progress(done: int, _total: int, before: int = done_before) -> None:
            print(f"progress {before + done} {total}", flush=True)

        index_module.build(location, index_module.Descriptions(papers, summarize), progress, procs=max(1, args.procs))
        done_before += len(papers)
        print(f"done {location.path}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
