"""`bookmarks`: list them, and the `export`, `import`, `add`, `remove`, `removed` and `restore` actions.

Everything printed here comes from the user's files (a bookmark's title, note and tags, an import
file's name), so it goes out through `clean_bookmark` and `shown`: no escape sequence, control or
bidi character in a bookmark reaches the terminal, however it got into the database.
"""

from __future__ import annotations

import argparse
import shlex
import sys
from pathlib import Path

from search import (
    FORMATS,
    Bookmark,
    ReaderError,
    SearchEngine,
    SearchRequest,
    UserStore,
    bookmark_of,
    clean_bookmark,
    display_label,
    export,
    read_bookmark_file,
    write_atomic,
)
from tui.cli.errors import CliError, has_undecodable, shown
from tui.cli.loading import ensure_index, load_engine
from tui.cli.output import print_bookmarks_json, print_json, removed_json, restored_json
from tui.cli.wording import counted, id_width


def register(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    bookmarks = commands.add_parser("bookmarks", help="list, export, import, add, remove or restore bookmarks")
    bookmarks.add_argument("--json", action="store_true", help="print JSON")
    bookmarks.set_defaults(handler=list_bookmarks)
    actions = bookmarks.add_subparsers(dest="action", metavar="ACTION")
    exporting = actions.add_parser(
        "export", help="write bookmarks (or a query's papers) as BibTeX, Markdown, CSV, JSON or RIS"
    )
    exporting.add_argument("--format", required=True, choices=FORMATS, help="output format")
    exporting.add_argument(
        "--query",
        metavar="QUERY",
        help='export every paper the query finds instead of the bookmarks (--query "rating:>=7 list:corl2024")',
    )
    exporting.add_argument(
        "-o",
        "--output",
        metavar="FILE",
        help="write to FILE (atomically; a symlink's target is replaced, the link kept) instead of stdout",
    )
    exporting.set_defaults(handler=export_bookmarks)
    importing = actions.add_parser("import", help="merge bookmarks from a JSON export (no duplicates)")
    importing.add_argument("file", help="a file written by `bookmarks export --format json`")
    importing.set_defaults(handler=import_bookmarks)
    add = actions.add_parser("add", help="bookmark a paper of the loaded corpus")
    add.add_argument("id", help="paper id")
    add.set_defaults(handler=add_bookmark)
    remove = actions.add_parser("remove", help="remove a bookmark (`restore` brings it back)")
    remove.add_argument("id", help="paper id")
    remove.set_defaults(handler=remove_bookmark)
    removed = actions.add_parser("removed", help="list removed bookmarks, newest first")
    # SUPPRESS: without --json here, `bookmarks --json removed` keeps the group's --json.
    removed.add_argument("--json", action="store_true", default=argparse.SUPPRESS, help="print JSON")
    removed.set_defaults(handler=list_removed)
    restore = actions.add_parser("restore", help="bring back a removed bookmark with its note and tags")
    restore.add_argument("id", nargs="?", help="paper id (default: the one removed last)")
    restore.add_argument("--json", action="store_true", default=argparse.SUPPRESS, help="print JSON")
    restore.set_defaults(handler=restore_bookmark)


def _open_store() -> UserStore:
    store = UserStore()
    if store.notice:
        print(f"iclr-reader: {shown(store.notice)}", file=sys.stderr)
    return store


def _extras(bookmark: Bookmark) -> str:
    """ "note and 3 tags", "note", "1 tag" or ""."""
    parts = (["note"] if bookmark.note else []) + ([counted(len(bookmark.tags), "tag")] if bookmark.tags else [])
    return " and ".join(parts)


def _usable_id(paper_id: str) -> bool:
    """Whether an id typed on the command line can name a bookmark at all: one with bytes that are
    not UTF-8, or with control characters, can never have been stored."""
    return bool(paper_id) and not has_undecodable(paper_id) and shown(paper_id) == paper_id


def _engine_if_loadable(args: argparse.Namespace) -> SearchEngine | None:
    """The loaded lists, for the papers' own facts in `bookmarks --json`; None when they cannot be
    loaded (the bookmarks are still listed, from the store)."""
    try:
        return load_engine(args)
    except (ReaderError, CliError):
        return None


def list_bookmarks(args: argparse.Namespace) -> int:
    bookmarks = [clean_bookmark(bookmark) for bookmark in _open_store().bookmarks()]
    if args.json:
        print_bookmarks_json(bookmarks, _engine_if_loadable(args))
        return 0
    if not bookmarks:
        print("No bookmarks yet. In the app, press b on a paper; or: iclr-reader bookmarks add ID")
    width = id_width(bookmark.paper_id for bookmark in bookmarks)
    for bookmark in bookmarks:
        tags = "  " + " ".join(f"#{tag}" for tag in bookmark.tags) if bookmark.tags else ""
        print(f"{bookmark.paper_id:<{width}}  {bookmark.headline}{tags}")
        if bookmark.note:
            print(f"    note: {' '.join(bookmark.note.split())}")
    return 0


def export_bookmarks(args: argparse.Namespace) -> int:
    engine: SearchEngine | None
    if args.query is not None:
        engine = load_engine(args)
        ensure_index(engine)
        result = engine.search(SearchRequest(args.query, limit=len(engine.papers) or 1, budget=None))
        if result.notice:
            print(f"iclr-reader: note: {shown(result.notice)}", file=sys.stderr)
        bookmarks = [bookmark_of(engine.describe(hit.paper_id)) for hit in result.hits]
        what = "paper"
    else:
        bookmarks = _open_store().bookmarks()
        engine = _engine_if_loadable(args)  # the lists' own facts (the venue's BibTeX entry, ratings, ...)
        what = "bookmark"
    papers = {b.paper_id: engine.paper(b.paper_id) for b in bookmarks if engine and b.paper_id in engine.by_id}
    text = export(bookmarks, args.format, papers)  # cleaned: no escape sequences, no lone surrogates
    if not args.output:
        sys.stdout.write(text)
        return 0
    written = write_atomic(Path(args.output), text)  # one-line ReaderError for a target it refuses
    through = f" (through the link {shown(args.output)})" if written != Path(args.output) else ""
    print(f"Wrote {counted(len(bookmarks), what)} to {shown(written)}{through}", file=sys.stderr)
    return 0


def import_bookmarks(args: argparse.Namespace) -> int:
    imported = read_bookmark_file(args.file)  # one-line ReaderError for a file it cannot use
    added, merged = _open_store().merge(imported.bookmarks)
    skipped = ""
    if imported.skipped:
        skipped = f"; skipped {counted(imported.skipped, 'bad record')} (first: {shown(imported.first_problem)})"
    print(f"Imported {counted(added, 'new bookmark')}; {merged:,} already present (merged){skipped}")
    return 0


def add_bookmark(args: argparse.Namespace) -> int:
    # An unknown id is reported before the data dir is touched.
    engine = load_engine(args)
    bookmark = bookmark_of(engine.describe(engine.paper(args.id).id))
    store = _open_store()
    already = store.get(bookmark.paper_id) is not None
    store.add(bookmark)  # also when already bookmarked: its copy of the paper is refreshed, its note kept
    shown_bookmark = clean_bookmark(bookmark)
    said = "Already bookmarked" if already else "Bookmarked"
    print(f"{said} {shown_bookmark.paper_id}: {shown_bookmark.headline}")
    return 0


def remove_bookmark(args: argparse.Namespace) -> int:
    store = _open_store()
    if not _usable_id(args.id) or not store.remove(args.id):
        raise CliError(f"'{shown(args.id)}' is not bookmarked")
    print(f"Removed bookmark {args.id}; `iclr-reader bookmarks restore {shlex.quote(args.id)}` brings it back")
    return 0


def list_removed(args: argparse.Namespace) -> int:
    removed = [clean_bookmark(bookmark) for bookmark in _open_store().removed()]
    if args.json:
        print_json(removed_json(removed))
        return 0
    if not removed:
        print("No removed bookmarks. (Removed ones are listed here, newest first, until restored.)")
    width = id_width(bookmark.paper_id for bookmark in removed)
    for bookmark in removed:
        extras = _extras(bookmark)
        print(f"{bookmark.paper_id:<{width}}  {display_label(bookmark)}" + (f"  ({extras})" if extras else ""))
    return 0


def restore_bookmark(args: argparse.Namespace) -> int:
    store = _open_store()
    if args.id is not None and not _usable_id(args.id):
        raise CliError(f"'{shown(args.id)}' is not among the removed bookmarks (see `iclr-reader bookmarks removed`)")
    restored = store.restore(args.id)
    if restored is None:
        if args.id is None:
            raise CliError("nothing to restore: no bookmark has been removed")
        raise CliError(f"'{shown(args.id)}' is not among the removed bookmarks (see `iclr-reader bookmarks removed`)")
    bookmark = clean_bookmark(restored)
    if args.json:
        print_json(restored_json(bookmark))
        return 0
    extras = _extras(bookmark)
    print(f"Restored bookmark: {display_label(bookmark)}" + (f" ({extras})" if extras else ""))
    return 0
