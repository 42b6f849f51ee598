"""paperlists downloads end to end against the local server: the list lands in the library whole, and
every failure is one line that leaves the library exactly as it was."""

from __future__ import annotations

import gzip
import hashlib
import json

import pytest

from search import (
    Library,
    LibraryError,
    SearchEngine,
    SourceError,
    get_list,
    load_corpus,
    parse_request,
)
from search.sources import paperlists
from tests.sources.server import records, snapshot

ROUTE = "/paperlists/iclr/iclr2025.json"


def host(server) -> str:
    return server.url.removeprefix("http://")


@pytest.fixture
def seeded(library, tmp_path):
    """A library that already holds a list, so "unchanged" means something."""
    path = tmp_path / "kept.json"
    path.write_text(json.dumps(records(3, "kept")), encoding="utf-8")
    library.add(path)
    return library


@pytest.mark.slow
def test_a_real_list_downloads_whole_and_loads_like_the_original(server, library, paperlist_files):
    original = next(path for path in paperlist_files if path.name == "iclr2018.json")
    data = original.read_bytes()
    # Compressed here, not in the server's thread while the client waits: 3 MB at gzip's level 9 can
    # take longer than the tests' one-second read timeout on a busy machine.
    wire = gzip.compress(data)
    server.route(
        "/paperlists/iclr/iclr2018.json",
        lambda h: h.answer(
            200, wire, {"Content-Type": "application/json", "Content-Encoding": "gzip", "ETag": '"abc"'}
        ),
    )
    progress: list[tuple[int, int | None, str]] = []
    got = get_list(parse_request("iclr2018"), on_progress=lambda *a: progress.append(a))
    assert got.changed and got.name == "iclr2018" and got.host == host(server) and got.requests == 1
    assert got.papers == len(load_corpus([original]).papers) > 900
    assert got.path == library.folder / "iclr2018" / "iclr2018.json" and got.path.read_bytes() == data
    assert progress and progress[-1][2] == "bytes" and progress[-1][0] == progress[-1][1]  # gzip on the wire
    assert library.files() == [got.path]  # the metadata beside it is never taken for the list
    origin = library.origin("iclr2018")
    assert origin is not None and (origin.kind, origin.source, origin.etag) == ("paperlists", "iclr2018", '"abc"')
    assert origin.url == server.url + "/paperlists/iclr/iclr2018.json" and origin.fetched_at.endswith("Z")
    assert origin.sha256 == hashlib.sha256(data).hexdigest()
    assert [entry.name for entry in library.folder.iterdir()] == ["iclr2018"]  # no staging left behind
    engine = SearchEngine.from_paths()
    hits = engine.search("list:iclr2018 robust task clustering").hits
    assert hits and engine.paper(hits[0].paper_id).source == str(got.path)


def test_the_bundled_name_can_be_taken_by_the_full_download(server, library):
    server.route(ROUTE, lambda h: h.json(records(40)))
    got = get_list(parse_request("iclr2025"))
    assert got.name == "iclr2025" and got.papers == 40 and library.find("iclr2025") == got.path
    with pytest.raises(LibraryError, match=r"a list named 'iclr2025' already exists \(use `get --update`"):
        get_list(parse_request("iclr2025"))
    library.remove("iclr2025")
    assert library.find("iclr2025") is None


def test_a_redirect_and_a_500_on_the_way_still_get_the_list(server, library):
    answers = iter([500])
    server.route("/paperlists/nips/nips2024.json", lambda h: h.answer(302, b"", {"Location": "/mirror/nips2024"}))
    server.route("/mirror/nips2024", lambda h: h.answer(next(answers, 200), json.dumps(records(5)).encode()))
    got = get_list(parse_request("neurips2024"))  # the folder is named nips
    assert got.name == "nips2024" and got.papers == 5
    assert library.origin("nips2024").url.endswith("/paperlists/nips/nips2024.json")


def test_429_with_retry_after_waits_then_gets_it(server, library):
    answers = iter([429])
    server.route(ROUTE, lambda h: h.answer(next(answers, 200), json.dumps(records(2)).encode(), {"Retry-After": "1"}))
    got = get_list(parse_request("iclr2025"))
    assert got.papers == 2 and len(server.seen) == 2 and got.seconds >= 0.9


