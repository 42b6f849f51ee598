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


# -- issue 34: a page is read a note at a time, within bounds; paging that goes nowhere ends ---------


def peak_memory(call) -> int:
    """The most memory Python held (tracemalloc) while `call` ran, in bytes."""
    import tracemalloc

    tracemalloc.start()
    try:
        call()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def tiny_notes(count: int) -> bytes:
    notes = ",".join(f'{{"id":"n{number:07d}","content":{{"title":{{"value":"t"}}}}}}' for number in range(count))
    return f'{{"notes": [{notes}], "count": {count}}}'.encode()


def test_a_page_with_more_notes_than_asked_is_refused_before_they_are_built(server, library, monkeypatch):
    """A 60 MB page of 1.1 million tiny notes used to be parsed whole (1.38 GB); now the notes are parsed
    one at a time and the one past `limit` ends the download: the page costs about its own size."""
    monkeypatch.setattr(openreview, "PAGE_SIZE", 10)
    body = tiny_notes(40_000)
    server.route("/openreview/notes", lambda h: h.body(body, "application/json"))
    before = snapshot(library.folder)
    errors: list[SourceError] = []

    def get() -> None:
        with pytest.raises(SourceError) as error:
            get_list(parse_request(f"openreview:{VENUE}"))
        errors.append(error.value)

    peak = peak_memory(get)
    host = server.url.removeprefix("http://")
    assert (
        str(errors[0])
        == f"{host} sent more than 10 notes in one page where limit=10 was asked; stopped and saved nothing"
    )
    assert peak < 1.5 * len(body), f"{peak:,} bytes held for a page of {len(body):,}"
    assert len(server.seen) == 1 and snapshot(library.folder) == before


def fat_note(containers: int) -> dict:
    fat = note(1)
    fat["content"]["extra"] = {"value": [[] for _ in range(containers)]}
    return fat


@pytest.mark.parametrize(
    ("page", "limits", "message"),
    [
        ({"notes": [fat_note(5_000)], "count": 1}, {}, "a note or value with more than 2,000 arrays and objects"),
        (
            {"notes": [note(0), fat_note(1_000)], "count": 2},
            {"NOTE_BYTES": 4096},
            "a note or value of more than 4,096 bytes",
        ),
        (
            {"notes": [note(0)], "count": 1, "junk": [[]] * 3_000},
            {},
            "a note or value with more than 2,000 arrays and objects",
        ),
        ({"notes": [{"id": "x", "content": {"a": [[[[[]]]]]}}]}, {}, "malformed JSON: nested deeper than 200 levels"),
    ],
    ids=["a crowded note", "a big note", "a crowded value beside the notes", "a deep note"],
)
def test_a_note_too_big_to_read_safely_is_refused(server, library, monkeypatch, page, limits, message):
    for name, value in limits.items():
        monkeypatch.setattr(openreview, name, value)
    body = json.dumps(page).replace("[[[[[]]]]]", "[" * 5_000 + "]" * 5_000).encode()
    server.route("/openreview/notes", lambda h: h.body(body, "application/json"))
    before = snapshot(library.folder)
    with pytest.raises(SourceError) as error:
        get_list(parse_request(f"openreview:{VENUE}"))
    host = server.url.removeprefix("http://")
    assert str(error.value) == f"{host}: the answer is not OpenReview notes ({message})"
    assert snapshot(library.folder) == before


def test_notes_larger_than_the_first_window_and_not_ascii_read_as_they_are(server, library, monkeypatch):
    """Each note is parsed from a window of the page that grows as needed: a 40 kB note with a character
    of two, three or four bytes on every window's edge reads exactly as the whole page parsed at once."""
    monkeypatch.setattr(openreview, "PAGE_SIZE", 3)
    notes = [note(n) for n in range(3)]
    for number, character in enumerate("é€𝔼"):
        notes[number]["content"]["abstract"]["value"] = f"Case {number}: " + character * 14_000
    page = json.dumps({"notes": notes, "count": 3}, ensure_ascii=False, indent=1).encode()
    server.route("/openreview/notes", lambda h: h.body(b"\xef\xbb\xbf" + page, "application/json"))
    got = get_list(parse_request(f"openreview:{VENUE}"))
    assert got.papers == 3
    written = json.loads(got.path.read_text(encoding="utf-8"))["notes"]
    assert [n["content"]["abstract"] for n in written] == [n["content"]["abstract"] for n in notes]


def test_the_same_notes_again_end_the_download(server, library, monkeypatch):
    """A server that ignores offset used to be paged to `count`, keeping its first page as the whole list."""
    monkeypatch.setattr(openreview, "PAGE_SIZE", 2)
    server.route("/openreview/notes", lambda h: h.json({"notes": [note(0), note(1)], "count": 10}))
    before = snapshot(library.folder)
    with pytest.raises(SourceError) as error:
        get_list(parse_request(f"openreview:{VENUE}"))
    assert str(error.value) == (
        f"{server.url.removeprefix('http://')} sent the same notes again for offset=2, though it counts 10:"
        " it is not paging as asked; stopped at 2 papers and saved nothing (try again later)"
    )
    assert len(server.seen) == 2 and snapshot(library.folder) == before


def test_far_fewer_notes_than_the_limit_end_the_download(server, library, monkeypatch):
    """Pages of one note each used to go on for 200 requests (200 s at the pause between pages)."""
    monkeypatch.setattr(openreview, "PAGE_SIZE", 10)
    server.route("/openreview/notes", lambda h: h.json({"notes": [note(int(h.query["offset"]))], "count": 1000}))
    before = snapshot(library.folder)
    with pytest.raises(SourceError) as error:
        get_list(parse_request(f"openreview:{VENUE}"))
    assert str(error.value).endswith(
        " sent 1 note for offset=0 where limit=10 was asked, though it counts 1,000: it is not paging as asked;"
        " stopped at 1 paper and saved nothing (try again later)"
    )
    assert len(server.seen) == 1 and snapshot(library.folder) == before


def test_a_page_a_little_short_goes_on_and_an_empty_one_before_the_count_stops(server, library, monkeypatch):
    monkeypatch.setattr(openreview, "PAGE_SIZE", 4)

    def respond(h):
        offset = int(h.query["offset"])
        h.json({"notes": [note(n) for n in range(offset, offset + 3)] if offset < 6 else [], "count": 8})

    server.route("/openreview/notes", respond)
    with pytest.raises(SourceError, match=r" sent no notes for offset=6, though it counts 8: .* stopped at 6 papers"):
        get_list(parse_request(f"openreview:{VENUE}"))
    assert [seen.query["offset"] for seen in server.seen] == ["0", "3", "6"]
