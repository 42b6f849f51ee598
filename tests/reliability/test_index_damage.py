"""Index damage that keeps every file's size (flipped bytes), found when the index is opened, while it
is searched, or written under an open index: rebuilt, said once, and searching goes on."""

from __future__ import annotations

import dataclasses
import json
import random
import struct
import subprocess
import sys
import time
import zlib

import pytest

from search.corpus.loader import load_corpus
from search.engine import SearchEngine
from search.index import shard
from search.index.lifecycle import DAMAGED_NOTICE
from search.index.shard import IndexLocation, verified
from search.models import Hit, SearchRequest
from search.query import runner as runner_module
from search.query.runner import QueryRunner
from tui.cli import main

WORDS = ["graph", "zebra", "kernel", "manifold", "tensor", "quantum", "protein", "robot"]


def records(prefix: str, count: int) -> list[dict]:
    return [
        {
            "id": f"{prefix}{i}",
            "title": f"Study {i} of {WORDS[i % 8]}s",
            "abstract": f"Paper {i} studies {WORDS[i % 8]} and {WORDS[i * 3 % 8]} with marker{prefix}{i}.",
            "authors": [f"Author {prefix}{i % 5}"],
        }
        for i in range(count)
    ]


def write_lists(folder) -> list:
    """Two corpus files (two shards): a.json with 60 papers, b.json with 30."""
    folder.mkdir(exist_ok=True)
    paths = []
    for prefix, count in (("a", 60), ("b", 30)):
        path = folder / f"{prefix}.json"
        path.write_text(json.dumps(records(prefix, count)), encoding="utf-8")
        paths.append(path)
    return paths


@pytest.fixture
def lists(tmp_path):
    return write_lists(tmp_path)


QUERIES = ["markera17", "markerb7", "zebra", '"studies zebra"', "title:robot", "zebra kernel", "prot*", "Author a3"]


def answers(searcher: SearchEngine) -> dict[str, tuple]:
    """Each query's total and ranked (paper, score)."""
    found = {}
    for query in QUERIES:
        result = searcher.search(SearchRequest(query, limit=100))
        found[query] = (result.total, [(hit.paper_id, round(hit.score, 6)) for hit in result.hits])
    return found


@pytest.fixture(scope="module")
def right_answers(tmp_path_factory):
    """The answers of an index built from scratch, never damaged."""
    folder = tmp_path_factory.mktemp("undamaged")
    searcher = SearchEngine(load_corpus(write_lists(folder / "lists")), folder / "cache")
    return answers(searcher)


def engine(lists, cache) -> SearchEngine:
    return SearchEngine(load_corpus(lists), cache)


def shard_of(status, name: str):
    """The shard of the list `name` (a.json or b.json): shards come in corpus order."""
    return status.paths[["a.json", "b.json"].index(name)]


def victim(shard, kind: str):
    """The file of a kind in a shard: Whoosh's terms, postings, columns and TOC, or our side files."""
    ends = {
        "terms (.trm)": ".trm",
        "postings (.pst)": ".pst",
        "ids (id.col)": ".id.col",
        "lengths (_abstract_len.col)": "._abstract_len.col",
        "stored fields (_stored.col)": "._stored.col",
        "TOC (.toc)": ".toc",
        "rows (rows.json)": "rows.json",
        "vocabulary (words.txt)": "words.txt",
        "manifest (manifest.json)": "manifest.json",
    }[kind]
    (found,) = [entry for entry in shard.iterdir() if entry.name.endswith(ends)]
    return found


KINDS = [
    "terms (.trm)",
    "postings (.pst)",
    "ids (id.col)",
    "lengths (_abstract_len.col)",
    "stored fields (_stored.col)",
    "TOC (.toc)",
    "rows (rows.json)",
    "vocabulary (words.txt)",
    "manifest (manifest.json)",
]


