"""OpenReview API v2 against the local server: pages by limit/offset until `count`, accepted papers or
every submission, the token, and the one-line failures (library unchanged)."""

from __future__ import annotations

import json
import time

import pytest

from search import SourceError, get_list, load_corpus, parse_request
from search.sources import openreview
from tests.sources.server import snapshot

VENUE = "ICLR.cc/2025/Conference"
DECISIONS = ["ICLR 2025 Oral", "ICLR 2025 Poster", "ICLR 2025 Spotlight", "ICLR 2025 Poster", "ICLR 2025 Poster"]


def note(number: int, venue: str = "ICLR 2025 Poster") -> dict:
    forum = f"forum{number:04d}"
    return {
        "id": forum,
        "forum": forum,
        "number": number,
        "cdate": 1727000000000 + number,
        "invitations": ["ICLR.cc/2025/Conference/-/Submission"],
        "signatures": ["ICLR.cc/2025/Conference/Submission1/Authors"],
        "readers": ["everyone"],
        "content": {
            "title": {"value": f"Note {number}: Sparse Attention Revisited"},
            "abstract": {"value": f"We revisit sparse attention, case {number}. Code: https://github.com/a/b{number}"},
            "authors": {"value": ["Ada Lovelace", "Alan Turing"]},
            "authorids": {"value": ["~Ada_Lovelace1", "~Alan_Turing1"]},
            "keywords": {"value": ["attention", "sparsity"]},
            "venue": {"value": venue},
            "venueid": {"value": VENUE},
            "pdf": {"value": f"/pdf/{number:040d}.pdf"},
            "_bibtex": {"value": "@inproceedings{...}"},
        },
    }


def serve_notes(server, notes: list[dict], key: str = "content.venueid") -> None:
    def respond(h):
        query = h.query
        assert key in query
        offset, limit = int(query["offset"]), int(query["limit"])
        h.json({"notes": notes[offset : offset + limit], "count": len(notes)}, compress=True)

    server.route("/openreview/notes", respond)


def test_accepted_papers_page_until_count(server, library, monkeypatch):
    monkeypatch.setattr(openreview, "PAGE_SIZE", 2)
    serve_notes(server, [note(n, venue) for n, venue in enumerate(DECISIONS)])
    progress: list[tuple] = []
    got = get_list(parse_request(f"openreview:{VENUE}"), on_progress=lambda *a: progress.append(a))
    assert got.name == "iclr2025-openreview" and got.papers == 5 and got.requests == 3
    assert [(seen.query["offset"], seen.query["limit"]) for seen in server.seen] == [("0", "2"), ("2", "2"), ("4", "2")]
    assert all(seen.query["content.venueid"] == VENUE for seen in server.seen)
    assert progress == [(2, 5, "papers"), (4, 5, "papers"), (5, 5, "papers")]
    data = json.loads(got.path.read_text(encoding="utf-8"))
    assert data["count"] == 5 and len(data["notes"]) == 5
    assert "authorids" not in data["notes"][0]["content"] and "signatures" not in data["notes"][0]  # trimmed
    papers = load_corpus([got.path]).papers
    assert [paper.status for paper in papers] == ["Oral", "Poster", "Spotlight", "Poster", "Poster"]
    first = papers[0]
    assert (first.id, first.venue, first.title) == ("forum0000", "ICLR 2025", "Note 0: Sparse Attention Revisited")
    assert first.site == "https://openreview.net/forum?id=forum0000"
    assert first.pdf == f"https://openreview.net/pdf/{0:040d}.pdf" and first.github == "https://github.com/a/b0"
    assert library.origin("iclr2025-openreview").source == VENUE


def test_all_submissions_use_the_submission_invitation(server, library, monkeypatch):
    serve_notes(server, [note(1, "Submitted to ICLR 2025"), note(2, "ICLR 2025 Poster")], key="invitation")
    got = get_list(parse_request(f"openreview:{VENUE}", all_submissions=True))
    assert got.name == "iclr2025-openreview-all" and got.papers == 2
    assert server.seen[0].query["invitation"] == f"{VENUE}/-/Submission"
    assert library.origin(got.name).all_submissions


