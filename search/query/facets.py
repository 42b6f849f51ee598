"""Filters and sort order inside the query: list:NAME venue:WORD status:oral has:code is:bookmarked
is:unread sort:name, and related:ID (the papers most like that one). They are taken out of the text before it is searched; values of one facet
are alternatives (list:a list:b), different facets must all hold. A leading - negates (-has:code)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from search.corpus.formats.common import STATUSES

FACET = re.compile(r'(?<![^\s(])(-?)(list|venue|status|has|is|sort|related):("[^"]*"|[^\s()]+)', re.I)
HAS = ("code",)
IS = ("bookmarked", "unread", "read")
SORTS = ("relevance", "order", "name")


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

    @property
    def filters(self) -> bool:
        return bool(self.lists or self.venues or self.statuses or self.flags or self.excluded_lists)

    @property
    def needs_marks(self) -> bool:
        return any(flag.startswith("is:") for flag, _ in self.flags)


def split_facets(text: str) -> tuple[str, Facets]:
    """The query without its facets, and the facets."""
    lists: list[str] = []
    excluded_lists: list[str] = []
    venues: list[str] = []
    statuses: list[str] = []
    flags: list[tuple[str, bool]] = []
    problems: list[str] = []
    sort = "relevance"
    related = None

    def take(match: re.Match[str]) -> str:
        nonlocal sort, related
        negated, facet, value = match.group(1) == "-", match.group(2).lower(), match.group(3).strip('"').lower()
        if facet == "related":
            related = match.group(3).strip('"')  # ids are case-sensitive
        elif facet == "list":
            (excluded_lists if negated else lists).append(value)
        elif facet == "venue":
            venues.append(value)
        elif facet == "status" and value in STATUSES:
            statuses.append(value)
        elif facet == "has" and value in HAS:
            flags.append((f"has:{value}", not negated))
        elif facet == "is" and value in IS:
            flag = "is:unread" if value in ("unread", "read") else f"is:{value}"
            flags.append((flag, (value != "read") != negated))
        elif facet == "sort" and value in SORTS:
            sort = value
        else:
            choices = {"status": STATUSES, "has": HAS, "is": IS, "sort": SORTS}[facet]
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
    )
    return rest, facets


def facet_tokens(text: str) -> list[str]:
    return [match.group(0) for match in FACET.finditer(text)]


def toggle(text: str, token: str) -> str:
    """The query with `token` (e.g. has:code) added, or removed when it is there; a new sort:
    replaces the old one."""
    facet = token.split(":", 1)[0].lower()
    words = text.split()
    if token.lower() in (word.lower() for word in words):
        return " ".join(word for word in words if word.lower() != token.lower())
    if facet in ("sort", "list"):
        words = [word for word in words if not word.lower().startswith(f"{facet}:")]
    return " ".join([*words, token])
