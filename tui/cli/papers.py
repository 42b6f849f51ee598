"""The paper commands — `list`, `search`, `show`, `related`, `render`, `index` — and the app itself,
which runs when no command is given."""

from __future__ import annotations

import argparse
import gc
import shutil
import sys
import textwrap
import time
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from search import Hit, Marks, Paper, SearchEngine, SearchRequest, SearchResult, UserStore, convert, split_facets
from tui.cli.errors import CliError, shown
from tui.cli.loading import ensure_index, load_engine
from tui.cli.output import (
    paper_json,
    papers_json,
    print_json,
    print_styled,
    related_json,
    rendered_json,
    search_json,
    stats_json,
)
from tui.cli.wording import counted, id_width
from tui.wording import spelling_note

if TYPE_CHECKING:
    from tui.app import StoreOpening

SEARCH_EXAMPLES = """\
examples:
  iclr-reader search 'diffusion list:iclr2025 status:oral'
  iclr-reader search 'sparse attention match:all -has:code'
  iclr-reader search '-status:reject graph'"""


def register(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    listing = commands.add_parser("list", help="list every paper")
    listing.add_argument("--json", action="store_true", help="print JSON")
    listing.set_defaults(handler=list_papers)

    search = commands.add_parser(
        "search",
        help="search the papers",
        description="Search the loaded papers with the query language the app's search box reads.",
        epilog=query_language() + "\n\n" + SEARCH_EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    search.add_argument(
        "query", help='query: words, "phrases", prefix*, fuzzy~, field:term, AND/OR/NOT, and the filters below'
    )
    search.add_argument("--limit", type=int, default=20, help="number of hits (default 20)")
    search.add_argument("--json", action="store_true", help="print JSON")
    search.add_argument(
        "--as-typed",
        action="store_true",
        help="search the words exactly as typed: no spelling correction (a short query with a word no paper "
        "contains is otherwise searched corrected, and a rare word with a far more common spelling searched as "
        "both, with a note saying so)",
    )
    search.set_defaults(handler=search_papers)

    stats = commands.add_parser(
        "stats",
        help="statistics of the loaded lists or a query's papers: ratings by decision, institutions, ...",
    )
    stats.add_argument("query", nargs="?", default="", help="a query (default: every loaded paper)")
    stats.add_argument("--json", action="store_true", help="print the numbers as JSON")
    stats.set_defaults(handler=show_stats)

    show = commands.add_parser("show", help="show one paper's rendered abstract, metadata and links")
    show.add_argument("id", help="paper id (see `list` or `search`)")
    show.add_argument("--plain", action="store_true", help="no terminal styling")
    show.add_argument("--json", action="store_true", help="print the paper as JSON (the shape list --json gives)")
    show.set_defaults(handler=show_paper)

    related = commands.add_parser("related", help="the papers most similar to one paper")
    related.add_argument("id", help="paper id (see `list` or `search`)")
    related.add_argument("--limit", type=int, default=10, help="number of papers (default 10)")
    related.add_argument("--json", action="store_true", help="print JSON")
    related.set_defaults(handler=related_papers)

    render = commands.add_parser("render", help="render LaTeX/Markdown markup read from stdin")
    mode = render.add_mutually_exclusive_group()
    mode.add_argument("--plain", action="store_true", help="plain text only")
    mode.add_argument("--json", action="store_true", help='print {"text", "spans", "links"}')
    render.set_defaults(handler=render_markup)

    index = commands.add_parser("index", help="build or refresh the search index")
    index.add_argument("--rebuild", action="store_true", help="rebuild even if the index is up to date")
    index.set_defaults(handler=build_index)


def query_language() -> str:
    """The query language as `search --help` lists it (the help screen's table: tui/keys.py)."""
    from tui.keys import QUERY_SYNTAX

    lines = ["query language (the same in the app's search box):"]
    for _, typed, meaning in QUERY_SYNTAX:
        wrapped = textwrap.wrap(meaning, 80 - 28) or [""]  # an 80-column terminal
        lines.append(f"  {typed:<25} {wrapped[0]}")
        lines += [f"  {'':<25} {more}" for more in wrapped[1:]]
    return "\n".join(lines)


def open_app(args: argparse.Namespace) -> int:
    # The app starts with whatever loads and shows a notice for the rest; commands refuse bad input.
    # The papers live as long as the app and make no cycles: loaded with the cycle collector paused,
    # then put out of its sight, it never walks them (its passes over them would delay the first
    # frame at 100,000 papers by 0.3 s, whether during the load or just after it).
    gc.disable()
    opening: list[StoreOpening] = []
    try:
        # What a cold start parsed is saved for the next start when the user pauses, not before the first frame.
        engine = load_engine(args, skip_broken=True, save_later=True, meanwhile=lambda: opening.append(_prepare_app()))
    finally:
        gc.freeze()
        gc.enable()
    from tui.app import run_app  # (a cold start imported it while the lists were parsed)

    return run_app(engine, query=args.query, store=opening[0] if opening else None)


def _prepare_app() -> StoreOpening:
    """The app's imports (0.15 s of CPU: Textual, the screens) and the user's store opened in a thread,
    while a cold start's other process finishes its share of the parse rather than after the merge;
    only paid for when the app runs."""
    from tui.app import StoreOpening

    return StoreOpening().start()


def list_papers(args: argparse.Namespace) -> int:
    engine = load_engine(args)
    if args.json:
        print_json(papers_json(engine))
        return 0
    width = id_width(paper.id for paper in engine.papers)
    for paper in engine.papers:
        print(f"{paper.id:<{width}}  {engine.row(paper.id).headline}")
    return 0


def search_papers(args: argparse.Namespace) -> int:
    query: str = args.query
    limit: int = args.limit
    if limit < 1:  # bad input is told before any work: no index is built for it
        raise CliError("--limit must be at least 1")
    engine = load_engine(args)
    ensure_index(engine)
    marks = _marks_for(query)
    result = engine.search(SearchRequest(query, limit=limit, marks=marks, correct=not args.as_typed))
    _print_notes(result, args.json)
    if args.json:
        print_json(search_json(engine, result))
        return 0
    showing = f" (showing {len(result.hits):,})" if result.total > len(result.hits) else ""
    print(counted(result.total, "match") + showing)
    _print_hits(engine, result.hits, split_facets(result.query)[1].sort)
    return 0


def _print_notes(result: SearchResult, json: bool) -> None:
    """What the query's search says about it (a field that is no field, a value that is no number,
    a spelling corrected), on stderr, so JSON on stdout stays clean."""
    if result.notice:
        print(f"iclr-reader: note: {shown(result.notice)}", file=sys.stderr)
    spelling = spelling_note(result)  # its query and words are shown safely already
    said_in_json = json and (result.corrected or result.also_searched)  # (not yet the suggestion)
    if spelling and not said_in_json:
        print(f"iclr-reader: note: {spelling}", file=sys.stderr)


def _print_hits(engine: SearchEngine, hits: Sequence[Hit], sort: str = "relevance") -> None:
    """One hit a line: its id (padded to the longest, so the columns line up), what orders it and
    its headline. What orders it: by relevance, the words' score (none when no words were
    searched: filters alone score nothing); by rating, citations or year, that number ("rating
    -" when the paper has none; the score when no hit has one); by name or corpus order, nothing."""
    width = id_width(hit.paper_id for hit in hits)
    figures = _SORT_FIGURES.get(sort)
    if figures and all(figures[1](engine.paper(hit.paper_id)) is None for hit in hits):
        sort = "relevance"  # no list has the number: the engine kept relevance (its notice says so)
    scored = sort == "relevance" and any(hit.score for hit in hits)
    for hit in hits:
        headline = engine.row(hit.paper_id).headline
        if sort in _SORT_FIGURES:
            label, figure = _SORT_FIGURES[sort]
            value = figure(engine.paper(hit.paper_id))
            print(f"{hit.paper_id:<{width}}  {label} {'-' if value is None else value:>7}  {headline}")
        elif scored:
            print(f"{hit.paper_id:<{width}}  {hit.score:6.2f}  {headline}")
        else:
            print(f"{hit.paper_id:<{width}}  {headline}")


_SORT_FIGURES: dict[str, tuple[str, Callable[[Paper], str | None]]] = {
    "rating": ("rating", lambda paper: None if paper.rating is None else f"{paper.rating:.2f}"),
    "citations": ("cited", lambda paper: None if paper.citations is None else f"{paper.citations:,}"),
    "year": ("year", lambda paper: None if paper.year is None else str(paper.year)),
}
"""sort: -> the word said before each hit's figure, and the figure (None: the paper has none)."""


def show_stats(args: argparse.Namespace) -> int:
    query: str = args.query
    engine = load_engine(args)
    marks = _marks_for(query)
    if query.strip():
        ensure_index(engine)
        # The stats count what the query finds; its notes (a field that is no field...) are the search's.
        _print_notes(engine.search(SearchRequest(query, limit=1, marks=marks)), args.json)
    stats = engine.stats(query, marks)
    if args.json:
        print_json(stats_json(stats, query))
        return 0
    from tui.stats_view import stats_text

    scope = f"query: {query}" if query.strip() else "every loaded paper"
    text = stats_text(stats, shutil.get_terminal_size((100, 24)).columns, scope)
    if sys.stdout.isatty():
        print_styled(text)
    else:
        print(text.plain)
    return 0


def _marks_for(query: str) -> Marks:
    """The user's marks when the query filters by them (is:, tag:, note:)."""
    if not split_facets(query)[1].needs_marks:
        return Marks()
    store = UserStore()
    notes = tuple((b.paper_id, b.note, b.tags) for b in store.bookmarks() if b.note or b.tags)
    return Marks(frozenset(store.bookmarked_ids()), frozenset(store.opened_ids()), notes)


def show_paper(args: argparse.Namespace) -> int:
    engine = load_engine(args)
    if args.json:
        print_json(paper_json(engine, engine.paper(args.id)))
        return 0
    from tui.render import paper_text

    text = paper_text(engine.describe(args.id))
    if args.plain or not sys.stdout.isatty():
        print(text.plain)
    else:
        print_styled(text)
    return 0


def related_papers(args: argparse.Namespace) -> int:
    paper_id: str = args.id
    limit: int = args.limit
    if limit < 1:
        raise CliError("--limit must be at least 1")
    engine = load_engine(args)
    ensure_index(engine)
    paper_id = engine.paper(paper_id).id  # an old id merged into another paper names it by its own id
    hits = engine.related(paper_id, limit)
    index_notice = engine.take_index_notice()
    if index_notice:
        print(f"iclr-reader: {shown(index_notice)}", file=sys.stderr)
    if args.json:
        print_json(related_json(engine, paper_id, hits))
        return 0
    print(f"Related to {paper_id}  {engine.row(paper_id).headline}")
    _print_hits(engine, hits)
    return 0


def render_markup(args: argparse.Namespace) -> int:
    # Reads only stdin: no corpus is loaded, so a broken library cannot get in the way.
    data = sys.stdin.buffer.read()
    try:
        source = data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        raise CliError(f"stdin is not UTF-8 text (bad byte at offset {error.start})") from None
    rendered = convert(source)
    if args.json:
        print_json(rendered_json(rendered))
        return 0
    if args.plain or not sys.stdout.isatty():
        print(rendered.text)
        return 0
    from tui.render import styled

    print_styled(styled(rendered))
    return 0


def build_index(args: argparse.Namespace) -> int:
    engine = load_engine(args)
    started = time.monotonic()
    # Every file is checked against its checksum. The time is said on the one line below.
    status = ensure_index(engine, rebuild=args.rebuild, summary=False)
    state = "damaged: rebuilt" if status.damaged else "built" if status.built else "up to date"
    if status.built:
        state += f" in {time.monotonic() - started:.1f} s"
    print(f"{counted(len(engine.papers), 'paper')}, index {state}: {status.path or 'in memory'}")
    return 0
