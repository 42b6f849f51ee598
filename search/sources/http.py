"""HTTP for the list sources: one GET at a time, streamed into a file, done properly.

Built on the standard library's urllib.request (no dependency), which honours the proxy environment
variables (`http_proxy`, `https_proxy`, `no_proxy`) through its ProxyHandler. On top of it:

- separate connect and read timeouts (the read timeout bounds each wait for data, so a server that
  stalls mid-body is given up on);
- bounded retries with exponential backoff on 5xx and 429, honouring Retry-After (up to a limit);
- an optional minimum interval between requests (arXiv asks for one request every 3 s);
- a User-Agent naming iclr-reader and its version;
- gzip asked for and decoded as it streams, with the size limit applied to the decoded bytes;
- redirects followed, at most MAX_REDIRECTS, and only to http(s);
- conditional requests (If-None-Match / If-Modified-Since), a 304 returned as such;
- every failure raised as one SourceError line naming the host that failed and the cause (a full
  disk is a WriteError, naming the folder, never the host); whatever urllib or http.client raise
  on a hostile answer (a bad Location, a bad header) included;
- numbers from the answer (Retry-After, Content-Length) read as ASCII digits only;
- cancellation that does not depend on data arriving: a `cancel` callable (or the one `downloading`
  sets for a block of code) is asked every CANCEL_CHECK seconds by a watcher thread, which shuts
  the connection's socket down when it says yes, so a blocked connect, TLS handshake or read
  returns at once; pauses between retries wait on the same flag, and the body is read a piece at
  a time as it arrives (read1), so the progress callback runs whenever anything arrives.

The module constants are the defaults each Client reads when it is made: tests lower them."""

from __future__ import annotations

import contextlib
import contextvars
import email.utils
import errno
import functools
import http.client
import io
import os
import re
import socket
import ssl
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
import zlib
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import IO, Any

from search.errors import SourceError
from search.text.sanitize import sanitize_line
from search.version import __version__

CONNECT_TIMEOUT = 15.0
"""Seconds to wait for a connection (and the TLS handshake)."""
READ_TIMEOUT = 60.0
"""Seconds to wait for each piece of the answer once connected."""
MAX_ATTEMPTS = 4
"""Tries for one request when the server answers 5xx or 429."""
BACKOFF = 2.0
"""Seconds before the first retry, doubled for each one after (when no Retry-After says otherwise)."""
MAX_RETRY_WAIT = 120.0
"""A Retry-After longer than this is not waited for: the request fails, saying how long was asked."""
MAX_REDIRECTS = 5
MAX_BYTES = 256 * 1024 * 1024
"""The most one response may hold, decoded (sources pass a lower limit where a list must fit)."""
CHUNK = 64 * 1024
"""The most one read takes; a read returns whatever has arrived, up to this."""
CANCEL_CHECK = 0.1
"""Seconds between looks at a request's `cancel`: a cancelled request stops within about this."""
USER_AGENT = (
    f"iclr-reader/{__version__} (a terminal reader for research-paper abstracts, downloading a public paper list)"
)
_RETRIED = {429, 500, 502, 503, 504}
_ERROR_BODY_BYTES = 4096
_SHOWN_URL = 200
"""Characters of a URL from an answer (a Location) quoted in an error."""
_DIGITS = re.compile(r"[0-9]{1,18}")
"""A number in a header: ASCII digits only (str.isdigit and int also take "²", "١٢" or "1_0")."""

Progress = Callable[[int, int | None], None]
"""Called as (bytes received, bytes expected or None) while a body arrives; may raise to stop."""
Cancel = Callable[[], bool]
"""Asked, from another thread too, while a request runs: True stops it (DownloadCancelled)."""


@dataclass(frozen=True)
class Response:
    url: str
    """The URL the answer finally came from (after redirects)."""
    status: int
    """200 (or another 2xx) with the body written, or 304 Not Modified with nothing written."""
    etag: str | None
    last_modified: str | None
    size: int
    """Bytes written (decoded)."""

    @property
    def not_modified(self) -> bool:
        return self.status == 304


