"""`iclr-reader get` from the command line, against a local server: summaries, `lists` showing where a
list came from, `--available`, `--update`, and one-line errors with exit 2."""

from __future__ import annotations

import json
import re

import pytest

from search import Library, SearchEngine
from tests.sources.server import records, snapshot
from tui.cli import main


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def serve_list(server, name: str, data, etag: str = '"v1"') -> None:
    conference = name.rstrip("0123456789")
    body = json.dumps(data).encode()

    def respond(h):
        if h.headers.get("If-None-Match") == etag:
            h.answer(304)
        else:
            h.body(body, "application/json", {"ETag": etag}, compress=True)

    server.route(f"/paperlists/{conference}/{name}.json", respond)


def test_get_adds_indexes_and_lists_the_source(server, capsys):
    serve_list(server, "nips2024", records(12, "n"))
    serve_list(server, "icml2024", records(7, "i"))
    code, out, err = run(capsys, "get", "nips2024", "icml2024")
    host = server.url.removeprefix("http://")
    lines = out.splitlines()
    assert code == 0 and len(lines) == 2 and "Getting" not in err  # no progress bar: stderr is not a terminal
    assert lines[0].startswith(f"Got 'nips2024': 12 papers from {host} (") and "; indexed in " in lines[0]
    assert lines[1].startswith(f"Got 'icml2024': 7 papers from {host} (")
    code, out, _ = run(capsys, "lists")
    nips = next(line for line in out.splitlines() if line.startswith("nips2024"))
    assert "12 papers  NeurIPS 2024" in nips and re.search(r"  paperlists \d{4}-\d\d-\d\d$", nips)
    code, out, _ = run(capsys, "lists", "--verbose")
    nips = next(line for line in out.splitlines() if line.startswith("nips2024"))
    assert "12 papers" in nips and "from paperlists nips2024, " in nips and nips.endswith("nips2024.json)")
    code, out, _ = run(capsys, "lists", "--json")
    rows = {row["name"]: row for row in json.loads(out)["lists"]}
    assert rows["iclr2025"]["source"] is None
    source = rows["nips2024"]["source"]
    assert (source["kind"], source["source"], source["etag"]) == ("paperlists", "nips2024", '"v1"')
    assert source["url"] == f"{server.url}/paperlists/nips/nips2024.json" and source["fetched_at"].endswith("Z")
    code, out, _ = run(capsys, "search", "list:icml2024 quokka3", "--json")
    assert code == 0 and json.loads(out)["hits"][0]["id"] == "i3"


def test_get_iclr2025_takes_the_bundled_name_and_remove_brings_the_bundled_list_back(server, capsys):
    serve_list(server, "iclr2025", records(50, "full"))
    code, out, _ = run(capsys, "get", "iclr2025")
    assert code == 0 and out.startswith("Got 'iclr2025': 50 papers")
    assert Library().find("iclr2025") is not None
    code, out, _ = run(capsys, "remove", "iclr2025")
    assert code == 0 and "Removed 'iclr2025'" in out
    assert len(SearchEngine.from_paths().papers) == 38  # the bundled list stays
    code, _, err = run(capsys, "remove", "iclr2025")
    assert code == 2 and "bundled" in err


def test_update_says_unchanged_or_updated(server, capsys):
    serve_list(server, "nips2024", records(3, "n"))
    run(capsys, "get", "nips2024")
    code, out, _ = run(capsys, "get", "--update")
    assert code == 0 and out == "nips2024: unchanged (checked " + server.url.removeprefix("http://") + ")\n"
    serve_list(server, "nips2024", records(5, "n"), etag='"v2"')
    code, out, _ = run(capsys, "get", "--update", "nips2024")
    assert code == 0 and out.startswith("nips2024: updated, 5 papers from ") and "indexed in" in out
    code, out, _ = run(capsys, "search", "list:nips2024 quokka4", "--json")
    assert json.loads(out)["hits"][0]["id"] == "n4"


def test_update_with_nothing_downloaded(server, capsys):
    code, out, _ = run(capsys, "get", "--update")
    assert code == 0 and out.startswith("No downloaded lists to update")


