"""`iclr-reader add FILE [--name NAME]`, `iclr-reader lists`, `iclr-reader remove NAME`."""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from search import BUNDLED_LIST, Library, LibraryError, SearchEngine, bundled_paths, forget_index, load_corpus, paths

COMMANDS = ("add", "lists", "remove")


def add_parsers(commands) -> None:
    add = commands.add_parser("add", help="copy a paper list into your library and index it")
    add.add_argument("file", help="a list: JSON/JSONL records, OpenReview notes, CSV, BibTeX or a paragraph list")
    add.add_argument("--name", help="the list's name (default: from the file name); `list:NAME` searches it")
    lists = commands.add_parser("lists", help="show the loaded lists with their paper counts")
    lists.add_argument("--json", action="store_true", help="print JSON")
    remove = commands.add_parser("remove", help="remove a list from your library")
    remove.add_argument("name", help="the list's name (see `lists`)")


def run(args: argparse.Namespace, index) -> int:
    """`index(engine)` builds what is missing, with the CLI's progress bar."""
    library = Library()
    if args.command == "add":
        started = time.monotonic()
        added = library.add(Path(args.file), args.name)
        engine = SearchEngine.from_paths()
        index(engine)  # only the new list's shard is missing: nothing else is re-indexed
        extra = "".join(
            f", {count} {what}"
            for count, what in ((added.skipped, "skipped"), (added.duplicates, "duplicates"))
            if count
        )
        print(f"Added {added.name!r}: {added.papers:,} papers{extra}; indexed in {time.monotonic() - started:.1f} s")
        return 0
    if args.command == "remove":
        path = library.remove(args.name)
        forget_index(paths.cache_dir() / "index", str(path))  # its index is of no use any more
        print(f"Removed {args.name!r} ({path.name})")
        return 0
    rows = [_row(BUNDLED_LIST, bundled_paths(), "bundled")]
    rows += [_row(path.parent.name, [path], str(path)) for path in library.files()]
    if args.json:
        json.dump({"lists": rows}, sys.stdout, ensure_ascii=False, indent=2)
        sys.stdout.write("\n")
        return 0
    width = max(len(row["name"]) for row in rows)
    for row in rows:
        count = f"{row['papers']:>7,} papers" if row["error"] is None else f"  unreadable: {row['error']}"
        venues = f"  {', '.join(row['venues'])}" if row["venues"] else ""
        print(f"{row['name']:<{width}}  {count}{venues}  ({row['file']})")
    total = sum(row["papers"] for row in rows)
    print(f"{len(rows)} list{'s' if len(rows) != 1 else ''}, {total:,} papers")
    return 0


def _row(name: str, files: list[Path], where: str) -> dict:
    try:
        corpus = load_corpus(files)
    except Exception as error:  # noqa: BLE001 - a broken list is reported, the others still listed
        return {"name": name, "papers": 0, "venues": [], "file": where, "error": str(error)}
    venues = list(dict.fromkeys(paper.venue for paper in corpus.papers if paper.venue))
    return {"name": name, "papers": len(corpus.papers), "venues": venues[:3], "file": where, "error": None}


__all__ = ["COMMANDS", "LibraryError", "add_parsers", "run"]