class HTTPStatusError(SourceError):
    """The server answered with an error status; sources reword the ones they know (404, 401, 403)."""

    def __init__(self, message: str, status: int, host: str, retry_after: float | None = None, body: bytes = b""):
        super().__init__(message)
        self.status = status
        self.host = host
        self.retry_after = retry_after
        self.body = body


class DownloadCancelled(SourceError):
    """The request was stopped through its `cancel`: whoever cancelled it knows why."""


class WriteError(SourceError):
    """The body could not be written where it was going (a full disk): the host is not to blame."""

    def __init__(self, message: str, error: OSError) -> None:
        super().__init__(message)
        self.error = error


@dataclass
class Downloading:
    """What `downloading` shares with every request made inside it."""

    cancel: Cancel | None = None
    host: str | None = None
    """host[:port] of the last request made (after redirects): whose answer a source was reading."""


_DOWNLOADING: contextvars.ContextVar[Downloading | None] = contextvars.ContextVar("downloading", default=None)


@contextlib.contextmanager
def downloading(cancel: Cancel | None = None) -> Iterator[Downloading]:
    """Every Client request made in this block (in this thread) can be cancelled by `cancel`, and the
    block learns which host was asked last. The sources make their own Clients: this reaches them."""
    shared = Downloading(cancel)
    token = _DOWNLOADING.set(shared)
    try:
        yield shared
    finally:
        _DOWNLOADING.reset(token)


def host_of(url: str) -> str:
    """host[:port] of a URL, without any user name or password."""
    try:
        parts = urllib.parse.urlsplit(url)
        host, port = parts.hostname or url, parts.port
    except ValueError:  # a bad port or IPv6 literal: the text between // and the path, as it is
        return url.partition("//")[2].partition("/")[0].rpartition("@")[2][:_SHOWN_URL] or url[:_SHOWN_URL]
    return f"{host}:{port}" if port else host


def write_problem(error: OSError) -> str:
    """Why a file could not be written, in a few words (the disk is named by the caller)."""
    reason = error.strerror or str(error)
    if error.errno in (errno.ENOSPC, errno.EDQUOT):
        return f"the disk is full ({reason})"
    if error.errno == errno.EROFS:
        return f"the file system is read-only ({reason})"
    if error.errno in (errno.EACCES, errno.EPERM):
        return f"permission denied ({reason})"
    return reason


