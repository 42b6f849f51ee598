"""The library of paper lists: `add FILE [--name NAME]`, `lists` and `remove NAME`.

These work on the library itself, so `--corpus` does not apply to them."""

from __future__ import annotations

import argparse
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from search import (
    BUNDLED_LIST,
    Library,
    ListOrigin,
    ReaderError,
    SearchEngine,
    bundled_paths,
    forget_index,
    load_corpus,
    paths,
    shown,
)
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


def register(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    add = commands.add_parser("add", help="copy a paper list into your library and index it")
    add.add_argument("file", help="a list: JSON/JSONL records, OpenReview notes, CSV, BibTeX or a paragraph list")
    add.add_argument("--name", help="the list's name (default: from the file name); `list:NAME` searches it")
    add.set_defaults(handler=add_list)
    lists = commands.add_parser("lists", help="show the loaded lists with their paper counts")
    lists.add_argument("--json", action="store_true", help="print JSON")
    lists.set_defaults(handler=show_lists)
    remove = commands.add_parser("remove", help="remove a list from your library")
    remove.add_argument("name", help="the list's name (see `lists`)")
    remove.set_defaults(handler=remove_list)


def add_list(args: argparse.Namespace) -> int:
    added = Library().add(Path(args.file), args.name)
    started = time.monotonic()
    # Only the new list's shard is missing: nothing else is re-indexed. Its time is said below, once.
    ensure_index(SearchEngine.from_paths(), summary=False)
    indexed = f"indexed in {time.monotonic() - started:.1f} s"
    papers = counted(added.papers, "paper") + left_out(added.skipped, added.duplicates)
    print(f"Added '{shown(added.name)}': {papers}; {indexed}")
    return 0


def remove_list(args: argparse.Namespace) -> int:
    path = Library().remove(args.name)
    forget_index(paths.cache_dir() / "index", str(path))  # its index is of no use any more
    print(f"Removed '{shown(args.name)}' ({shown(path.name)})")
    return 0


def show_lists(args: argparse.Namespace) -> int:
    library = Library()
    files = library.files()
    warn_left_out(library.problems())  # the library folder (or a list's) cannot be read: the rest is listed
    # A downloaded iclr2025 holds the bundled papers: the two are one list, shown once.
    summaries = [] if library.find(BUNDLED_LIST) else [_summarize(BUNDLED_LIST, bundled_paths(), "bundled")]
    summaries += [_summarize(path.parent.name, [path], str(path), library.origin(path.parent.name)) for path in files]
    if args.json:
        print_json(lists_json(summaries))
        return 0
    _print_table(summaries, _distinct_papers([*bundled_paths(), *files]) if len(summaries) > 1 else None)
    return 0


def _distinct_papers(files: list[Path]) -> int | None:
    """How many papers the lists hold together: the same paper in two lists is one paper."""
    try:
        return len(load_corpus(files, skip_broken=True).papers)
    except ReaderError:
        return None


def _print_table(summaries: Sequence[ListSummary], distinct: int | None = None) -> None:
    width = max(len(summary.name) for summary in summaries)
    for summary in summaries:
        count = (
            f"{summary.papers:>7,} {_papers_word(summary.papers)}"
            if summary.error is None
            else f"  unreadable: {summary.error}"
        )
        venues = f"  {', '.join(summary.venues)}" if summary.venues else ""
        origin = f"  {_describe_origin(summary.origin)}" if summary.origin else ""
        print(f"{summary.name:<{width}}  {count}{venues}  ({summary.file}){origin}")
    total = distinct if distinct is not None else sum(summary.papers for summary in summaries)
    print(f"{counted(len(summaries), 'list')}, {counted(total, 'paper')}")


def _papers_word(count: int) -> str:
    """ "paper " or "papers", one width, so the venues after the count stay in one column."""
    return "paper " if count == 1 else "papers"


def _describe_origin(origin: ListOrigin) -> str:
    """from paperlists iclr2025, 2025-06-01 12:00 UTC"""
    what = origin.source if origin.kind != "arxiv" else repr(origin.source)
    when = origin.fetched_at.replace("T", " ").removesuffix("Z")[:16] + " UTC"
    return f"from {origin.kind} {what}{' (all submissions)' if origin.all_submissions else ''}, {when}"


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
