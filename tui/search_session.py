"""The search session: the newest request searched in a thread, older ones cancelled, and what it
found delivered as events. No Textual here: the screen hands it requests and shows its events, and
the tests drive it without an app."""

from __future__ import annotations

import dataclasses
import threading
from collections.abc import Callable
from dataclasses import dataclass

from search import SearchEngine, SearchRequest, SearchResult

JOIN_SECONDS = 5.0
"""How long `close` waits for a cancelled search to stop (it stops at its next step: milliseconds)."""


@dataclass(frozen=True)
class FirstPage:
    """The first page of a request's results; `quick`: found by scanning the papers' text because
    the index was not open yet (ranked results follow once it is)."""

    request: SearchRequest
    result: SearchResult
    quick: bool = False


@dataclass(frozen=True)
class More:
    """Every match of a request whose first page (`first`) was delivered."""

    request: SearchRequest
    first: SearchResult
    result: SearchResult


@dataclass(frozen=True)
class Failed:
    """A search raised: `error` says what, in one line."""

    request: SearchRequest
    error: str


@dataclass(frozen=True)
class IndexNotice:
    """The index was found damaged while searching and rebuilt: said even when the search that found
    it was superseded."""

    text: str


SessionEvent = FirstPage | More | Failed | IndexNotice


def start_thread(run: Callable[[], None], name: str) -> threading.Thread:
    thread = threading.Thread(target=run, name=name, daemon=True)
    thread.start()
    return thread


@dataclass
class _Job:
    request: SearchRequest
    cancel: threading.Event
    thread: threading.Thread | None = None


class SearchSession:
    """Searches one request at a time for the interface.

    `search(request)` cancels what runs and searches `request` in a thread (a request equal to the
    one running is not started again); `more()` searches every match of the request whose first page
    was delivered. Each event goes to `deliver`, from the searching thread; the receiver passes it
    to `is_current` on its own thread before showing it, since a search may finish after a newer
    one was asked for. Nothing a superseded search found is ever current."""

    def __init__(self, engine: SearchEngine, deliver: Callable[[SessionEvent], None]) -> None:
        self.engine = engine
        self._deliver = deliver
        self._lock = threading.Lock()
        self._search: _Job | None = None
        self._more: _Job | None = None
        self._first: SearchResult | None = None
        """The first page delivered for the current request, once it is."""
        self._closed = False

    @property
    def request(self) -> SearchRequest | None:
        """The request whose results are wanted now (None: none, or cancelled)."""
        job = self._search
        return None if job is None else job.request

    def search(self, request: SearchRequest) -> None:
        """Search `request` instead of whatever is searched now."""
        with self._lock:
            if self._closed:
                return
            current = self._search
            running = current is not None and current.thread is not None and current.thread.is_alive()
            if running and current is not None and current.request == request:
                return  # already on its way
            self._cancel_jobs()
            job = self._search = _Job(request, threading.Event())
            self._first = None
            job.thread = start_thread(lambda: self._run_first(job), "search")

    def more(self) -> bool:
        """Search every match of the current request, after its first page; False when there is no
        first page to extend (none delivered yet, or only quick matches)."""
        with self._lock:
            first, job = self._first, self._search
            if self._closed or first is None or job is None:
                return False
            if self._more is not None and self._more.request is job.request:
                return True  # asked already
            limit = max(first.total, job.request.limit)
            more = self._more = _Job(job.request, threading.Event())
            more.thread = start_thread(lambda: self._run_more(more, first, limit), "search-more")
            return True

    def cancel(self) -> None:
        """Stop searching: nothing running now will be current."""
        with self._lock:
            self._cancel_jobs()

    def engine_changed(self, engine: SearchEngine) -> None:
        """Search `engine` from now on (what runs is cancelled)."""
        with self._lock:
            self._cancel_jobs()
            self.engine = engine

    def is_current(self, event: SessionEvent) -> bool:
        """Whether `event` answers the request wanted now (call it where the event is shown)."""
        if isinstance(event, IndexNotice):
            return True
        job = self._search
        if job is None or job.cancel.is_set() or event.request is not job.request:
            return False
        if isinstance(event, FirstPage):
            # (quick matches that ended after the index opened: its ranked results are on their way)
            return not (event.quick and self.engine.ready)
        if isinstance(event, More):
            return event.first is self._first
        return True

    def accepted(self, event: FirstPage) -> None:
        """The receiver shows this first page: `more()` extends it (quick matches are never extended)."""
        if not event.quick and self.is_current(event):
            self._first = event.result

    def wait(self, timeout: float | None = None) -> bool:
        """Wait for the searches running now to end; False if one is still running after `timeout`."""
        with self._lock:
            threads = [job.thread for job in (self._search, self._more) if job is not None and job.thread is not None]
        for thread in threads:
            thread.join(timeout)
        return not any(thread.is_alive() for thread in threads)

    @property
    def busy(self) -> bool:
        """A search or its rest is running."""
        return any(
            job is not None and job.thread is not None and job.thread.is_alive() for job in (self._search, self._more)
        )

    def close(self) -> None:
        """Cancel everything and wait (briefly) for the threads: a search reading the index must not
        outlive the app."""
        with self._lock:
            self._closed = True
            jobs = [job for job in (self._search, self._more) if job is not None]
            self._cancel_jobs()
        for job in jobs:
            if job.thread is not None:
                job.thread.join(JOIN_SECONDS)

    # -- in the searching threads ---------------------------------------------------------------

    def _cancel_jobs(self) -> None:
        for job in (self._search, self._more):
            if job is not None:
                job.cancel.set()
        self._search = self._more = None
        self._first = None

    def _run_first(self, job: _Job) -> None:
        engine = self.engine
        try:
            if engine.ready:
                result = engine.search(job.request, cancel=job.cancel)
                quick = False
            else:  # until the index is open, a scan of the papers' text answers
                result = engine.quick_search(job.request.text, job.request.limit, job.cancel)
                quick = True
        except Exception as error:  # noqa: BLE001 - any failure is the user's to see, in one line
            self._say(job, Failed(job.request, f"{type(error).__name__}: {error}"))
            return
        finally:
            notice = engine.take_index_notice() if engine.ready else None
            if notice:
                self._deliver(IndexNotice(notice))
        self._say(job, FirstPage(job.request, result, quick))

    def _run_more(self, job: _Job, first: SearchResult, limit: int) -> None:
        request = dataclasses.replace(job.request, limit=limit)
        try:
            result = self.engine.search(request, cancel=job.cancel)
        except Exception as error:  # noqa: BLE001
            self._say(job, Failed(job.request, f"{type(error).__name__}: {error}"))
            return
        self._say(job, More(job.request, first, result))

    def _say(self, job: _Job, event: SessionEvent) -> None:
        if not job.cancel.is_set():
            self._deliver(event)
