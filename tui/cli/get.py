"""Downloading lists into the library: `get NAME...` (paperlists by default, `openreview:VENUE_ID`,
`arxiv:QUERY`), `get --available` and `get --update [NAME...]`.

Each list is downloaded, checked, moved into the library and indexed like `add` does, then summed up
in one line; a failure is one line on stderr naming the list (`could not get NAME: ...` unless the
message names it already) and the next list is still tried (exit 2 at the end). ctrl+c (exit 130),
SIGTERM (143) and SIGHUP (129) stop it at once and leave the library as it was: the two signals are
turned into an interruption like ctrl+c's while `get` runs, so the same clean-up runs."""

from __future__ import annotations

import argparse
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from types import FrameType

from search import (
    ARXIV_DEFAULT_MAX,
    GotList,
    ReaderError,
    SearchEngine,
    available_lists,
    downloaded_lists,
    get_list,
    in_catalogue,
    parse_request,
    update_list,
    without_abstracts,
)
from tui.cli.errors import EXIT_USAGE, CliError, shown
from tui.cli.loading import ensure_index
from tui.cli.output import available_json, print_json
from tui.cli.wording import counted, left_out


def register(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    get = commands.add_parser(
        "get",
        help="download paper lists into your library (paperlists, OpenReview, arXiv)",
        description="Download paper lists into your library, index them, and search them offline from then on.",
    )
    get.add_argument(
        "sources",
        nargs="*",
        metavar="NAME",
        help="a paperlists name (iclr2025, nips2024, icml2024; see --available), openreview:VENUE_ID "
        "(openreview:ICLR.cc/2025/Conference) or arxiv:QUERY (arxiv:'cat:cs.LG AND ti:diffusion'); "
        "with --update, the lists to refresh (default: every downloaded list)",
    )
    get.add_argument("--name", help="the list's name (default: iclr2025, iclr2025-openreview, arxiv-<query>, ...)")
    get.add_argument(
        "--all",
        action="store_true",
        dest="all_submissions",
        help="OpenReview: every submission (rejected and withdrawn too), not only accepted papers",
    )
    get.add_argument(
        "--reviews",
        action="store_true",
        help="OpenReview: also fetch each paper's reviews, meta-review and decision (one request per paper, "
        "paced; a stopped run resumes where it stopped): fills ratings, confidences and decisions, and R in "
        "the reader shows the reviews",
    )
    get.add_argument(
        "--max",
        type=int,
        dest="max_results",
        metavar="N",
        help=f"arXiv: at most N results, newest first (default {ARXIV_DEFAULT_MAX:,})",
    )
    get.add_argument("--available", action="store_true", help="show the conferences and years paperlists has")
    get.add_argument("--update", action="store_true", help="download lists again if they changed on the server")
    get.add_argument("--json", action="store_true", help="print JSON (with --available)")
    get.set_defaults(handler=get_lists)


class Terminated(KeyboardInterrupt):
    """SIGTERM or SIGHUP while `get` runs: unwinds like ctrl+c (every clean-up runs), exits 128 + signal."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum


def get_lists(args: argparse.Namespace) -> int:
    if args.available:
        return show_available(args)
    if args.json:
        raise CliError("--json goes with --available (`get` prints one line per list)")
    try:
        with _terminate_like_ctrl_c():
            return update_lists(args) if args.update else _get_lists(args)
    except Terminated as stopped:
        return 128 + stopped.signum


@contextmanager
def _terminate_like_ctrl_c() -> Iterator[None]:
    """SIGTERM and SIGHUP raise Terminated (a KeyboardInterrupt) while the block runs, so a download
    stopped by `kill` or a closed terminal removes its staging folder as ctrl+c does (their default
    ends the process where it stands, leaving `lists/.get-*` behind for a day)."""
    if threading.current_thread() is not threading.main_thread():  # only the main thread may set handlers
        yield
        return

    def stop(signum: int, frame: FrameType | None) -> None:
        raise Terminated(signum)

    previous = {number: signal.signal(number, stop) for number in (signal.SIGTERM, signal.SIGHUP)}
    try:
        yield
    finally:
        for number, handler in previous.items():
            signal.signal(number, handler)


def _failed(spec: str, error: ReaderError, verb: str = "get", name: str | None = None) -> str:
    """The error line for one list, naming it (`could not get NAME: ...`) unless the message does already,
    quoted as a name ('kdd2024'): a URL or file name with it inside does not tell which list of a batch failed."""
    message = shown(error)
    named = any(f"'{said.lower()}'" in message.lower() for said in (spec, name) if said)
    return (
        f"iclr-reader: error: {message}" if named else f"iclr-reader: error: could not {verb} {shown(spec)}: {message}"
    )


def _get_lists(args: argparse.Namespace) -> int:
    if not args.sources:
        raise CliError("say which lists to get, e.g. `iclr-reader get iclr2025` (`get --available` lists them)")
    if args.name and len(args.sources) > 1:
        raise CliError("--name names one list: get the lists one at a time to name them")
    requests = [
        parse_request(spec, args.name, args.all_submissions, args.max_results, args.reviews) for spec in args.sources
    ]
    failed = 0
    for request in requests:
        if request.kind == "paperlists" and not in_catalogue(request.target):
            print(
                f"iclr-reader: {request.target} is not in the catalogue (`get --available`); trying it", file=sys.stderr
            )
        elif request.kind == "paperlists" and without_abstracts(request.target):
            print(
                f"iclr-reader: {request.target} had no abstracts when the catalogue was made "
                "(nothing in it can be searched); trying it in case it has them now",
                file=sys.stderr,
            )
        try:
            with _progress(request.name) as progress:
                got = get_list(request, on_progress=progress)
            indexed = _index()
        except ReaderError as error:
            print(_failed(request.spec, error, name=request.name), file=sys.stderr)
            failed += 1
            continue
        print(f"Got {got.name!r}: {_summary(got)}; {indexed}")
    return EXIT_USAGE if failed else 0


def update_lists(args: argparse.Namespace) -> int:
    if args.name or args.all_submissions or args.reviews or args.max_results is not None:
        raise CliError("--update takes only list names (each list is fetched as it was first asked for)")
    names = args.sources or downloaded_lists()
    if not names:
        print("No downloaded lists to update (`iclr-reader get NAME` downloads one)")
        return 0
    failed = 0
    for name in names:
        try:
            with _progress(name) as progress:
                got = update_list(name, on_progress=progress)
            if not got.changed:
                print(f"{got.name}: unchanged (checked {got.host})")
                continue
            indexed = _index()
        except ReaderError as error:
            print(_failed(name, error, "update"), file=sys.stderr)
            failed += 1
            continue
        print(f"{got.name}: updated, {_summary(got)}; {indexed}")
    return EXIT_USAGE if failed else 0


def show_available(args: argparse.Namespace) -> int:
    conferences = available_lists()
    if args.json:
        print_json(available_json(conferences))
        return 0
    print("paperlists (Paper Copilot): `iclr-reader get CONFYEAR`, e.g. `get iclr2025`, `get nips2024 icml2024`")
    width = max(len(conference.name) for conference in conferences)
    label_width = max(len(conference.label) for conference in conferences)
    for conference in conferences:
        if conference.searchable:
            print(f"  {conference.name:<{width}}  {conference.label:<{label_width}}  {conference.searchable}")
    print("Left out, no abstracts (nothing to search):")
    for conference in conferences:
        if conference.without_abstracts:
            print(f"  {conference.name:<{width}}  {conference.label:<{label_width}}  {conference.unsearchable}")
    print("A name outside this catalogue is still tried (new years appear over time).")
    print("Also: openreview:VENUE_ID (openreview:ICLR.cc/2025/Conference) and arxiv:QUERY (arxiv:'cat:cs.LG').")
    return 0


def _index() -> str:
    started = time.monotonic()
    # Only the new list's shard is missing: nothing else is re-indexed. Its time is said once, by the caller.
    ensure_index(SearchEngine.from_paths(), summary=False)
    return f"indexed in {time.monotonic() - started:.1f} s"


def _summary(got: GotList) -> str:
    """1,008 papers from raw.githubusercontent.com (3.7 MB in 0.5 s); 1 record without an abstract skipped"""
    reviewed = "" if got.reviewed is None else f", {got.reviewed:,} with reviews"
    return (
        f"{counted(got.papers, 'paper')}{reviewed} from {got.host} ({_size(got)})"
        f"{left_out(got.skipped, got.duplicates)}"
    )


def _bytes(size: int) -> str:
    return f"{size / 1e6:.1f} MB" if size >= 100_000 else f"{size / 1e3:.1f} kB"


def _size(got: GotList) -> str:
    size = _bytes(got.size)
    pages = f", {counted(got.requests, 'request')}" if got.requests > 1 else ""
    return f"{size}{pages} in {got.seconds:.1f} s"


@contextmanager
def _progress(name: str) -> Iterator[Callable[[int, int | None, str], None] | None]:
    """A progress bar on stderr while the list downloads, only when stderr is a terminal."""
    if not sys.stderr.isatty():
        yield None
        return
    bar = _DownloadBar(name)
    try:
        yield bar
    finally:
        bar.clear()


class _DownloadBar:
    delay = 0.3
    """Seconds before the bar appears (a quick download shows none)."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.started = time.monotonic()
        self.last = 0.0
        self.shown = False

    def __call__(self, done: int, total: int | None, unit: str) -> None:
        now = time.monotonic()
        if now - self.started < self.delay or (now - self.last < 0.1 and done != total):
            return
        self.last = now
        self.shown = True
        if unit == "bytes":
            amount = f"{_bytes(done)}/{_bytes(total)}" if total else _bytes(done)
        elif unit == "forums":
            amount = f"reviews of {done:,}/{total:,} papers" if total else f"reviews of {counted(done, 'paper')}"
        else:
            amount = f"{done:,}/{total:,} papers" if total else counted(done, "paper")
        width = 30
        filled = int(width * done / total) if total else 0
        bar = "█" * min(filled, width) + "·" * (width - min(filled, width))
        print(f"\rGetting {self.name} {bar} {amount}\x1b[K", end="", file=sys.stderr, flush=True)

    def clear(self) -> None:
        if self.shown:
            print("\r\x1b[K", end="", file=sys.stderr, flush=True)