FAILURES = {
    "404": (
        "iclr2031",
        lambda h: h.answer(404, b"404: Not Found"),
        "no list named 'iclr2031' at paperlists ({host}); `get --available` lists them",
    ),
    "403": ("iclr2025", lambda h: h.answer(403, b"Forbidden"), "{host} refused access to 'iclr2025' (HTTP 403)"),
    "429": (
        "iclr2025",
        lambda h: h.answer(429, b"", {"Retry-After": "600"}),
        "{host} is limiting requests (HTTP 429, too many requests); it asks to wait 600 s: try again later",
    ),
    "500": (
        "iclr2025",
        lambda h: h.answer(500, b"oops"),
        "{host} answered HTTP 500 Internal Server Error after 4 tries: the server has a problem, try again later",
    ),
    "dropped": (
        "iclr2025",
        lambda h: h.drop(b'[{"abstract": "' + b"x" * 85, promised=1500),
        "{host} dropped the connection mid-download (got 100 of 1,500 bytes)",
    ),
    "stalled": ("iclr2025", lambda h: h.stall(b"[{"), "{host} stopped sending: nothing arrived for 1 s (timed out)"),
    "malformed JSON": (
        "iclr2025",
        lambda h: h.answer(200, b'[{"abstract": "cut'),
        "{host}: the download is not a usable paper list: malformed JSON at line 1",
    ),
    "an HTML page": (
        "iclr2025",
        lambda h: h.answer(200, b"<!DOCTYPE html>\n<html><body>Sign in to the Wi-Fi</body></html>"),
        "{host}: the answer is not a JSON list of papers (it starts '<!DOCTYPE html>')",
    ),
    "no abstracts": (
        "iclr2025",
        lambda h: h.json([{"title": "A"}, {"title": "B"}]),
        "{host}: the download is not a usable paper list: no records with an abstract (2 skipped)",
    ),
    "empty": ("iclr2025", lambda h: h.answer(200, b""), "{host}: the answer is empty, not a paper list"),
    "corrupt gzip": (
        "iclr2025",
        lambda h: h.answer(200, b"\x1f\x8b\x08\x00garbage" * 10, {"Content-Encoding": "gzip"}),
        "{host}: the gzip-compressed answer is corrupt",
    ),
    "oversized": (
        "iclr2025",
        lambda h: h.answer(200, b"[" + b" " * 3000 + b"]"),
        "{host}: the answer is 3,002 bytes, more than the 2,000 bytes limit",
    ),
    "oversized, no length": (
        "iclr2025",
        lambda h: h.answer(200, gzip.compress(b"[" + b" " * 3000 + b"]"), {"Content-Encoding": "gzip"}),
        "{host}: the answer is larger than the 2,000 bytes limit",
    ),
}


@pytest.mark.parametrize("case", list(FAILURES))
def test_each_failure_is_one_line_and_leaves_the_library_unchanged(server, seeded, monkeypatch, case):
    name, responder, message = FAILURES[case]
    monkeypatch.setattr(paperlists, "MAX_BYTES", 2000)
    server.route("/paperlists/iclr/" + name + ".json", responder)
    before = snapshot(seeded.folder)
    with pytest.raises(SourceError) as error:
        get_list(parse_request(name))
    assert str(error.value) == message.format(host=host(server))
    assert "\n" not in str(error.value)
    assert snapshot(seeded.folder) == before


def test_unreachable_hosts_leave_the_library_unchanged(server, seeded, monkeypatch):
    before = snapshot(seeded.folder)
    monkeypatch.setenv("ICLR_READER_PAPERLISTS_URL", "https://paperlists.invalid/main")
    with pytest.raises(SourceError) as error:
        get_list(parse_request("iclr2025"))
    assert str(error.value) == (
        "cannot reach paperlists.invalid: offline, or the name does not resolve (Name or service not known)"
    )
    assert snapshot(seeded.folder) == before


def test_ctrl_c_during_the_download_leaves_the_library_unchanged(server, seeded):
    body = json.dumps(records(3000)).encode()
    server.route(ROUTE, lambda h: h.answer(200, body))
    before = snapshot(seeded.folder)

    def interrupt(done, total, unit):
        if done > 64 * 1024:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        get_list(parse_request("iclr2025"), on_progress=interrupt)
    assert snapshot(seeded.folder) == before


def test_a_name_that_is_not_conference_and_year_is_refused_before_any_request(server):
    with pytest.raises(SourceError, match=r"'iclr' is not a paperlists name like iclr2025"):
        parse_request("iclr")
    assert server.seen == []


def test_the_library_picks_the_list_file_not_the_metadata(library, tmp_path):
    for name in ("www2025.json", "aaai2025.json"):  # sorting after and before ".source.json" alike
        path = tmp_path / name
        path.write_text(json.dumps(records(1, name[:4])), encoding="utf-8")
        library.add(path)
        (library.folder / name.removesuffix(".json") / ".source.json").write_text("{}", encoding="utf-8")
    assert [path.name for path in library.files()] == ["aaai2025.json", "www2025.json"]
    assert library.origin("www2025") is None  # unreadable metadata is no origin
    assert isinstance(Library().default_sources(), list)
