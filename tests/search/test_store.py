"""The user store: creation, migration, concurrent writers, SIGKILL, corruption and unwritable dirs."""

from __future__ import annotations

import multiprocessing
import os
import signal
import sqlite3
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from search.models import Bookmark, Link
from search.user.store import MIGRATIONS, SCHEMA_VERSION, StoreError, UserStore


def bookmark(paper_id: str, **fields) -> Bookmark:
    return Bookmark(
        paper_id=paper_id,
        headline=f"Paper {paper_id}",
        venue="ICLR 2025",
        year=2025,
        links=(Link("code", "https://github.com/a/b", "code"),),
        abstract="Plain abstract.",
        **fields,
    )


def test_created_on_first_use_in_the_xdg_data_dir_with_wal_and_a_schema_version(isolated_dirs):
    store = UserStore()
    assert store.path == isolated_dirs / "xdg_data_home" / "iclr-reader" / "user.sqlite3"
    assert store.path.exists()
    connection = sqlite3.connect(store.path)
    assert connection.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert connection.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION


def test_bookmarks_notes_tags_and_read_marks(tmp_path):
    store = UserStore(tmp_path / "u.sqlite3")
    assert store.toggle(bookmark("a")).bookmarked is True
    store.add(bookmark("b"))
    store.set_note("a", "read §3")
    store.set_tags("a", ["to-read", " milp ", "to-read", ""])
    store.mark_opened("b")
    store.mark_opened("b")
    saved = store.get("a")
    assert (saved.note, saved.tags, saved.links[0].url) == ("read §3", ("to-read", "milp"), "https://github.com/a/b")
    assert store.bookmarked_ids() == {"a", "b"} and store.opened_ids() == {"b"}
    assert store.toggle(bookmark("a")).bookmarked is False and store.get("a") is None
    assert store.remove("b") and not store.remove("b")


def test_migrates_a_version_1_database_keeping_its_bookmarks(tmp_path):
    path = tmp_path / "u.sqlite3"
    old = sqlite3.connect(path)
    old.executescript(MIGRATIONS[0])
    old.execute(
        "INSERT INTO bookmarks (paper_id, headline, note, created_at, updated_at) VALUES ('x', 'Old one', 'kept', 1, 1)"
    )
    old.execute("PRAGMA user_version = 1")
    old.commit()
    old.close()
    store = UserStore(path)
    kept = store.get("x")
    assert (kept.headline, kept.note, kept.tags) == ("Old one", "kept", ())
    store.mark_opened("x")  # the table added by migration 2
    assert sqlite3.connect(path).execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION


def test_a_database_from_a_newer_version_is_refused_untouched(tmp_path):
    path = tmp_path / "u.sqlite3"
    UserStore(path).add(bookmark("a"))
    connection = sqlite3.connect(path)
    connection.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    connection.commit()
    connection.close()
    with pytest.raises(StoreError, match="newer iclr-reader"):
        UserStore(path)
    assert sqlite3.connect(path).execute("SELECT paper_id FROM bookmarks").fetchall() == [("a",)]


def test_a_corrupt_database_is_moved_aside_never_deleted(tmp_path):
    path = tmp_path / "u.sqlite3"
    garbage = b"this is not a database" * 100
    path.write_bytes(garbage)
    store = UserStore(path)
    moved = [p for p in tmp_path.iterdir() if p.name.startswith("u.sqlite3.corrupt-")]
    assert len(moved) == 1 and moved[0].read_bytes() == garbage
    assert str(moved[0]) in store.notice
    store.add(bookmark("a"))
    assert store.bookmarked_ids() == {"a"}


def test_an_unwritable_data_dir_gives_a_clear_error(tmp_path):
    blocker = tmp_path / "not-a-dir"
    blocker.write_text("a file where the data dir should be")
    with pytest.raises(StoreError, match="cannot create the data dir"):
        UserStore(blocker / "iclr-reader" / "u.sqlite3")


WRITER = textwrap.dedent(
    """
    import sys
    from search.models import Bookmark
    from search.user.store import UserStore
    store = UserStore(__import__("pathlib").Path(sys.argv[1]))
    prefix, count = sys.argv[2], int(sys.argv[3])
    for i in range(count):
        store.add(Bookmark(paper_id=f"{prefix}{i}", headline=f"{prefix} {i}"))
        if i % 3 == 0:
            store.set_note(f"{prefix}{i}", "note")
        print(f"{prefix}{i}", flush=True)  # acknowledged: add() has returned
    """
)


def _writer(path: Path, prefix: str, count: int) -> subprocess.Popen:
    root = Path(__file__).resolve().parents[2]
    env = {**os.environ, "PYTHONPATH": str(root)}
    return subprocess.Popen(
        [sys.executable, "-c", WRITER, str(path), prefix, str(count)], stdout=subprocess.PIPE, text=True, env=env
    )


