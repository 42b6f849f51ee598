"""The library of paper lists: `add FILE... [--name NAME]`, `lists [--verbose]` and `remove NAME`.

These work on the library itself, so `--corpus` does not apply to them."""

from __future__ import annotations

import argparse
import sys
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from search import (
    BUNDLED_LIST,
    AddedList,
    Library,
    ListOrigin,
    ReaderError,
    SearchEngine,
    bundled_paths,
    forget_index,
    list_name,
    load_corpus,
    paths,
    shown,
)
from tui.cli.errors import EXIT_USAGE, CliError
from tui.cli.loading import ensure_index, warn_left_out
from tui.cli.output import lists_json, print_json
from tui.cli.wording import counted, left_out


@dataclass(frozen=True, slots=True)
class ListSummary:
    """One row of `lists`: a list's paper count and first venues, or why it cannot be read, and where
    it was downloaded from (None for the bundled list and lists added from a file)."""

    name: str
    papers: int
    venues: tuple[str, ...]
    file: str
    error: str | None
    origin: ListOrigin | None = None
    opened: bool = False
    """Opened with --corpus (not part of the library)."""


def register(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    add = commands.add_parser("add", help="copy paper lists into your library and index them")
    add.add_argument(
        "files",
        nargs="+",
        metavar="FILE",
        help="a list: JSON/JSONL records, OpenReview notes, CSV, BibTeX or a paragraph list (several: one line each)",
    )
    add.add_argument(
        "--name", help="the list's name, with one FILE (default: from the file name); `list:NAME` searches it"
    )
    add.set_defaults(handler=add_list)
    lists = commands.add_parser("lists", help="show the loaded lists with their paper counts")
    lists.add_argument("--json", action="store_true", help="print JSON")
    lists.add_argument(
        "--verbose", "-v", action="store_true", help="also where each list came from in full and its file"
    )
    lists.set_defaults(handler=show_lists)
    remove = commands.add_parser("remove", help="remove a list from your library")
    remove.add_argument("name", help="the list's name (see `lists`)")
    remove.set_defaults(handler=remove_list)


def add_list(args: argparse.Namespace) -> int:
    files: list[str] = args.files
    if args.name and len(files) > 1:
        raise CliError("--name names one list: add the files one at a time to name them")
    if len(files) == 1:
        added = Library().add(Path(files[0]), args.name)
        print(f"Added '{shown(added.name)}': {_added_papers(added)}; {_index()}")
        return 0
    # Several files: each is added (or refused, on one line naming it) and summed up on its own line;
    # the index is brought up to date once, for them all, and the total says so.
    library, added_lists, failed = Library(), [], 0
    for file in files:
        try:
            added = library.add(Path(file))
        except ReaderError as error:
            message = shown(error)
            named = shown(file) in message or Path(file).name in message
            print(
                f"iclr-reader: error: {message if named else f'could not add {shown(file)}: {message}'}",
                file=sys.stderr,
            )
            failed += 1
            continue
        added_lists.append(added)
        print(f"Added '{shown(added.name)}': {_added_papers(added)}")
    total = counted(sum(added.papers for added in added_lists), "paper")
    lists = f"{len(added_lists):,} of {counted(len(files), 'list')}" if failed else counted(len(files), "list")
    indexed = f"; {_index()}" if added_lists else ""
    print(f"Added {lists}: {total}{indexed}")
    return EXIT_USAGE if failed else 0


def _added_papers(added: AddedList) -> str:
    return counted(added.papers, "paper") + left_out(added.skipped, added.duplicates)


def _index() -> str:
    started = time.monotonic()
    # Only the new lists' shards are missing: nothing else is re-indexed. Its time is said once, by the caller.
    # What the load saves for the next start (each new list's parse, the merged corpus: at 100,000
    # papers 3 s of CPU) is written while the child processes build the shards, as the app does,
    # rather than on one CPU before they start.
    engine = SearchEngine.from_paths(save_later=True)
    saving = threading.Thread(target=engine.save_for_next_start, name="save-for-next-start")
    saving.start()
    try:
        ensure_index(engine, summary=False)
    finally:
        saving.join()
    return f"indexed in {time.monotonic() - started:.1f} s"


def remove_list(args: argparse.Namespace) -> int:
    path = Library().remove(args.name)
    forget_index(paths.cache_dir() / "index", str(path))  # its index is of no use any more
    print(f"Removed '{shown(args.name)}' ({shown(path.name)})")
    return 0


def show_lists(args: argparse.Namespace) -> int:
    """The lists the app would load: the bundled list and the library's, or the files given with
    --corpus (as the app's Library shows them)."""
    library = Library()
    if args.corpus:
        files = [Path(path) for path in args.corpus]
        summaries = [_opened(library, path) for path in files]
    else:
        files = library.files()
        warn_left_out(library.problems())  # the library folder (or a list's) cannot be read: the rest is listed
        # A downloaded iclr2025 holds the bundled papers: the two are one list, shown once.
        summaries = [] if library.find(BUNDLED_LIST) else [_summarize(BUNDLED_LIST, bundled_paths(), "bundled")]
        summaries += [
            _summarize(path.parent.name, [path], str(path), library.origin(path.parent.name)) for path in files
        ]
        files = [*bundled_paths(), *files]
    if args.json:
        print_json(lists_json(summaries))
        return 0
    _print_table(summaries, _distinct_papers(files) if len(summaries) > 1 else None, args.verbose)
    return 0


def _opened(library: Library, path: Path) -> ListSummary:
    """A file given with --corpus: a library list or the bundled one as such, else opened."""
    name = list_name(str(path))
    if name == BUNDLED_LIST and path.resolve() in [bundled.resolve() for bundled in bundled_paths()]:
        return _summarize(name, [path], "bundled")
    found = library.find(name)
    if found is not None and found.resolve() == path.resolve():
        return _summarize(name, [path], str(path), library.origin(name))
    return replace(_summarize(name, [path], str(path)), opened=True)


def _distinct_papers(files: list[Path]) -> int | None:
    """How many papers the lists hold together: the same paper in two lists is one paper."""
    try:
        return len(load_corpus(files, skip_broken=True).papers)
    except ReaderError:
        return None


LINE_WIDTH = 80
"""`lists` fits a standard terminal: the venues are cut to what is left of it (`--verbose` is wider)."""


def _print_table(summaries: Sequence[ListSummary], distinct: int | None = None, verbose: bool = False) -> None:
    width = max(len(summary.name) for summary in summaries)
    sources = [_short_origin(summary) for summary in summaries]
    source_width = max(len(source) for source in sources)
    room = max(LINE_WIDTH - width - len("  1,234,567 papers  ") - source_width - 2, 12)
    venues_width = min(max(len(", ".join(summary.venues)) for summary in summaries), room)
    for summary, source in zip(summaries, sources, strict=True):
        if summary.error is not None:
            row = f"{summary.name:<{width}}    unreadable: {summary.error}"
            print(f"{row}  ({summary.file})" if verbose else row)
            continue
        count = f"{summary.papers:>7,} {_papers_word(summary.papers)}"
        venues = ", ".join(summary.venues)
        if verbose:
            origin = _describe_origin(summary.origin) if summary.origin else ""
            parts = (f"{summary.name:<{width}}", count, venues, origin, f"({summary.file})")
            print("  ".join(part for part in parts if part))
            continue
        print(f"{summary.name:<{width}}  {count}  {_cut(venues, venues_width):<{venues_width}}  {source}")
    total = distinct if distinct is not None else sum(summary.papers for summary in summaries)
    print(f"{counted(len(summaries), 'list')}, {counted(total, 'paper')}")


def _cut(text: str, width: int) -> str:
    return text if len(text) <= width else text[: width - 1].rstrip(", ") + "…"


def _short_origin(summary: ListSummary) -> str:
    """bundled, file, or the source and the day it was downloaded: paperlists 2025-06-01"""
    if summary.origin is None:
        return "bundled" if summary.file == "bundled" else "--corpus" if summary.opened else "file"
    return f"{summary.origin.kind} {summary.origin.fetched_at[:10]}"


def _papers_word(count: int) -> str:
    """ "paper " or "papers", one width, so the venues after the count stay in one column."""
    return "paper " if count == 1 else "papers"


def _describe_origin(origin: ListOrigin) -> str:
    """from paperlists iclr2025, 2025-06-01 12:00 UTC; from openreview VENUE (all submissions, reviews), ..."""
    what = origin.source if origin.kind != "arxiv" else repr(origin.source)
    when = origin.fetched_at.replace("T", " ").removesuffix("Z")[:16] + " UTC"
    asked = [said for said, was in (("all submissions", origin.all_submissions), ("reviews", origin.reviews)) if was]
    options = f" ({', '.join(asked)})" if asked else ""
    return f"from {origin.kind} {what}{options}, {when}"


def _summarize(name: str, files: list[Path], where: str, origin: ListOrigin | None = None) -> ListSummary:
    """A list's row; its name and file are shown as `shown` prints them (a name with control
    characters, from an older version, is listed safely and `remove` takes it as listed)."""
    name, where = shown(name), shown(where)
    try:
        corpus = load_corpus(files)
    except Exception as error:  # noqa: BLE001 - a broken list is reported, the others still listed
        return ListSummary(name, 0, (), where, shown(str(error)), origin)
    venues = tuple(dict.fromkeys(paper.venue for paper in corpus.papers if paper.venue))
    return ListSummary(name, len(corpus.papers), venues[:3], where, None, origin)
