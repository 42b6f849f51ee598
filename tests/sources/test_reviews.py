"""`get openreview:VENUE --reviews` against the local server: each forum's replies in API v2 shapes
(ratings as "8: accept, good paper" strings and as integers, missing fields, a withdrawn paper with
none), read into the list's numbers and decisions and a side file of the reviews' text; politely
(429 with Retry-After waited for) and resumably (a stopped run asks again only for what it missed)."""

from __future__ import annotations

import json

import pytest

from search import SourceError, get_list, has_reviews, load_corpus, parse_request, reviews_of, update_list
from search.sources import reviews
from tests.sources.server import snapshot
from tests.sources.test_openreview import VENUE, note

PREFIX = "ICLR.cc/2025/Conference/Submission"


def reply(forum: str, number: int, kind: str, by: str, content: dict, wrap: bool = True) -> dict:
    return {
        "id": f"{forum}-{kind}-{by}",
        "forum": forum,
        "replyto": forum,
        "invitations": [f"{PREFIX}{number}/-/{kind}", "ICLR.cc/2025/Conference/-/Edit"],
        "signatures": [f"{PREFIX}{number}/{by}"],
        "content": {key: {"value": value} for key, value in content.items()} if wrap else content,
    }


def review(forum, number, by, rating, confidence, **more) -> dict:
    content = {"summary": f"{by} summarises {forum}.", "strengths": "Clear.", "weaknesses": "Small."}
    if rating is not None:
        content["rating"] = rating
    if confidence is not None:
        content["confidence"] = confidence
    return reply(forum, number, "Official_Review", by, {**content, **more})


def forums() -> dict[str, list[dict]]:
    """Three papers: string ratings with an oral decision, integer ratings (one review without any)
    with a reject, and a withdrawn paper with no reviews at all."""
    zero, one, two = "forum0000", "forum0001", "forum0002"
    return {
        zero: [
            note(0, "Submitted to ICLR 2025"),
            review(zero, 0, "Reviewer_a1", "8: accept, good paper", "4: You are confident in your assessment"),
            review(zero, 0, "Reviewer_b2", "6: marginally above the acceptance threshold", "3: fairly confident"),
            review(zero, 0, "Reviewer_c3", "8: accept, good paper", "5: absolutely certain", soundness="3 good"),
            reply(zero, 0, "Official_Comment", "Authors", {"comment": "Thanks!"}),
            reply(zero, 0, "Meta_Review", "Area_Chair_x", {"metareview": "Strong paper.", "recommendation": "Accept"}),
            reply(zero, 0, "Decision", "Program_Chairs", {"decision": "Accept (Oral)", "comment": "Congrats."}),
        ],
        one: [
            note(1, "Submitted to ICLR 2025"),
            review(one, 1, "Reviewer_d4", 3, 4),
            review(one, 1, "Reviewer_e5", 5, 3),
            review(one, 1, "Reviewer_f6", None, None),  # no rating, no confidence: left out of the numbers
            reply(one, 1, "Decision", "Program_Chairs", {"decision": "Reject"}),
        ],
        two: [
            note(2, "Withdrawn Submission"),
            reply(two, 2, "Withdrawal", "Authors", {"withdrawal_confirmation": "I confirm."}),
        ],
    }


def serve(server, replies: dict[str, list[dict]], before=None) -> None:
    """The venue's notes (each forum's first) at /notes?content.venueid=..., a forum's at /notes?forum=..."""

    def respond(h):
        query = h.query
        if "forum" in query:
            if before is not None and before(h, query["forum"]):
                return
            notes = replies.get(query["forum"], [])
            h.json({"notes": notes, "count": len(notes)})
        else:
            papers = [notes[0] for notes in replies.values()]
            h.json({"notes": papers, "count": len(papers)})

    server.route("/openreview/notes", respond)


def forums_asked(server) -> list[str]:
    return [seen.query["forum"] for seen in server.seen if "forum" in seen.query]


