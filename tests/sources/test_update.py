"""`get --update`: conditional requests (304 Not Modified, a changed ETag, Last-Modified), content
compared where the server sends no validators, and failures that leave the library as it was."""

from __future__ import annotations

import json

import pytest

from search import LibraryError, SourceError, downloaded_lists, get_list, parse_request, update_list
from search.sources import openreview
from tests.sources.server import records, snapshot
from tests.sources.test_openreview import VENUE, note

ROUTE = "/paperlists/iclr/iclr2025.json"


class Versioned:
    """A paperlists file served with an ETag, honouring If-None-Match."""

    def __init__(self, data, etag: str) -> None:
        self.set(data, etag)

    def set(self, data, etag: str) -> None:
        self.body, self.etag = json.dumps(data).encode(), etag

    def __call__(self, h) -> None:
        if h.headers.get("If-None-Match") == self.etag:
            h.answer(304, b"", {"ETag": self.etag})
        else:
            h.answer(200, self.body, {"ETag": self.etag, "Content-Type": "application/json"})


def test_304_not_modified_changes_nothing_but_the_check_time(server, library):
    served = Versioned(records(4), '"v1"')
    server.route(ROUTE, served)
    got = get_list(parse_request("iclr2025"))
    before = got.path.read_bytes(), got.path.stat().st_mtime_ns
    first = library.origin("iclr2025")
    updated = update_list("iclr2025")
    assert not updated.changed and updated.host == server.url.removeprefix("http://")
    assert server.seen[-1].headers["if-none-match"] == '"v1"'
    assert (got.path.read_bytes(), got.path.stat().st_mtime_ns) == before
    after = library.origin("iclr2025")
    assert after.fetched_at == first.fetched_at and after.etag == '"v1"' and after.checked_at >= first.checked_at


def test_a_changed_etag_downloads_and_replaces_the_list(server, library):
    served = Versioned(records(4), '"v1"')
    server.route(ROUTE, served)
    get_list(parse_request("iclr2025"))
    served.set(records(6), '"v2"')
    updated = update_list("iclr2025")
    assert updated.changed and updated.papers == 6
    assert library.origin("iclr2025").etag == '"v2"'
    assert len(json.loads(library.find("iclr2025").read_text(encoding="utf-8"))) == 6
    assert sorted(entry.name for entry in library.folder.iterdir()) == ["iclr2025"]  # no staging left


def test_a_new_etag_on_the_same_content_is_no_change(server, library):
    served = Versioned(records(4), '"v1"')
    server.route(ROUTE, served)
    get_list(parse_request("iclr2025"))
    served.set(records(4), '"v1-gzip"')
    assert not update_list("iclr2025").changed
    assert library.origin("iclr2025").etag == '"v1-gzip"'


def test_last_modified_is_sent_back_as_if_modified_since(server, library):
    stamp = "Sat, 01 Jun 2025 12:00:00 GMT"

    def respond(h):
        if h.headers.get("If-Modified-Since") == stamp:
            h.answer(304)
        else:
            h.answer(200, json.dumps(records(2)).encode(), {"Last-Modified": stamp})

    server.route(ROUTE, respond)
    get_list(parse_request("iclr2025"))
    assert not update_list("iclr2025").changed
    assert "if-none-match" not in server.seen[-1].headers


def test_a_failed_update_leaves_the_list_as_it_was(server, library):
    served = Versioned(records(4), '"v1"')
    server.route(ROUTE, served)
    get_list(parse_request("iclr2025"))
    before = snapshot(library.folder)
    server.route(ROUTE, lambda h: h.answer(200, b"[{broken", {"ETag": '"v3"'}))
    with pytest.raises(SourceError, match=r"the download is not a usable paper list: malformed JSON"):
        update_list("iclr2025")
    server.route(ROUTE, lambda h: h.drop(b"[{", promised=100))
    with pytest.raises(SourceError, match=r"dropped the connection mid-download"):
        update_list("iclr2025")

    def interrupt(done, total, unit):
        raise KeyboardInterrupt

    server.route(ROUTE, lambda h: h.answer(200, json.dumps(records(9)).encode(), {"ETag": '"v4"'}))
    with pytest.raises(KeyboardInterrupt):
        update_list("iclr2025", on_progress=interrupt)
    assert snapshot(library.folder) == before


def test_apis_without_validators_are_compared_by_content(server, library, monkeypatch):
    notes = [note(1), note(2)]
    server.route("/openreview/notes", lambda h: h.json({"notes": notes, "count": len(notes)}))
    get_list(parse_request(f"openreview:{VENUE}"))
    assert not update_list("iclr2025-openreview").changed
    notes.append(note(3))
    updated = update_list("iclr2025-openreview")
    assert updated.changed and updated.papers == 3
    assert openreview.query(parse_request(f"openreview:{VENUE}")) == {"content.venueid": VENUE}


def test_only_downloaded_lists_can_be_updated(server, library, tmp_path):
    server.route(ROUTE, Versioned(records(2), '"v1"'))
    get_list(parse_request("iclr2025"))
    mine = tmp_path / "mine.json"
    mine.write_text(json.dumps(records(1, "mine")), encoding="utf-8")
    library.add(mine)
    assert downloaded_lists() == ["iclr2025"]
    with pytest.raises(LibraryError, match=r"'mine' was added from a file, not downloaded with `get`"):
        update_list("mine")
    with pytest.raises(LibraryError, match=r"no list named 'nope'"):
        update_list("nope")
