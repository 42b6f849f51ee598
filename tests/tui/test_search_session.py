"""The search session without an app: requests in, events out, a superseded search never current."""

from __future__ import annotations

import dataclasses
import queue
import threading

import pytest

from search import SearchRequest
from tui.search_session import Failed, FirstPage, IndexNotice, More, SearchSession

TIMEOUT = 30.0
"""Seconds to wait for an event: generous, so a busy machine only makes the test slower."""


class Inbox:
    """What the session delivers, as the screen's message queue would receive it."""

    def __init__(self) -> None:
        self.events: queue.Queue = queue.Queue()

    def __call__(self, event) -> None:
        self.events.put(event)

    def next(self):
        return self.events.get(timeout=TIMEOUT)

    def drained(self, session: SearchSession) -> list:
        assert session.wait(TIMEOUT)
        found = []
        while not self.events.empty():
            found.append(self.events.get_nowait())
        return found


class SlowEngine:
    """An engine whose searches wait for `release` (or their cancel event), counting the calls."""

    def __init__(self, engine) -> None:
        self.engine = engine
        self.release = threading.Event()
        self.started: list[str] = []
        self.ready = True

    def search(self, request, cancel=None):
        self.started.append(request.text)
        while not self.release.wait(0.01):
            if cancel is not None and cancel.is_set():
                break
        return self.engine.search(request, cancel)

    def quick_search(self, text, limit=50, cancel=None):
        return self.engine.quick_search(text, limit, cancel)

    def take_index_notice(self):
        return None


def request(text: str, limit: int = 5) -> SearchRequest:
    return SearchRequest(text, limit=limit, partial=True)


def test_a_request_comes_back_as_its_first_page(seed_engine):
    inbox = Inbox()
    session = SearchSession(seed_engine, inbox)
    wanted = request("kv cache")
    session.search(wanted)
    event = inbox.next()
    assert isinstance(event, FirstPage) and event.request is wanted and not event.quick
    assert event.result.hits and event.result.query == "kv cache"
    assert session.is_current(event)
    session.close()


def test_a_newer_request_cancels_the_older_and_only_the_newest_is_current(seed_engine):
    slow = SlowEngine(seed_engine)
    inbox = Inbox()
    session = SearchSession(slow, inbox)  # type: ignore[arg-type]
    older, newer = request("graph"), request("graph neural")
    session.search(older)
    session.search(newer)
    slow.release.set()
    events = inbox.drained(session)
    current = [event for event in events if session.is_current(event)]
    assert [event.request for event in current] == [newer]
    assert all(event.request is older for event in events if event not in current)
    session.close()


def test_the_same_request_while_it_runs_is_not_searched_twice(seed_engine):
    slow = SlowEngine(seed_engine)
    inbox = Inbox()
    session = SearchSession(slow, inbox)  # type: ignore[arg-type]
    session.search(request("memory"))
    session.search(request("memory"))  # an equal request: typing paused, the same query asked again
    slow.release.set()
    events = inbox.drained(session)
    assert slow.started == ["memory"] and len(events) == 1
    session.close()


def test_cancel_leaves_nothing_current(seed_engine):
    slow = SlowEngine(seed_engine)
    inbox = Inbox()
    session = SearchSession(slow, inbox)  # type: ignore[arg-type]
    session.search(request("diffusion"))
    session.cancel()
    slow.release.set()
    assert session.request is None
    assert not any(session.is_current(event) for event in inbox.drained(session))
    session.close()


def test_more_lists_every_match_after_the_first_page(seed_engine):
    inbox = Inbox()
    session = SearchSession(seed_engine, inbox)
    wanted = request("learning", limit=3)
    session.search(wanted)
    first = inbox.next()
    assert first.result.total > 3 and len(first.result.hits) == 3
    assert not session.more()  # nothing shown yet: nothing to extend
    session.accepted(first)
    assert session.more()
    rest = inbox.next()
    assert isinstance(rest, More) and rest.first is first.result and session.is_current(rest)
    assert len(rest.result.hits) == first.result.total
    session.close()


def test_the_rest_asked_for_again_while_it_runs_is_searched_once(seed_engine):
    slow = SlowEngine(seed_engine)
    inbox = Inbox()
    session = SearchSession(slow, inbox)  # type: ignore[arg-type]
    session.search(request("learning", limit=3))
    slow.release.set()
    first = inbox.next()
    session.accepted(first)
    slow.release.clear()
    assert session.more() and session.more()  # G pressed twice while the rest is searched
    slow.release.set()
    assert [type(event) for event in inbox.drained(session)] == [More]
    assert slow.started == ["learning", "learning"]
    session.close()