class Client:
    """Makes GET requests one at a time. Not thread-safe; cheap to make."""

    def __init__(
        self,
        *,
        connect_timeout: float | None = None,
        read_timeout: float | None = None,
        max_attempts: int | None = None,
        backoff: float | None = None,
        max_retry_wait: float | None = None,
        min_interval: float = 0.0,
        sleep: Callable[[float], None] | None = None,
    ) -> None:
        self.connect_timeout = CONNECT_TIMEOUT if connect_timeout is None else connect_timeout
        self.read_timeout = READ_TIMEOUT if read_timeout is None else read_timeout
        self.max_attempts = max(1, MAX_ATTEMPTS if max_attempts is None else max_attempts)
        self.backoff = BACKOFF if backoff is None else backoff
        self.max_retry_wait = MAX_RETRY_WAIT if max_retry_wait is None else max_retry_wait
        self.min_interval = min_interval
        self.sleep = sleep
        """Waits between requests; None (the default) waits on the request's cancellation."""
        self._last_request: float | None = None
        self._exchange: _Exchange | None = None
        self._opener = urllib.request.build_opener(
            urllib.request.ProxyHandler(),  # http_proxy / https_proxy / no_proxy from the environment
            _HTTPHandler(self.read_timeout, self._current),
            _HTTPSHandler(self.read_timeout, self._current),
            _RedirectHandler(self._current),
        )

    def download(
        self,
        url: str,
        sink: IO[bytes],
        *,
        headers: Mapping[str, str] | None = None,
        private_headers: Mapping[str, str] | None = None,
        etag: str | None = None,
        last_modified: str | None = None,
        max_bytes: int | None = None,
        on_progress: Progress | None = None,
        cancel: Cancel | None = None,
    ) -> Response:
        """GET `url` and write its (decoded) body to `sink`, retrying 5xx and 429 as configured.
        `private_headers` (a token) are not sent on to where a redirect points. With an etag or
        last_modified, a 304 comes back as a Response that wrote nothing. `cancel` (by default the
        one `downloading` set) stops the request within CANCEL_CHECK seconds of saying so, whatever
        the server does, with DownloadCancelled. Raises SourceError."""
        limit = MAX_BYTES if max_bytes is None else max_bytes
        shared = _DOWNLOADING.get()
        if cancel is None and shared is not None:
            cancel = shared.cancel
        exchange = self._exchange = _Exchange(url, cancel, shared)
        try:
            for attempt in range(1, self.max_attempts + 1):
                self._pace(exchange)
                try:
                    return self._once(
                        exchange, url, sink, headers, private_headers, etag, last_modified, limit, on_progress
                    )
                except HTTPStatusError as error:
                    if error.status not in _RETRIED or attempt == self.max_attempts:
                        raise self._final(error, attempt) from None
                    wait = error.retry_after if error.retry_after is not None else self.backoff * 2 ** (attempt - 1)
                    if wait > self.max_retry_wait:
                        raise self._final(error, attempt) from None
                    try:
                        sink.seek(0)
                        sink.truncate()
                    except OSError as problem:
                        raise _write_error(sink, problem) from None
                    self._wait(exchange, wait)
            raise AssertionError("unreachable")  # pragma: no cover - the loop returns or raises
        finally:
            self._exchange = None
            exchange.close()

    def get(self, url: str, **options: Any) -> bytes:
        """GET `url` into memory (a page of an API's answer); the same options as `download`."""
        buffer = io.BytesIO()
        self.download(url, buffer, **options)
        return buffer.getvalue()

    # -- one request --------------------------------------------------------------------------

    def _current(self) -> _Exchange:
        assert self._exchange is not None, "connections are made only inside Client.download"
        return self._exchange

    def _wait(self, exchange: _Exchange, seconds: float) -> None:
        if self.sleep is None:
            exchange.pause(seconds)
        else:
            self.sleep(seconds)
            exchange.check()

    def _pace(self, exchange: _Exchange) -> None:
        if self._last_request is not None and self.min_interval > 0:
            wait = self._last_request + self.min_interval - time.monotonic()
            if wait > 0:
                self._wait(exchange, wait)
        self._last_request = time.monotonic()

    def _once(
        self,
        exchange: _Exchange,
        url: str,
        sink: IO[bytes],
        headers: Mapping[str, str] | None,
        private_headers: Mapping[str, str] | None,
        etag: str | None,
        last_modified: str | None,
        limit: int,
        on_progress: Progress | None,
    ) -> Response:
        exchange.asking(url)
        problem = _url_problem(url)
        if problem == _NOT_HTTP:
            raise SourceError(f"{url}: only http and https URLs can be downloaded")
        if problem:
            raise SourceError(f"{_quoted(url)} is {problem}")
        exchange.check()
        request = urllib.request.Request(url, method="GET")
        request.add_header("User-Agent", USER_AGENT)
        request.add_header("Accept-Encoding", "gzip")
        for name, value in (headers or {}).items():
            request.add_header(name, value)
        for name, value in (private_headers or {}).items():
            request.add_unredirected_header(name, value)
        if etag:
            request.add_header("If-None-Match", etag)
        if last_modified:
            request.add_header("If-Modified-Since", last_modified)
        try:
            response = self._opener.open(request, timeout=self.connect_timeout)
        except urllib.error.HTTPError as error:
            exchange.check()
            try:
                return self._error_status(exchange, error, etag, last_modified)
            finally:
                with contextlib.suppress(OSError, ValueError):  # a redirect's answer is closed already
                    error.close()
        except SourceError:  # ours, from a redirect (or a cancel while connecting)
            exchange.check()
            raise
        except urllib.error.URLError as error:
            exchange.check()
            raise SourceError(self._cause(exchange.host, error.reason, connecting=not exchange.connected)) from None
        except (OSError, http.client.HTTPException) as error:
            exchange.check()
            raise SourceError(self._cause(exchange.host, error, connecting=not exchange.connected)) from None
        except Exception as error:  # noqa: BLE001 - whatever urllib or http.client make of a hostile answer
            exchange.check()
            raise SourceError(_unusable(exchange.host, error)) from None
        with response:
            final = response.geturl()
            host = host_of(final)

            def failed(error: BaseException) -> SourceError:
                return SourceError(self._cause(host, error, connecting=False))

            size = _stream(response, sink, host, limit, on_progress, exchange, failed)
            exchange.check()  # a cancel ends a body of unknown length early: never taken for its end
            return Response(
                final, response.status, response.headers.get("ETag"), response.headers.get("Last-Modified"), size
            )

    def _error_status(
        self, exchange: _Exchange, error: urllib.error.HTTPError, etag: str | None, last_modified: str | None
    ) -> Response:
        url = error.geturl() or exchange.url
        host = host_of(url)  # after redirects, the host that answered
        if error.code == 304 and (etag or last_modified):
            return Response(
                url,
                304,
                error.headers.get("ETag") or etag,
                error.headers.get("Last-Modified") or last_modified,
                0,
            )
        if 300 <= error.code < 400:  # urllib's redirect handler gave up on it
            if "infinite loop" in str(error.reason):
                raise SourceError(
                    f"{host}: too many redirects (more than {MAX_REDIRECTS}), or a redirect loop"
                ) from None
            raise SourceError(f"{host} answered HTTP {error.code} without a usable Location to go to") from None
        body = self._error_body(exchange, error)
        retry_after = _retry_after(error.headers.get("Retry-After"))
        reason = sanitize_line(str(error.reason or "")) or http.client.responses.get(error.code, "")
        raise HTTPStatusError(
            f"{host} answered HTTP {error.code} {reason}".rstrip(), error.code, host, retry_after, body
        ) from None

    def _error_body(self, exchange: _Exchange, error: urllib.error.HTTPError) -> bytes:
        """The first bytes of an error's body (a source may quote it), read within the read timeout."""
        body = b""
        deadline = time.monotonic() + self.read_timeout
        reader: Any = error.fp
        try:
            while len(body) < _ERROR_BODY_BYTES and time.monotonic() < deadline:
                exchange.check()
                piece = reader.read1(_ERROR_BODY_BYTES - len(body)) if reader is not None else b""
                if not piece:
                    break
                body += piece
        except DownloadCancelled:
            raise
        except Exception:  # noqa: BLE001 - the status says enough
            pass
        exchange.check()  # a cancel shuts the socket: the end it reads is not the body's
        return body

    def _final(self, error: HTTPStatusError, attempts: int) -> HTTPStatusError:
        """The error to raise once retrying is over, saying why it stopped."""
        tries = f" after {attempts} tries" if attempts > 1 else ""
        if error.status == 429:
            wait = f"; it asks to wait {error.retry_after:.0f} s" if error.retry_after else ""
            message = f"{error.host} is limiting requests (HTTP 429, too many requests){tries}{wait}: try again later"
        elif error.status >= 500:
            message = f"{error}{tries}: the server has a problem, try again later"
        else:
            return error
        return HTTPStatusError(message, error.status, error.host, error.retry_after, error.body)

    def _cause(self, host: str, error: object, connecting: bool) -> str:
        """One line for a failure below HTTP: DNS, refused, timed out, dropped, TLS."""
        if isinstance(error, socket.gaierror):
            return f"cannot reach {host}: offline, or the name does not resolve ({error.strerror or error})"
        if isinstance(error, ConnectionRefusedError):
            return f"cannot reach {host}: connection refused (nothing is listening there)"
        if isinstance(error, TimeoutError):
            if connecting:
                return f"cannot reach {host}: timed out after {self.connect_timeout:g} s"
            return f"{host} stopped sending: nothing arrived for {self.read_timeout:g} s (timed out)"
        if isinstance(error, ssl.SSLCertVerificationError):
            return f"{host}: its TLS certificate is not trusted ({error.verify_message})"
        if isinstance(error, ssl.SSLError):
            return f"{host}: the TLS connection failed ({error.reason or error})"
        if isinstance(error, http.client.IncompleteRead):
            return f"{host} dropped the connection mid-download (got {len(error.partial):,} bytes of a chunk)"
        if isinstance(error, (ConnectionError, http.client.HTTPException)):
            what = "while connecting" if connecting else "mid-download"
            return f"{host} dropped the connection {what} ({_describe(error)})"
        if isinstance(error, OSError):
            return f"cannot reach {host} ({error.strerror or error})"
        if isinstance(error, BaseException):
            return _unusable(host, error)
        return f"cannot reach {host} ({sanitize_line(str(error))[:120]})"


