"""The user store under faults (issue 14, items 1, 3, 4, 5, 6 and 15): a stray key never costs a note,
a stale screen never undoes another window's change, a full disk or a lock is never taken for damage,
real damage costs only the rows on the bad page, a read-only data dir still reads, and no string from
the database or the caller makes a read or write raise or reach the terminal raw.

Full disks and read-only file systems are real: the tests that need them run a short script in a private
user and mount namespace (`unshare`), where it mounts a small tmpfs, fills it or makes it read-only, as
root or not."""

from __future__ import annotations

import functools
import json
import os
import random
import re
import shutil
import sqlite3
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from search.errors import StoreError
from search.models import Bookmark, Link
from search.text.sanitize import sanitize, sanitize_line
from search.user import store as store_module
from search.user.export import FORMATS, export
from search.user.store import UserStore
from tests.conftest import skip_unless_ci

ROOT = Path(__file__).resolve().parents[2]


def paper(paper_id: str, **fields) -> Bookmark:
    return Bookmark(paper_id=paper_id, headline=f"Paper {paper_id}", venue="ICLR 2025", year=2025, **fields)


# -- item 1: a stray key never costs a note -----------------------------------------------------------


def test_removing_a_bookmark_keeps_its_note_and_tags_for_an_undo_that_survives_a_restart(tmp_path):
    path = tmp_path / "user.sqlite3"
    store = UserStore(path)
    store.add(paper("a", note="read section 3", tags=("to-read", "milp")))
    store.add(paper("b", note="the proof is wrong", tags=("check",)))
    result = store.toggle(paper("a"))  # `b` on a bookmarked paper
    assert (result.bookmarked, result.changed) == (False, True)
    assert (result.removed.note, result.removed.tags) == ("read section 3", ("to-read", "milp"))
    gone = store.remove("b")  # `d` in the bookmarks screen
    assert gone.note == "the proof is wrong"
    assert store.get("a") is None and store.bookmarked_ids() == set() and store.bookmarks() == []
    store.close()

    again = UserStore(path)  # after a restart
    assert [(b.paper_id, b.note, b.tags) for b in again.removed()] == [
        ("b", "the proof is wrong", ("check",)),
        ("a", "read section 3", ("to-read", "milp")),
    ]
    assert again.restore().paper_id == "b"  # the most recent removal first
    restored = again.restore("a")
    assert (restored.note, restored.tags) == ("read section 3", ("to-read", "milp"))
    assert {(b.paper_id, b.note) for b in again.bookmarks()} == {("a", "read section 3"), ("b", "the proof is wrong")}
    assert again.removed() == [] and again.restore() is None


def test_restoring_a_paper_bookmarked_again_meanwhile_keeps_both_notes_and_unites_the_tags(tmp_path):
    store = UserStore(tmp_path / "user.sqlite3")
    store.add(paper("a", note="old note", tags=("x", "y")))
    store.add(paper("b", note="b's note", tags=("x",)))
    store.remove("a")
    store.remove("b")
    store.add(paper("a", note="new note", tags=("y", "z")))
    store.add(paper("b", tags=("z",)))  # bookmarked again without a note
    assert (store.restore("a").note, store.get("a").tags) == ("new note\n\nold note", ("y", "z", "x"))
    assert (store.restore("b").note, store.get("b").tags) == ("b's note", ("z", "x"))


def test_the_removed_list_is_bounded_and_drops_removals_without_writing_first(tmp_path, monkeypatch):
    monkeypatch.setattr(store_module, "REMOVED_KEPT", 3)  # 1,000 in use; 3 keeps the test short
    store = UserStore(tmp_path / "user.sqlite3")
    for name, note in [("noted", "keep me"), ("plain1", ""), ("plain2", ""), ("plain3", ""), ("plain4", "")]:
        store.add(paper(name, note=note))
        store.remove(name)
    assert [b.paper_id for b in store.removed()] == ["plain4", "plain3", "noted"]


def test_undo_after_the_removed_list_is_full_restores_the_bookmark_just_removed(tmp_path, monkeypatch):
    monkeypatch.setattr(store_module, "REMOVED_KEPT", 3)
    store = UserStore(tmp_path / "user.sqlite3")
    for number in range(3):
        store.add(paper(f"n{number}", note=f"note {number}"))
        store.remove(f"n{number}")
    store.add(paper("plain"))
    assert store.toggle(paper("plain")).removed.paper_id == "plain"  # the list is full: one must go...
    assert store.restore().paper_id == "plain"  # ...but never the one u is about to undo


