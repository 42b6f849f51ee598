"""`recommend`: the papers most like the user's bookmarks, each with the bookmark it is closest to."""

from __future__ import annotations

import argparse
import sys

from search import MAX_BOOKMARKS, UserStore
from tui.cli.errors import CliError, shown
from tui.cli.loading import ensure_index, load_engine
from tui.cli.output import print_json, recommended_json
from tui.cli.wording import id_width
from tui.wording import none_loaded, recommended_from

NO_BOOKMARKS = (
    "No bookmarks yet: recommendations are papers like your bookmarks. In the app, press b on a paper;"
    " or: iclr-reader bookmarks add ID"
)


def register(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    recommend = commands.add_parser(
        "recommend",
        help="papers like your bookmarks, each with the bookmark it is closest to",
        description=f"The loaded papers most like your bookmarks (the {MAX_BOOKMARKS} most recent; removed ones are "
        "not compared with), never a bookmarked or removed one, best first, each with the bookmark it is closest to.",
    )
    recommend.add_argument("--limit", type=int, default=20, help="number of papers (default 20)")
    recommend.add_argument("--json", action="store_true", help="print JSON")
    recommend.set_defaults(handler=recommend_papers)


def recommend_papers(args: argparse.Namespace) -> int:
    limit: int = args.limit
    if limit < 1:
        raise CliError("--limit must be at least 1")
    engine = load_engine(args)  # an unusable corpus is reported before the data dir is touched
    store = UserStore()
    if store.notice:
        print(f"iclr-reader: {shown(store.notice)}", file=sys.stderr)
    bookmarks = [bookmark.paper_id for bookmark in store.bookmarks()]  # newest first
    removed = [bookmark.paper_id for bookmark in store.removed()]
    if not bookmarks:
        if args.json:
            print_json(recommended_json(engine, None))
        else:
            print(NO_BOOKMARKS)
        return 0
    ensure_index(engine)
    result = engine.recommend(bookmarks, removed, limit)
    index_notice = engine.take_index_notice()
    for notice in (index_notice, result.notice):
        if notice:
            print(f"iclr-reader: note: {shown(notice)}", file=sys.stderr)
    if args.json:
        print_json(recommended_json(engine, result))
        return 0
    if not result.used:
        print(none_loaded(result.not_loaded))
        return 0
    print(f"Papers {recommended_from(len(result.used), result.left_out, result.not_loaded)}:")
    width = id_width(hit.paper_id for hit in result.hits)
    for hit in result.hits:
        print(f"{hit.paper_id:<{width}}  {engine.row(hit.paper_id).headline}")
        print(f"{'':<{width}}    like: {engine.row(hit.closest).headline}")
    return 0