def test_available_prints_the_catalogue(capsys):
    code, out, _ = run(capsys, "get", "--available")
    iclr = next(line for line in out.splitlines() if line.split()[:1] == ["iclr"])
    assert code == 0 and iclr.split()[1:] == ["ICLR", "2013", "2014", "2017-2026"]
    assert "still tried" in out and "openreview:VENUE_ID" in out
    code, out, _ = run(capsys, "get", "--available", "--json")
    nips = next(row for row in json.loads(out)["paperlists"] if row["name"] == "nips")
    assert nips["label"] == "NeurIPS" and nips["years"][0] == 1987


def test_errors_are_one_line_with_exit_2_and_the_library_unchanged(server, capsys):
    serve_list(server, "icml2024", records(2, "i"))
    run(capsys, "get", "icml2024")
    before = snapshot(Library().folder)
    host = server.url.removeprefix("http://")
    code, out, err = run(capsys, "get", "iclr2031")
    assert code == 2 and out == ""
    assert err.splitlines() == [
        "iclr-reader: iclr2031 is not in the catalogue (`get --available`); trying it",
        f"iclr-reader: error: no list named 'iclr2031' at paperlists ({host}); `get --available` lists them",
    ]
    code, _, err = run(capsys, "get", "icml2024")
    assert code == 2 and err.count("\n") == 1 and "already exists (use `get --update` to refresh it" in err
    code, _, err = run(capsys, "get", "nonsense")
    assert code == 2 and err.count("\n") == 1 and "'nonsense' is not a paperlists name like iclr2025" in err
    code, _, err = run(capsys, "get")
    assert code == 2 and "say which lists to get" in err
    code, _, err = run(capsys, "get", "a2024", "b2024", "--name", "x")
    assert code == 2 and "--name names one list" in err
    code, _, err = run(capsys, "get", "--update", "--all")
    assert code == 2 and "--update takes only list names" in err
    server.route("/openreview/notes", lambda h: h.answer(401, b""))
    code, _, err = run(capsys, "get", "openreview:ICLR.cc/2025/Conference")
    assert code == 2 and err.count("\n") == 1 and err.rstrip().endswith("set ICLR_READER_OPENREVIEW_TOKEN")
    assert snapshot(Library().folder) == before


def test_one_failed_list_does_not_stop_the_others(server, capsys):
    serve_list(server, "icml2024", records(2, "i"))
    code, out, err = run(capsys, "get", "nips2024", "icml2024")
    assert code == 2 and out.startswith("Got 'icml2024': 2 papers") and "no list named 'nips2024'" in err


def test_ctrl_c_exits_130_and_leaves_the_library_unchanged(server, capsys, monkeypatch):
    serve_list(server, "nips2024", records(2000, "n"))
    before = snapshot(Library().folder)
    from search.sources import http

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(http, "_stream", interrupted)
    code, out, _ = run(capsys, "get", "nips2024")
    assert code == 130 and out == "" and snapshot(Library().folder) == before


def test_a_progress_bar_only_on_a_terminal(server, capsys, monkeypatch):
    from tui.cli import get as get_command

    serve_list(server, "nips2024", records(3, "n"))
    monkeypatch.setattr("sys.stderr.isatty", lambda: True)
    monkeypatch.setattr(get_command._DownloadBar, "delay", 0.0)
    code, out, err = run(capsys, "get", "nips2024")
    assert code == 0 and out.startswith("Got 'nips2024'")
    assert err.startswith("\rGetting nips2024 █") and " kB\x1b[K\r\x1b[K" in err  # drawn, then cleared


HOSTILE = {
    "a redirect to http://a]b/x": (
        lambda h: h.answer(302, b"", {"Location": "http://a]b/x"}),
        "{host}: redirected to 'http://a]b/x', which is not a valid URL (Invalid IPv6 URL)",
    ),
    "a redirect to a port out of range": (
        lambda h: h.answer(302, b"", {"Location": "http://example.org:99999/x"}),
        "{host}: redirected to 'http://example.org:99999/x', which is not a valid URL (Port out of range 0-65535)",
    ),
    "Retry-After: ² on every answer": (
        lambda h: h.answer(503, b"", {"Retry-After": "\xb2"}),
        "{host} answered HTTP 503 Service Unavailable after 4 tries: the server has a problem, try again later",
    ),
}