def test_ids_with_spaces_are_looked_up_directly_however_many_are_stored(tmp_path, monkeypatch):
    """An import of thousands of ids with spaces once took minutes, each lookup re-reading every stored
    id: a single space is an ordinary character, not one that needs the sanitised lookup."""
    store = UserStore(tmp_path / "user.sqlite3")
    store.merge([paper(f"id with spaces {number}") for number in range(300)])
    calls = []
    original = store_module.sanitize_line
    monkeypatch.setattr(store_module, "sanitize_line", lambda text: calls.append(text) or original(text))
    assert store.merge([paper(f"more spaces {number}") for number in range(300)]) == (300, 0)
    assert len(calls) < 2 * 300 * 3  # a few per record, not one per stored id
    assert store.get("id with spaces 7") is not None


def test_importing_a_removed_bookmark_brings_it_back_with_its_note_and_both_sets_of_tags(tmp_path):
    store = UserStore(tmp_path / "user.sqlite3")
    exported = [paper("gone", created_at=1_000.0, tags=("from-file",)), paper("new", created_at=1_000.0)]
    store.add(paper("gone", note="mine", tags=("mine",)))
    store.remove("gone")  # e.g. by mistake; the user imports a backup to get it back
    assert store.merge(exported) == (2, 0)
    assert store.bookmarked_ids() == {"gone", "new"} and store.removed() == []
    back = store.get("gone")
    assert back.note == "mine" and set(back.tags) == {"mine", "from-file"}


# -- item 3: a toggle acts on the store, not on a stale screen ------------------------------------------


def test_a_toggle_from_a_stale_screen_changes_nothing(tmp_path):
    path = tmp_path / "user.sqlite3"
    stale, other = UserStore(path), UserStore(path)
    other.add(paper("a", note="written in the other window"))
    result = stale.toggle(paper("a"), shown=False)  # the stale screen shows "a" as not bookmarked
    assert (result.bookmarked, result.changed, result.removed) == (True, False, None)
    assert other.get("a").note == "written in the other window" and stale.removed() == []

    other.remove("a")
    result = stale.toggle(paper("a"), shown=True)  # it still shows "a" as bookmarked
    assert (result.bookmarked, result.changed) == (False, False)
    assert other.get("a") is None and len(other.removed()) == 1

    assert stale.toggle(paper("a"), shown=False).changed  # a screen that agrees with the store
    assert other.get("a") is not None


def test_a_note_saved_after_another_window_removed_the_bookmark_is_never_dropped(tmp_path):
    path = tmp_path / "user.sqlite3"
    mine, other = UserStore(path), UserStore(path)
    mine.add(paper("a"))
    other.remove("a")
    assert mine.set_note("a", "my careful note", paper=paper("a")) is True  # bookmarked again with it
    assert other.get("a").note == "my careful note"
    assert mine.set_note("a", "edited") is False and other.get("a").note == "edited"
    other.remove("a")
    assert mine.set_tags("a", ["x"], paper=paper("a")) is True and other.get("a").tags == ("x",)
    other.remove("a")
    assert mine.set_note("a", "") is False and other.get("a") is None  # clearing the note of a gone bookmark
    with pytest.raises(StoreError, match="not bookmarked"):  # a note with no paper to attach it to: said
        mine.set_note("a", "lost?")


# -- item 4: a full disk, a lock or a rename is never taken for damage --------------------------------


@functools.cache
def _namespaces_work() -> bool:
    if shutil.which("unshare") is None or shutil.which("mount") is None:
        return False
    probe = subprocess.run(["unshare", "--user", "--map-root-user", "--mount", "true"], capture_output=True)
    return probe.returncode == 0


PRELUDE = textwrap.dedent(
    """
    import json, os, subprocess, sys
    from pathlib import Path
    from search.errors import StoreError
    from search.models import Bookmark
    from search.user.export import export
    from search.user.store import UserStore

    def mount(*args):
        subprocess.run(["mount", *args], check=True)

    def attempt(action):
        try:
            return action()
        except StoreError as error:
            return "StoreError: " + str(error)
    """
)


def in_namespace(script: str, folder: Path, *args: str) -> dict:
    """Run the script (after PRELUDE) in a private user and mount namespace; it prints one JSON line."""
    if not _namespaces_work():
        skip_unless_ci("needs unshare with user namespaces, to mount a small or read-only file system")
    folder.mkdir(exist_ok=True)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    command = ["unshare", "--user", "--map-root-user", "--mount", sys.executable, "-c", PRELUDE + script]
    done = subprocess.run([*command, str(folder), *args], capture_output=True, text=True, env=env, timeout=120)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.splitlines()[-1])


