"""A local HTTP server for the source tests: 127.0.0.1, port 0, in a thread, stopped by the fixture.

Tests route paths to small responder functions (`serve(handler)`), which see the request and write
any answer, including broken ones (a dropped connection, a stall). Every request is recorded. The
server answers at most MAX_REQUESTS requests and a stalled responder waits at most STALL_LIMIT
seconds (less when the test ends), so no test can run away.

The hostile servers, as Handler methods a responder calls:

- `stall(after)`: headers (and `after`), then nothing;
- `silent()`: reads the request and sends nothing at all, not even a status line;
- `trickle(size, every)`: promises `size` bytes and sends one every `every` seconds (never a stall,
  never done in time);
- `drop(sent, promised)`: promises more than it sends, then closes;
- `raw(data)`: any bytes as the whole answer (headers no well-behaved server would send).

And beside the server: `unaccepting()`, a listening socket whose backlog is full, so a connect to it
hangs (a server that does not accept), and `slow_names(monkeypatch, name)`, a name lookup that hangs."""

from __future__ import annotations

import contextlib
import gzip
import json
import socket
import threading
import time
import urllib.parse
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

MAX_REQUESTS = 400
STALL_LIMIT = 10.0
LOOPBACK = {"127.0.0.1", "localhost", "::1"}


@dataclass
class Seen:
    path: str
    """As sent: a path with its query, or an absolute URL when sent to a proxy."""
    headers: dict[str, str]

    @property
    def query(self) -> dict[str, str]:
        return dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(self.path).query))


Responder = Callable[["Handler"], None]


@dataclass
class LocalServer:
    routes: dict[str, Responder] = field(default_factory=dict)
    seen: list[Seen] = field(default_factory=list)
    release: threading.Event = field(default_factory=threading.Event)

    def start(self) -> LocalServer:
        server = self

        class Bound(Handler):
            owner = server

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Bound)
        self.httpd.daemon_threads = True
        self.thread = threading.Thread(target=self.httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
        self.thread.start()
        return self

    def stop(self) -> None:
        self.release.set()
        self.httpd.shutdown()
        self.httpd.server_close()
        self.thread.join(5)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.httpd.server_address[1]}"

    def route(self, path: str, responder: Responder) -> None:
        self.routes[path] = responder

    def paths(self, prefix: str = "") -> list[str]:
        return [seen.path for seen in self.seen if urllib.parse.urlsplit(seen.path).path.startswith(prefix)]


class Handler(BaseHTTPRequestHandler):
    owner: LocalServer
    protocol_version = "HTTP/1.0"

    def do_GET(self) -> None:
        owner = self.owner
        owner.seen.append(Seen(self.path, {key.lower(): value for key, value in self.headers.items()}))
        if len(owner.seen) > MAX_REQUESTS:
            self.answer(503, b"too many requests in one test")
            return
        responder = owner.routes.get(urllib.parse.urlsplit(self.path).path)
        if responder is None:
            self.answer(404, b"not found")
            return
        with contextlib.suppress(BrokenPipeError, ConnectionResetError):  # the client gave up: some tests want that
            responder(self)

    @property
    def query(self) -> dict[str, str]:
        return dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(self.path).query))

    def answer(self, status: int, body: bytes = b"", headers: dict[str, str] | None = None) -> None:
        self.send_response(status)
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def json(self, data: Any, headers: dict[str, str] | None = None, compress: bool = False) -> None:
        self.body(json.dumps(data).encode("utf-8"), "application/json", headers, compress)

    def body(self, data: bytes, kind: str, headers: dict[str, str] | None = None, compress: bool = False) -> None:
        headers = {"Content-Type": kind, **(headers or {})}
        if compress and "gzip" in self.headers.get("Accept-Encoding", ""):
            data = gzip.compress(data)
            headers["Content-Encoding"] = "gzip"
        self.answer(200, data, headers)

    def stall(self, after: bytes = b"") -> None:
        """Send headers (and some body), then nothing until the test ends."""
        self.send_response(200)
        self.send_header("Content-Length", str(len(after) + 1000))
        self.end_headers()
        self.wfile.write(after)
        self.wfile.flush()
        self.owner.release.wait(STALL_LIMIT)

    def silent(self) -> None:
        """Read the request, then send nothing at all (not even a status line) until the test ends."""
        self.wfile.flush()
        self.owner.release.wait(STALL_LIMIT)

    def trickle(self, size: int = 100_000, every: float = 1.0, status: int = 200) -> None:
        """Answer `status`, promise `size` bytes and send one every `every` seconds: never quiet long
        enough to time out, never done (stops when the test ends, after STALL_LIMIT seconds, or when
        all are sent)."""
        self.send_response(status)
        self.send_header("Content-Length", str(size))
        self.end_headers()
        self.wfile.flush()
        deadline = time.monotonic() + STALL_LIMIT
        for _ in range(size):
            self.wfile.write(b" ")
            self.wfile.flush()
            if self.owner.release.wait(every) or time.monotonic() > deadline:
                return

    def raw(self, data: bytes) -> None:
        """Write `data` as the whole answer: a status line and headers as no well-behaved server would."""
        self.wfile.write(data)
        self.wfile.flush()

    def drop(self, sent: bytes, promised: int) -> None:
        """Promise `promised` bytes, send `sent`, then close the connection."""
        self.send_response(200)
        self.send_header("Content-Length", str(promised))
        self.end_headers()
        self.wfile.write(sent)
        self.wfile.flush()
        with contextlib.suppress(OSError):  # the client may have hung up first
            self.connection.shutdown(socket.SHUT_RDWR)

    def log_message(self, format: str, *args: Any) -> None:
        pass


