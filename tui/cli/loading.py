"""Getting the engine ready for a command: the corpus (warning on stderr about files left out) and the
search index (with a progress bar on stderr while it builds)."""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from dataclasses import replace

from search import IndexStatus, Library, SearchEngine, shown
from tui.cli.wording import counted


def load_engine(
    args: argparse.Namespace,
    skip_broken: bool = False,
    save_later: bool = False,
    meanwhile: Callable[[], None] | None = None,
) -> SearchEngine:
    """The papers of `--corpus` (default: the bundled list plus the library). What was left out (a
    broken list, a library folder that cannot be read) is in `engine.corpus.problems`, so the app
    shows it as a notice, and is a warning on stderr here. `save_later`, `meanwhile`: see
    SearchEngine.from_paths."""
    engine = SearchEngine.from_paths(args.corpus, skip_broken=skip_broken, save_later=save_later, meanwhile=meanwhile)
    if not args.corpus:
        unreadable = Library().problems()
        if unreadable:
            engine.corpus = replace(engine.corpus, problems=(*unreadable, *engine.corpus.problems))
    warn_left_out(engine.corpus.problems)
    return engine


def warn_left_out(problems: tuple[str, ...] | list[str]) -> None:
    for problem in problems:
        print(f"iclr-reader: warning: left out {shown(problem)}", file=sys.stderr)


def ensure_index(engine: SearchEngine, rebuild: bool = False, summary: bool = True) -> IndexStatus:
    """Build whatever index shards are missing or stale, showing progress on stderr. A slow build ends
    with an "Indexed N papers in T s" line unless `summary` is off: `add` and `get` say it in their
    own one line, and two lines with two different times for one build would only puzzle."""
    progress = Progress()
    status = engine.ensure_index(on_progress=progress, rebuild=rebuild)
    progress.finish(status.built, summary)
    if status.notice:
        print(f"iclr-reader: {shown(status.notice)}", file=sys.stderr)
    return status


class Progress:
    """A progress bar on stderr, shown only once a build has taken more than a moment."""

    delay = 0.5
    """Seconds before the bar appears (a quick build shows none)."""

    def __init__(self) -> None:
        self.total = 0
        self.started = time.monotonic()
        self.shown = False

    def __call__(self, done: int, total: int) -> None:
        if time.monotonic() - self.started < self.delay:
            return
        self.shown = True
        self.total = total
        if sys.stderr.isatty():
            width = 30
            filled = int(width * done / max(total, 1))
            bar = "█" * filled + "·" * (width - filled)
            print(f"\rIndexing {bar} {done:,}/{total:,}", end="", file=sys.stderr, flush=True)

    def finish(self, built: bool, summary: bool = True) -> None:
        if not (built and self.shown):
            return
        if not summary:
            if sys.stderr.isatty():
                print("\r\x1b[K", end="", file=sys.stderr, flush=True)  # the bar goes; the caller sums up
            return
        end = "\n" if sys.stderr.isatty() else ""
        seconds = time.monotonic() - self.started
        print(f"{end}Indexed {counted(self.total, 'paper')} in {seconds:.1f} s", file=sys.stderr)
