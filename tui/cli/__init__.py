"""The `iclr-reader` command: the app by default, plus scriptable commands registered by their groups
(`papers`, `bookmarks`, `library`, `get`). This module builds the parser, runs the chosen command's handler
and turns every user-facing error into one line on stderr with exit code 2."""

from __future__ import annotations

import argparse
import io
import sys
from collections.abc import Callable, Sequence

from search import ReaderError, __version__
from tui.cli import bookmarks, get, library, papers
from tui.cli.errors import EXIT_USAGE, CliError, has_undecodable, shown

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
    _never_fail_to_print()
    arguments = list(sys.argv[1:] if argv is None else argv)
    args = build_parser().parse_args(arguments)
    handler: Handler = args.handler
    try:
        return handler(args)
    except (ReaderError, CliError) as error:
        # Messages quote names, paths and ids from outside: shown, so nothing in them reaches the terminal raw.
        print(f"iclr-reader: error: {shown(error)}", file=sys.stderr)
        return EXIT_USAGE
    except UnicodeError:
        # An argument with bytes that are not UTF-8 (Python hands them over as surrogates) that a
        # command could not use: one line naming it, never a traceback.
        undecodable = [argument for argument in arguments if has_undecodable(argument)]
        if not undecodable:
            raise
        print(f"iclr-reader: error: {shown(undecodable[0])}: not UTF-8 text", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        return EXIT_INTERRUPTED
    except BrokenPipeError:
        return 0


def _never_fail_to_print() -> None:
    """Text that cannot be encoded for stdout (a lone surrogate) is written as an escape rather
    than ending the command with a traceback; stderr already does this."""
    stream = sys.stdout
    if isinstance(stream, io.TextIOWrapper) and stream.errors == "strict":
        stream.reconfigure(errors="backslashreplace")


__all__ = ["CliError", "build_parser", "main"]