def test_pages_are_paced(server, library, monkeypatch):
    monkeypatch.setattr(openreview, "PAGE_SIZE", 1)
    monkeypatch.setattr(openreview, "PAUSE", 0.2)
    serve_notes(server, [note(n) for n in range(3)])
    started = time.monotonic()
    get_list(parse_request(f"openreview:{VENUE}", name="paced"))
    assert time.monotonic() - started >= 0.4


def test_the_token_is_sent_as_a_bearer_token(server, library, monkeypatch):
    monkeypatch.setenv("ICLR_READER_OPENREVIEW_TOKEN", "tok123")
    serve_notes(server, [note(1)])
    get_list(parse_request(f"openreview:{VENUE}"))
    assert server.seen[0].headers["authorization"] == "Bearer tok123"


def forbidden(h):
    h.answer(403, json.dumps({"name": "ForbiddenError", "message": "Forbidden"}).encode())


def test_403_says_a_token_may_be_needed(server, library, monkeypatch):
    server.route("/openreview/notes", forbidden)
    before = snapshot(library.folder)
    with pytest.raises(SourceError) as error:
        get_list(parse_request(f"openreview:{VENUE}"))
    host = server.url.removeprefix("http://")
    assert str(error.value) == (
        f"{host} refused access (HTTP 403) (Forbidden): OpenReview may need a token; set ICLR_READER_OPENREVIEW_TOKEN"
    )
    monkeypatch.setenv("ICLR_READER_OPENREVIEW_TOKEN", "expired")
    with pytest.raises(SourceError) as error:
        get_list(parse_request(f"openreview:{VENUE}"))
    assert str(error.value).endswith(": the token in ICLR_READER_OPENREVIEW_TOKEN was not accepted")
    assert snapshot(library.folder) == before


def test_a_broken_second_page_leaves_the_library_unchanged(server, library, monkeypatch, tmp_path):
    monkeypatch.setattr(openreview, "PAGE_SIZE", 2)

    def respond(h):
        if h.query["offset"] == "0":
            h.json({"notes": [note(0), note(1)], "count": 4})
        else:
            h.answer(200, b'{"notes": [{"id": ')

    server.route("/openreview/notes", respond)
    before = snapshot(library.folder)
    with pytest.raises(SourceError) as error:
        get_list(parse_request(f"openreview:{VENUE}"))
    host = server.url.removeprefix("http://")
    assert str(error.value).startswith(f"{host}: the answer is not OpenReview notes (malformed JSON: ")
    assert snapshot(library.folder) == before


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ({"notes": [], "count": 0}, "{host}: no accepted papers of 'ICLR.cc/2031/Conference' (check the venue id"),
        ({"error": "nope"}, '{host}: the answer is not OpenReview notes (no "notes" list in it)'),
        ([1, 2], '{host}: the answer is not OpenReview notes (no "notes" list in it)'),
    ],
)
def test_answers_that_are_not_notes(server, library, body, message):
    server.route("/openreview/notes", lambda h: h.json(body))
    before = snapshot(library.folder)
    with pytest.raises(SourceError) as error:
        get_list(parse_request("openreview:ICLR.cc/2031/Conference"))
    assert str(error.value).startswith(message.format(host=server.url.removeprefix("http://")))
    assert snapshot(library.folder) == before


def test_notes_without_abstracts_are_refused_as_a_list(server, library):
    bare = note(1)
    del bare["content"]["abstract"]
    server.route("/openreview/notes", lambda h: h.json({"notes": [bare], "count": 1}))
    with pytest.raises(SourceError, match=r"the download is not a usable paper list: no records with an abstract"):
        get_list(parse_request(f"openreview:{VENUE}"))
    assert snapshot(library.folder) == {}