FULL_DISK = """
folder = Path(sys.argv[1])
mount("-t", "tmpfs", "-o", "size=1m", "none", str(folder))
path = folder / "user.sqlite3"
app = UserStore(path)  # the app, running
for i in range(5):
    app.add(Bookmark(paper_id=f"p{i}", headline=f"Paper {i}", note=f"note {i}"))
filler = os.open(folder / "filler", os.O_WRONLY | os.O_CREAT)
for size in (65536, 4096, 1):
    try:
        while os.write(filler, b"x" * size):
            pass
    except OSError:
        pass
os.close(filler)
# `iclr-reader bookmarks` on the full disk, while the app runs
cli = attempt(lambda: UserStore(path))
listed = attempt(lambda: [b.paper_id for b in cli.bookmarks()]) if isinstance(cli, UserStore) else cli
refusals = [attempt(lambda: store.add(Bookmark(paper_id="new", headline="new"))) for store in (app, cli)
            if isinstance(store, UserStore)]
files = sorted(p.name for p in folder.iterdir())
os.unlink(folder / "filler")  # space freed
app.add(Bookmark(paper_id="after", headline="after"))
seen = sorted(cli.bookmarked_ids()) if isinstance(cli, UserStore) else []
print(json.dumps({"listed": listed, "refusals": refusals, "files": files, "seen": seen,
                  "notice": getattr(cli, "notice", None)}))
"""


def test_a_full_disk_while_the_app_runs_is_a_clear_refusal_never_a_repair(tmp_path):
    out = in_namespace(FULL_DISK, tmp_path / "disk")
    assert sorted(out["listed"]) == [f"p{i}" for i in range(5)], out
    assert len(out["refusals"]) == 2 and all(
        refusal.startswith("StoreError: cannot write") and refusal.endswith("the disk is full")
        for refusal in out["refusals"]
    ), out["refusals"]
    assert not [name for name in out["files"] if "corrupt" in name] and out["notice"] is None, out
    # Both instances still use one file: what the app writes once there is space, the other sees.
    assert out["seen"] == ["after", *[f"p{i}" for i in range(5)]]


def _overwrite_page(path: Path, number: int, seed: int = 1) -> bytes:
    """Garbage over one page, the file's size unchanged; returns what the page held."""
    size = _page_size(path)
    with open(path, "r+b") as file:
        file.seek((number - 1) * size)
        before = file.read(size)
        file.seek((number - 1) * size)
        file.write(random.Random(seed).randbytes(size))
    return before


def _page_size(path: Path) -> int:
    with open(path, "rb") as file:
        header = file.read(100)
    size = int.from_bytes(header[16:18], "big")
    return 65536 if size == 1 else size


def _pages(path: Path) -> list[bytes]:
    data, size = path.read_bytes(), _page_size(path)
    return [data[i : i + size] for i in range(0, len(data), size)]


def _page_type(page: bytes, number: int) -> int:
    return page[100 if number == 1 else 0]


def _is_bookmark_leaf(page: bytes, number: int) -> bool:
    """A table leaf page holding cells (a freed page keeps its type but has none) of bookmarks."""
    return _page_type(page, number) == 0x0D and page[3:5] != b"\0\0" and re.search(rb"p\d{4}", page) is not None


def test_a_damaged_database_is_not_moved_while_another_instance_has_it_open(tmp_path, pristine):
    path = _copy(pristine, tmp_path)
    running = UserStore(path)  # the other window
    _overwrite_page(path, 1)
    damaged = path.read_bytes()
    with pytest.raises(StoreError, match="damaged; close other iclr-reader windows and try again"):
        UserStore(path)
    assert path.read_bytes() == damaged and not [p for p in tmp_path.iterdir() if "corrupt" in p.name]
    running.close()
    repaired = UserStore(path)  # once it is the only one
    assert len(repaired.bookmarks()) == len(pristine.bookmarks)
    assert "damaged file was kept as" in repaired.notice


def test_an_instance_never_writes_into_a_database_file_replaced_under_it(tmp_path):
    """Another program (an older iclr-reader, a sync tool) moves the file away and puts another in its
    place: writing on would go into the moved file, which nobody reads."""
    path = tmp_path / "user.sqlite3"
    store = UserStore(path)
    store.add(paper("a"))
    elsewhere = tmp_path / "moved.sqlite3"
    for suffix in ("", "-wal", "-shm"):
        os.replace(f"{path}{suffix}", f"{elsewhere}{suffix}")
    sqlite3.connect(path).execute("CREATE TABLE other (x)").connection.close()
    with pytest.raises(StoreError, match="moved or replaced while iclr-reader was running; restart"):
        store.add(paper("b"))
    assert store.get("a") is not None  # reading what it has still works
    store.close()
    assert {row[0] for row in sqlite3.connect(elsewhere).execute("SELECT paper_id FROM bookmarks")} == {"a"}


