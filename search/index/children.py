"""Building index shards in child processes, from the app's side (child.py is the child).

Whoosh's writer is pure Python, so a big corpus is indexed by fresh processes, one per CPU (up to
two), each given about the same amount of text; the parent relays their progress as one bar."""

from __future__ import annotations

import os
import pickle
import subprocess
import sys
import threading
from concurrent.futures import ThreadPoolExecutor

from search.index import shard as index_module

WORKERS = max(1, min(2, os.cpu_count() or 1))


def build_shards(missing, progress: Progress, cancel) -> dict:
    """Build shards in fresh child processes (see child.py), one per CPU (up to two),
    each given about the same amount of text. Returns the shards that were built; the caller
    builds any others itself."""
    loads = _split(missing, min(WORKERS, len(missing)))
    procs = max(1, WORKERS // len(loads))  # a single child: it builds in two halves
    stop = cancel or threading.Event()

    def build_load(number: int, load) -> bool:
        return run_child(child_command(procs), load, progress.shard(number), stop)

    with ThreadPoolExecutor(max_workers=len(loads)) as pool:
        futures = [pool.submit(build_load, number, load) for number, load in enumerate(loads)]
        try:
            for future in futures:
                future.result()
        except BaseException:
            stop.set()
            raise
    if stop.is_set():
        raise index_module.IndexCancelled
    built = {location: index_module.open_existing(location) for location, _ in missing}
    return {location: shard for location, shard in built.items() if shard is not None}


def _work(shard) -> int:
    """How long a shard takes to index (see shard.work)."""
    return sum(map(index_module.work, shard[1]))


def _split(shards: list, count: int) -> list[list]:
    """Shards dealt out to `count` children so that the slowest finishes as early as possible:
    largest first to the least loaded, then (for two) the swaps that narrow the gap the most."""
    loads: list[list] = [[] for _ in range(count)]
    totals = [0] * count
    for work, shard in sorted(((_work(shard), shard) for shard in shards), key=lambda pair: -pair[0]):
        least = totals.index(min(totals))
        loads[least].append((work, shard))
        totals[least] += work
    while count == 2:
        heavy, light = (0, 1) if totals[0] >= totals[1] else (1, 0)
        gap = totals[heavy] - totals[light]
        moves = [
            (abs(gap - 2 * (out[0] - back[0])), out, back)
            for out in loads[heavy]
            for back in [(0, None), *loads[light]]
        ]
        narrowed, out, back = min(moves, key=lambda move: move[0])
        if narrowed >= gap:
            break
        loads[heavy].remove(out)
        loads[light].append(out)
        if back[1] is not None:
            loads[light].remove(back)
            loads[heavy].append(back)
        totals[heavy] -= out[0] - back[0]
        totals[light] += out[0] - back[0]
    return [[shard for _, shard in load] for load in loads]


class Progress:
    """Adds up the progress of shards built at the same time into one (done, total) report."""

    def __init__(self, total: int, report) -> None:
        self._total = total
        self._report = report
        self._done: dict[object, int] = {}
        self._lock = threading.Lock()

    def shard(self, key):
        def on_progress(done: int, _total: int) -> None:
            if self._report is None:
                return
            with self._lock:
                self._done[key] = done
                self._report(sum(self._done.values()), self._total)

        return on_progress


def child_command(procs: int = 1) -> list[str]:
    """The command line of a child build that dies with this process (see child.py)."""
    return [sys.executable, "-m", "search.index.child", "--procs", str(procs), "--parent", str(os.getpid())]


STOP_POLL_SECONDS = 0.1
"""How soon a child is killed once its build is cancelled (quitting, a new list)."""


def run_child(command: list[str], shards: list, on_progress, stop: threading.Event) -> bool:
    """Run one child build on these shards, relaying its `progress DONE TOTAL` lines; False if it
    failed or was stopped. The child starts first, so its imports overlap with pickling its papers.
    Setting `stop` kills the child at once, even while it prints nothing; the child is always
    reaped before this returns. (On Linux the child dies with the thread that started it: this
    one, which waits for it.)"""
    child = subprocess.Popen(
        command, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, stdin=subprocess.PIPE, text=True
    )
    assert child.stdout is not None  # both pipes were asked for
    try:
        threading.Thread(target=_send, args=(child.stdin, shards), daemon=True).start()
        threading.Thread(target=_kill_on_stop, args=(child, stop), daemon=True).start()
        for line in child.stdout:
            if stop.is_set():
                return False
            parts = line.split()
            if len(parts) == 3 and parts[0] == "progress":
                on_progress(int(parts[1]), int(parts[2]))
        child.wait()
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()
        child.stdout.close()
    return child.returncode == 0


def _kill_on_stop(child: subprocess.Popen, stop: threading.Event) -> None:
    """Kill the child as soon as `stop` is set (its output ends then, which ends the relaying loop)."""
    while child.poll() is None:
        if stop.wait(STOP_POLL_SECONDS):
            if child.poll() is None:
                child.kill()
            return


def _send(pipe, shards: list) -> None:
    """Write the child's input from a thread, so a child that dies early cannot block the parent: the
    number of papers of each shard, then each shard as a pickle of its own, which the child reads
    when it starts that shard (see child.py)."""
    try:
        pickle.dump([len(papers) for _, papers in shards], pipe.buffer)
        for shard in shards:
            pickle.dump(shard, pipe.buffer)
            pipe.buffer.flush()  # the child may start on it now
        pipe.close()
    except (BrokenPipeError, OSError, ValueError):
        pass