def test_two_processes_writing_at_once_lose_nothing(tmp_path):
    path = tmp_path / "u.sqlite3"
    UserStore(path)
    writers = [_writer(path, "a", 150), _writer(path, "b", 150)]
    for writer in writers:
        writer.communicate(timeout=120)
        assert writer.returncode == 0
    ids = UserStore(path).bookmarked_ids()
    assert ids == {f"a{i}" for i in range(150)} | {f"b{i}" for i in range(150)}


KILL_ROUNDS = 50


@pytest.mark.slow
def test_sigkill_in_the_middle_of_writes_loses_nothing_acknowledged(tmp_path):
    """50 times: a writer is killed at a different point; everything it acknowledged is there.

    The writers are processes of their own, forked from a fork server that imported the store once
    (tests/search/store_writer.py): 50 fresh interpreters would spend their time importing, not writing."""
    from tests.search import store_writer

    forks = multiprocessing.get_context("forkserver")
    forks.set_forkserver_preload(["tests.search.store_writer"])
    path = tmp_path / "u.sqlite3"
    UserStore(path)
    acknowledged: set[str] = set()
    for round_ in range(KILL_ROUNDS):
        received, sent = forks.Pipe(duplex=False)
        writer = forks.Process(
            target=store_writer.write_and_acknowledge, args=(str(path), f"r{round_}-", 100_000, sent)
        )
        writer.start()
        sent.close()  # the writer holds the only sending end: its death is an EOF here
        for _ in range(1 + (round_ * 7) % 40):
            assert received.poll(60), f"round {round_}: the writer acknowledged nothing for a minute"
            acknowledged.add(received.recv())
        os.kill(writer.pid, signal.SIGKILL)
        writer.join(timeout=30)
        assert writer.exitcode == -signal.SIGKILL, f"round {round_}: {writer.exitcode}"
        received.close()
        assert acknowledged <= UserStore(path).bookmarked_ids(), f"round {round_}"
    assert len(acknowledged) > KILL_ROUNDS


ADD_REMOVE = textwrap.dedent(
    """
    import sys
    from search.models import Bookmark
    from search.user.store import UserStore
    store = UserStore(__import__("pathlib").Path(sys.argv[1]))
    prefix, count = sys.argv[2], int(sys.argv[3])
    for i in range(count):
        store.add(Bookmark(paper_id=f"{prefix}{i}", headline="x"))
        store.toggle(Bookmark(paper_id="shared", headline="shared"))
        if i % 3 == 0:
            store.remove(f"{prefix}{i}")
    """
)


@pytest.mark.slow
def test_two_processes_adding_and_removing_at_once_lose_no_update(tmp_path):
    path = tmp_path / "u.sqlite3"
    UserStore(path)
    root = Path(__file__).resolve().parents[2]
    env = {**os.environ, "PYTHONPATH": str(root)}
    count = 2000
    writers = [
        subprocess.Popen([sys.executable, "-c", ADD_REMOVE, str(path), prefix, str(count)], env=env)
        for prefix in ("a", "b")
    ]
    for writer in writers:
        assert writer.wait(timeout=300) == 0
    expected = {f"{prefix}{i}" for prefix in "ab" for i in range(count) if i % 3}
    # "shared" was toggled 2 * 2000 times in all: an even number, so it ends where it started.
    assert UserStore(path).bookmarked_ids() == expected


def test_a_full_disk_refuses_the_write_clearly_and_keeps_what_was_stored(tmp_path):
    path = tmp_path / "u.sqlite3"
    store = UserStore(path)
    store.add(Bookmark(paper_id="kept", headline="kept"))
    pages = store._connection.execute("PRAGMA page_count").fetchone()[0]
    store._connection.execute(f"PRAGMA max_page_count = {pages + 2}")  # what SQLite sees on a full disk
    with pytest.raises(StoreError, match="full"):
        for i in range(1000):
            store.add(Bookmark(paper_id=f"big{i}", headline="big", abstract="x" * 20_000))
    assert "kept" in UserStore(path).bookmarked_ids()
    store._connection.execute("PRAGMA max_page_count = 1073741823")  # space freed
    store.add(Bookmark(paper_id="after", headline="after"))
    assert {"kept", "after"} <= UserStore(path).bookmarked_ids()


def test_saved_searches_are_kept_in_order_replaced_by_name_and_deleted(tmp_path):
    store = UserStore(tmp_path / "u.sqlite3")
    store.save_search("graphs", "graph neural")
    store.save_search("mine", "is:bookmarked")
    store.save_search("graphs", "graph neural list:iclr2025")  # same name: replaced, keeps its place
    assert UserStore(tmp_path / "u.sqlite3").saved_searches() == [
        ("graphs", "graph neural list:iclr2025"),
        ("mine", "is:bookmarked"),
    ]
    assert store.delete_search("mine") and not store.delete_search("mine")
    assert store.saved_searches() == [("graphs", "graph neural list:iclr2025")]
