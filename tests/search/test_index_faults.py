"""Index faults: damaged or missing files, stale locks, a full or read-only cache, two instances at once."""

from __future__ import annotations

import errno
import json
import subprocess
import sys

import pytest

from search.corpus.loader import load_corpus
from search.engine import SearchEngine


@pytest.fixture
def corpus_path(tmp_path):
    path = tmp_path / "list.json"
    records = [{"id": f"p{i}", "abstract": f"Paper {i} studies graphs and zebra number {i}."} for i in range(300)]
    path.write_text(json.dumps(records), encoding="utf-8")
    return path


def engine(corpus_path, cache):
    return SearchEngine(load_corpus([corpus_path]), cache)


def segment_files(status):
    (shard,) = status.paths
    return sorted(entry for entry in shard.iterdir() if entry.suffix in (".pst", ".trm", ".seg", ".toc"))


@pytest.mark.parametrize("damage", ["truncate", "delete", "empty"])
def test_a_damaged_segment_file_means_a_rebuild(corpus_path, tmp_path, damage):
    cache = tmp_path / "cache"
    status = engine(corpus_path, cache).ensure_index()
    victim = max(segment_files(status), key=lambda entry: entry.stat().st_size)
    if damage == "truncate":
        victim.write_bytes(victim.read_bytes()[: victim.stat().st_size // 2])
    elif damage == "delete":
        victim.unlink()
    else:
        victim.write_bytes(b"")
    again = engine(corpus_path, cache)
    assert again.ensure_index().built
    assert again.search("zebra").total == 300


def test_a_stale_lock_from_a_killed_build_is_ignored(corpus_path, tmp_path):
    cache = tmp_path / "cache"
    status = engine(corpus_path, cache).ensure_index()
    (shard,) = status.paths
    (shard / "MAIN_WRITELOCK").write_text("")  # as if a writer had been killed
    abandoned = shard.parent / f".{shard.name}.killed"
    abandoned.mkdir()
    (abandoned / "MAIN_WRITELOCK").write_text("")
    again = engine(corpus_path, cache)
    assert not again.ensure_index().built
    assert again.search("graphs").total == 300


def test_a_full_disk_keeps_the_index_in_memory_with_a_notice(corpus_path, tmp_path, monkeypatch):
    def no_space(*args, **kwargs):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr("search.index.shard.whoosh_index.create_in", no_space)
    searcher = engine(corpus_path, tmp_path / "cache")
    status = searcher.ensure_index()
    assert status.path is None and "No space left on device" in status.notice
    assert searcher.search("zebra").total == 300
    assert not list((tmp_path / "cache" / "index").iterdir())  # no half-written build left behind


@pytest.mark.slow
def test_two_instances_building_the_same_index_at_once(corpus_path, tmp_path):
    cache = tmp_path / "cache"
    env = {"XDG_CACHE_HOME": str(cache), "XDG_DATA_HOME": str(tmp_path / "data"), "PATH": "/usr/bin:/bin"}
    command = [sys.executable, "-m", "tui", "--corpus", str(corpus_path), "index"]
    runs = [
        subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for _ in range(3)
    ]
    outputs = [run.communicate(timeout=120) for run in runs]
    assert [run.returncode for run in runs] == [0, 0, 0], outputs
    assert all("Traceback" not in err for _, err in outputs)
    shards = [entry for entry in (cache / "iclr-reader" / "index").iterdir() if not entry.name.startswith(".")]
    assert len(shards) == 1
    again = subprocess.run(command, env=env, capture_output=True, text=True)
    assert "up to date" in again.stdout
