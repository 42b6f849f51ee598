"""The HTTP client on its own: timeouts, retries, redirects, gzip, size limits, proxies, one-line errors."""

from __future__ import annotations

import gzip
import io
import socket
import time

import pytest

from search import SourceError, __version__
from search.sources import http
from search.sources.http import Client, HTTPStatusError


def fetch(url: str, **options) -> bytes:
    return Client(**options.pop("client", {})).get(url, **options)


def test_user_agent_names_the_app_and_version(server):
    server.route("/x", lambda h: h.answer(200, b"ok"))
    assert fetch(server.url + "/x") == b"ok"
    agent = server.seen[0].headers["user-agent"]
    assert agent.startswith(f"iclr-reader/{__version__} (") and "@" not in agent
    assert "gzip" in server.seen[0].headers["accept-encoding"]


def test_gzip_is_asked_for_and_decoded(server):
    body = b"[" + b'{"abstract": "x"},' * 5000 + b"{}]"
    server.route("/x", lambda h: h.body(body, "application/json", compress=True))
    sink = io.BytesIO()
    response = Client().download(server.url + "/x", sink)
    assert sink.getvalue() == body and response.size == len(body)


def test_a_gzip_bomb_stops_at_the_limit(server):
    bomb = gzip.compress(b"\0" * (20 * 2**20))  # 20 MiB of zeros in about 20 kB
    server.route("/x", lambda h: h.answer(200, bomb, {"Content-Encoding": "gzip"}))
    with pytest.raises(SourceError) as error:
        fetch(server.url + "/x", max_bytes=2**20)
    assert str(error.value) == f"127.0.0.1:{server.url.rsplit(':', 1)[1]}: the answer is larger than the 1 MiB limit"


def test_redirects_are_followed_and_bounded(server):
    server.route("/old", lambda h: h.answer(301, b"", {"Location": "/new"}))
    server.route("/new", lambda h: h.answer(200, b"moved"))
    server.route("/loop", lambda h: h.answer(302, b"", {"Location": f"/loop?{len(server.seen)}"}))
    assert fetch(server.url + "/old") == b"moved"
    with pytest.raises(SourceError, match=r"too many redirects"):
        fetch(server.url + "/loop")
    assert len(server.paths("/loop")) == http.MAX_REDIRECTS + 1


def test_a_redirect_to_another_scheme_is_refused(server):
    server.route("/x", lambda h: h.answer(302, b"", {"Location": "file:///etc/passwd"}))
    with pytest.raises(SourceError, match=r"redirected to 'file:///etc/passwd', which is not http\(s\)"):
        fetch(server.url + "/x")


def test_500_then_success_is_retried_with_backoff(server):
    answers = iter([500, 503])
    server.route("/x", lambda h: h.answer(next(answers, 200), b"fine"))
    waits: list[float] = []
    assert fetch(server.url + "/x", client={"sleep": waits.append, "backoff": 0.5}) == b"fine"
    assert waits == [0.5, 1.0] and len(server.seen) == 3


def test_a_server_that_keeps_failing_gives_up_after_a_bounded_number_of_tries(server):
    server.route("/x", lambda h: h.answer(502, b"bad gateway"))
    with pytest.raises(SourceError) as error:
        fetch(server.url + "/x", client={"sleep": lambda s: None})
    assert len(server.seen) == http.MAX_ATTEMPTS
    assert "answered HTTP 502 Bad Gateway after 4 tries: the server has a problem, try again later" in str(error.value)


def test_429_honours_retry_after(server):
    answers = iter([429])
    server.route("/x", lambda h: h.answer(next(answers, 200), b"ok", {"Retry-After": "1"}))
    waits: list[float] = []
    assert fetch(server.url + "/x", client={"sleep": waits.append}) == b"ok"
    assert waits == [1.0]


def test_429_asking_for_too_long_a_wait_fails_at_once_saying_so(server):
    server.route("/x", lambda h: h.answer(429, b"slow down", {"Retry-After": "3600"}))
    with pytest.raises(HTTPStatusError) as error:
        fetch(server.url + "/x", client={"sleep": lambda s: pytest.fail("must not wait an hour")})
    assert error.value.status == 429 and len(server.seen) == 1
    assert str(error.value).endswith(
        "is limiting requests (HTTP 429, too many requests); it asks to wait 3600 s: try again later"
    )


def test_a_stalled_server_times_out_in_about_the_read_timeout(server):
    server.route("/x", lambda h: h.stall(b"[{"))
    started = time.monotonic()
    with pytest.raises(SourceError, match=r"stopped sending: nothing arrived for 1 s \(timed out\)"):
        fetch(server.url + "/x")
    assert 0.9 < time.monotonic() - started < 3


