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
- every failure raised as one SourceError line naming the host and the cause.

The module constants are the defaults each Client reads when it is made: tests lower them."""

from __future__ import annotations

import email.utils
import functools
import http.client
import io
import socket
import ssl
import time
import urllib.error
import urllib.parse
import urllib.request
import zlib
from collections.abc import Callable, Mapping
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
USER_AGENT = (
    f"iclr-reader/{__version__} (a terminal reader for research-paper abstracts, downloading a public paper list)"
)
_RETRIED = {429, 500, 502, 503, 504}
_ERROR_BODY_BYTES = 4096

Progress = Callable[[int, int | None], None]
"""Called as (bytes received, bytes expected or None) while a body arrives; may raise to stop."""


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


def host_of(url: str) -> str:
    """host[:port] of a URL, without any user name or password."""
    parts = urllib.parse.urlsplit(url)
    host = parts.hostname or url
    return f"{host}:{parts.port}" if parts.port else host


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
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self.connect_timeout = CONNECT_TIMEOUT if connect_timeout is None else connect_timeout
        self.read_timeout = READ_TIMEOUT if read_timeout is None else read_timeout
        self.max_attempts = max(1, MAX_ATTEMPTS if max_attempts is None else max_attempts)
        self.backoff = BACKOFF if backoff is None else backoff
        self.max_retry_wait = MAX_RETRY_WAIT if max_retry_wait is None else max_retry_wait
        self.min_interval = min_interval
        self.sleep = sleep
        self._last_request: float | None = None
        self._opener = urllib.request.build_opener(
            urllib.request.ProxyHandler(),  # http_proxy / https_proxy / no_proxy from the environment
            _HTTPHandler(self.read_timeout),
            _HTTPSHandler(self.read_timeout),
            _RedirectHandler(),
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
    ) -> Response:
        """GET `url` and write its (decoded) body to `sink`, retrying 5xx and 429 as configured.
        `private_headers` (a token) are not sent on to where a redirect points. With an etag or
        last_modified, a 304 comes back as a Response that wrote nothing. Raises SourceError."""
        limit = MAX_BYTES if max_bytes is None else max_bytes
        for attempt in range(1, self.max_attempts + 1):
            self._pace()
            try:
                return self._once(url, sink, headers, private_headers, etag, last_modified, limit, on_progress)
            except HTTPStatusError as error:
                if error.status not in _RETRIED or attempt == self.max_attempts:
                    raise self._final(error, attempt) from None
                wait = error.retry_after if error.retry_after is not None else self.backoff * 2 ** (attempt - 1)
                if wait > self.max_retry_wait:
                    raise self._final(error, attempt) from None
                sink.seek(0)
                sink.truncate()
                self.sleep(wait)
        raise AssertionError("unreachable")  # pragma: no cover - the loop returns or raises

    def get(self, url: str, **options: Any) -> bytes:
        """GET `url` into memory (a page of an API's answer); the same options as `download`."""
        buffer = io.BytesIO()
        self.download(url, buffer, **options)
        return buffer.getvalue()

    # -- one request --------------------------------------------------------------------------

    def _pace(self) -> None:
        if self._last_request is not None and self.min_interval > 0:
            wait = self._last_request + self.min_interval - time.monotonic()
            if wait > 0:
                self.sleep(wait)
        self._last_request = time.monotonic()

    def _once(
        self,
        url: str,
        sink: IO[bytes],
        headers: Mapping[str, str] | None,
        private_headers: Mapping[str, str] | None,
        etag: str | None,
        last_modified: str | None,
        limit: int,
        on_progress: Progress | None,
    ) -> Response:
        host = host_of(url)
        if urllib.parse.urlsplit(url).scheme not in ("http", "https"):
            raise SourceError(f"{url}: only http and https URLs can be downloaded")
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
            with error:
                return self._error_status(error, url, host, etag, last_modified)
        except urllib.error.URLError as error:
            raise SourceError(self._cause(host, error.reason, connecting=True)) from None
        except (OSError, http.client.HTTPException) as error:
            raise SourceError(self._cause(host, error, connecting=True)) from None
        with response:
            final = response.geturl()
            try:
                size = _stream(response, sink, host_of(final), limit, on_progress)
            except SourceError:
                raise
            except (OSError, http.client.HTTPException) as error:
                raise SourceError(self._cause(host_of(final), error, connecting=False)) from None
            return Response(
                final, response.status, response.headers.get("ETag"), response.headers.get("Last-Modified"), size
            )

    def _error_status(
        self, error: urllib.error.HTTPError, url: str, host: str, etag: str | None, last_modified: str | None
    ) -> Response:
        if error.code == 304 and (etag or last_modified):
            return Response(
                error.geturl() or url,
                304,
                error.headers.get("ETag") or etag,
                error.headers.get("Last-Modified") or last_modified,
                0,
            )
        if 300 <= error.code < 400:  # urllib's redirect handler gave up on it
            location = error.headers.get("Location")
            if "not allowed" in str(error.reason):
                raise SourceError(f"{host}: redirected to {location!r}, which is not http(s)") from None
            if "infinite loop" in str(error.reason):
                raise SourceError(
                    f"{host}: too many redirects (more than {MAX_REDIRECTS}), or a redirect loop"
                ) from None
            raise SourceError(f"{host} answered HTTP {error.code} without a usable Location to go to") from None
        try:
            body = error.read(_ERROR_BODY_BYTES)
        except (OSError, http.client.HTTPException):
            body = b""
        retry_after = _retry_after(error.headers.get("Retry-After"))
        reason = sanitize_line(str(error.reason or "")) or http.client.responses.get(error.code, "")
        raise HTTPStatusError(
            f"{host} answered HTTP {error.code} {reason}".rstrip(), error.code, host, retry_after, body
        ) from None

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
        return f"cannot reach {host} ({error})"


def _stream(response: Any, sink: IO[bytes], host: str, limit: int, on_progress: Progress | None) -> int:
    """Copy the body to the sink, decoding gzip, within the limit. Returns the decoded size."""
    expected = _content_length(response.headers.get("Content-Length"))
    encoding = (response.headers.get("Content-Encoding") or "identity").strip().lower()
    if encoding not in ("identity", "gzip", "x-gzip"):
        raise SourceError(f"{host}: the answer is encoded as {encoding!r}, which cannot be read")
    if expected is not None and expected > limit:
        raise SourceError(f"{host}: the answer is {_megabytes(expected)}, more than the {_megabytes(limit)} limit")
    decoder = zlib.decompressobj(16 + zlib.MAX_WBITS) if encoding != "identity" else None
    received = written = 0

    def write(data: bytes) -> None:
        nonlocal written
        written += len(data)
        if written > limit:
            raise SourceError(f"{host}: the answer is larger than the {_megabytes(limit)} limit")
        sink.write(data)

    while chunk := response.read(CHUNK):
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


def _content_length(value: str | None) -> int | None:
    try:
        length = int(value) if value is not None else None
    except ValueError:
        return None
    return length if length is not None and length >= 0 else None


def _retry_after(value: str | None) -> float | None:
    """Seconds from a Retry-After header: a number of seconds or an HTTP date."""
    if not value:
        return None
    value = value.strip()
    if value.isdigit():
        return float(value)
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return max(0.0, (when - datetime.now(UTC)).total_seconds())


def _describe(error: BaseException) -> str:
    text = str(error).strip() or type(error).__name__
    return text.splitlines()[0][:120]


def _megabytes(size: int) -> str:
    return f"{size / 2**20:.0f} MiB" if size >= 2**20 else f"{size:,} bytes"


class _ReadTimeout(http.client.HTTPConnection):
    """Connects within the connect timeout, then waits at most the read timeout for each read."""

    def __init__(self, *args: Any, read_timeout: float, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._read_timeout = read_timeout

    def connect(self) -> None:
        super().connect()
        self.sock.settimeout(self._read_timeout)


class _HTTPConnection(_ReadTimeout):
    pass


class _HTTPSConnection(_ReadTimeout, http.client.HTTPSConnection):
    pass


class _HTTPHandler(urllib.request.HTTPHandler):
    def __init__(self, read_timeout: float) -> None:
        super().__init__()
        self._read_timeout = read_timeout

    def http_open(self, req: urllib.request.Request) -> http.client.HTTPResponse:
        return self.do_open(functools.partial(_HTTPConnection, read_timeout=self._read_timeout), req)


class _HTTPSHandler(urllib.request.HTTPSHandler):
    def __init__(self, read_timeout: float) -> None:
        self._tls = ssl.create_default_context()
        super().__init__(context=self._tls)
        self._read_timeout = read_timeout

    def https_open(self, req: urllib.request.Request) -> http.client.HTTPResponse:
        connection = functools.partial(_HTTPSConnection, read_timeout=self._read_timeout)
        return self.do_open(connection, req, context=self._tls)


class _RedirectHandler(urllib.request.HTTPRedirectHandler):
    """At most MAX_REDIRECTS redirects, and only to http or https."""

    max_redirections = MAX_REDIRECTS

    def redirect_request(
        self, req: urllib.request.Request, fp: IO[bytes], code: int, msg: str, headers: Any, newurl: str
    ) -> urllib.request.Request | None:
        if urllib.parse.urlsplit(newurl).scheme not in ("http", "https"):
            raise SourceError(f"{host_of(req.full_url)}: redirected to {newurl!r}, which is not http(s)")
        return super().redirect_request(req, fp, code, msg, headers, newurl)


__all__ = ["USER_AGENT", "Client", "HTTPStatusError", "Progress", "Response", "host_of"]