def _stream(
    response: Any,
    sink: IO[bytes],
    host: str,
    limit: int,
    on_progress: Progress | None,
    exchange: _Exchange,
    failed: Callable[[BaseException], SourceError],
) -> int:
    """Copy the body to the sink as it arrives (each read takes what is there, up to CHUNK), decoding
    gzip, within the limit. Returns the decoded size. The progress callback runs after every read,
    outside the handling of network errors, so what it raises reaches the caller as it was."""
    expected = _content_length(response.headers.get("Content-Length"))
    encoding = (response.headers.get("Content-Encoding") or "identity").strip().lower()
    if encoding not in ("identity", "gzip", "x-gzip"):
        raise SourceError(f"{host}: the answer is encoded as {_quoted(encoding)}, which cannot be read")
    if expected is not None and expected > limit:
        raise SourceError(f"{host}: the answer is {_megabytes(expected)}, more than the {_megabytes(limit)} limit")
    decoder = zlib.decompressobj(16 + zlib.MAX_WBITS) if encoding != "identity" else None
    received = written = 0

    def write(data: bytes) -> None:
        nonlocal written
        written += len(data)
        if written > limit:
            raise SourceError(f"{host}: the answer is larger than the {_megabytes(limit)} limit")
        try:
            sink.write(data)
        except OSError as error:
            raise _write_error(sink, error) from None

    while True:
        exchange.check()
        try:
            chunk = response.read1(CHUNK)
        except (OSError, http.client.HTTPException) as error:
            exchange.check()
            raise failed(error) from None
        except Exception as error:  # noqa: BLE001 - whatever http.client makes of a hostile body
            exchange.check()
            raise SourceError(_unusable(host, error)) from None
        if not chunk:
            exchange.check()  # a cancel shuts the socket: the end it reads is not the body's
            break
        received += len(chunk)
        if decoder is None:
            write(chunk)
        else:
            try:
                data = decoder.decompress(chunk, CHUNK * 4)
                write(data)
                while decoder.unconsumed_tail:  # bounded pieces: a gzip bomb never sits in memory whole
                    write(decoder.decompress(decoder.unconsumed_tail, CHUNK * 4))
            except zlib.error:
                raise SourceError(f"{host}: the gzip-compressed answer is corrupt") from None
        if on_progress is not None:
            on_progress(received, expected)
    if expected is not None and received < expected:
        raise SourceError(f"{host} dropped the connection mid-download (got {received:,} of {expected:,} bytes)")
    if decoder is not None:
        try:
            write(decoder.flush())
        except zlib.error:
            raise SourceError(f"{host}: the gzip-compressed answer is corrupt") from None
        if not decoder.eof:
            raise SourceError(f"{host} dropped the connection mid-download (the gzip stream is cut short)")
    return written