def test_a_connection_dropped_mid_body_is_reported(server):
    server.route("/x", lambda h: h.drop(b"[" + b"x" * 999, promised=5000))
    with pytest.raises(SourceError, match=r"dropped the connection mid-download \(got 1,000 of 5,000 bytes\)"):
        fetch(server.url + "/x")


def test_an_oversized_body_is_refused_before_reading_it(server):
    server.route("/x", lambda h: h.answer(200, b"x" * 5000))
    with pytest.raises(SourceError, match=r"the answer is 5,000 bytes, more than the 1,000 bytes limit"):
        fetch(server.url + "/x", max_bytes=1000)


def test_refused_and_unresolvable_hosts_are_one_line_each(server):
    with socket.socket() as probe:  # a port nothing listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    with pytest.raises(SourceError) as error:
        fetch(f"http://127.0.0.1:{port}/x")
    assert str(error.value) == f"cannot reach 127.0.0.1:{port}: connection refused (nothing is listening there)"
    with pytest.raises(SourceError) as error:
        fetch("http://no-such-host.invalid/x")
    assert str(error.value).startswith("cannot reach no-such-host.invalid: offline, or the name does not resolve")


def test_proxy_variables_are_honoured_and_no_proxy_bypasses(server, monkeypatch):
    server.route("/x", lambda h: h.answer(200, b"via proxy" if h.path.startswith("http://") else b"direct"))
    monkeypatch.setenv("http_proxy", server.url)
    monkeypatch.delenv("no_proxy")
    monkeypatch.delenv("NO_PROXY")
    assert fetch("http://papers.example.invalid/x") == b"via proxy"  # never resolved here: the proxy is asked
    assert server.seen[-1].path == "http://papers.example.invalid/x"
    monkeypatch.setenv("http_proxy", "http://proxy.invalid:3128")
    monkeypatch.setenv("no_proxy", "127.0.0.1")
    assert fetch(server.url + "/x") == b"direct"


def test_private_headers_are_not_sent_on_to_a_redirect(server):
    server.route("/old", lambda h: h.answer(302, b"", {"Location": "/new"}))
    server.route("/new", lambda h: h.answer(200, b"ok"))
    fetch(server.url + "/old", private_headers={"Authorization": "Bearer secret"})
    assert server.seen[0].headers["authorization"] == "Bearer secret"
    assert "authorization" not in server.seen[1].headers


def test_conditional_requests_get_304_as_not_modified(server):
    def conditional(h):
        if h.headers.get("If-None-Match") == '"v1"':
            h.answer(304)
        else:
            h.answer(200, b"new", {"ETag": '"v2"', "Last-Modified": "Sat, 01 Jun 2025 12:00:00 GMT"})

    server.route("/x", conditional)
    sink = io.BytesIO()
    response = Client().download(server.url + "/x", sink, etag='"v1"')
    assert response.not_modified and sink.getvalue() == b""
    response = Client().download(server.url + "/x", sink, etag='"v0"')
    assert (response.status, response.etag, response.last_modified) == (200, '"v2"', "Sat, 01 Jun 2025 12:00:00 GMT")
    assert sink.getvalue() == b"new"


def test_arxiv_style_pacing_spaces_requests(server):
    server.route("/x", lambda h: h.answer(200, b"ok"))
    waits: list[float] = []
    client = Client(min_interval=3.0, sleep=waits.append)
    client.get(server.url + "/x")
    client.get(server.url + "/x")
    assert len(waits) == 1 and 2.5 < waits[0] <= 3.0


# -- hostile answers (issue 34): one line naming the host that failed, never a traceback ----------


@pytest.mark.parametrize(
    ("location", "problem"),
    [
        ("http://a]b/x", "not a valid URL (Invalid IPv6 URL)"),
        ("http://[::1/x", "not a valid URL (Invalid IPv6 URL)"),
        ("http://a:99999/x", "not a valid URL (Port out of range 0-65535)"),
        ("http://a:b/x", "not a valid URL (Port could not be cast to integer value as 'b')"),
        ("http://" + "a" * 64 + ".example/x", "not a valid URL (its host name cannot be looked up)"),
        ("http://:80/x", "not a valid URL (no host)"),
        ("gopher://a/x", "not http(s)"),
    ],
)
def test_a_redirect_to_a_url_that_cannot_be_asked_is_one_line_naming_the_host_that_sent_it(server, location, problem):
    server.route("/x", lambda h: h.answer(302, b"", {"Location": location}))
    with pytest.raises(SourceError) as error:
        fetch(server.url + "/x")
    host = server.url.removeprefix("http://")
    assert str(error.value) == f"{host}: redirected to {location!r}, which is {problem}"
    assert len(server.seen) == 1


