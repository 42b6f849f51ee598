"""More like my bookmarks: papers like the bookmarks, each with the bookmark it is closest to."""

import threading

import pytest

from search.query import recommend as recommend_module
from search.query.recommend import MAX_BOOKMARKS, fuse

TOPICS = {
    "diffusion": "denoising diffusion score sampler noise schedule image generation",
    "bandits": "bandit regret exploration arms reward optimism confidence bound",
    "graphs": "graph message passing node edge neighbourhood aggregation",
}
FILLER = "we study the problem and report experiments on benchmarks with strong results"


def record(paper_id: str, topic: str, extra: str = "") -> dict:
    return {
        "id": paper_id,
        "title": f"{topic.title()} paper {paper_id}",
        "abstract": f"{TOPICS[topic]} {extra} {FILLER}.",
    }


@pytest.fixture
def library(engine_over):
    """Four papers on each of three topics, and 24 on other things (a word in more than a fifth of
    the papers says nothing about likeness)."""
    records = [record(f"{topic[0]}{n}", topic, f"variant{n}") for topic in TOPICS for n in range(4)]
    records += [
        {"id": f"x{n}", "title": f"Other {n}", "abstract": f"subject{n} matter{n} {FILLER}."} for n in range(24)
    ]
    return engine_over({"lib.json": records})


def test_recommended_papers_are_like_the_bookmarks_and_say_which(library):
    result = library.recommend(["d0", "b0"], limit=20)
    ids = [hit.paper_id for hit in result.hits]
    assert set(ids[:6]) == {"d1", "d2", "d3", "b1", "b2", "b3"}  # the bookmarks' topics before anything else
    closest = {hit.paper_id: hit.closest for hit in result.hits}
    assert {closest[p] for p in ("d1", "d2", "d3")} == {"d0"}
    assert {closest[p] for p in ("b1", "b2", "b3")} == {"b0"}
    assert result.used == ("d0", "b0") and result.left_out == 0 and result.not_loaded == 0


def test_bookmarked_and_removed_papers_never_come_back(library):
    result = library.recommend(["d0", "d1"], removed=["d2", "g0"], limit=20)
    ids = [hit.paper_id for hit in result.hits]
    assert ids and not {"d0", "d1", "d2", "g0"} & set(ids)
    assert ids[0] == "d3"  # the one diffusion paper left


def test_removed_bookmarks_are_not_compared_with(library):
    result = library.recommend(["b0"], removed=["d0"], limit=20)
    assert {hit.closest for hit in result.hits} == {"b0"}
    assert [hit.paper_id for hit in result.hits][:3] != ["d1", "d2", "d3"]


def test_the_order_is_stable(library):
    first = library.recommend(["g0", "d0", "b0"], limit=20)
    again = library.recommend(["g0", "d0", "b0"], limit=20)
    assert first == again
    assert [hit.score for hit in first.hits] == sorted((hit.score for hit in first.hits), reverse=True)


def test_no_bookmarks_or_none_loaded_recommend_nothing(library):
    assert library.recommend([], limit=5).hits == ()
    result = library.recommend(["not-here"], limit=5)
    assert result.hits == () and result.not_loaded == 1 and result.used == ()


def test_the_most_recent_bookmarks_are_used_and_the_rest_counted(library, monkeypatch):
    monkeypatch.setattr(recommend_module, "MAX_BOOKMARKS", 2)
    result = library.recommend(["d0", "b0", "g0"], limit=20)
    assert result.used == ("d0", "b0") and result.left_out == 1
    assert "g0" not in {hit.closest for hit in result.hits}
    assert "g0" not in [hit.paper_id for hit in result.hits]  # still bookmarked: never recommended
    assert MAX_BOOKMARKS == 50


def test_a_cancelled_recommendation_says_so(library):
    cancel = threading.Event()
    cancel.set()
    result = library.recommend(["d0", "b0"], cancel=cancel)
    assert result.hits == () and "cancelled" in (result.notice or "")


def test_each_bookmarks_best_pick_comes_before_any_seconds():
    """Across bookmarks a paper counts at its best place: a topic with fewer bookmarks is not
    crowded out by one with many."""
    rankings = [("a", ["p1", "p2", "p3"]), ("b", ["p2", "p4", "p5"]), ("c", ["p6", "p2"])]
    fused = fuse(rankings, excluded=["p6"])
    assert [hit.paper_id for hit in fused[:2]] == ["p2", "p1"]  # first places; p2 is like all three
    assert fused[0].closest == "b" and fused[1].closest == "a"
    assert "p6" not in [hit.paper_id for hit in fused]
    assert next(hit for hit in fused if hit.paper_id == "p4").closest == "b"


def test_two_rankings_for_one_bookmark_add_up_under_it():
    """A second similarity (by meaning) joins by giving its own ranking for the same bookmark."""
    fused = fuse([("a", ["p1", "p2"]), ("b", ["p3"]), ("a", ["p2", "p1"]), ("b", ["p4"])])
    assert {hit.paper_id for hit in fused[:2]} == {"p1", "p2"}  # placed by both of a's rankings
    assert all(hit.closest == "a" for hit in fused[:2])


def test_opening_it_again_ranks_only_the_new_bookmarks(library, monkeypatch):
    ranked = []
    related = library._related

    def counting(paper_id, *args):
        ranked.append(paper_id)
        return related(paper_id, *args)

    monkeypatch.setattr(library, "_related", counting)
    first = library.recommend(["d0", "b0"], limit=20)
    assert sorted(ranked) == ["b0", "d0"]
    again = library.recommend(["d1", "d0", "b0"], limit=20)  # d1 bookmarked from the list
    assert sorted(ranked) == ["b0", "d0", "d1"]
    assert "d1" not in [hit.paper_id for hit in again.hits] and "d1" in [hit.paper_id for hit in first.hits]
    library.ensure_index(rebuild=True)  # another index: its rankings are made afresh
    library.recommend(["d0"], limit=20)
    assert ranked[-1] == "d0" and len(ranked) == 4


def test_partial_results_come_after_the_first_bookmarks(library):
    partial = []
    result = library.recommend(["d0", "b0", "g0", "d1", "b1"], limit=20, on_partial=partial.append)
    assert [p.compared for p in partial] == [1, 2, 4] and result.compared == 5
    assert {hit.closest for hit in partial[0].hits} == {"d0"}  # the newest bookmark's papers first
    assert all(p.used == result.used for p in partial)


def test_a_second_similarity_joins_the_fusion():
    """Where a ranking by meaning would join: one more similarity, ranked for every bookmark."""
    from search.query.budget import Budget
    from search.query.recommend import recommend

    def by_words(bookmark, depth, budget):
        return {"a": ["p1", "p2"], "b": ["p3"]}[bookmark]

    def by_meaning(bookmark, depth, budget):
        return {"a": ["p2", "p4"], "b": ["p3", "p5"]}[bookmark]

    words_only = recommend(["a", "b"], [], [by_words], lambda _: True, 10, Budget(None))
    both = recommend(["a", "b"], [], [by_words, by_meaning], lambda _: True, 10, Budget(None))
    assert [hit.paper_id for hit in words_only.hits] == ["p1", "p3", "p2"]
    assert [hit.paper_id for hit in both.hits][:2] == ["p3", "p2"]  # first or second by both
    assert {"p4", "p5"} <= {hit.paper_id for hit in both.hits} and both.compared == 2