def _write_error(sink: IO[bytes], error: OSError) -> WriteError:
    name = getattr(sink, "name", None)
    where = os.path.dirname(name) if isinstance(name, str) and os.path.dirname(name) else "its file"
    return WriteError(f"cannot write the download into {where}: {write_problem(error)}", error)


def _content_length(value: str | None) -> int | None:
    """Content-Length as ASCII digits, or None (unknown) for anything else."""
    if value is None or not _DIGITS.fullmatch(value.strip()):
        return None
    return int(value.strip())


def _retry_after(value: str | None) -> float | None:
    """Seconds from a Retry-After header: ASCII digits, or an HTTP date; None for anything else."""
    if not value:
        return None
    value = value.strip()
    if _DIGITS.fullmatch(value):
        return float(value)
    if value.isascii() and value.isdigit():  # more digits than any wait: longer than anyone waits
        return float(10**18)
    try:
        when = email.utils.parsedate_to_datetime(value)
        if when.tzinfo is None:
            when = when.replace(tzinfo=UTC)
        return max(0.0, (when - datetime.now(UTC)).total_seconds())
    except (TypeError, ValueError, OverflowError, IndexError):
        return None


_NOT_HTTP = "not http(s)"


def _url_problem(url: str) -> str | None:
    """Why `url` cannot be asked, in a few words (None: it can): what urllib, http.client or the
    name lookup would otherwise trip over with a ValueError or UnicodeError."""
    if any(ord(character) < 0x20 or character == "\x7f" for character in url):
        return "not a valid URL (it holds control characters)"
    try:
        parts = urllib.parse.urlsplit(url)
        parts.port  # noqa: B018 - raises ValueError for a port that is not a number or out of range
        hostname = parts.hostname
    except ValueError as error:
        return f"not a valid URL ({_describe(error)})"
    if parts.scheme not in ("http", "https"):
        return _NOT_HTTP
    if not hostname:
        return "not a valid URL (no host)"
    if any(character.isspace() for character in parts.netloc):
        return "not a valid URL (spaces in its host)"
    try:
        hostname.encode("idna")
    except UnicodeError:
        return "not a valid URL (its host name cannot be looked up)"
    return None


