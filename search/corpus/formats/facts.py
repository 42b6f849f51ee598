"""What a record says beyond a paper's text, read from paperlists-style fields (the JSON records, and
CSV columns of the same names): reviews (rating, confidence, rating_avg), people (or_profile, aff,
aff_unique_norm with aff_unique_index, aff_country_unique, position, homepage, dblp,
google_scholar, orcid), citations (gs_citation, gs_cited_by_link), tldr, primary_area, session, oa
and the venue's bibtex. See ../shared/notes/paperlists-fields.md for the shapes.

Every value is checked and sanitised here (text through `common`); what is absent or unreadable
stays absent: `rating_avg` of `[0, 0]` or `0` means no public reviews, `gs_citation` of -1 an
unknown count."""

from __future__ import annotations

import marshal
import math
import re
from collections.abc import Callable
from typing import Any

from search.corpus.formats import common
from search.models import NO_FACTS, Facts, LazyFacts
from search.text.sanitize import sanitize

_NUMBER = re.compile(r"\s*(-?\d+(?:\.\d+)?)")
_MAX_REVIEWERS = 64
_SEVERAL = " + "
PLACEHOLDERS = {"title": "title", "abstract": "abstract"}
"""A record whose fields are their own names (iclr2018's withdrawn "title"/"abstract") is a
placeholder, not a paper."""


def is_placeholder(get: Callable[[str], Any]) -> bool:
    """True for a record whose title or abstract is its own field's name."""
    for name, word in PLACEHOLDERS.items():
        value = get(name)
        if (
            isinstance(value, str)
            # Not a copy of every abstract stripped: a long value without whitespace at either end is none.
            and (len(value) < _SHORT or value[0].isspace() or value[-1].isspace())
            and value.strip().casefold() == word
        ):
            return True
    return False


_SHORT = 64


def read(get: Callable[[str], Any], authors: int) -> tuple[float | None, int | None, Facts]:
    """(mean rating, citations, the rest) from a record's fields (`get(name)` gives a field's raw
    value, None when absent); `authors` is how many authors the paper has, which the per-author
    fields are aligned to."""
    ratings, rating, spread = _rating(get)
    confidences = numbers(get("confidence"))
    confidence, _ = mean_and_spread(get("confidence_avg"))
    if confidence is None and confidences:
        confidence = _mean(confidences)
    citations = _count(get("gs_citation"))
    ids = per_author(get("or_profile"), authors)
    if not any(ids):
        ids = per_author(get("authorids"), authors)
    ids = tuple(one if one.startswith("~") else "" for one in ids)  # emails are not person ids
    affiliations = tuple(_several(one) for one in per_author(get("aff"), authors))
    institutions = indexed(get("aff_unique_norm"), get("aff_unique_index"), affiliations, authors) or affiliations
    facts = Facts(
        ratings=ratings,
        confidences=confidences,
        rating_std=spread,
        confidence_avg=confidence,
        author_ids=_kept(ids),
        affiliations=_kept(affiliations),
        institutions=_kept(institutions),
        abbreviations=_kept(indexed(get("aff_unique_abbr"), get("aff_unique_index"), affiliations, authors)),
        countries=_kept(indexed(get("aff_country_unique"), get("aff_country_unique_index"), affiliations, authors)),
        positions=_kept(per_author(get("position"), authors)),
        homepages=_kept(tuple(_url(one) for one in per_author(get("homepage"), authors))),
        dblp=_kept(per_author(get("dblp"), authors)),
        scholar=_kept(per_author(get("google_scholar"), authors)),
        orcid=_kept(per_author(get("orcid"), authors)),
        cited_by=_url(get("gs_cited_by_link")) or None,
        tldr=common.text(get("tldr")) or common.text(get("TL;DR")),
        area=common.text(get("primary_area")),
        session=common.text(get("session")),
        landing=_url(get("oa")) or None,
        bibtex=_bibtex(get("bibtex")),
    )
    return rating, citations, facts if facts != NO_FACTS else NO_FACTS


