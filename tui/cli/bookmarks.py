"""`bookmarks`: list them, and the `export`, `import`, `add` and `remove` actions."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from search import FORMATS, UserStore, bookmark_of, export, parse_json_export, write_atomic
from tui.cli.errors import CliError
from tui.cli.loading import load_engine
from tui.cli.output import print_bookmarks_json


def register(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    bookmarks = commands.add_parser("bookmarks", help="list, export, import, add or remove bookmarks")
    bookmarks.add_argument("--json", action="store_true", help="print JSON")
    bookmarks.set_defaults(handler=list_bookmarks)
    actions = bookmarks.add_subparsers(dest="action", metavar="ACTION")
    exporting = actions.add_parser("export", help="write bookmarks as BibTeX, Markdown, CSV or JSON")
    exporting.add_argument("--format", required=True, choices=FORMATS, help="output format")
    exporting.add_argument("-o", "--output", metavar="FILE", help="write to FILE (atomically) instead of stdout")
    exporting.set_defaults(handler=export_bookmarks)
    importing = actions.add_parser("import", help="merge bookmarks from a JSON export (no duplicates)")
    importing.add_argument("file", help="a file written by `bookmarks export --format json`")
    importing.set_defaults(handler=import_bookmarks)
    add = actions.add_parser("add", help="bookmark a paper of the loaded corpus")
    add.add_argument("id", help="paper id")
    add.set_defaults(handler=add_bookmark)
    remove = actions.add_parser("remove", help="remove a bookmark")
    remove.add_argument("id", help="paper id")
    remove.set_defaults(handler=remove_bookmark)


def _open_store() -> UserStore:
    store = UserStore()
    if store.notice:
        print(f"iclr-reader: {store.notice}", file=sys.stderr)
    return store


def list_bookmarks(args: argparse.Namespace) -> int:
    bookmarks = _open_store().bookmarks()
    if args.json:
        print_bookmarks_json(bookmarks)
        return 0
    if not bookmarks:
        print("No bookmarks yet. In the app, press b on a paper; or: iclr-reader bookmarks add ID")
    for bookmark in bookmarks:
        tags = "  " + " ".join(f"#{tag}" for tag in bookmark.tags) if bookmark.tags else ""
        print(f"{bookmark.paper_id}  {bookmark.headline}{tags}")
        if bookmark.note:
            print(f"    note: {' '.join(bookmark.note.split())}")
    return 0


def export_bookmarks(args: argparse.Namespace) -> int:
    bookmarks = _open_store().bookmarks()
    text = export(bookmarks, args.format)
    if not args.output:
        sys.stdout.write(text)
        return 0
    try:
        write_atomic(Path(args.output), text)
    except OSError as error:
        raise CliError(f"{args.output}: cannot write ({error.strerror or error})") from None
    print(f"Wrote {len(bookmarks)} bookmark{'s' if len(bookmarks) != 1 else ''} to {args.output}", file=sys.stderr)
    return 0


def import_bookmarks(args: argparse.Namespace) -> int:
    store = _open_store()
    path = Path(args.file)
    try:
        text = path.read_text(encoding="utf-8-sig")
    except FileNotFoundError:
        raise CliError(f"{path}: no such file") from None
    except (OSError, UnicodeDecodeError) as error:
        raise CliError(f"{path}: cannot read ({getattr(error, 'strerror', None) or error})") from None
    added, merged = store.merge(parse_json_export(text, str(path)))
    print(f"Imported {added} new bookmark{'s' if added != 1 else ''}; {merged} already present (merged)")
    return 0


def add_bookmark(args: argparse.Namespace) -> int:
    # An unknown id is reported before the data dir is touched.
    engine = load_engine(args)
    bookmark = bookmark_of(engine.describe(engine.paper(args.id).id))
    UserStore().add(bookmark)
    print(f"Bookmarked {bookmark.paper_id}: {bookmark.headline}")
    return 0


def remove_bookmark(args: argparse.Namespace) -> int:
    store = _open_store()
    if not store.remove(args.id):
        raise CliError(f"{args.id!r} is not bookmarked")
    print(f"Removed bookmark {args.id}")
    return 0