def _quoted(text: str) -> str:
    """Text from an answer (a Location, an encoding), quoted and cut short for an error line."""
    return repr(text[:_SHOWN_URL] + ("…" if len(text) > _SHOWN_URL else ""))


def _unusable(host: str, error: BaseException) -> str:
    return f"{host}: its answer could not be read ({type(error).__name__}: {_describe(error)})"


def _describe(error: BaseException) -> str:
    text = sanitize_line(str(error)).strip() or type(error).__name__
    return text.splitlines()[0][:120] if text else type(error).__name__


def _megabytes(size: int) -> str:
    return f"{size / 2**20:.0f} MiB" if size >= 2**20 else f"{size:,} bytes"


class _Exchange:
    """One call of Client.download: the URL asked now (redirects change it), whether its connection
    is up, and its cancellation. With a `cancel`, a watcher thread asks it every CANCEL_CHECK s and,
    when it says yes, shuts down every socket the request opened (through a duplicate of each, kept
    for that: TLS takes the original over), so a connect, handshake or read blocked on one returns
    at once, whatever the server does; pauses wait on the same flag."""

    def __init__(self, url: str, cancel: Cancel | None, shared: Downloading | None) -> None:
        self.url = url
        self.connected = False
        self.stopped = threading.Event()
        self._cancel = cancel
        self._shared = shared
        self._lock = threading.Lock()
        self._sockets: list[socket.socket] = []
        self._over = threading.Event()
        if cancel is not None:
            threading.Thread(target=self._watch, name="iclr-reader-download-watch", daemon=True).start()

    @property
    def host(self) -> str:
        return host_of(self.url)

    def asking(self, url: str) -> None:
        """From now on the request is to `url` (the first one, or where a redirect points)."""
        self.url = url
        self.connected = False
        if self._shared is not None:
            self._shared.host = host_of(url)

    def check(self) -> None:
        """Raise DownloadCancelled once the request is cancelled."""
        if not self.stopped.is_set() and self._asked():
            self.stop()
        if self.stopped.is_set():
            raise DownloadCancelled(f"{self.host}: the download was stopped")

    def pause(self, seconds: float) -> None:
        """Wait, stopping early (DownloadCancelled) when cancelled; signals are handled meanwhile."""
        deadline = time.monotonic() + seconds
        while (left := deadline - time.monotonic()) > 0:
            self.check()
            self.stopped.wait(min(left, CANCEL_CHECK))
        self.check()

    def connect(self, address: tuple[str, int], timeout: Any, source_address: Any = None) -> socket.socket:
        """socket.create_connection, with the name looked up as `resolve` does and each socket watched
        from before it connects."""
        host, port = address
        problem: OSError | None = None
        for family, kind, protocol, _name, where in self.resolve(host, port):
            sock = socket.socket(family, kind, protocol)
            try:
                self._watch_socket(sock)
                if isinstance(timeout, (int, float)):
                    sock.settimeout(timeout)
                if source_address:
                    sock.bind(source_address)
                sock.connect(where)
            except OSError as error:
                sock.close()
                self.check()
                problem = error
                continue
            except BaseException:
                sock.close()
                raise
            return sock
        raise problem or OSError(f"{host} resolves to no address")

    def resolve(self, host: str, port: int) -> list[Any]:
        """getaddrinfo in a helper thread, so that a resolver that hangs holds up neither a cancel nor
        a signal (ctrl+c, SIGTERM): the helper is left to finish on its own."""
        found: list[Any] = []
        failed: list[BaseException] = []
        done = threading.Event()

        def look_up() -> None:
            try:
                found.extend(socket.getaddrinfo(host, port, 0, socket.SOCK_STREAM))
            except BaseException as error:  # noqa: BLE001 - handed to the asking thread
                failed.append(error)
            finally:
                done.set()

        threading.Thread(target=look_up, name="iclr-reader-resolve", daemon=True).start()
        while not done.wait(CANCEL_CHECK):
            self.check()
        if failed:
            raise failed[0]
        return found

    def stop(self) -> None:
        self.stopped.set()
        with self._lock:
            for sock in self._sockets:
                with contextlib.suppress(OSError):
                    sock.shutdown(socket.SHUT_RDWR)

    def close(self) -> None:
        """The request is over: the watcher ends and the duplicates are closed."""
        self._over.set()
        with self._lock:
            for sock in self._sockets:
                sock.close()
            self._sockets.clear()

    def _watch_socket(self, sock: socket.socket) -> None:
        if self._cancel is None:
            return
        with self._lock:
            if self._over.is_set():
                return
            duplicate = sock.dup()
            self._sockets.append(duplicate)
            if self.stopped.is_set():
                with contextlib.suppress(OSError):
                    duplicate.shutdown(socket.SHUT_RDWR)

    def _watch(self) -> None:
        while not self._over.wait(CANCEL_CHECK):
            if self._asked():
                self.stop()
                return

    def _asked(self) -> bool:
        if self._cancel is None:
            return False
        try:
            return bool(self._cancel())
        except Exception:  # noqa: BLE001 - a cancel that cannot answer stops the request
            return True