def read_later(record: dict[str, Any], authors: int) -> tuple[float | None, int | None, Facts | LaterFacts]:
    """As `read` of the record's fields, but the facts beyond the rating, the citations and the
    TL;DR are read when first asked for (Paper.facts): a list's reviews and people were half of
    parsing it (the 17 real lists: 0.45 of 1.0 s of CPU), and a start shows none of them."""
    values = {name: record[name] for name in record.keys() & _FIELD_SET if record[name] is not None}
    if not values:
        return None, None, NO_FACTS
    _, rating, _ = _rating(values.get)
    tldr = common.text(values.get("tldr")) or common.text(values.get("TL;DR"))
    return rating, _count(values.get("gs_citation")), LaterFacts(values, authors, tldr)


class LaterFacts(LazyFacts):
    """A paper's facts as its record's raw fields, read (checked and sanitised) the first time they
    are asked for."""

    __slots__ = ("_authors",)

    def __init__(self, values: dict[str, Any], authors: int, tldr: str | None) -> None:
        super().__init__(values, tldr)
        self._authors = authors

    def _make(self, source) -> Facts:
        return read(source.get, self._authors)[2]

    def unmade(self) -> tuple[dict[str, Any], int] | None:
        """The record's raw fields and its number of authors while the facts are not made yet, else
        None: what a list's parsed entry keeps (parsed.py), so writing it makes no facts."""
        source = self._source
        return None if source is None else (source, self._authors)  # type: ignore[return-value]


class SavedLaterFacts(LazyFacts):
    """LaterFacts as a list's parsed entry keeps them (snapshot.py): the record's raw fields and its
    number of authors marshalled, the venue's BibTeX entry as the record gives it kept on disk (a
    Kept, or None), read and checked as LaterFacts reads them the first time they are asked for.
    Writing the entry made every paper's facts before: at 10,749 real records, three quarters of
    the 0.6 s the entries cost, which a cold start's other process paid while this one waited."""

    __slots__ = ("_bibtex",)

    def __init__(self, row: bytes, bibtex: object = None, tldr: str | None = None) -> None:
        super().__init__(row, tldr)
        self._bibtex = bibtex

    def _make(self, source) -> Facts:
        values, authors = marshal.loads(source)
        if self._bibtex is not None:
            values["bibtex"] = str(self._bibtex)
        return read(values.get, authors)[2]


FIELDS = (
    *("rating", "confidence", "rating_avg", "confidence_avg", "gs_citation", "or_profile", "authorids", "aff"),
    *("aff_unique_norm", "aff_unique_index", "aff_unique_abbr", "aff_country_unique", "aff_country_unique_index"),
    *("position", "homepage", "dblp", "google_scholar", "orcid", "gs_cited_by_link", "tldr", "TL;DR"),
    *("primary_area", "session", "oa", "bibtex"),
)
"""Every field `read` reads."""
_FIELD_SET = frozenset(FIELDS)


def _rating(get: Callable[[str], Any]) -> tuple[tuple[float, ...], float | None, float | None]:
    """The reviewers' scores, their mean and spread."""
    ratings = numbers(get("rating"))
    rating, spread = mean_and_spread(get("rating_avg"))
    if rating is None and ratings:
        rating, spread = _mean(ratings), _spread(ratings)
    elif rating is not None and spread is None and len(ratings) > 1:
        spread = _spread(ratings)
    return ratings, rating, spread


