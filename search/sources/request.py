"""What `get` is asked for: a source (paperlists, OpenReview, arXiv), its target and the list's name.

Names: a paperlists list is named as the file (`iclr2025`, `nips2024`); an OpenReview list after its
venue id (`ICLR.cc/2025/Conference` -> `iclr2025-openreview`, with `--all` `iclr2025-openreview-all`);
an arXiv list after its query (`cat:cs.LG AND ti:diffusion` -> `arxiv-cat-cs.lg-and-ti-diffusion`).
`--name` overrides any of them."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from search.errors import SourceError
from search.sources import catalogue

PAPERLISTS, OPENREVIEW, ARXIV = "paperlists", "openreview", "arxiv"
KINDS = (PAPERLISTS, OPENREVIEW, ARXIV)

Progress = Callable[[int, int | None, str], None]
"""Called as (done, total or None, unit) while a list downloads; unit is "bytes" or "papers". It may
raise (KeyboardInterrupt included) to stop the download, leaving the library as it was."""

_YEAR = re.compile(r"^(?:19|20)\d\d$")
_NAME_LIMIT = 64


@dataclass(frozen=True)
class ListRequest:
    kind: str
    """paperlists, openreview or arxiv."""
    target: str
    """A paperlists name (iclr2025), an OpenReview venue id, or an arXiv query."""
    name: str
    """The list's name in the library."""
    all_submissions: bool = False
    """OpenReview: every submission (invitation=<venue>/-/Submission), not only accepted papers."""
    max_results: int | None = None
    """arXiv: how many results at most."""
    reviews: bool = False
    """OpenReview: each forum's reviews, meta-review and decision fetched too (search/sources/reviews.py)."""

    @property
    def spec(self) -> str:
        """As typed on the command line: iclr2025, openreview:VENUE, arxiv:QUERY."""
        return self.target if self.kind == PAPERLISTS else f"{self.kind}:{self.target}"

    @property
    def file_name(self) -> str:
        """The list file's name in the library (stable across updates; it can say the venue)."""
        return f"{default_name(self.kind, self.target, self.all_submissions)}.json"


def parse_request(
    spec: str,
    name: str | None = None,
    all_submissions: bool = False,
    max_results: int | None = None,
    reviews: bool = False,
) -> ListRequest:
    """A ListRequest from the command line's words. Raises SourceError for what cannot be asked."""
    kind, colon, rest = spec.partition(":")
    kind = kind.strip().lower()
    if colon and kind in (OPENREVIEW, ARXIV):
        target = rest.strip()
        if not target:
            example = "ICLR.cc/2025/Conference" if kind == OPENREVIEW else '"cat:cs.LG AND ti:diffusion"'
            raise SourceError(f"{spec!r}: say what to get after {kind}:, e.g. {kind}:{example}")
    else:
        parts = catalogue.split(spec.strip())
        if parts is None:
            raise SourceError(
                f"{spec!r} is not a paperlists name like iclr2025 (`get --available` lists them), "
                "nor openreview:VENUE_ID or arxiv:QUERY"
            )
        kind, target = PAPERLISTS, f"{parts[0]}{parts[1]}"
    if all_submissions and kind != OPENREVIEW:
        raise SourceError(f"--all is for OpenReview venues (openreview:VENUE_ID), not {spec!r}")
    if reviews and kind != OPENREVIEW:
        raise SourceError(f"--reviews is for OpenReview venues (openreview:VENUE_ID), not {spec!r}")
    if max_results is not None and kind != ARXIV:
        raise SourceError(f"--max is for arXiv queries (arxiv:QUERY), not {spec!r}")
    if max_results is not None and max_results < 1:
        raise SourceError(f"--max must be at least 1, not {max_results}")
    name = name or default_name(kind, target, all_submissions)
    return ListRequest(kind, target, name, all_submissions, max_results, reviews)


def default_name(kind: str, target: str, all_submissions: bool = False) -> str:
    if kind == PAPERLISTS:
        return target
    if kind == OPENREVIEW:
        return _openreview_name(target, all_submissions)
    return _fit(_slug(f"arxiv-{target}"), "")


def _openreview_name(venue: str, all_submissions: bool) -> str:
    """ICLR.cc/2025/Conference -> iclr2025-openreview; a workshop or track keeps its other parts. A venue
    named between its organisation's domain and the year is named by that name, not the domain:
    colmweb.org/COLM/2024/Conference -> colm2024-openreview."""
    invitation = "/-/" in venue
    parts = [part for part in venue.split("/-/")[0].split("/") if part]
    if not parts:
        return _fit("openreview", "-all" if all_submissions or invitation else "")
    organisation = parts[0].split(".")[0]
    year = next((part for part in parts[1:] if _YEAR.match(part)), "")
    named = parts[1 : parts.index(year)] if year else []
    if named:  # the venue's own name (COLM, CoRL, UAI): the domain it is under adds nothing
        organisation, parts = named[0], [parts[0], *named[1:], *parts[parts.index(year) :]]
    rest = [part for part in parts[1:] if part != year and part.lower() != "conference"]
    suffix = "-openreview" + ("-all" if all_submissions or invitation else "")
    return _fit(_slug("-".join([organisation + year, *rest])), suffix)


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9_.]+", "-", text.lower()).strip("-._") or "list"


def _fit(base: str, suffix: str) -> str:
    return base[: _NAME_LIMIT - len(suffix)].rstrip("-._") + suffix


__all__ = ["ARXIV", "KINDS", "OPENREVIEW", "PAPERLISTS", "ListRequest", "Progress", "default_name", "parse_request"]
