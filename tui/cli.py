"""The `iclr-reader` command: the app by default, plus scriptable list/search/show/render/index commands."""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Sequence
from pathlib import Path

from search import (
    FORMATS,
    BookmarkImportError,
    CorpusError,
    LibraryError,
    Marks,
    SearchEngine,
    StoreError,
    UnknownPaper,
    UserStore,
    __version__,
    bookmark_of,
    convert,
    export,
    link_records,
    parse_json_export,
    split_facets,
    write_atomic,
)
from tui import library_commands

EXIT_USAGE = 2


class CliError(Exception):
    """A user-facing problem: printed as one line, exit code 2."""


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="iclr-reader",
        description="A keyboard-driven terminal reader for research-paper abstracts (ICLR 2025 bundled).",
    )
    parser.add_argument("--version", action="version", version=f"iclr-reader {__version__}")
    parser.add_argument(
        "--corpus",
        action="append",
        metavar="PATH",
        help="corpus file to load (repeatable): JSON/JSONL records, OpenReview notes, CSV, BibTeX or a paragraph list; "
        "default: the bundled ICLR 2025 list plus your library (see `add`)",
    )
    parser.add_argument("--query", metavar="TEXT", help="open the app with this query typed")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")

    listing = commands.add_parser("list", help="list every paper")
    listing.add_argument("--json", action="store_true", help="print JSON")

    search = commands.add_parser("search", help="search the papers")
    search.add_argument("query", help='query: words, "phrases", prefix*, fuzzy~, field:term, AND/OR/NOT')
    search.add_argument("--limit", type=int, default=20, help="number of hits (default 20)")
    search.add_argument("--json", action="store_true", help="print JSON")

    show = commands.add_parser("show", help="show one paper's rendered abstract, metadata and links")
    show.add_argument("id", help="paper id (see `list` or `search`)")
    show.add_argument("--plain", action="store_true", help="no terminal styling")

    related = commands.add_parser("related", help="the papers most similar to one paper")
    related.add_argument("id", help="paper id (see `list` or `search`)")
    related.add_argument("--limit", type=int, default=10, help="number of papers (default 10)")
    related.add_argument("--json", action="store_true", help="print JSON")

    render = commands.add_parser("render", help="render LaTeX/Markdown markup read from stdin")
    mode = render.add_mutually_exclusive_group()
    mode.add_argument("--plain", action="store_true", help="plain text only")
    mode.add_argument("--json", action="store_true", help='print {"text", "spans", "links"}')

    index = commands.add_parser("index", help="build or refresh the search index")
    index.add_argument("--rebuild", action="store_true", help="rebuild even if the index is up to date")

    bookmarks = commands.add_parser("bookmarks", help="list, export, import, add or remove bookmarks")
    bookmarks.add_argument("--json", action="store_true", help="print JSON")
    actions = bookmarks.add_subparsers(dest="action", metavar="ACTION")
    export = actions.add_parser("export", help="write bookmarks as BibTeX, Markdown, CSV or JSON")
    export.add_argument("--format", required=True, choices=FORMATS, help="output format")
    export.add_argument("-o", "--output", metavar="FILE", help="write to FILE (atomically) instead of stdout")
    importing = actions.add_parser("import", help="merge bookmarks from a JSON export (no duplicates)")
    importing.add_argument("file", help="a file written by `bookmarks export --format json`")
    add = actions.add_parser("add", help="bookmark a paper of the loaded corpus")
    add.add_argument("id", help="paper id")
    remove = actions.add_parser("remove", help="remove a bookmark")
    remove.add_argument("id", help="paper id")
    library_commands.add_parsers(commands)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return _dispatch(args)
    except (CorpusError, CliError) as error:
        print(f"iclr-reader: error: {error}", file=sys.stderr)
        return EXIT_USAGE
    except (UnknownPaper, StoreError, BookmarkImportError, LibraryError) as error:
        print(f"iclr-reader: error: {error}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return 0


def _dispatch(args: argparse.Namespace) -> int:
    if args.command == "render":
        return _render(args)
    if args.command == "bookmarks" and args.action != "add":
        return _bookmarks(args, UserStore())
    if args.command in library_commands.COMMANDS:
        return library_commands.run(args, _ensure_index)
    # The app starts with whatever loads and shows a notice for the rest; commands refuse bad input.
    engine = SearchEngine.from_paths(args.corpus, skip_broken=args.command is None)
    for problem in engine.corpus.problems:
        print(f"iclr-reader: warning: left out {problem}", file=sys.stderr)
    if args.command is None:
        from tui.app import run_app  # the app's imports are only paid for when it runs

        return run_app(engine, query=args.query)
    if args.command == "index":
        status = _ensure_index(engine, rebuild=args.rebuild)
        state = "built" if status.built else "up to date"
        print(f"{len(engine.papers)} papers, index {state}: {status.path or 'in memory'}")
        return 0
    if args.command == "list":
        return _list(engine, args.json)
    if args.command == "search":
        _ensure_index(engine)
        return _search(engine, args.query, args.limit, args.json)
    if args.command == "show":
        return _show(engine, args.id, args.plain)
    if args.command == "related":
        _ensure_index(engine)
        return _related(engine, args.id, args.limit, args.json)
    if args.command == "bookmarks":
        bookmark = bookmark_of(engine.describe(engine.paper(args.id).id))
        UserStore().add(bookmark)
        print(f"Bookmarked {bookmark.paper_id}: {bookmark.headline}")
        return 0
    raise CliError(f"unknown command {args.command}")


def _ensure_index(engine: SearchEngine, rebuild: bool = False):
    progress = _Progress()
    status = engine.ensure_index(on_progress=progress, rebuild=rebuild)
    progress.finish(status.built)
    if status.notice:
        print(f"iclr-reader: {status.notice}", file=sys.stderr)
    return status


class _Progress:
    """A progress bar on stderr, shown only once a build has taken more than a moment."""

    def __init__(self) -> None:
        self.total = 0
        self.started = time.monotonic()
        self.shown = False

    def __call__(self, done: int, total: int) -> None:
        if time.monotonic() - self.started < 0.5:
            return
        self.shown = True
        self.total = total
        if sys.stderr.isatty():
            width = 30
            filled = int(width * done / max(total, 1))
            bar = "█" * filled + "·" * (width - filled)
            print(f"\rIndexing {bar} {done}/{total}", end="", file=sys.stderr, flush=True)

    def finish(self, built: bool) -> None:
        if built and self.shown:
            end = "\n" if sys.stderr.isatty() else ""
            print(f"{end}Indexed {self.total} papers in {time.monotonic() - self.started:.1f} s", file=sys.stderr)


def _bookmarks(args: argparse.Namespace, store: UserStore) -> int:
    if store.notice:
        print(f"iclr-reader: {store.notice}", file=sys.stderr)
    if args.action == "remove":
        if not store.remove(args.id):
            raise CliError(f"{args.id!r} is not bookmarked")
        print(f"Removed bookmark {args.id}")
        return 0
    if args.action == "import":
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
    bookmarks = store.bookmarks()
    if args.action == "export":
        text = export(bookmarks, args.format)
        if args.output:
            try:
                write_atomic(Path(args.output), text)
            except OSError as error:
                raise CliError(f"{args.output}: cannot write ({error.strerror or error})") from None
            print(
                f"Wrote {len(bookmarks)} bookmark{'s' if len(bookmarks) != 1 else ''} to {args.output}", file=sys.stderr
            )
        else:
            sys.stdout.write(text)
        return 0
    if args.json:
        sys.stdout.write(export(bookmarks, "json"))
        return 0
    if not bookmarks:
        print("No bookmarks yet. In the app, press b on a paper; or: iclr-reader bookmarks add ID")
    for bookmark in bookmarks:
        tags = "  " + " ".join(f"#{tag}" for tag in bookmark.tags) if bookmark.tags else ""
        print(f"{bookmark.paper_id}  {bookmark.headline}{tags}")
        if bookmark.note:
            print(f"    note: {' '.join(bookmark.note.split())}")
    return 0


def _list(engine: SearchEngine, as_json: bool) -> int:
    if as_json:
        papers = []
        for paper in engine.papers:
            description = engine.describe(paper.id)
            papers.append(
                {
                    "id": paper.id,
                    "name": description.name,
                    "headline": description.headline,
                    "title": paper.title,
                    "authors": list(paper.authors),
                    "venue": paper.venue,
                    "abstract": paper.abstract,
                    "links": link_records(description.links, kinds=False),
                }
            )
        _print_json({"papers": papers})
        return 0
    for paper in engine.papers:
        print(f"{paper.id}  {engine.row(paper.id).headline}")
    return 0


def _search(engine: SearchEngine, query: str, limit: int, as_json: bool) -> int:
    if limit < 1:
        raise CliError("--limit must be at least 1")
    marks = None
    if split_facets(query)[1].needs_marks:
        store = UserStore()
        marks = Marks(frozenset(store.bookmarked_ids()), frozenset(store.opened_ids()))
    result = engine.search(query, limit=limit, marks=marks)
    if as_json:
        hits = []
        for hit in result.hits:
            description = engine.describe(hit.paper_id)
            hits.append(
                {
                    "id": hit.paper_id,
                    "name": description.name,
                    "headline": description.headline,
                    "score": round(hit.score, 4),
                    "links": link_records(description.links, kinds=False),
                    "terms": list(hit.terms),
                }
            )
        _print_json({"query": result.query, "corrected": result.corrected, "total": result.total, "hits": hits})
        return 0
    if result.notice:
        print(f"note: {result.notice}", file=sys.stderr)
    if result.corrected:
        print(f"no matches for {result.query!r}; showing results for {result.corrected!r}", file=sys.stderr)
    print(f"{result.total} matches" + (f" (showing {len(result.hits)})" if result.total > len(result.hits) else ""))
    for hit in result.hits:
        print(f"{hit.paper_id}  {hit.score:6.2f}  {engine.row(hit.paper_id).headline}")
    return 0


def _related(engine: SearchEngine, paper_id: str, limit: int, as_json: bool) -> int:
    if limit < 1:
        raise CliError("--limit must be at least 1")
    hits = engine.related(paper_id, limit)
    if as_json:
        _print_json(
            {
                "id": paper_id,
                "related": [
                    {
                        "id": hit.paper_id,
                        "headline": engine.row(hit.paper_id).headline,
                        "score": round(hit.score, 4),
                        "terms": list(hit.terms),
                    }
                    for hit in hits
                ],
            }
        )
        return 0
    print(f"Related to {paper_id}  {engine.row(paper_id).headline}")
    for hit in hits:
        print(f"{hit.paper_id}  {hit.score:6.2f}  {engine.row(hit.paper_id).headline}")
    return 0


def _show(engine: SearchEngine, paper_id: str, plain: bool) -> int:
    from tui.render import paper_text

    text = paper_text(engine.describe(paper_id))
    if plain or not sys.stdout.isatty():
        print(text.plain)
    else:
        _print_styled(text)
    return 0


def _render(args: argparse.Namespace) -> int:
    data = sys.stdin.buffer.read()
    try:
        source = data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        raise CliError(f"stdin is not UTF-8 text (bad byte at offset {error.start})") from None
    rendered = convert(source)
    if args.json:
        _print_json(
            {
                "text": rendered.text,
                "spans": [
                    {
                        "start": s.start,
                        "end": s.end,
                        "style": s.style,
                        **({"link": s.link} if s.link is not None else {}),
                    }
                    for s in rendered.spans
                ],
                "links": link_records(rendered.links, kinds=False),
            }
        )
        return 0
    if args.plain or not sys.stdout.isatty():
        print(rendered.text)
        return 0
    from tui.render import styled

    _print_styled(styled(rendered))
    return 0


def _print_styled(text) -> None:
    """Print Rich Text to a terminal; never parses markup, so corpus text stays inert."""
    from rich.console import Console

    Console(highlight=False, markup=False, emoji=False).print(text)


def _print_json(value) -> None:
    json.dump(value, sys.stdout, ensure_ascii=False, indent=2)
    sys.stdout.write("\n")