class _Connection(http.client.HTTPConnection):
    """Connects through the request's exchange (watched, cancellable) within the connect timeout,
    then waits at most the read timeout for each read."""

    def __init__(self, *args: Any, read_timeout: float, exchange: Callable[[], _Exchange], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._read_timeout = read_timeout
        self._exchange = exchange
        # http.client makes its socket through this attribute (socket.create_connection by default).
        self._create_connection = self._connect_socket

    def _connect_socket(self, address: tuple[str, int], timeout: Any = None, source_address: Any = None) -> Any:
        return self._exchange().connect(address, timeout, source_address)

    def connect(self) -> None:
        super().connect()
        self.sock.settimeout(self._read_timeout)
        self._exchange().connected = True


class _HTTPConnection(_Connection):
    pass


class _HTTPSConnection(_Connection, http.client.HTTPSConnection):
    pass


class _HTTPHandler(urllib.request.HTTPHandler):
    def __init__(self, read_timeout: float, exchange: Callable[[], _Exchange]) -> None:
        super().__init__()
        self._read_timeout = read_timeout
        self._exchange = exchange

    def http_open(self, req: urllib.request.Request) -> http.client.HTTPResponse:
        connection = functools.partial(_HTTPConnection, read_timeout=self._read_timeout, exchange=self._exchange)
        return self.do_open(connection, req)


class _HTTPSHandler(urllib.request.HTTPSHandler):
    def __init__(self, read_timeout: float, exchange: Callable[[], _Exchange]) -> None:
        self._tls = ssl.create_default_context()
        super().__init__(context=self._tls)
        self._read_timeout = read_timeout
        self._exchange = exchange

    def https_open(self, req: urllib.request.Request) -> http.client.HTTPResponse:
        connection = functools.partial(_HTTPSConnection, read_timeout=self._read_timeout, exchange=self._exchange)
        return self.do_open(connection, req, context=self._tls)


class _RedirectHandler(urllib.request.HTTPRedirectHandler):
    """At most MAX_REDIRECTS redirects, only to http or https URLs that can be asked (checked before
    urllib parses them: a bad one is one line naming the host that sent it); the redirect's own body
    is never read."""

    max_redirections = MAX_REDIRECTS

    def __init__(self, exchange: Callable[[], _Exchange]) -> None:
        super().__init__()
        self._exchange = exchange

    def http_error_302(
        self, req: urllib.request.Request, fp: IO[bytes], code: int, msg: str, headers: Any
    ) -> IO[bytes] | None:
        location = headers.get("Location", headers.get("URI"))
        if location is not None:
            problem = _redirect_problem(req.full_url, location)
            if problem:
                fp.close()
                raise SourceError(f"{host_of(req.full_url)}: redirected to {_quoted(location)}, which is {problem}")
        return super().http_error_302(req, fp, code, msg, headers)

    http_error_301 = http_error_303 = http_error_307 = http_error_308 = http_error_302

    def redirect_request(
        self, req: urllib.request.Request, fp: IO[bytes], code: int, msg: str, headers: Any, newurl: str
    ) -> urllib.request.Request | None:
        problem = _url_problem(newurl)
        if problem:
            fp.close()
            raise SourceError(f"{host_of(req.full_url)}: redirected to {_quoted(newurl)}, which is {problem}")
        new = super().redirect_request(req, fp, code, msg, headers, newurl)
        fp.close()  # urllib would read the redirect's body to its end, however long or slow
        if new is not None:
            self._exchange().asking(newurl)
        return new


def _redirect_problem(base: str, location: str) -> str | None:
    try:
        target = urllib.parse.urljoin(base, location.strip())
    except ValueError as error:
        return f"not a valid URL ({_describe(error)})"
    return _url_problem(target)


__all__ = [
    "CANCEL_CHECK",
    "USER_AGENT",
    "Cancel",
    "Client",
    "DownloadCancelled",
    "Downloading",
    "HTTPStatusError",
    "Progress",
    "Response",
    "WriteError",
    "downloading",
    "host_of",
    "write_problem",
]