def test_a_database_deleted_under_a_running_instance_comes_back_on_the_next_start(tmp_path):
    path = tmp_path / "user.sqlite3"
    store = UserStore(path)
    store.add(paper("a", note="kept"))
    store.add(paper("b"))
    path.unlink()  # `rm user.sqlite3` (or a sync tool) while the app runs
    with pytest.raises(StoreError, match="moved or deleted while iclr-reader was running; its bookmarks were saved to"):
        store.add(paper("c"))
    store.close()
    again = UserStore(path)
    assert {(b.paper_id, b.note) for b in again.bookmarks()} == {("a", "kept"), ("b", "")}
    assert "brought back" in again.notice
    again.add(paper("c"))
    assert again.bookmarked_ids() == {"a", "b", "c"}


def test_a_journal_left_by_a_deleted_database_is_kept_not_deleted(tmp_path):
    """An instance was killed (its last changes only in the -wal), then user.sqlite3 was deleted: SQLite
    deletes a -wal it finds beside a new, empty database."""
    path = tmp_path / "user.sqlite3"
    UserStore(path).close()
    writer = sqlite3.connect(path, isolation_level=None)
    writer.execute("PRAGMA wal_autocheckpoint = 0")
    writer.execute("INSERT INTO bookmarks (paper_id, headline, created_at, updated_at) VALUES ('a', 'A', 1, 1)")
    journal = Path(f"{path}-wal").read_bytes()
    writer.close()
    path.unlink()
    Path(f"{path}-wal").write_bytes(journal)
    store = UserStore(path)
    assert store.bookmarks() == []
    (kept,) = [p for p in tmp_path.iterdir() if p.name.endswith("-wal") and "orphan" in p.name]
    assert kept.read_bytes() == journal and str(kept) in store.notice


# -- item 5: damage costs only the rows on the bad page -----------------------------------------------

WORDS = [
    "graph",
    "neural",
    "network",
    "diffusion",
    "transformer",
    "sparse",
    "attention",
    "kernel",
    "bound",
    "proof",
    "convex",
    "loss",
]


class Pristine:
    def __init__(self, path: Path, bookmarks: list[Bookmark], removed: list[Bookmark], saved: list) -> None:
        self.path, self.bookmarks, self.removed, self.saved = path, bookmarks, removed, saved


@pytest.fixture(scope="module")
def pristine(tmp_path_factory) -> Pristine:
    """About 1,500 pages: 1,500 bookmarks with 2,500-character abstracts (one to a page), every fifth
    with a note and every third with tags; 20 of them removed; 3 saved searches and 50 read marks."""
    path = tmp_path_factory.mktemp("pristine") / "user.sqlite3"
    rng = random.Random(7)
    store = UserStore(path)
    papers = [
        paper(
            f"p{i:04d}",
            title=f"Title {i}",
            authors=(f"Author {i}", "Second Author"),
            links=(Link("code", f"https://github.com/a/p{i}", "code"),),
            abstract=" ".join(rng.choice(WORDS) for _ in range(330))[:2500],
            note=f"note on {i}" if i % 5 == 0 else "",
            tags=(f"t{i % 7}", "shared") if i % 3 == 0 else (),
            created_at=1_000_000.0 + i,
        )
        for i in range(1500)
    ]
    store.merge(papers)
    for i in range(0, 1500, 75):
        store.remove(f"p{i:04d}")
    for name in ("graphs", "mine", "proofs"):
        store.save_search(name, f"{name} query")
    for i in range(50):
        store.mark_opened(f"p{i:04d}")
    result = Pristine(path, store.bookmarks(), store.removed(), store.saved_searches())
    store.close()
    assert len(_pages(path)) > 1400
    return result


def _interior_pages(path: Path) -> list[int]:
    """The bookmarks table's interior pages below its root."""
    (root,) = sqlite3.connect(path).execute("SELECT rootpage FROM sqlite_master WHERE name = 'bookmarks'").fetchone()
    interior = [n for n, page in enumerate(_pages(path), 1) if _page_type(page, n) == 0x05 and n != root]
    assert interior
    return interior