@contextlib.contextmanager
def unaccepting() -> Iterator[str]:
    """The URL of a server that never accepts: its listening socket's backlog is filled (and nothing
    accepts), so a new connection waits in SYN_SENT until the connect timeout."""
    listener = socket.socket()
    fillers: list[socket.socket] = []
    try:
        listener.bind(("127.0.0.1", 0))
        listener.listen(0)
        address = listener.getsockname()
        for _ in range(8):  # the kernel admits backlog + 1 (and some slack): fill it whatever it admits
            filler = socket.socket()
            filler.setblocking(False)
            filler.connect_ex(address)
            fillers.append(filler)
        time.sleep(0.1)
        yield f"http://127.0.0.1:{address[1]}"
    finally:
        for filler in fillers:
            filler.close()
        listener.close()


def slow_names(monkeypatch, name: str, release: threading.Event) -> None:
    """Looking `name` up hangs until `release` is set (or STALL_LIMIT): a resolver that does not answer."""
    real = socket.getaddrinfo

    def hanging(host, *args, **kwargs):
        if (host.decode() if isinstance(host, bytes) else host) == name:
            release.wait(STALL_LIMIT)
            raise socket.gaierror(socket.EAI_AGAIN, "Temporary failure in name resolution")
        return real(host, *args, **kwargs)

    monkeypatch.setattr(socket, "getaddrinfo", hanging)


def loopback_only(monkeypatch) -> None:
    """Nothing in a test may resolve (so reach) any host but this machine: another name fails as if
    offline, which is also how the DNS failure is tested."""
    real = socket.getaddrinfo

    def guarded(host, *args, **kwargs):
        name = host.decode() if isinstance(host, bytes) else host
        if name not in LOOPBACK:
            raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")
        return real(host, *args, **kwargs)

    monkeypatch.setattr(socket, "getaddrinfo", guarded)
    for variable in ("http_proxy", "https_proxy", "all_proxy", "HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY"):
        monkeypatch.delenv(variable, raising=False)
    monkeypatch.setenv("NO_PROXY", "127.0.0.1,localhost")
    monkeypatch.setenv("no_proxy", "127.0.0.1,localhost")


def fast(monkeypatch) -> None:
    """Timeouts, backoff and pauses short enough for tests (each still exercised)."""
    from search.sources import arxiv, http, openreview, reviews

    monkeypatch.setattr(http, "CONNECT_TIMEOUT", 2.0)
    monkeypatch.setattr(http, "READ_TIMEOUT", 1.0)
    monkeypatch.setattr(http, "BACKOFF", 0.01)
    monkeypatch.setattr(http, "MAX_RETRY_WAIT", 2.0)
    monkeypatch.setattr(arxiv, "PAUSE", 0.0)
    monkeypatch.setattr(openreview, "PAUSE", 0.0)
    monkeypatch.setattr(reviews, "PAUSE", 0.0)


def point_sources_at(monkeypatch, server: LocalServer) -> None:
    monkeypatch.setenv("ICLR_READER_PAPERLISTS_URL", server.url + "/paperlists")
    monkeypatch.setenv("ICLR_READER_OPENREVIEW_URL", server.url + "/openreview")
    monkeypatch.setenv("ICLR_READER_ARXIV_URL", server.url + "/arxiv")
    monkeypatch.delenv("ICLR_READER_OPENREVIEW_TOKEN", raising=False)


def snapshot(folder: Path) -> dict[str, bytes]:
    """Every file and folder under `folder` (hidden ones too) with its content: equal means unchanged."""
    if not folder.exists():
        return {}
    return {
        str(path.relative_to(folder)): path.read_bytes() if path.is_file() else b"<dir>"
        for path in sorted(folder.rglob("*"))
    }


def records(count: int, prefix: str = "p", year: int = 2025) -> list[dict[str, Any]]:
    """Paperlists-style records with distinct abstracts."""
    return [
        {
            "id": f"{prefix}{number}",
            "title": f"Paper {number} on topic {prefix}",
            "abstract": f"We study problem quokka{number} of family {prefix} and show a new bound ({year}).",
            "author": "Ada Lovelace; Alan Turing",
            "status": "Poster",
            "site": f"https://openreview.net/forum?id={prefix}{number}",
        }
        for number in range(count)
    ]
