"""Filters and sort order inside the query: list:NAME venue:WORD status:oral has:code is:bookmarked
is:unread sort:name match:all, and related:ID (the papers most like that one). They are taken out of
the text before it is searched; values of one facet are alternatives (list:a list:b), different
facets must all hold. A leading - negates (-has:code, -status:reject). Statuses are whatever the
loaded lists use (status:reject), so only the filters (filters.py) can tell an unknown one.
A value with spaces, parentheses, quotes or backslashes is written in double quotes, with `\\"` and
`\\\\` inside them (`quoted` writes it so: `related:"id (v2)"`)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace

from search.corpus.formats.common import normalised_status

RANGE_FIELDS = ("rating", "confidence", "citations", "year")
"""Numbers a paper may have: rating:>=6, rating:5..7, citations:>100, year:2019, year:2017..2019."""
VALUE_FIELDS = ("author", "inst", "country", "area", "tag", "note")
"""What a paper's people, institutions, countries and area are, and the user's own tags and notes."""
FACET_NAMES = ("list", "venue", "status", "has", "is", "sort", "match", "related", *RANGE_FIELDS, *VALUE_FIELDS)
FACET = re.compile(rf'(?<![^\s(])(-?)({"|".join(FACET_NAMES)}):("(?:[^"\\]|\\.)*"|[^\s()]+)', re.I)
_BARE = re.compile(r'[^\s()"\\]+')
"""A value that needs no quotes."""
_QUOTED = re.compile(r'"(?:[^"\\]|\\.)*"', re.S)
_ESCAPE = re.compile(r"\\(u[0-9a-fA-F]{4}|U[0-9a-fA-F]{8}|.)", re.S)
HAS = ("code",)
IS = ("bookmarked", "unread", "read")
SORTS = ("relevance", "order", "name", "rating", "citations", "year")
"""rating, citations and year: highest (newest) first, papers without one last."""
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
    ranges: tuple[Range, ...] = ()
    """rating:, confidence:, citations:, year: bounds; every one must hold."""
    values: tuple[tuple[str, str, bool], ...] = ()
    """(field, value, negated) for author:, inst:, country:, area:, tag:, note:; values of one
    field are alternatives."""
    unreadable: bool = False
    """A filter whose value could not be read (rating:high, has:pdf): no paper can be said to pass
    it, so nothing matches, alone or beside words, as with a value no paper has (its problem says
    why). A sort: or match: not read is left out instead: the query is still searched."""

    @property
    def filters(self) -> bool:
        return bool(
            self.unreadable
            or self.ranges
            or self.values
            or self.lists
            or self.venues
            or self.statuses
            or self.flags
            or self.excluded_lists
            or self.excluded_statuses
            or self.excluded_venues
        )

    @property
    def needs_marks(self) -> bool:
        return any(flag.startswith("is:") for flag, _ in self.flags) or any(
            field in ("tag", "note") for field, _, _ in self.values
        )


@dataclass(frozen=True)
class Range:
    """field:BOUNDS as typed (rating:>=6, year:2017..2019): low and high (None: open), each
    included or not, negated with a leading -."""

    field: str
    low: float | None
    high: float | None
    low_included: bool = True
    high_included: bool = True
    negated: bool = False

    def holds(self, value: float | None) -> bool:
        """Whether a paper's value is in the range (a paper without one is not)."""
        if value is None:
            return False
        if self.low is not None and (value < self.low or (value == self.low and not self.low_included)):
            return False
        return self.high is None or value < self.high or (value == self.high and self.high_included)


_COMPARED = re.compile(r"(>=|<=|>|<|=)?(\d+(?:\.\d+)?)")
_SPAN = re.compile(r"(\d+(?:\.\d+)?)?\.\.(\d+(?:\.\d+)?)?")
_EXAMPLES = {
    "rating": "rating:>=6, rating:5..7, rating:6",
    "confidence": "confidence:>=4, confidence:3..4",
    "citations": "citations:>100, citations:10..50",
    "year": "year:2019, year:2017..2019, year:>=2020",
}


def range_of(field: str, value: str, negated: bool = False) -> Range | None:
    """The range a value says (None when it says none): >=6, >6, <7, <=7, =6, 5..7, 5.., ..7, or a
    number: a year or a count exactly; a whole rating or confidence its step (rating:6 is 6 up to
    but not including 7), a rating with decimals exactly."""
    compared = _COMPARED.fullmatch(value)
    if compared:
        operator, number = compared.group(1) or "", float(compared.group(2))
        if operator in (">", ">="):
            return Range(field, number, None, operator == ">=", True, negated)
        if operator in ("<", "<="):
            return Range(field, None, number, True, operator == "<=", negated)
        if not operator and field in ("rating", "confidence") and number == int(number):
            return Range(field, number, number + 1, True, False, negated)
        return Range(field, number, number, True, True, negated)
    span = _SPAN.fullmatch(value)
    if span and (span.group(1) or span.group(2)):
        low, high = (float(part) if part else None for part in span.groups())
        return Range(field, low, high, True, True, negated)
    return None


OPERATORS = frozenset({"AND", "OR", "NOT", "ANDNOT"})
"""Whoosh's operators between parts of a query (boolean.py joins filters with them); left alone
beside filters, they join nothing."""


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
    ranges: list[Range] = []
    values: list[tuple[str, str, bool]] = []
    sort = "relevance"
    related = None
    match_mode = None
    unreadable = False

    def take(match: re.Match[str]) -> str:
        nonlocal sort, related, match_mode, unreadable
        negated, facet, raw = match.group(1) == "-", match.group(2).lower(), _unquoted(match.group(3))
        value = raw.lower()
        if facet in RANGE_FIELDS:
            found = range_of(facet, value, negated)
            if found is None:
                unreadable = True
                problems.append(f"{facet}:{value}: not a number or a range (try {_EXAMPLES[facet]})")
            elif found.low is not None and found.high is not None and found.low > found.high:
                low, high = value.split("..")
                problems.append(f"{facet}:{value}: a range from high to low, read as {facet}:{high}..{low}")
                ranges.append(replace(found, low=found.high, high=found.low))
            else:
                ranges.append(found)
        elif facet in VALUE_FIELDS:
            if raw.strip():
                values.append((facet, " ".join(raw.split()), negated))
            else:
                unreadable = True
                problems.append(f'{facet}: needs a value ({facet}:"...")')
        elif facet == "related":
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
            unreadable = True
            problems.append(f"status:{value}: a status is made of letters or digits")
        else:
            unreadable = unreadable or facet in ("has", "is")
            choices = {"has": HAS, "is": IS, "sort": SORTS, "match": MATCHES}[facet]
            problems.append(f"{facet}:{value} (try {', '.join(f'{facet}:{c}' for c in choices)})")
        return " "

    rest = " ".join(FACET.sub(take, text).split())
    if rest and set(rest.split()) <= OPERATORS and FACET.search(text):
        rest = ""  # `rating:>=7 OR` while `OR inst:mit` is still being typed: the filters, not nothing
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
        tuple(ranges),
        tuple(values),
        unreadable,
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