def _copy(pristine: Pristine, folder: Path) -> Path:
    path = folder / "user.sqlite3"
    shutil.copyfile(pristine.path, path)
    return path


def _kept(folder: Path) -> Path:
    (kept,) = [p for p in folder.iterdir() if re.fullmatch(r"user\.sqlite3\.corrupt-[\d-]+", p.name)]
    return kept


def _check_recovered(store: UserStore, pristine: Pristine, lost: set[str] = frozenset()) -> None:
    """Everything not on the bad page came back exactly; what was removed stays removed."""
    expected = {b.paper_id: b for b in pristine.bookmarks if b.paper_id not in lost}
    back = {b.paper_id: b for b in store.bookmarks()}
    assert set(back) == set(expected)
    assert all(back[key] == expected[key] for key in expected)
    assert {b.paper_id for b in store.removed()} == {b.paper_id for b in pristine.removed} - lost
    assert store.saved_searches() == pristine.saved


def test_one_overwritten_page_costs_only_the_bookmark_on_it(tmp_path, pristine):
    path = _copy(pristine, tmp_path)
    pages = _pages(path)
    middle = min(
        (n for n, page in enumerate(pages, 1) if _is_bookmark_leaf(page, n)),
        key=lambda n: abs(n - len(pages) // 2),
    )
    lost = {match.decode() for match in re.findall(rb"p\d{4}", _overwrite_page(path, middle))}
    damaged = path.read_bytes()
    store = UserStore(path)
    _check_recovered(store, pristine, lost)
    recovered = len(pristine.bookmarks) - len(lost)
    assert 1 <= len(lost) <= 2 and recovered >= 1478
    assert f"recovered {recovered:,} bookmarks" in store.notice
    assert "(" + f"{sum(1 for b in store.bookmarks() if b.note):,} with notes" in store.notice
    kept = _kept(tmp_path)
    assert f"the damaged file was kept as {kept}" in store.notice and kept.read_bytes() == damaged
    assert store.toggle(pristine.bookmarks[0]).changed  # `b` works on the repaired database


def test_a_damaged_interior_page_loses_no_bookmark(tmp_path, pristine):
    """Half the table hangs under one interior page: SQLite cannot reach those rows, the page scan can."""
    path = _copy(pristine, tmp_path)
    _overwrite_page(path, _interior_pages(path)[0])
    store = UserStore(path)
    _check_recovered(store, pristine)
    assert f"recovered {len(pristine.bookmarks):,} bookmarks" in store.notice


def test_garbled_interior_pages_that_mislead_sqlite_without_raising_lose_no_bookmark(tmp_path, pristine):
    """100 bytes of garbage in the middle of every interior page: some child pointers now lead to the
    wrong leaf, where SQLite answers "no such row" rather than raising; the rows are still on their pages."""
    path = _copy(pristine, tmp_path)
    with open(path, "r+b") as file:
        for number in _interior_pages(path):
            file.seek((number - 1) * _page_size(path) + 1500)
            file.write(random.Random(number).randbytes(100))
    store = UserStore(path)
    _check_recovered(store, pristine)
    assert f"recovered {len(pristine.bookmarks):,} bookmarks" in store.notice


def test_a_damaged_overflow_page_costs_the_text_on_it_not_the_bookmark(tmp_path):
    path = tmp_path / "user.sqlite3"
    store = UserStore(path)
    long = paper("long", title="A long one", abstract="many words " * 2000, note="its note", tags=("x",))
    store.merge([long, *(paper(f"p{i}", note=f"note {i}") for i in range(20))])
    store.close()
    overflow = [n for n, page in enumerate(_pages(path), 1) if _page_type(page, n) == 0 and b"many words" in page]
    _overwrite_page(path, overflow[len(overflow) // 2])
    store = UserStore(path)
    back = {b.paper_id: b for b in store.bookmarks()}
    assert set(back) == {"long", *(f"p{i}" for i in range(20))}
    assert all(back[f"p{i}"].note == f"note {i}" for i in range(20))
    assert (back["long"].title, back["long"].venue) == ("A long one", "ICLR 2025")  # stored before the bad page
    assert "recovered 21 bookmarks" in store.notice


def test_a_damaged_index_page_that_opening_does_not_notice_is_repaired_without_loss(tmp_path, pristine):
    path = _copy(pristine, tmp_path)
    pages = _pages(path)
    index = max(
        (n for n, page in enumerate(pages, 1) if _page_type(page, n) == 0x0A),
        key=lambda n: int.from_bytes(pages[n - 1][3:5], "big"),  # the fullest: the bookmarks' id index
    )
    _overwrite_page(path, index)
    plain = sqlite3.connect(path)  # opening and listing still work; quick_check sees the damage
    assert len(plain.execute("SELECT * FROM bookmarks NOT INDEXED").fetchall()) == len(pristine.bookmarks)
    assert plain.execute("PRAGMA quick_check").fetchall() != [("ok",)]
    plain.close()
    store = UserStore(path)
    _check_recovered(store, pristine)
    assert f"recovered {len(pristine.bookmarks):,} bookmarks" in store.notice
    for bookmark in pristine.bookmarks[:50]:  # `b` on any of them: the lookups use the rebuilt index
        assert store.toggle(bookmark, shown=True).changed


def test_a_destroyed_first_page_still_gives_back_every_bookmark(tmp_path, pristine):
    """Page 1 holds the header and the schema: SQLite calls the file "not a database"."""
    path = _copy(pristine, tmp_path)
    _overwrite_page(path, 1)
    store = UserStore(path)
    _check_recovered(store, pristine)
    assert f"recovered {len(pristine.bookmarks):,} bookmarks" in store.notice
    assert "3 saved searches and 50 read marks" in store.notice
    assert store.opened_ids() == {f"p{i:04d}" for i in range(50)}


def test_changes_still_in_the_wal_are_salvaged_too(tmp_path, pristine):
    """A crash leaves the latest changes in the -wal; the table's root page is then damaged in the main
    file, so every bookmark comes from the page scan, which must lay the WAL's pages over the file's."""
    (tmp_path / "source").mkdir()
    source = _copy(pristine, tmp_path / "source")
    writer = sqlite3.connect(source, isolation_level=None)
    writer.execute("PRAGMA wal_autocheckpoint = 0")
    changed = [b.paper_id for b in pristine.bookmarks[::100]]
    for paper_id in changed:
        writer.execute("UPDATE bookmarks SET note = 'changed after the checkpoint' WHERE paper_id = ?", (paper_id,))
    crashed = tmp_path / "user.sqlite3"
    shutil.copyfile(source, crashed)  # the files as a SIGKILL would leave them
    shutil.copyfile(f"{source}-wal", f"{crashed}-wal")
    writer.close()
    (root,) = sqlite3.connect(source).execute("SELECT rootpage FROM sqlite_master WHERE name = 'bookmarks'").fetchone()
    _overwrite_page(crashed, root)
    store = UserStore(crashed)
    notes = {b.paper_id: b.note for b in store.bookmarks()}
    assert len(notes) == len(pristine.bookmarks)
    assert all(notes[paper_id] == "changed after the checkpoint" for paper_id in changed)
    assert f"{crashed}.corrupt-" in store.notice


def test_damage_found_while_running_is_a_clear_error_and_the_next_start_repairs_it(tmp_path, pristine):
    path = _copy(pristine, tmp_path)
    running = UserStore(path)
    pages = _pages(path)
    middle = next(n for n in range(len(pages) // 2, len(pages)) if _is_bookmark_leaf(pages[n - 1], n))
    lost = {match.decode() for match in re.findall(rb"p\d{4}", _overwrite_page(path, middle))}
    other = sqlite3.connect(path, isolation_level=None)  # another window writes: this one rereads its pages
    other.execute("INSERT INTO opened (paper_id, first_at, last_at) VALUES ('x', 1, 1)")
    other.close()
    with pytest.raises(StoreError) as raised:
        running.bookmarks()
    assert (
        str(raised.value)
        == f"the bookmarks database {path} is damaged; restart iclr-reader to recover what can be read"
    )
    with pytest.raises(StoreError, match="damaged"):
        running.toggle(paper("p0001"))  # `b` is an error line, not a crash
    assert not [p for p in tmp_path.iterdir() if "corrupt" in p.name]  # not moved while this one has it open
    running.close()
    restarted = UserStore(path)
    _check_recovered(restarted, pristine, lost)
    assert "recovered" in restarted.notice


# -- item 15: a read-only data dir still reads --------------------------------------------------------

READ_ONLY_DIR = """
folder = Path(sys.argv[1])
mount("-t", "tmpfs", "-o", "size=2m", "none", str(folder))
path = folder / "user.sqlite3"
store = UserStore(path)
for i in range(3):
    store.add(Bookmark(paper_id=f"p{i}", headline=f"Paper {i}", note=f"note {i}", tags=("t",)))
store.save_search("mine", "is:bookmarked")
store.close()
mount("-o", "remount,ro", str(folder))
reader = attempt(lambda: UserStore(path))
if isinstance(reader, str):
    print(json.dumps({"error": reader}))
    sys.exit()
print(json.dumps({
    "listed": sorted(b.paper_id for b in reader.bookmarks()),
    "note": reader.get("p1").note,
    "saved": reader.saved_searches(),
    "exported": {fmt: "Paper 1" in export(reader.bookmarks(), fmt) for fmt in ("bibtex", "markdown", "csv", "json")},
    "write": attempt(lambda: reader.add(Bookmark(paper_id="x", headline="x"))),
    "notice": reader.notice,
}))
"""


def test_a_read_only_data_dir_still_lists_gets_and_exports_bookmarks(tmp_path):
    out = in_namespace(READ_ONLY_DIR, tmp_path / "ro")
    assert out.get("listed") == ["p0", "p1", "p2"], out
    assert out["note"] == "note 1" and out["saved"] == [["mine", "is:bookmarked"]]
    assert out["exported"] == {"bibtex": True, "markdown": True, "csv": True, "json": True}
    assert out["write"].startswith("StoreError: cannot write") and out["write"].endswith("is read-only")
    assert "can be read but not changed" in out["notice"]


READ_ONLY_WHILE_WRITTEN = """
folder, view = Path(sys.argv[1]), Path(sys.argv[2])
mount("-t", "tmpfs", "-o", "size=2m", "none", str(folder))
writer = UserStore(folder / "user.sqlite3")  # another program writes through a writable path
writer.add(Bookmark(paper_id="first", headline="first"))
view.mkdir()
mount("--bind", str(folder), str(view))
mount("-o", "remount,ro,bind", str(view))  # this one sees the same files read-only (-wal, -shm and all)
reader = UserStore(view / "user.sqlite3")
before = sorted(reader.bookmarked_ids())
writer.add(Bookmark(paper_id="second", headline="second"))
after = sorted(reader.bookmarked_ids())
# a read-only database file in a writable dir
writer.close()
reader.close()
mount("--bind", str(folder / "user.sqlite3"), str(folder / "user.sqlite3"))
mount("-o", "remount,ro,bind", str(folder / "user.sqlite3"))
file_only = UserStore(folder / "user.sqlite3")
print(json.dumps({"before": before, "after": after, "file_only": sorted(file_only.bookmarked_ids()),
                  "write": attempt(lambda: file_only.set_note("first", "x"))}))
"""


def test_a_read_only_view_of_a_database_in_use_reads_its_latest_writes(tmp_path):
    out = in_namespace(READ_ONLY_WHILE_WRITTEN, tmp_path / "rw", str(tmp_path / "view"))
    assert out["before"] == ["first"] and out["after"] == ["first", "second"]
    assert out["file_only"] == ["first", "second"]
    assert out["write"].endswith("user.sqlite3 is read-only")


DAMAGED_AND_READ_ONLY = """
folder = Path(sys.argv[1])
damaged = Path(sys.argv[2]).read_bytes()
mount("-t", "tmpfs", "-o", "size=16m", "none", str(folder))
(folder / "user.sqlite3").write_bytes(damaged)
mount("-o", "remount,ro", str(folder))
store = UserStore(folder / "user.sqlite3")
print(json.dumps({"count": len(store.bookmarks()), "notice": store.notice,
                  "write": attempt(lambda: store.add(Bookmark(paper_id="x", headline="x"))),
                  "untouched": (folder / "user.sqlite3").read_bytes() == damaged}))
"""


def test_a_damaged_database_in_a_read_only_data_dir_shows_what_can_be_read(tmp_path, pristine):
    path = _copy(pristine, tmp_path)
    _overwrite_page(path, 1)
    out = in_namespace(DAMAGED_AND_READ_ONLY, tmp_path / "ro", str(path))
    assert out["count"] == len(pristine.bookmarks) and out["untouched"]
    assert "is damaged" in out["notice"] and f"showing the {len(pristine.bookmarks):,} bookmarks" in out["notice"]
    assert out["write"].startswith("StoreError: cannot write") and "read-only" in out["write"]


# -- item 6: strings from the database or the caller ---------------------------------------------------

ESC = "\x1b]52;c;cm0gLXJmIH4=\x07\x1b[31m\x9b2J\u202e\u2066"
"""An OSC 52 clipboard write, SGR colour, a C1 CSI, a bidi override and an isolate."""


def _inert(text: str) -> bool:
    return sanitize(text) == text


def test_rows_written_by_another_tool_are_read_back_sanitised_and_never_raise(tmp_path):
    path = tmp_path / "user.sqlite3"
    UserStore(path).close()
    db = sqlite3.connect(path)
    columns = (
        "paper_id, venue, headline, name, title, authors, year, links, abstract, note, tags, created_at, updated_at"
    )
    marks = ", ".join("?" * 13)
    db.execute(
        f"INSERT INTO bookmarks ({columns}) VALUES ({marks})",
        (
            f"evil{ESC}",
            f"ICLR{ESC}",
            f"Headline{ESC}",
            f"Name{ESC}",
            f"Title{ESC}",
            json.dumps([f"Author{ESC}", 7, {"not": "a name"}]),
            "2025",
            json.dumps([{"label": f"code{ESC}", "url": f"https://github.com/a/b{ESC}", "kind": "code"}]),
            f"Abstract{ESC}\nsecond line",
            f"Note{ESC}\nsecond line",
            json.dumps([f"tag{ESC}", "tag"]),
            1.0,
            1.0,
        ),
    )
    db.execute(  # not JSON, a blob for a headline, bytes that are not UTF-8, nesting deeper than Python's stack
        f"INSERT INTO bookmarks ({columns}) VALUES ('odd', NULL, x'48656164', NULL, NULL, 'A. Author; B. Author',"
        " 'MMXXV', '" + "[" * 5000 + "', CAST(x'61ff62' AS TEXT), CAST(x'6e6f7465ff' AS TEXT), 'just text', 'x', 1)"
    )
    db.execute(f"INSERT INTO saved_searches (name, query, created_at) VALUES ('n{ESC}', 'q{ESC}', 1)")
    db.commit()
    db.close()
    store = UserStore(path)
    found = {b.paper_id: b for b in store.bookmarks()}
    assert set(found) == {"evil", "odd"}
    evil = found["evil"]
    strings = [evil.paper_id, evil.headline, evil.venue, evil.name, evil.title, evil.abstract, evil.note]
    strings += [*evil.authors, *evil.tags, *(link.label for link in evil.links), *(link.url for link in evil.links)]
    assert all(_inert(text) for text in strings), strings
    assert (evil.headline, evil.venue, evil.authors, evil.tags) == ("Headline", "ICLR", ("Author", "7"), ("tag",))
    assert evil.note == "Note\nsecond line" and evil.links == (Link("code", "https://github.com/a/b", "code"),)
    odd = found["odd"]
    assert (odd.headline, odd.authors, odd.tags, odd.links, odd.year) == (
        "Head",
        ("A. Author; B. Author",),
        ("just text",),
        (),
        None,
    )
    assert odd.note == "note\ufffd" and odd.created_at is None
    assert store.saved_searches() == [("n", "q")]
    for fmt in FORMATS:
        assert all(_inert(line) for line in export(store.bookmarks(), fmt).splitlines())
    # What the screen shows is what finds the row again: the odd ones can be opened and removed.
    assert store.get("evil").note == "Note\nsecond line"
    assert store.toggle(evil, shown=True).removed.paper_id == "evil" and store.bookmarked_ids() == {"odd"}
    assert store.restore("evil").paper_id == "evil" and store.delete_search("n")


def test_lone_surrogates_never_make_a_read_or_write_raise(tmp_path):
    store = UserStore(tmp_path / "user.sqlite3")
    odd = "\ud800"
    store.add(
        Bookmark(
            paper_id=f"id{odd}",
            headline=f"head{odd}",
            authors=(f"A{odd}",),
            links=(Link(f"code{odd}", "https://example.org/x", "code"),),
            abstract=f"abs{odd}",
            note=f"note{odd}",
            tags=(f"t{odd}",),
        )
    )
    store.set_note(f"id{odd}", f"new{odd}x\udfff")
    store.set_tags(f"id{odd}", [f"x{odd}"])
    store.mark_opened(f"id{odd}")
    store.save_search(f"n{odd}", f"q{odd}")
    store.merge([Bookmark(paper_id=f"m{odd}", headline=odd)])
    (stored,) = [b for b in store.bookmarks() if b.paper_id.startswith("id")]
    assert (stored.paper_id, stored.note, stored.tags) == ("id\ufffd", "new\ufffdx\ufffd", ("x\ufffd",))
    assert store.get(f"id{odd}") == stored and store.get("id\ufffd") == stored
    assert store.toggle(stored, shown=True).changed and store.restore(f"id{odd}") is not None
    assert store.saved_searches() == [("n\ufffd", "q\ufffd")] and store.opened_ids() == {"id\ufffd"}
    assert all(sanitize_line(b.headline) == b.headline for b in store.bookmarks())