def test_reviews_fill_ratings_confidences_and_decisions_and_keep_the_text(server, library):
    serve(server, forums())
    progress: list[tuple] = []
    got = get_list(parse_request(f"openreview:{VENUE}", reviews=True), on_progress=lambda *a: progress.append(a))
    assert got.papers == 3 and got.requests == 4  # one page of notes, then each of the 3 forums once
    assert forums_asked(server) == ["forum0000", "forum0001", "forum0002"]
    assert progress[-3:] == [(1, 3, "forums"), (2, 3, "forums"), (3, 3, "forums")]
    papers = {paper.id: paper for paper in load_corpus([got.path]).papers}
    oral, rejected, withdrawn = papers["forum0000"], papers["forum0001"], papers["forum0002"]
    assert oral.facts.ratings == (8.0, 6.0, 8.0) and oral.facts.confidences == (4.0, 3.0, 5.0)
    assert oral.rating == pytest.approx(22 / 3) and oral.status == "Oral"
    assert rejected.facts.ratings == (3.0, 5.0) and rejected.facts.confidences == (4.0, 3.0)
    assert rejected.rating == 4.0 and rejected.status == "Reject"
    assert withdrawn.rating is None and withdrawn.facts.ratings == () and withdrawn.status is None
    assert library.origin(got.name).reviews and has_reviews(got.path)

    kept = reviews_of(got.path, "forum0000")
    assert [(r.kind, r.by, r.rating, r.confidence) for r in kept.replies] == [
        ("review", "Reviewer_a1", 8.0, 4.0),
        ("review", "Reviewer_b2", 6.0, 3.0),
        ("review", "Reviewer_c3", 8.0, 5.0),
        ("meta-review", "Area_Chair_x", None, None),
        ("decision", "Program_Chairs", None, None),
    ]  # the authors' comment is not a review
    first = dict(kept.replies[0].sections)
    assert first["Summary"] == "Reviewer_a1 summarises forum0000." and first["Rating"] == "8: accept, good paper"
    assert list(dict(kept.replies[2].sections))[:2] == ["Summary", "Soundness"]  # OpenReview's order
    assert dict(kept.replies[3].sections)["Meta-review"] == "Strong paper." and kept.decision == "Accept (Oral)"
    assert reviews_of(got.path, "forum0002").replies == () and reviews_of(got.path, "nosuchforum") is None
    assert not list(reviews.cache_folder(got.host).glob("*.json"))  # the list is in: nothing left to resume


def test_a_429_with_retry_after_is_waited_for_then_asked_again(server, library, monkeypatch):
    from search.sources import http

    monkeypatch.setattr(http, "MAX_RETRY_WAIT", 5.0)
    refused: list[str] = []

    def once_too_many(h, forum):
        if forum == "forum0001" and not refused:
            refused.append(forum)
            h.answer(429, b"slow down", {"Retry-After": "1"})
            return True
        return False

    serve(server, forums(), once_too_many)
    got = get_list(parse_request(f"openreview:{VENUE}", reviews=True))
    assert forums_asked(server) == ["forum0000", "forum0001", "forum0001", "forum0002"]
    assert load_corpus([got.path]).papers[1].facts.ratings == (3.0, 5.0)


def test_a_stopped_run_leaves_the_library_as_it_was_and_the_next_asks_only_what_it_missed(server, library):
    serve(server, forums())
    before = snapshot(library.folder)

    def stop_after_two(done, total, unit):
        if unit == "forums" and done == 2:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        get_list(parse_request(f"openreview:{VENUE}", reviews=True), on_progress=stop_after_two)
    assert snapshot(library.folder) == before and forums_asked(server) == ["forum0000", "forum0001"]
    server.seen.clear()
    got = get_list(parse_request(f"openreview:{VENUE}", reviews=True))
    assert forums_asked(server) == ["forum0002"]  # the two read before came from the cache
    assert {paper.id: paper.facts.ratings for paper in load_corpus([got.path]).papers}["forum0000"] == (8.0, 6.0, 8.0)
    assert reviews_of(got.path, "forum0001").decision == "Reject"


def test_a_stopped_runs_forums_older_than_two_days_are_asked_for_again(server, library):
    import os

    serve(server, forums())

    def stop_after_one(done, total, unit):
        if unit == "forums" and done == 1:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        get_list(parse_request(f"openreview:{VENUE}", reviews=True), on_progress=stop_after_one)
    (cached,) = reviews.cache_folder(server.url.removeprefix("http://")).glob("*.json")
    old = cached.stat().st_mtime - reviews.CACHE_SECONDS - 60
    os.utime(cached, (old, old))
    server.seen.clear()
    get_list(parse_request(f"openreview:{VENUE}", reviews=True))
    assert forums_asked(server) == ["forum0000", "forum0001", "forum0002"]


