"""The `iclr-reader` command: the app by default, plus scriptable commands registered by their groups
(`papers`, `bookmarks`, `recommend`, `library`, `get`). This module builds the parser, runs the chosen command's handler
and turns every user-facing error into one line on stderr with exit code 2. The commands' modules
(and through them the engine, the index, Whoosh) are imported once the app's start, if that is what
the command line asks for, has begun parsing its lists on another core (`_app_parse_begun`)."""

from __future__ import annotations

import argparse
import contextlib
import io
import re
import sys
from collections.abc import Callable, Sequence
from typing import NoReturn

from search import ReaderError, __version__, parsing_ahead
from tui.cli.errors import EXIT_USAGE, CliError, has_undecodable, shown

Handler = Callable[[argparse.Namespace], int]

EXIT_INTERRUPTED = 130


class OneLineParser(argparse.ArgumentParser):
    """A parser whose mistakes (a missing argument, an unknown option, a bad choice) are one line on
    stderr, naming the command and where its usage is, with exit code 2: argparse's own printed the
    usage above the error (2-4 lines). Every subcommand's parser is one too (argparse makes them of
    the parent's class)."""

    def error(self, message: str) -> NoReturn:
        where = self.prog.removeprefix("iclr-reader").strip()
        said = f"{where}: {message}" if where else message
        self.exit(EXIT_USAGE, f"iclr-reader: error: {shown(said)} (see `{self.prog} --help`)\n")


def build_parser() -> argparse.ArgumentParser:
    from tui.cli import bookmarks, get, library, papers, recommend

    parser: argparse.ArgumentParser = OneLineParser(
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
    recommend.register(commands)
    library.register(commands)
    get.register(commands)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    _never_fail_to_print()
    arguments = list(sys.argv[1:] if argv is None else argv)
    with _app_parse_begun(dashed_values_last(arguments)):
        return _run(arguments)


def _run(arguments: list[str]) -> int:
    args = build_parser().parse_args(dashed_values_last(arguments))
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


class _Unsure(Exception):
    pass


class _AppOptions(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        raise _Unsure(message)


def _app_parse_begun(arguments: list[str]) -> contextlib.AbstractContextManager[None]:
    """When the command line opens the app (only its own options: no command, no --help or
    --version, nothing unknown), its lists' parse begun now by another process, while this one
    imports the commands (search.parsing_ahead): a cold start at 100,000 papers parsed on one core
    only after 0.3-0.5 s of imports. Anything else, or a doubt, begins nothing: the parser below
    says what is wrong, and a load parses as it would have."""
    options = _AppOptions(add_help=False)
    options.add_argument("--corpus", action="append")
    options.add_argument("--query")
    try:
        known, rest = options.parse_known_args(arguments)
    except _Unsure:
        return contextlib.nullcontext()
    return contextlib.nullcontext() if rest else parsing_ahead(known.corpus)


_TAKES_DASHED = {
    ("show",),
    ("related",),
    ("search",),
    ("bookmarks", "add"),
    ("bookmarks", "remove"),
    ("bookmarks", "restore"),
}
"""The commands whose argument is an id or a query, either of which may begin with `-` (OpenReview ids
often do: -3G6_D66Aua; a query may start with a negation: -has:code graph)."""
_TAKES_VALUE = {"--corpus", "--query", "--limit", "--max", "--name", "--format", "--output"}
_NUMBER = re.compile(r"^-\d+(\.\d*)?$|^-\.\d+$")


def dashed_values_last(arguments: Sequence[str]) -> list[str]:
    """`show -3G6_D66Aua --plain` as `show --plain -- -3G6_D66Aua`: an argument beginning with one `-`
    after a command that takes an id is that id, not an option (argparse would say "the following
    arguments are required: id"); so is one after an option that takes a value (`--query -x` as
    `--query=-x`). A command line that says `--` already is left as it is."""
    arguments = list(arguments)
    if "--" in arguments:
        return arguments
    command: list[str] = []
    kept: list[str] = []
    dashed: list[str] = []
    previous = ""
    for argument in arguments:
        takes_dashed = tuple(command[:2]) in _TAKES_DASHED or tuple(command[:1]) in _TAKES_DASHED
        if previous in _TAKES_VALUE and argument[:1] == "-" and argument[:2] != "--" and not _NUMBER.match(argument):
            kept[-1] = f"{previous}={argument}"  # --query -has:code: the option's value, however it begins
        elif previous in _TAKES_VALUE or not argument.startswith("-"):
            if previous not in _TAKES_VALUE:
                command.append(argument)
            kept.append(argument)
        elif takes_dashed and not argument.startswith("--") and argument != "-h" and not _NUMBER.match(argument):
            dashed.append(argument)
        else:
            kept.append(argument)
        previous = argument.split("=", 1)[0] if argument.startswith("--") else argument
        if argument.startswith("--") and "=" in argument:
            previous = ""  # --limit=5 carries its value
    return [*kept, "--", *dashed] if dashed else kept


def _never_fail_to_print() -> None:
    """Text that cannot be encoded for stdout (a lone surrogate) is written as an escape rather
    than ending the command with a traceback; stderr already does this."""
    stream = sys.stdout
    if isinstance(stream, io.TextIOWrapper) and stream.errors == "strict":
        stream.reconfigure(errors="backslashreplace")


__all__ = ["CliError", "build_parser", "dashed_values_last", "main"]
