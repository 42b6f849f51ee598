"""The `iclr-reader` command: the app by default, plus scriptable commands registered by their groups
(`papers`, `bookmarks`, `library`, `get`). This module builds the parser, runs the chosen command's handler
and turns every user-facing error into one line on stderr with exit code 2."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence

from search import ReaderError, __version__
from tui.cli import bookmarks, get, library, papers
from tui.cli.errors import EXIT_USAGE, CliError

Handler = Callable[[argparse.Namespace], int]

EXIT_INTERRUPTED = 130


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
    # A subcommand's own default handler overrides this one, so the app runs only when none is given.
    parser.set_defaults(handler=papers.open_app)
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    # Registration order is the order `--help` lists the commands in.
    papers.register(commands)
    bookmarks.register(commands)
    library.register(commands)
    get.register(commands)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    handler: Handler = args.handler
    try:
        return handler(args)
    except (ReaderError, CliError) as error:
        print(f"iclr-reader: error: {error}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        return EXIT_INTERRUPTED
    except BrokenPipeError:
        return 0


__all__ = ["CliError", "build_parser", "main"]
