"""The search session: the newest request searched in a thread, older ones cancelled, and what it
found delivered as events. No Textual here: the screen hands it requests and shows its events, and
the tests drive it without an app."""

from __future__ import annotations

import dataclasses
import threading
from collections.abc import Callable
from dataclasses import dataclass, field

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
    engine: SearchEngine
    """The engine searched: the session's when the job was made (a new list may come meanwhile)."""
    cancel: threading.Event = field(default_factory=threading.Event)
    thread: threading.Thread | None = None

    @property
    def running(self) -> bool:
        return self.thread is not None and self.thread.is_alive()


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
        self._threads: set[threading.Thread] = set()
        """Every search thread started and not yet ended, superseded ones too (close waits for them)."""
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
            if current is not None and current.running and current.request == request:
                return  # already on its way
            self._cancel_jobs()
            job = self._search = _Job(request, self.engine)
            self._start(job, lambda: self._run_first(job), "search")

    def more(self) -> bool:
        """Search every match of the current request, after its first page; False when there is no
        first page to extend (none delivered yet, or only quick matches). Asked again while it runs,
        it is not searched twice; asked after it ended (it failed, or stopped part-way), it is."""
        with self._lock:
            first, job = self._first, self._search
            if self._closed or first is None or job is None:
                return False
            if self._more is not None and self._more.request is job.request and self._more.running:
                return True  # on its way
            limit = max(first.total, job.request.limit)
            more = self._more = _Job(job.request, job.engine)
            self._start(more, lambda: self._run_more(more, first, limit), "search-more")
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
        """Wait for every search thread to end, superseded ones too; False if one still runs after
        `timeout` (each thread is given it)."""
        for thread in self._live():
            thread.join(timeout)
        return not self.busy

    @property
    def busy(self) -> bool:
        """A search thread is running (a superseded one stops at its next step)."""
        return bool(self._live())

    def close(self) -> None:
        """Cancel everything and wait (briefly) for the threads: a search reading the index must not
        outlive the app."""
        with self._lock:
            self._closed = True
            self._cancel_jobs()
        for thread in self._live():
            thread.join(JOIN_SECONDS)

    def _live(self) -> list[threading.Thread]:
        with self._lock:
            self._threads = {thread for thread in self._threads if thread.is_alive()}
            return list(self._threads)

    # -- in the searching threads ---------------------------------------------------------------

    def _start(self, job: _Job, run: Callable[[], None], name: str) -> None:
        job.thread = start_thread(run, name)
        self._threads.add(job.thread)

    def _cancel_jobs(self) -> None:
        for job in (self._search, self._more):
            if job is not None:
                job.cancel.set()
        self._search = self._more = None
        self._first = None

    def _run_first(self, job: _Job) -> None:
        engine = job.engine
        event: SessionEvent
        try:
            if engine.ready:
                event = FirstPage(job.request, engine.search(job.request, cancel=job.cancel))
            else:  # until the index is open, a scan of the papers' text answers
                found = engine.quick_search(job.request.text, job.request.limit, job.cancel)
                event = FirstPage(job.request, found, quick=True)
        except Exception as error:  # noqa: BLE001 - any failure is the user's to see, in one line
            event = Failed(job.request, f"{type(error).__name__}: {error}")
        notice = engine.take_index_notice() if engine.ready else None
        if notice:  # said even when this search was superseded meanwhile
            self._deliver(IndexNotice(notice))
        self._say(job, event)

    def _run_more(self, job: _Job, first: SearchResult, limit: int) -> None:
        request = dataclasses.replace(job.request, limit=limit)
        try:
            result = job.engine.search(request, cancel=job.cancel)
        except Exception as error:  # noqa: BLE001
            self._say(job, Failed(job.request, f"{type(error).__name__}: {error}"))
            return
        self._say(job, More(job.request, first, result))

    def _say(self, job: _Job, event: SessionEvent) -> None:
        if not job.cancel.is_set():
            self._deliver(event)
