"""More like my bookmarks: the papers most similar to the user's bookmarks, each with the bookmark it
is closest to.

Each bookmark (the most recent MAX_BOOKMARKS that are in the loaded lists) ranks the library by
similarity, as related papers do (related.py: its distinctive words as a weighted query); `fuse`
combines those rankings into one. It takes rankings, not scores, so another similarity (by meaning)
joins by adding its rankings for the same bookmarks: fusion by rank needs no common scale.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from search.query.budget import Budget, SearchStopped

MAX_BOOKMARKS = 50
"""Bookmarks a recommendation starts from: the most recent ones (each costs one related-papers
ranking; the 51st oldest says little the newer 50 do not)."""
DEPTH = 100
"""Papers read of each bookmark's ranking: further down, a paper shares few of its words."""
FUSION_K = 60
"""Reciprocal rank fusion's constant: a place in a ranking is worth 1 / (FUSION_K + place)."""


@dataclass(frozen=True, slots=True)
class Recommended:
    """A paper recommended, its fused score, and the bookmark (its paper id) it is most like."""

    paper_id: str
    score: float
    closest: str


@dataclass(frozen=True, slots=True)
class Recommendations:
    """The recommended papers, best first, and what they came from."""

    hits: tuple[Recommended, ...]
    used: tuple[str, ...]
    """The bookmarks ranked from (paper ids as loaded), newest first."""
    left_out: int = 0
    """Older bookmarks past MAX_BOOKMARKS, not ranked from."""
    not_loaded: int = 0
    """Bookmarks whose paper is in no loaded list (nothing to compare with)."""
    notice: str | None = None
    """Why the list may be short: the search was stopped (time, cancel) before every bookmark."""
    compared: int = 0
    """How many of `used` the hits come from: all of them, unless stopped or a partial result."""


def fuse(rankings: Iterable[tuple[str, Sequence[str]]], excluded: Iterable[str] = ()) -> list[Recommended]:
    """One ranking from many. Each (bookmark, papers best first) gives its papers 1 / (FUSION_K +
    place) under that bookmark; several rankings for one bookmark (by words, by meaning) add up
    under it (reciprocal rank fusion). Across bookmarks a paper is as good as under the bookmark it
    is most like, which is its closest: each bookmark's best picks come first, in turn, so three
    RL bookmarks among five on diffusion still see their papers at the top (summing over bookmarks
    instead let papers sharing common words with many bookmarks crowd the top: measured on
    iclr2018 with colm2025, see docs/ARCHITECTURE.md). Equals go first when like more bookmarks
    (their shares summed), then in the order met (the newest bookmark's best first), so the order
    is stable. `excluded` papers (bookmarked, removed) never come out."""
    skip = set(excluded)
    per_paper: dict[str, dict[str, float]] = {}  # paper -> bookmark -> share, in the order met
    for bookmark, papers in rankings:
        # Places counted among the papers that can come out: a bookmark whose nearest papers are
        # bookmarked already still offers its best remaining one first.
        for place, paper_id in enumerate((paper for paper in papers if paper not in skip), start=1):
            shares = per_paper.setdefault(paper_id, {})
            shares[bookmark] = shares.get(bookmark, 0.0) + 1.0 / (FUSION_K + place)
    ranked = []
    for paper_id, shares in per_paper.items():
        closest = max(shares, key=shares.__getitem__)  # max keeps the first of equals
        ranked.append((shares[closest], sum(shares.values()), Recommended(paper_id, shares[closest], closest)))
    ranked.sort(key=lambda item: (-item[0], -item[1]))  # stable: equals stay in the order met
    return [hit for _, _, hit in ranked]


def recommend(
    bookmarks: Sequence[str],
    excluded: Iterable[str],
    similarities: Sequence[Callable[[str, int, Budget], Sequence[str]]],
    known: Callable[[str], bool],
    limit: int,
    budget: Budget,
    on_partial: Callable[[Recommendations], None] | None = None,
) -> Recommendations:
    """The papers most like `bookmarks` (paper ids, newest first, as loaded), never one of
    `excluded`. Each of `similarities` (by words today; by meaning may join) is called as
    `similarity(bookmark, depth, budget)` and gives the papers most like one bookmark, best first;
    `fuse` combines them all. `known` says whether a bookmark's paper is loaded. A budget that runs
    out keeps the rankings made so far, with a notice. `on_partial` is given the result so far after the 1st,
    2nd, 4th, 8th, ... bookmark (at 100,000 papers each takes a fraction of a second, so 50 take a
    while: a screen can show the first ones meanwhile)."""
    loaded = [paper_id for paper_id in dict.fromkeys(bookmarks) if known(paper_id)]
    used = tuple(loaded[:MAX_BOOKMARKS])
    skip = {*excluded, *bookmarks}
    rankings: list[tuple[str, Sequence[str]]] = []

    def result(notice: str | None = None, compared: int = 0) -> Recommendations:
        hits = tuple(fuse(rankings, skip)[:limit])
        not_loaded = len(set(bookmarks)) - len(loaded)
        return Recommendations(hits, used, len(loaded) - len(used), not_loaded, notice, compared)

    for compared, bookmark in enumerate(used):
        try:
            found = [(bookmark, similarity(bookmark, DEPTH, budget)) for similarity in similarities]
        except SearchStopped as stopped:  # this bookmark's rankings all or none: fused alike
            return result(f"{stopped.hint}: compared with {compared} of {len(used)} bookmarks", compared)
        rankings += found
        done = compared + 1
        if on_partial is not None and done < len(used) and done & (done - 1) == 0:  # 1, 2, 4, 8, ...
            on_partial(result(compared=done))
    return result(compared=len(used))