def test_an_update_fetches_the_reviews_again_and_keeps_them_beside_the_list(server, library):
    replies = forums()
    serve(server, replies)
    got = get_list(parse_request(f"openreview:{VENUE}", reviews=True))
    replies["forum0002"].append(review("forum0002", 2, "Reviewer_g7", 7, 2))
    server.seen.clear()
    updated = update_list(got.name)
    assert updated.changed and forums_asked(server) == ["forum0000", "forum0001", "forum0002"]
    assert {paper.id: paper.facts.ratings for paper in load_corpus([updated.path]).papers}["forum0002"] == (7.0,)
    assert reviews_of(updated.path, "forum0002").replies[0].by == "Reviewer_g7"


def test_reviews_is_for_openreview_only():
    with pytest.raises(SourceError, match="--reviews is for OpenReview"):
        parse_request("iclr2025", reviews=True)


def test_hostile_replies_are_bounded_and_what_cannot_be_read_stays_absent():
    forum = "forum0009"
    notes = [
        review(forum, 9, "Reviewer_h8", "great", ["not", "a", "number"]),  # no leading number: absent
        review(forum, 9, "Reviewer_i9", True, {"deep": 1}),  # a bool is not a score
        review(forum, 9, "Reviewer_j0", 6, 4, weaknesses="x" * 100_000),  # long text is cut
        reply(forum, 9, "Official_Review", "Reviewer_k1", {"rating": 7, "confidence": 2}, wrap=False),  # v1: plain
        {"invitations": "not a list", "content": {}},
        "not a note",
        {"invitations": [f"{PREFIX}9/-/Official_Review"], "content": "not a dict"},
    ]
    found = reviews.read_replies(forum, notes)
    assert [(r.by, r.rating, r.confidence) for r in found.replies] == [
        ("Reviewer_h8", None, None),
        ("Reviewer_i9", None, None),
        ("Reviewer_j0", 6.0, 4.0),
        ("Reviewer_k1", 7.0, 2.0),
    ]
    assert found.ratings == (6.0, 7.0) and found.confidences == (4.0, 2.0)
    weaknesses = dict(found.replies[2].sections)["Weaknesses"]
    assert len(weaknesses) <= reviews.SECTION_CHARS + 2 and weaknesses.endswith("…")
    many = [review(forum, 9, f"Reviewer_{n}", 5, 3) for n in range(reviews.MAX_REPLIES + 10)]
    assert len(reviews.read_replies(forum, many).replies) == reviews.MAX_REPLIES
    assert reviews.read_replies(forum, {"not": "a list"}).replies == ()


def test_a_forum_answer_that_is_not_notes_is_one_line_and_saves_nothing(server, library):
    def broken(h, forum):
        if forum == "forum0001":
            h.json({"error": "no notes here"})
            return True
        return False

    serve(server, forums(), broken)
    with pytest.raises(SourceError, match=r'replies to forum0001 are not OpenReview notes \(no "notes" list'):
        get_list(parse_request(f"openreview:{VENUE}", reviews=True))
    assert library.find("iclr2025-openreview") is None


def test_the_side_file_is_never_taken_for_the_list(server, library):
    serve(server, forums())
    got = get_list(parse_request(f"openreview:{VENUE}", reviews=True))
    side = got.path.parent / ".reviews.jsonl"
    lines = side.read_text(encoding="utf-8").splitlines()
    assert len(lines) == 3 and json.loads(lines[0])["forum"] == "forum0000"
    assert library.find(got.name) == got.path  # the list file, not its reviews


def test_a_forums_line_is_found_first_last_or_not_at_all(tmp_path):
    from search.sources.reviews import ForumReviews, Reply

    list_file = tmp_path / "list.json"
    side = tmp_path / ".reviews.jsonl"
    side.write_bytes(b"")
    assert reviews_of(list_file, "a") is None  # an empty side file
    lines = [json.dumps(ForumReviews(forum, (Reply("review", "R", 5.0),)).to_json()) for forum in ("a", "ab", "b")]
    side.write_text("\n".join(lines), encoding="utf-8")  # the last line without its newline
    assert [reviews_of(list_file, forum).forum for forum in ("a", "ab", "b")] == ["a", "ab", "b"]
    assert reviews_of(list_file, "c") is None and reviews_of(list_file, "../a") is None
    side.write_text(
        '{"forum": "a", "replies": 5}\n{"forum": "b", broken\n'
        '{"forum": "c", "replies": [{"kind": "review", "sections": 7, "rating": "x"}, 3]}\n',
        encoding="utf-8",
    )
    assert reviews_of(list_file, "a").replies == () and reviews_of(list_file, "b") is None
    assert reviews_of(list_file, "c").replies == (Reply("review", "", None, None, ()),)
    assert reviews_of("", "a") is None and not has_reviews("")
