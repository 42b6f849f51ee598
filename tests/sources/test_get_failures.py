"""The rule every `get` failure keeps (issue 34): one line naming the host that failed and the cause,
never a traceback, even when a source trips over an answer in a way nobody foresaw; while what the
caller's own progress callback raises (the app's stop, ctrl+c) comes back as it was."""

from __future__ import annotations

import pytest

from search import SourceError, get_list, parse_request
from search.sources import get
from search.sources.common import Downloaded
from search.sources.http import Client
from tests.sources.server import records, snapshot

ROUTE = "/paperlists/iclr/iclr2024.json"


def test_an_unforeseen_error_in_a_source_is_one_line_naming_the_host_it_read(server, library, monkeypatch):
    """Say a source reads a year with int() and the answer holds "²⁰²⁵": a ValueError, which used to
    reach the command line as a traceback (exit 1) and the app as Python's own words."""
    server.route(
        "/old", lambda h: h.answer(302, b"", {"Location": server.url.replace("127.0.0.1", "localhost") + "/new"})
    )
    server.route("/new", lambda h: h.answer(200, b"\xc2\xb2\xe2\x81\xb0\xc2\xb2\xe2\x81\xb5"))

    def reading(request, folder, on_progress, previous) -> Downloaded:
        year = Client().get(server.url + "/old").decode()
        int(year)  # ValueError: invalid literal for int() with base 10: '²⁰²⁵'
        raise AssertionError("unreachable")

    monkeypatch.setitem(get._SOURCES, "paperlists", reading)
    before = snapshot(library.folder)
    with pytest.raises(SourceError) as error:
        get_list(parse_request("iclr2024"))
    port = server.url.rsplit(":", 1)[1]
    assert str(error.value) == (
        f"localhost:{port}: its answer could not be read (ValueError: invalid literal for int() with base 10: '²⁰²⁵')"
    )
    assert snapshot(library.folder) == before


def test_what_the_progress_callback_raises_comes_back_as_it_was(server, library):
    server.route(ROUTE, lambda h: h.json(records(200)))

    class Stopped(Exception):
        pass

    def stop(done, total, unit):
        raise Stopped("the app is closing")

    before = snapshot(library.folder)
    with pytest.raises(Stopped, match="the app is closing"):
        get_list(parse_request("iclr2024"), on_progress=stop)
    with pytest.raises(KeyboardInterrupt):
        get_list(parse_request("iclr2024"), on_progress=lambda *a: (_ for _ in ()).throw(KeyboardInterrupt))
    assert snapshot(library.folder) == before