def flip(path, seed: int, share: int = 20, count: int | None = None) -> None:
    """Flip every bit of `count` bytes (default: one in `share`, at least one), chosen by `seed`, in
    place: the size stays, and an index that has the file open reads the damage."""
    data = bytearray(path.read_bytes())
    for position in random.Random(seed).sample(range(len(data)), count or max(1, len(data) // share)):
        data[position] ^= 0xFF
    with open(path, "r+b") as file:
        file.write(data)
    assert path.stat().st_size == len(data)


def sound(shard) -> bool:
    """Every file of the shard matches the size and checksum its manifest recorded."""
    return verified(IndexLocation(shard.parent, *shard.name.split("-", 1))) is not None


def cli(capsys, *argv):
    code = main([*argv])
    out, err = capsys.readouterr()
    return code, out, err


# -- found when the index is opened ---------------------------------------------------------


@pytest.mark.parametrize("kind", KINDS)
def test_a_flipped_byte_in_any_index_file_is_found_by_index_and_rebuilt(lists, capsys, right_answers, kind):
    corpus = [arg for path in lists for arg in ("--corpus", str(path))]
    code, out, _ = cli(capsys, *corpus, "index")
    assert code == 0 and "90 papers, index built" in out
    status = engine(lists, None).ensure_index()
    damaged, healthy = shard_of(status, "a.json"), shard_of(status, "b.json")
    untouched = {entry.name: entry.stat().st_mtime_ns for entry in healthy.iterdir()}
    flip(victim(damaged, kind), seed=KINDS.index(kind), count=1)  # one byte is enough
    assert not sound(damaged)

    code, out, err = cli(capsys, *corpus, "index")
    assert code == 0 and "90 papers, index damaged: rebuilt" in out
    assert f"iclr-reader: {DAMAGED_NOTICE}" in err and "Traceback" not in err
    assert sound(damaged) and {entry.name: entry.stat().st_mtime_ns for entry in healthy.iterdir()} == untouched
    code, out, _ = cli(capsys, *corpus, "index")
    assert "index up to date" in out

    again = engine(lists, None)
    status = again.ensure_index()
    assert not status.built and status.notice is None
    assert answers(again) == right_answers


def test_the_engine_reports_a_damaged_shard_and_rebuilds_only_it(lists, tmp_path, right_answers):
    cache = tmp_path / "cache"
    status = engine(lists, cache).ensure_index()
    damaged = shard_of(status, "a.json")
    flip(victim(damaged, "terms (.trm)"), seed=1)
    again = engine(lists, cache)
    status = again.ensure_index()
    assert status.built and status.damaged == (damaged,) and status.notice == DAMAGED_NOTICE
    assert answers(again) == right_answers


def test_damage_between_checking_the_files_and_opening_them_is_repaired(lists, tmp_path, monkeypatch, right_answers):
    cache = tmp_path / "cache"
    damaged = shard_of(engine(lists, cache).ensure_index(), "a.json")
    real_init = QueryRunner.__init__
    pending = [True]

    def init(self, *args, **kwargs):  # another process damages a file just after it was checked
        if pending and pending.pop():
            flip(victim(damaged, "terms (.trm)"), seed=2)
            raise struct.error("unpack requires a buffer of 6 bytes")
        real_init(self, *args, **kwargs)

    monkeypatch.setattr(QueryRunner, "__init__", init)
    searcher = engine(lists, cache)
    status = searcher.ensure_index()
    assert status.damaged == (damaged,) and status.notice == DAMAGED_NOTICE and sound(damaged)
    assert answers(searcher) == right_answers


def test_search_on_the_command_line_warns_once_and_answers(lists, capsys):
    corpus = [arg for path in lists for arg in ("--corpus", str(path))]
    cli(capsys, *corpus, "index")
    status = engine(lists, None).ensure_index()
    flip(victim(shard_of(status, "a.json"), "ids (id.col)"), seed=3)
    code, out, err = cli(capsys, *corpus, "search", "markera17")
    assert code == 0 and out.splitlines()[1].startswith("a17 ")
    assert err.count(DAMAGED_NOTICE) == 1
    code, out, err = cli(capsys, *corpus, "search", "markera17")
    assert code == 0 and DAMAGED_NOTICE not in err


def test_rebuild_replaces_a_damaged_index_with_sound_files(lists, capsys, right_answers):
    corpus = [arg for path in lists for arg in ("--corpus", str(path))]
    cli(capsys, *corpus, "index")
    status = engine(lists, None).ensure_index()
    shards = sorted(status.paths)
    before = {shard: shard.stat().st_ino for shard in shards}
    flip(victim(shards[0], "postings (.pst)"), seed=4)
    flip(victim(shards[1], "terms (.trm)"), seed=5)

    code, out, err = cli(capsys, *corpus, "index", "--rebuild")
    assert code == 0 and "90 papers, index built" in out and "Traceback" not in err
    assert all(sound(shard) and shard.stat().st_ino != before[shard] for shard in shards)
    assert sorted(entry.name for entry in shards[0].parent.iterdir()) == sorted(shard.name for shard in shards)
    again = engine(lists, None)
    assert not again.ensure_index().built
    assert answers(again) == right_answers


def test_rebuild_by_child_processes_replaces_the_index_too(tmp_path, monkeypatch):
    # One list built by one child in two halves: a shard of two segments.
    monkeypatch.setattr("search.index.lifecycle.CHILD_BUILD_MIN_PAPERS", 10)
    monkeypatch.setattr("search.index.children.WORKERS", 2)
    path = tmp_path / "a.json"
    path.write_text(json.dumps(records("a", 60)), encoding="utf-8")
    cache = tmp_path / "cache"
    (shard,) = SearchEngine(load_corpus([path]), cache).ensure_index().paths
    inode = shard.stat().st_ino
    flip(sorted(shard.glob("*.trm"))[0], seed=6)
    rebuilt = SearchEngine(load_corpus([path]), cache)
    status = rebuilt.ensure_index(rebuild=True)
    assert status.paths == (shard,) and sound(shard) and shard.stat().st_ino != inode
    assert [hit.paper_id for hit in rebuilt.search("markera17").hits] == ["a17"]


# -- found while searching --------------------------------------------------------------------


def fail_once(monkeypatch, name: str, error: BaseException) -> None:
    """QueryRunner.<name> raises `error` the next time it is called, as Whoosh would on damaged files."""
    real = getattr(QueryRunner, name)
    pending = [error]

    def failing(self, *args, **kwargs):
        if pending:
            raise pending.pop()
        return real(self, *args, **kwargs)

    monkeypatch.setattr(QueryRunner, name, failing)


@pytest.mark.parametrize(
    "error",
    [
        struct.error("unpack requires a buffer of 4 bytes"),
        ValueError("bad marshal data"),
        KeyError(b"\x00\x01"),
        IndexError("array index out of range"),
        EOFError("Ran out of input"),
        zlib.error("Error -3 while decompressing data"),
        UnicodeDecodeError("utf-8", b"\xff", 0, 1, "invalid start byte"),
    ],
    ids=lambda error: type(error).__name__,
)
def test_an_error_reading_the_index_while_searching_means_a_rebuild(lists, tmp_path, monkeypatch, right_answers, error):
    searcher = engine(lists, tmp_path / "cache")
    damaged = shard_of(searcher.ensure_index(), "a.json")
    assert searcher.search("markera17").total == 1
    flip(victim(damaged, "postings (.pst)"), seed=7)
    fail_once(monkeypatch, "run", error)
    result = searcher.search("markera17")
    assert [hit.paper_id for hit in result.hits] == ["a17"] and result.notice == DAMAGED_NOTICE
    assert sound(damaged)
    assert searcher.search("markera17").notice is None  # said once
    assert answers(searcher) == right_answers


def test_an_error_while_finding_related_papers_means_a_rebuild_too(lists, tmp_path, monkeypatch):
    searcher = engine(lists, tmp_path / "cache")
    damaged = shard_of(searcher.ensure_index(), "a.json")
    expected = searcher.related("a17")
    flip(victim(damaged, "terms (.trm)"), seed=12)
    fail_once(monkeypatch, "similar", struct.error("bad char in struct format"))
    assert searcher.related("a17") == expected
    assert sound(damaged) and searcher.take_index_notice() == DAMAGED_NOTICE and searcher.take_index_notice() is None


@pytest.mark.parametrize("kind", ["terms (.trm)", "postings (.pst)", "ids (id.col)"])
def test_bytes_flipped_in_an_open_index_are_repaired_at_the_next_search(
    lists, tmp_path, monkeypatch, right_answers, kind
):
    # Whoosh reads these while searching: the damage shows as an error, or as ids no paper has.
    monkeypatch.setattr("search.index.guard.FILES_CHECK_INTERVAL", 1e9)  # the files' stamps are not looked at
    searcher = engine(lists, tmp_path / "cache")
    damaged = shard_of(searcher.ensure_index(), "a.json")
    flip(victim(damaged, kind), seed=8, share=8)
    result = searcher.search("zebra")
    assert (result.total, result.notice) == (right_answers["zebra"][0], DAMAGED_NOTICE)
    assert sound(damaged)
    assert answers(searcher) == right_answers


def test_a_file_written_under_an_open_index_is_noticed_at_the_next_search(lists, tmp_path, monkeypatch, right_answers):
    # Whatever the lengths column holds, reading it raises nothing: only the files' stamps tell.
    monkeypatch.setattr("search.index.guard.FILES_CHECK_INTERVAL", 0.0)
    searcher = engine(lists, tmp_path / "cache")
    damaged = shard_of(searcher.ensure_index(), "a.json")
    flip(victim(damaged, "lengths (_abstract_len.col)"), seed=9, share=2)
    result = searcher.search(SearchRequest("zebra kernel", limit=100))
    assert [(hit.paper_id, round(hit.score, 6)) for hit in result.hits] == right_answers["zebra kernel"][1]
    assert result.notice == DAMAGED_NOTICE and sound(damaged)


def test_an_index_replaced_by_another_process_is_opened_again_without_a_rebuild(
    lists, tmp_path, monkeypatch, right_answers
):
    monkeypatch.setattr("search.index.guard.FILES_CHECK_INTERVAL", 0.0)
    cache = tmp_path / "cache"
    searcher = engine(lists, cache)
    shards = searcher.ensure_index().paths
    assert engine(lists, cache).ensure_index(rebuild=True).built  # as `index --rebuild` would, elsewhere
    built = {shard: shard.stat().st_ino for shard in shards}
    result = searcher.search("markera17")
    assert [hit.paper_id for hit in result.hits] == ["a17"] and result.notice is None
    assert {shard: shard.stat().st_ino for shard in shards} == built  # opened, not built again
    assert answers(searcher) == right_answers


def test_ids_the_corpus_does_not_know_never_reach_the_caller(lists, tmp_path, monkeypatch):
    searcher = engine(lists, tmp_path / "cache")
    shards = searcher.ensure_index().paths
    real_run, real_similar = QueryRunner.run, QueryRunner.similar

    def run(self, *args, **kwargs):  # as a damaged id column would give, with files that check out
        result = real_run(self, *args, **kwargs)
        return type(result)(result.query, (Hit("nope", 9.0), *result.hits, *result.hits[:1]), result.total + 2)

    monkeypatch.setattr(QueryRunner, "run", run)
    monkeypatch.setattr(QueryRunner, "similar", lambda self, *a, **k: [Hit("nope", 1.0), *real_similar(self, *a, **k)])
    result = searcher.search("markera17")
    assert [hit.paper_id for hit in result.hits] == ["a17"] and result.total == 1
    assert [hit.paper_id for hit in searcher.search(SearchRequest("zebra sort:title", limit=100)).hits] == [
        hit.paper_id for hit in searcher.search(SearchRequest("zebra sort:title", limit=100)).hits
    ]
    related = searcher.search("related:a17").hits
    assert related and all(searcher.paper(hit.paper_id) for hit in related)
    assert all(sound(shard) for shard in shards)


def test_an_error_the_index_does_not_explain_is_raised_as_it_was(lists, tmp_path, monkeypatch):
    # Every file on disk is sound: a rebuild would not help, so none is done and the error is not hidden.
    searcher = engine(lists, tmp_path / "cache")
    shards = searcher.ensure_index().paths
    built = {shard: shard.stat().st_ino for shard in shards}
    fail_once(monkeypatch, "run", ValueError("a bug, not damage"))
    with pytest.raises(ValueError, match="a bug"):
        searcher.search("markera17")
    assert {shard: shard.stat().st_ino for shard in shards} == built
    assert searcher.search("markera17").total == 1


def test_the_engines_own_errors_are_not_taken_for_damage(lists, tmp_path, monkeypatch):
    from search.errors import IndexCancelled
    from search.index.lifecycle import ShardedIndex

    searcher = engine(lists, tmp_path / "cache")
    searcher.ensure_index()
    monkeypatch.setattr(ShardedIndex, "repair", lambda *a, **k: pytest.fail("checked the index for nothing"))
    fail_once(monkeypatch, "run", IndexCancelled())
    with pytest.raises(IndexCancelled):
        searcher.search("markera17")


def test_the_time_a_repair_takes_is_not_the_searchs(lists, tmp_path, monkeypatch):
    import search.index.shard

    searcher = engine(lists, tmp_path / "cache")
    damaged = shard_of(searcher.ensure_index(), "a.json")
    flip(victim(damaged, "terms (.trm)"), seed=13)
    real_build = search.index.shard.build
    monkeypatch.setattr(search.index.shard, "build", lambda *a, **k: time.sleep(0.5) or real_build(*a, **k))
    fail_once(monkeypatch, "run", struct.error("unpack requires a buffer of 8 bytes"))
    result = searcher.search(SearchRequest("markera17", budget=0.3))  # the rebuild takes longer than the search may
    assert [hit.paper_id for hit in result.hits] == ["a17"] and result.notice == DAMAGED_NOTICE


# -- other processes at the same time -------------------------------------------------------


def test_searching_while_two_other_processes_rebuild_the_index(lists, isolated_dirs, monkeypatch, right_answers):
    monkeypatch.setattr("search.index.guard.FILES_CHECK_INTERVAL", 0.0)
    cache = isolated_dirs / "xdg_cache_home" / "iclr-reader"  # the children inherit XDG_CACHE_HOME
    searcher = engine(lists, cache)
    built = {shard: made(shard) for shard in searcher.ensure_index().paths}
    corpus = [arg for path in lists for arg in ("--corpus", str(path))]
    command = [sys.executable, "-m", "tui", *corpus, "index", "--rebuild"]
    runs = [subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for _ in range(2)]
    searches = 0
    while any(run.poll() is None for run in runs) or searches < 3:
        number = searches % 60
        assert [hit.paper_id for hit in searcher.search(f"markera{number}").hits] == [f"a{number}"]
        searches += 1
        time.sleep(0.01)  # leave the CPU to the builds
    outputs = [run.communicate(timeout=120) for run in runs]
    assert [run.returncode for run in runs] == [0, 0], outputs
    assert all("Traceback" not in err for _, err in outputs)
    shards = list((cache / "index").iterdir())
    assert len(shards) == 2 and all(sound(shard) for shard in shards)
    assert all(made(shard) != built[shard] for shard in shards)  # replaced
    assert answers(searcher) == right_answers


def rebuild_shard(searcher: SearchEngine, name: str) -> None:
    """What another process's `index --rebuild` does to one shard: builds it again (new segment
    names) and renames it over the one in place."""
    index = searcher._index._index
    at = ["a.json", "b.json"].index(name)
    location = dataclasses.replace(index._locations[at], replace=True)
    shard.build(location, shard.Descriptions(index._groups[at], searcher._describe_paper))


def test_a_shard_replaced_while_its_reader_is_made_never_answers_with_another_papers(
    lists, tmp_path, monkeypatch, right_answers
):
    # Whoosh opens a segment's columns (ids, lengths) by name when first asked, after its terms and
    # postings: another process that replaces the shard's directory in between leaves none by
    # those names. Whoosh then left that shard out of the id column (the next shard's ids were read
    # at negative docnums: a49 came out as b19) and read its lengths as none.
    monkeypatch.setattr("search.index.guard.FILES_CHECK_INTERVAL", 0.0)
    searcher = engine(lists, tmp_path / "cache")
    searcher.ensure_index()
    rebuild_shard(searcher, "a.json")  # the next search opens the new build of shard a
    real_multireader = runner_module.MultiReader
    swaps = []

    def segments_opened(readers, *args, **kwargs):  # and the other process replaces it again now
        if not swaps:
            swaps.append("a.json")
            rebuild_shard(searcher, "a.json")
        return real_multireader(readers, *args, **kwargs)

    monkeypatch.setattr(runner_module, "MultiReader", segments_opened)
    assert [hit.paper_id for hit in searcher.search("markera49").hits] == ["a49"]
    assert swaps == ["a.json"]
    assert answers(searcher) == right_answers


def made(folder):
    """Which directory this is: its inode, and when it was made (a freed inode number may be given
    to the directory that replaces it, under load it often is; the time it was made differs)."""
    status = folder.stat()
    return status.st_ino, status.st_ctime_ns


# -- in the app -------------------------------------------------------------------------------


async def test_the_app_says_that_the_index_was_damaged_and_shows_results(lists, tmp_path, monkeypatch):
    from search.user.store import UserStore
    from tests.tui.conftest import settle, shown_status
    from tui.app import ReaderApp

    shown = []
    original = ReaderApp.notify
    monkeypatch.setattr(
        ReaderApp,
        "notify",
        lambda self, message, *a, **k: shown.append(str(message)) or original(self, message, *a, **k),
    )
    cache = tmp_path / "cache"
    status = engine(lists, cache).ensure_index()
    flip(victim(shard_of(status, "a.json"), "terms (.trm)"), seed=10)
    app = ReaderApp(engine(lists, cache), store=UserStore())
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot, app)
        assert shown.count(DAMAGED_NOTICE) == 1  # found when opening: the index's notice
        await pilot.press(*"markerb1")
        await settle(pilot, app)
        assert "b1" in [hit.paper_id for hit in app.screen.result.hits]

        # Damage while the app runs: the next search repairs it, and the status line says so.
        monkeypatch.setattr("search.index.guard.FILES_CHECK_INTERVAL", 0.0)
        flip(victim(shard_of(status, "b.json"), "ids (id.col)"), seed=11, share=4)
        await pilot.press("7")
        await settle(pilot, app)
        assert [hit.paper_id for hit in app.screen.result.hits] == ["b17"]
        assert DAMAGED_NOTICE in app.screen.result.notice
        assert DAMAGED_NOTICE in shown_status(app)
        await pilot.press("backspace", "8")
        await settle(pilot, app)
        assert [hit.paper_id for hit in app.screen.result.hits] == ["b18"] and app.screen.result.notice is None