@pytest.mark.parametrize("case", list(HOSTILE))
def test_hostile_answers_are_one_line_naming_the_list_and_the_host_with_exit_2(server, capsys, case):
    """Issue 34: these were tracebacks with exit 1 (ValueError: Invalid IPv6 URL; could not convert
    string to float: '²'; OverflowError for the port)."""
    responder, message = HOSTILE[case]
    server.route("/paperlists/iclr/iclr2024.json", responder)
    before = snapshot(Library().folder)
    code, out, err = run(capsys, "get", "iclr2024")
    host = server.url.removeprefix("http://")
    assert (code, out) == (2, "")
    assert err.splitlines() == [f"iclr-reader: error: could not get iclr2024: {message.format(host=host)}"]
    assert snapshot(Library().folder) == before


def test_a_retry_after_in_superscript_digits_is_ignored_and_the_list_arrives(server, capsys):
    answers = iter([503])
    body = json.dumps(records(3, "n")).encode()
    server.route(
        "/paperlists/nips/nips2024.json",
        lambda h: h.answer(next(answers, 200), body if len(server.seen) > 1 else b"", {"Retry-After": "\xb2"}),
    )
    code, out, err = run(capsys, "get", "nips2024")
    assert code == 0 and out.startswith("Got 'nips2024': 3 papers") and err == ""


def test_an_error_names_the_list_when_its_message_does_not(server, capsys, monkeypatch):
    """With several lists on one line, which one failed: `could not get NAME: ...`; a message that
    names it already is left as it is."""
    serve_list(server, "icml2024", records(2, "i"))
    server.route("/paperlists/nips/nips2024.json", lambda h: h.drop(b"[", promised=100))
    code, out, err = run(capsys, "get", "nips2024", "icml2024", "iclr2031")
    host = server.url.removeprefix("http://")
    assert code == 2 and out.startswith("Got 'icml2024': 2 papers")
    assert err.splitlines() == [
        f"iclr-reader: error: could not get nips2024: {host} dropped the connection mid-download (got 1 of 100 bytes)",
        "iclr-reader: iclr2031 is not in the catalogue (`get --available`); trying it",
        f"iclr-reader: error: no list named 'iclr2031' at paperlists ({host}); `get --available` lists them",
    ]
    server.route("/paperlists/icml/icml2024.json", lambda h: h.drop(b"[", promised=100))
    code, _, err = run(capsys, "get", "--update", "icml2024")
    assert code == 2 and err.startswith("iclr-reader: error: could not update icml2024: ")


def test_available_leaves_out_the_lists_without_abstracts_and_get_says_so(server, capsys):
    code, out, _ = run(capsys, "get", "--available")
    listed, left_out = out.split("Left out, no abstracts")
    assert code == 0 and not any(line.split()[:1] == ["kdd"] for line in listed.splitlines())
    kdd = next(line for line in left_out.splitlines() if line.split()[:1] == ["kdd"])
    assert kdd.split()[1:] == ["KDD", "2023", "2024"]
    www = next(line for line in listed.splitlines() if line.split()[:1] == ["www"])
    assert www.split()[1:] == ["WWW", "2025"]
    code, out, _ = run(capsys, "get", "--available", "--json")
    row = next(row for row in json.loads(out)["paperlists"] if row["name"] == "kdd")
    assert row["years"] == [2023, 2024] and row["without_abstracts"] == [2023, 2024]
    serve_list(server, "kdd2024", [{"id": "k1", "title": "No abstract here"}])
    code, _, err = run(capsys, "get", "kdd2024")
    lines = err.splitlines()
    assert code == 2 and lines[0].startswith("iclr-reader: kdd2024 had no abstracts when the catalogue was made")
    assert len(lines) == 2  # then the download's own one line: no paper with an abstract
