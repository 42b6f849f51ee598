"""Statistics over a set of papers (the loaded lists, or a query's matches): how the ratings fall by
decision, the share accepted per rating, the institutions, countries, keywords and areas that come
up most, and citations by decision. Plain numbers, worked out from the papers alone: the stats
screen draws them and `iclr-reader stats --json` prints them, so the two always agree."""

from __future__ import annotations

import math
import statistics
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, field

from search.corpus.formats.common import status_key
from search.models import Paper

TOP = 10
"""Institutions, countries, keywords and areas listed, at most."""
ACCEPTED = frozenset({"oral", "spotlight", "poster", "accept", "accepted", "highlight", "award", "best-paper"})
"""Decisions that mean the paper was accepted (status: keys)."""
NO_DECISION = "none"


@dataclass(frozen=True)
class RatingBucket:
    """The papers whose mean rating is from `low` up to (not including) `low + 1`."""

    low: int
    papers: int
    accepted: int
    by_decision: dict[str, int]

    @property
    def accepted_share(self) -> float | None:
        return self.accepted / self.papers if self.papers else None


@dataclass(frozen=True)
class Citations:
    decision: str
    papers: int
    """Papers with a known count."""
    median: float
    mean: float


@dataclass(frozen=True)
class Stats:
    papers: int
    rated: int
    """Papers with a mean rating."""
    decisions: list[tuple[str, int]]
    """Each decision (status: key, "none" without one) with its papers, most first."""
    ratings: list[RatingBucket] = field(default_factory=list)
    institutions: list[tuple[str, int]] = field(default_factory=list)
    """Papers with an author there, most first."""
    accepted_institutions: list[tuple[str, int]] = field(default_factory=list)
    countries: list[tuple[str, int]] = field(default_factory=list)
    accepted_countries: list[tuple[str, int]] = field(default_factory=list)
    keywords: list[tuple[str, int]] = field(default_factory=list)
    areas: list[tuple[str, int]] = field(default_factory=list)
    citations: list[Citations] = field(default_factory=list)

    def as_json(self) -> dict:
        """The numbers as JSON values (pairs as [name, count], shares rounded to 4 places)."""
        data = asdict(self)
        for bucket, source in zip(data["ratings"], self.ratings, strict=True):
            share = source.accepted_share
            bucket["accepted_share"] = None if share is None else round(share, 4)
        for key in ("decisions", "institutions", "accepted_institutions", "countries", "accepted_countries"):
            data[key] = [list(pair) for pair in data[key]]
        data["keywords"] = [list(pair) for pair in data["keywords"]]
        data["areas"] = [list(pair) for pair in data["areas"]]
        return data


def decision_of(paper: Paper) -> str:
    return status_key(paper.status, paper.track) or NO_DECISION


def compute(papers: Sequence[Paper]) -> Stats:
    """The statistics of these papers."""
    decisions = Counter(decision_of(paper) for paper in papers)
    buckets: dict[int, Counter[str]] = {}
    for paper in papers:
        if paper.rating is not None:
            low = max(0, min(10, math.floor(paper.rating)))
            buckets.setdefault(low, Counter())[decision_of(paper)] += 1
    ratings = [
        RatingBucket(
            low,
            sum(counts.values()),
            sum(count for decision, count in counts.items() if decision in ACCEPTED),
            dict(_most(counts.items())),
        )
        for low, counts in sorted(buckets.items())
    ]
    accepted = [paper for paper in papers if decision_of(paper) in ACCEPTED]
    cited: dict[str, list[int]] = {}
    for paper in papers:
        if paper.citations is not None:
            cited.setdefault(decision_of(paper), []).append(paper.citations)
    citations = [
        Citations(decision, len(counts), float(statistics.median(counts)), round(sum(counts) / len(counts), 2))
        for decision, counts in sorted(cited.items(), key=lambda item: (-len(item[1]), item[0]))
    ]
    return Stats(
        papers=len(papers),
        rated=sum(bucket.papers for bucket in ratings),
        decisions=_most(decisions.items()),
        ratings=ratings,
        institutions=_top(papers, _institutions),
        accepted_institutions=_top(accepted, _institutions),
        countries=_top(papers, _countries),
        accepted_countries=_top(accepted, _countries),
        keywords=_top(papers, lambda paper: {keyword.casefold() for keyword in paper.keywords}),
        areas=_top(papers, lambda paper: {paper.facts.area} if paper.facts.area else set()),
        citations=citations,
    )


def _institutions(paper: Paper) -> set[str]:
    return _parts(paper.facts.institutions)


def _countries(paper: Paper) -> set[str]:
    return _parts(paper.facts.countries)


def _parts(per_author: Iterable[str]) -> set[str]:
    return {part for value in per_author for part in value.split(" + ") if part}


def _top(papers: Iterable[Paper], values) -> list[tuple[str, int]]:
    """The values papers have most (each paper counted once per value), at most TOP."""
    counts: Counter[str] = Counter()
    for paper in papers:
        counts.update(values(paper))
    return _most(counts.items())[:TOP]


def _most(items: Iterable[tuple[str, int]]) -> list[tuple[str, int]]:
    return sorted(items, key=lambda item: (-item[1], item[0]))
