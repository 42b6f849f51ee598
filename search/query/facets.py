"""Filters and sort order inside the query: list:NAME venue:WORD status:oral has:code is:bookmarked
is:unread sort:name match:all, and related:ID (the papers most like that one). They are taken out of
the text before it is searched; values of one facet are alternatives (list:a list:b), different
facets must all hold. A leading - negates (-has:code, -status:reject). Statuses are whatever the
loaded lists use (status:reject), so only the filters (filters.py) can tell an unknown one.
A value with spaces, parentheses, quotes or backslashes is written in double quotes, with `\\"` and
`\\\\` inside them (`quoted` writes it so: `related:"id (v2)"`)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from search.corpus.formats.common import normalised_status

FACET_NAMES = ("list", "venue", "status", "has", "is", "sort", "match", "related")
FACET = re.compile(rf'(?<![^\s(])(-?)({"|".join(FACET_NAMES)}):("(?:[^"\\]|\\.)*"|[^\s()]+)', re.I)
_BARE = re.compile(r'[^\s()"\\]+')
"""A value that needs no quotes."""
_QUOTED = re.compile(r'"(?:[^"\\]|\\.)*"', re.S)
_ESCAPE = re.compile(r"\\(u[0-9a-fA-F]{4}|U[0-9a-fA-F]{8}|.)", re.S)
HAS = ("code",)
IS = ("bookmarked", "unread", "read")
SORTS = ("relevance", "order", "name")
MATCHES = ("any", "all")
"""match:any (the default): papers with any of the words, ranked; match:all: only those with every one."""


@dataclass(frozen=True)
class Facets:
    lists: tuple[str, ...] = ()
    venues: tuple[str, ...] = ()
    statuses: tuple[str, ...] = ()
    flags: tuple[tuple[str, bool], ...] = ()
    """(has:code / is:bookmarked / is:unread / is:read, wanted) pairs."""
    excluded_lists: tuple[str, ...] = ()
    sort: str = "relevance"
    related: str | None = None
    """related:ID: the papers most similar to that one, instead of a word search."""
    problems: tuple[str, ...] = field(default=())
    """Facets that were not understood, for a notice."""
    excluded_statuses: tuple[str, ...] = ()
    excluded_venues: tuple[str, ...] = ()
    match: str | None = None
    """match:all or match:any; None when the query does not say (the caller's default holds)."""

    @property
    def filters(self) -> bool:
        return bool(
            self.lists
            or self.venues
            or self.statuses
            or self.flags
            or self.excluded_lists
            or self.excluded_statuses
            or self.excluded_venues
        )

    @property
    def needs_marks(self) -> bool:
        return any(flag.startswith("is:") for flag, _ in self.flags)


def split_facets(text: str) -> tuple[str, Facets]:
    """The query without its facets, and the facets."""
    lists: list[str] = []
    excluded_lists: list[str] = []
    venues: list[str] = []
    statuses: list[str] = []
    excluded_statuses: list[str] = []
    excluded_venues: list[str] = []
    flags: list[tuple[str, bool]] = []
    problems: list[str] = []
    sort = "relevance"
    related = None
    match_mode = None

    def take(match: re.Match[str]) -> str:
        nonlocal sort, related, match_mode
        negated, facet, raw = match.group(1) == "-", match.group(2).lower(), _unquoted(match.group(3))
        value = raw.lower()
        if facet == "related":
            related = raw  # ids are case-sensitive
        elif facet == "list":
            (excluded_lists if negated else lists).append(value)
        elif facet == "venue":
            (excluded_venues if negated else venues).append(value)
        elif facet == "status" and (status := normalised_status(value)):
            (excluded_statuses if negated else statuses).append(status)
        elif facet == "has" and value in HAS:
            flags.append((f"has:{value}", not negated))
        elif facet == "is" and value in IS:
            flag = "is:unread" if value in ("unread", "read") else f"is:{value}"
            flags.append((flag, (value != "read") != negated))
        elif facet == "sort" and value in SORTS:
            sort = value
        elif facet == "match" and value in MATCHES:
            match_mode = value
        elif facet == "status":
            problems.append(f"status:{value}: a status is made of letters or digits")
        else:
            choices = {"has": HAS, "is": IS, "sort": SORTS, "match": MATCHES}[facet]
            problems.append(f"{facet}:{value} (try {', '.join(f'{facet}:{c}' for c in choices)})")
        return " "

    rest = " ".join(FACET.sub(take, text).split())
    if rest and text[-1:].isspace():
        rest += " "  # the last word is finished: it must not be completed as if still being typed
    facets = Facets(
        tuple(lists),
        tuple(venues),
        tuple(statuses),
        tuple(flags),
        tuple(excluded_lists),
        sort,
        related,
        tuple(problems),
        tuple(excluded_statuses),
        tuple(excluded_venues),
        match_mode,
    )
    return rest, facets


def facet_tokens(text: str) -> list[str]:
    return [match.group(0) for match in FACET.finditer(text)]


def quoted(value: str) -> str:
    """A facet value as the query language reads it back exactly: bare when it can be, else in
    double quotes with quotes and backslashes escaped, and whitespace that the query's own
    normalisation would fold (a second space, tabs, other spaces) and unprintable characters as
    \\uXXXX."""
    if _BARE.fullmatch(value) and value.isprintable():
        return value
    pieces = []
    last = '"'
    for char in value:
        if char in '"\\':
            piece = "\\" + char
        elif (char == " " and last == " ") or (char != " " and (char.isspace() or not char.isprintable())):
            piece = f"\\u{ord(char):04x}" if ord(char) < 0x10000 else f"\\U{ord(char):08x}"
        else:
            piece = char
        pieces.append(piece)
        last = piece[-1]
    return '"' + "".join(pieces) + '"'


def _unquoted(value: str) -> str:
    """A facet value as written: a quoted one unescaped (see `quoted`), a bare one without stray quotes."""
    if _QUOTED.fullmatch(value):
        return _ESCAPE.sub(_unescape, value[1:-1])
    return value.strip('"')


def _unescape(match: re.Match[str]) -> str:
    escaped = match.group(1)
    return chr(int(escaped[1:], 16)) if len(escaped) > 1 else escaped


def without_facet(text: str, facet: str) -> str:
    """The query without any (not negated) `facet:` token, e.g. every list: before choosing another."""
    kept = FACET.sub(
        lambda match: " " if match.group(2).lower() == facet and not match.group(1) else match.group(0), text
    )
    return " ".join(kept.split())


def toggle(text: str, token: str) -> str:
    """The query with `token` (e.g. has:code) added, or removed when it is there; a new sort:,
    list: or match: replaces the old one."""
    facet = token.split(":", 1)[0].lower()
    if any(match.group(0).lower() == token.lower() for match in FACET.finditer(text)):
        kept = FACET.sub(lambda match: " " if match.group(0).lower() == token.lower() else match.group(0), text)
        return " ".join(kept.split())
    if facet in ("sort", "list", "match"):
        text = without_facet(text, facet)
    return " ".join([*text.split(), token])