def test_a_redirects_own_body_is_never_read(server):
    """urllib reads a redirect's body to its end before following it: a slow or endless one held
    the download (and memory) for as long as the server liked."""
    server.route(
        "/slow-redirect",
        lambda h: (
            h.raw(b"HTTP/1.0 302 Found\r\nLocation: /new\r\nContent-Length: 100000\r\n\r\nxx")
            or h.owner.release.wait(5)
        ),
    )
    server.route("/new", lambda h: h.answer(200, b"moved"))
    started = time.monotonic()
    assert fetch(server.url + "/slow-redirect") == b"moved"
    assert time.monotonic() - started < 0.9  # not the 1 s read timeout of waiting for the body


def test_after_a_redirect_errors_name_the_host_that_failed(server):
    """The redirect goes to the same server under another name (localhost), or to a port nothing
    listens on: each error names that host, not the one that redirected (127.0.0.1)."""
    port = server.url.rsplit(":", 1)[1]
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        closed = probe.getsockname()[1]
    server.route("/to", lambda h: h.answer(302, b"", {"Location": f"http://localhost:{port}{h.query['to']}"}))
    server.route("/to-closed", lambda h: h.answer(302, b"", {"Location": f"http://localhost:{closed}/x"}))
    server.route("/missing", lambda h: h.answer(404, b"gone"))
    server.route("/silent", lambda h: h.silent())
    server.route("/drop", lambda h: h.drop(b"[", promised=100))
    expected = {
        "/to?to=/missing": f"localhost:{port} answered HTTP 404 Not Found",
        "/to?to=/silent": f"localhost:{port} stopped sending: nothing arrived for 1 s (timed out)",
        "/to?to=/drop": f"localhost:{port} dropped the connection mid-download (got 1 of 100 bytes)",
        "/to-closed": f"cannot reach localhost:{closed}: connection refused (nothing is listening there)",
    }
    for path, message in expected.items():
        with pytest.raises(SourceError) as error:
            fetch(server.url + path)
        assert str(error.value) == message, path


@pytest.mark.parametrize(
    ("value", "seconds"),
    [
        ("120", 120.0),
        (" 7 ", 7.0),
        ("0", 0.0),
        ("\xb2", None),  # ², byte 0xB2 in a latin-1 header: str.isdigit() says yes, float() raises
        ("\xb9\xb2", None),
        ("\u0663", None),  # ٣: int() reads it as 3
        ("1_0", None),
        ("+5", None),
        ("-1", None),
        ("1e3", None),
        ("9" * 40, 1e18),  # a number longer than any wait: more than anyone waits, never inf or an error
        ("Wed, 21 Oct 2015 07:28:00 GMT", 0.0),  # a date in the past: now
        ("Wed, 99 Oct 99999 07:28:00 GMT", None),
    ],
)
def test_retry_after_is_read_as_ascii_digits_or_a_date_only(value, seconds):
    assert http._retry_after(value) == seconds


@pytest.mark.parametrize(
    ("value", "length"), [("12", 12), (" 12 ", 12), ("\xb2", None), ("1_000", None), ("+1", None), ("-1", None)]
)
def test_content_length_is_read_as_ascii_digits_only(value, length):
    assert http._content_length(value) == length


def test_a_retry_after_in_superscript_digits_is_ignored_and_the_backoff_used(server):
    """Issue 34: `Retry-After: ²` was ValueError: could not convert string to float (a traceback)."""
    answers = iter([503])
    server.route("/x", lambda h: h.answer(next(answers, 200), b"fine", {"Retry-After": "\xb2"}))
    waits: list[float] = []
    assert fetch(server.url + "/x", client={"sleep": waits.append, "backoff": 0.5}) == b"fine"
    assert waits == [0.5]


def test_a_full_disk_names_the_folder_never_the_host(server, tmp_path):
    """Issue 34: the sink's ENOSPC read "cannot reach HOST (No space left on device)"."""
    from tests.sources.test_full_disk import FullFile

    server.route("/x", lambda h: h.answer(200, b"x" * 5000))
    with (tmp_path / "list.json").open("wb") as file, pytest.raises(http.WriteError) as error:
        Client().download(server.url + "/x", FullFile(file, room=100))
    assert str(error.value) == f"cannot write the download into {tmp_path}: the disk is full (No space left on device)"