def test_the_rest_of_an_older_result_is_never_current(seed_engine):
    inbox = Inbox()
    session = SearchSession(seed_engine, inbox)
    session.search(request("learning", limit=3))
    first = inbox.next()
    session.accepted(first)
    stale = More(first.request, first.result, seed_engine.search(dataclasses.replace(first.request, limit=100)))
    session.search(request("graph", limit=3))
    assert not session.is_current(stale)
    session.close()


def test_quick_matches_until_the_index_opens_then_never(engine_for):
    engine = engine_for("We study graph learning.", "Another graph paper on kernels.")
    assert not engine.ready
    inbox = Inbox()
    session = SearchSession(engine, inbox)
    session.search(request("graph"))
    quick = inbox.next()
    assert isinstance(quick, FirstPage) and quick.quick and quick.result.total == 2
    assert session.is_current(quick)
    engine.ensure_index()
    assert not session.is_current(quick)  # the index is open: its ranked results are on their way
    session.accepted(quick)
    assert not session.more()  # quick matches are never extended
    session.close()


def test_a_search_that_raises_is_one_failed_event(seed_engine):
    class Broken(SlowEngine):
        def search(self, request, cancel=None):
            raise RuntimeError("the disk went away")

    inbox = Inbox()
    session = SearchSession(Broken(seed_engine), inbox)  # type: ignore[arg-type]
    session.search(request("graph"))
    event = inbox.next()
    assert isinstance(event, Failed) and event.error == "RuntimeError: the disk went away"
    assert session.is_current(event)
    session.close()


def test_an_index_notice_is_said_even_for_a_superseded_search(seed_engine):
    class Repaired(SlowEngine):
        def take_index_notice(self):
            return "The index was damaged and has been rebuilt"

    slow = Repaired(seed_engine)
    inbox = Inbox()
    session = SearchSession(slow, inbox)  # type: ignore[arg-type]
    session.search(request("graph"))
    session.search(request("memory"))
    slow.release.set()
    events = inbox.drained(session)
    notices = [event for event in events if isinstance(event, IndexNotice)]
    assert notices and all(session.is_current(notice) for notice in notices)
    session.close()


def test_close_waits_for_the_threads_and_refuses_new_requests(seed_engine):
    slow = SlowEngine(seed_engine)
    inbox = Inbox()
    session = SearchSession(slow, inbox)  # type: ignore[arg-type]
    session.search(request("graph"))
    session.close()  # cancels: the search stops at its next step
    assert not session.busy
    session.search(request("memory"))
    assert session.request is None and slow.started == ["graph"]


@pytest.mark.parametrize("text", ["graph", "kv cache", "related:nope", "title:"])
def test_every_kind_of_query_comes_back_as_one_event(seed_engine, text):
    inbox = Inbox()
    session = SearchSession(seed_engine, inbox)
    session.search(request(text))
    events = inbox.drained(session)
    assert len(events) == 1 and isinstance(events[0], FirstPage | Failed)
    session.close()


def test_the_rest_is_asked_again_after_it_failed(seed_engine):
    class FailsOnce(SlowEngine):
        failed = False

        def search(self, request, cancel=None):
            if request.limit > 3 and not self.failed:
                self.failed = True
                raise OSError("a read failed")
            return self.engine.search(request, cancel)

    inbox = Inbox()
    session = SearchSession(FailsOnce(seed_engine), inbox)  # type: ignore[arg-type]
    session.search(request("learning", limit=3))
    first = inbox.next()
    session.accepted(first)
    assert session.more()
    assert isinstance(inbox.next(), Failed)
    assert session.wait(TIMEOUT)
    assert session.more()  # asked again (G, scrolling on): searched again, not "asked already"
    rest = inbox.next()
    assert isinstance(rest, More) and len(rest.result.hits) == first.result.total
    session.close()


def test_close_waits_for_superseded_searches_too(seed_engine):
    threads = []

    class Stubborn(SlowEngine):
        def search(self, request, cancel=None):
            threads.append(threading.current_thread())
            if len(threads) == 1:
                self.release.wait(1.0)  # a step that does not look at the cancel event for a while
            return self.engine.search(request, cancel)

    slow = Stubborn(seed_engine)
    session = SearchSession(slow, Inbox())  # type: ignore[arg-type]
    session.search(request("graph"))
    while not threads:  # the first search is in its step
        threading.Event().wait(0.01)
    session.search(request("memory"))  # it is superseded, and still in its step
    session.close()
    assert not session.busy and not any(thread.is_alive() for thread in threads)


def test_a_search_uses_the_engine_of_its_time(seed_engine, engine_for):
    other = engine_for("A paper about kernels only.")
    other.ensure_index()
    inbox = Inbox()
    session = SearchSession(seed_engine, inbox)
    session.search(request("kv cache"))
    first = inbox.next()
    session.accepted(first)
    session.engine_changed(other)
    assert session.request is None and not session.more()
    session.search(request("kernels"))
    assert inbox.next().result.total == 1
    session.close()