def numbers(value: Any) -> tuple[float, ...]:
    """Reviewers' scores from "4;5;6" (or "6: marginally above" parts, or a list of numbers)."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        parts: list[Any] = [value]
    elif isinstance(value, str):
        parts = value.split(";")[:_MAX_REVIEWERS]
    elif isinstance(value, list):
        parts = value[:_MAX_REVIEWERS]
    else:
        return ()
    found = []
    for part in parts:
        number = _number(part)
        if number is not None:
            found.append(number)
    return tuple(found)


def mean_and_spread(value: Any) -> tuple[float | None, float | None]:
    """rating_avg as lists write it: a number, or [mean, std]; 0, [0, 0] and "" are no reviews."""
    if isinstance(value, list) and value:
        mean = _number(value[0])
        spread = _number(value[1]) if len(value) > 1 else None
    else:
        mean, spread = _number(value), None
    if not mean:  # None, or 0: no public reviews
        return None, None
    return mean, spread


def per_author(value: Any, authors: int) -> tuple[str, ...]:
    """A `;`-joined per-author field, one entry per author ("" where it is empty); () when it has
    nothing at all or does not match the authors."""
    if isinstance(value, list):
        parts = [part if isinstance(part, str) else "" for part in value]
    elif isinstance(value, str) and value.strip(" ;"):
        parts = value.split(";")
    else:
        return ()
    if not authors or len(parts) < authors:
        parts += [""] * (authors - len(parts))
    found = tuple(common.text(part) or "" for part in parts[:authors])
    return found if any(found) else ()


def indexed(names: Any, index: Any, affiliations: tuple[str, ...], authors: int) -> tuple[str, ...]:
    """Per author, from de-duplicated names ("A;B;C") and each author's indices into them
    ("0;1;0+2"): several joined with " + "; () when the fields are missing or do not fit. Some
    lists index only the authors with an affiliation: then the entries go to those authors."""
    if not isinstance(names, str) or not isinstance(index, str) or not names.strip(" ;"):
        return ()
    unique = [common.text(name) or "" for name in names.split(";")]
    entries = index.split(";")
    with_affiliation = [at for at, one in enumerate(affiliations) if one]
    if len(entries) < authors and len(entries) == len(with_affiliation):
        spread = [""] * authors
        for at, entry in zip(with_affiliation, entries, strict=True):
            spread[at] = entry
        entries = spread
    found = []
    for entry in entries[:authors]:
        picked = []
        for number in entry.split("+"):
            try:
                at = int(number)
            except ValueError:
                continue
            if 0 <= at < len(unique) and unique[at] and unique[at] not in picked:
                picked.append(unique[at])
        found.append(_SEVERAL.join(picked))
    found += [""] * (authors - len(found))
    return tuple(found) if any(found) else ()


def _several(value: str) -> str:
    """ "A + B" written however the list writes it ("A+B")."""
    return _SEVERAL.join(part.strip() for part in value.split("+") if part.strip()) if "+" in value else value


def _kept(values: tuple[str, ...]) -> tuple[str, ...]:
    return values if any(values) else ()


def _number(value: Any) -> float | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        number = float(value)
    elif isinstance(value, str):
        match = _NUMBER.match(value)
        if not match:
            return None
        number = float(match.group(1))
    else:
        return None
    return number if math.isfinite(number) and abs(number) < 1e6 else None


def _count(value: Any) -> int | None:
    """A citation count; None for -1 (unknown) and anything that is not a count."""
    number = _number(value)
    if number is None or number < 0 or number != int(number):
        return None
    return int(number)


def _mean(values: tuple[float, ...]) -> float:
    return sum(values) / len(values)


def _spread(values: tuple[float, ...]) -> float:
    """The population standard deviation, as the lists compute theirs."""
    mean = _mean(values)
    return math.sqrt(sum((value - mean) ** 2 for value in values) / len(values))


def _url(value: Any) -> str:
    urls = [url for url in (common.addresses(value) or "").split() if url.startswith(("http://", "https://"))]
    return urls[0] if urls else ""


def _bibtex(value: Any) -> str | None:
    entry = sanitize(value).strip() if isinstance(value, str) else None  # multi-line text, sanitised
    return entry if entry and entry.startswith("@") else None
