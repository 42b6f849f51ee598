"""The saved whole corpus (search/corpus/snapshot.py): a start whose files are all unchanged loads the
merged papers from one sealed entry, and anything changed, damaged or not sealed by this user's key
is loaded from the files again, so what the user sees is always what the files say."""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import stat
from pathlib import Path

import pytest

from search import paths
from search.corpus import loader, snapshot
from search.corpus.loader import CorpusError, load_corpus

ONE = [
    {"id": "p1", "title": "Graph  Transformers", "abstract": "We study graphs " * 10, "author": "Ada Lovelace"},
    {"id": "p2", "title": "Diffusion", "abstract": "Denoising $x^2$.", "keywords": "diffusion; score", "year": 2024},
    {"id": "p3", "title": "No abstract"},
]
OTHER = [  # p1 again under another id (the same abstract): merged into it
    {"id": "q1", "title": "Graph Transformers", "abstract": "We study graphs " * 10, "site": "https://x.org/q1"},
    {"id": "q2", "title": "Kernels", "abstract": "Kernel methods."},
]


def write(folder: Path, name: str, records) -> Path:
    path = folder / name
    path.write_text(json.dumps(records), encoding="utf-8")
    return path


def sealed(secret: bytes, body: bytes) -> bytes:
    """An entry's seal: HMAC-SHA256 of all that follows it, cut to its length."""
    return hmac.new(secret, body, hashlib.sha256).digest()[: snapshot._SEAL]


def entries() -> list[Path]:
    return sorted((paths.cache_dir() / snapshot.CACHE_FOLDER).glob("*.bin"))


@pytest.fixture
def files_not_read(monkeypatch):
    """Fails the test if any file's parse or merge is done again."""

    def refuse():
        monkeypatch.setattr(loader, "_parsed", lambda *_: pytest.fail("a file was read again"))
        monkeypatch.setattr(loader, "merge", lambda *_: pytest.fail("the lists were merged again"))

    return refuse


def test_unchanged_files_load_from_the_saved_corpus_merged_as_before(tmp_path, files_not_read):
    lists = [write(tmp_path, "one.json", ONE), write(tmp_path, "other.json", OTHER)]
    first = load_corpus(lists, keep=True)
    assert first.duplicates == 1 and first.aliases == {"q1": "p1"}
    files_not_read()
    second = load_corpus(lists, keep=True)
    assert second == first
    assert [p.id for p in second.papers] == ["p1", "p2", "q2"]
    assert second.papers[0].site == "https://x.org/q1" and second.papers[0].also_in == (str(lists[1]),)
    assert second.skipped == 1 and second.name == first.name


def test_papers_saved_a_few_rows_at_a_time_load_whole_and_in_order(tmp_path, monkeypatch, files_not_read):
    """The rows are written in chunks (a large corpus is never marshalled all at once)."""
    monkeypatch.setattr(snapshot, "_CHUNK_ROWS", 2)
    lists = [write(tmp_path, "one.json", ONE), write(tmp_path, "other.json", OTHER)]
    first = load_corpus(lists, keep=True)
    files_not_read()
    second = load_corpus(lists, keep=True)
    assert second == first
    assert [(p.id, p.abstract, p.authors) for p in second.papers] == [
        (p.id, p.abstract, p.authors) for p in first.papers
    ]


def test_the_bundled_list_keeps_its_titles(files_not_read):
    first = load_corpus(keep=True)
    files_not_read()
    second = load_corpus(keep=True)
    assert second == first
    assert all(paper.title for paper in second.papers)


def test_the_files_in_another_order_are_another_corpus(tmp_path):
    one, other = write(tmp_path, "one.json", ONE), write(tmp_path, "other.json", OTHER)
    load_corpus([one, other], keep=True)
    assert len(entries()) == 1
    swapped = load_corpus([other, one], keep=True)
    assert [p.id for p in swapped.papers] == ["q1", "q2", "p2"]
    assert [p.id for p in load_corpus([one, other], keep=True).papers] == ["p1", "p2", "q2"]


def test_an_edited_file_is_read_again_even_at_the_same_size(tmp_path):
    path = write(tmp_path, "one.json", ONE)
    load_corpus([path], keep=True)
    assert len(entries()) == 1
    write(tmp_path, "one.json", [dict(ONE[0], title="Graph  Transformerz"), *ONE[1:]])
    status = path.stat()
    os.utime(path, ns=(status.st_atime_ns, status.st_mtime_ns + 1_000_000))
    assert load_corpus([path], keep=True).papers[0].title == "Graph Transformerz"


def test_any_byte_changed_in_the_entry_loads_the_files_again(tmp_path, files_not_read):
    path = write(tmp_path, "one.json", ONE)
    expected = load_corpus([path], keep=True)
    (entry,) = entries()
    data = entry.read_bytes()
    for position in (0, 30, len(data) // 2, len(data) - 1):
        damaged = bytearray(data)
        damaged[position] ^= 0x01
        entry.write_bytes(bytes(damaged))
        assert load_corpus([path], keep=True) == expected
    entry.write_bytes(data[: len(data) // 2])
    assert load_corpus([path], keep=True) == expected
    files_not_read()
    assert load_corpus([path], keep=True) == expected  # the last load wrote it again whole


def test_an_entry_sealed_with_another_key_is_not_trusted(tmp_path):
    """Someone who can write the cache dir but not read the key cannot plant papers: an entry
    sealed with any other key, whatever it says, is a miss."""
    path = write(tmp_path, "one.json", ONE)
    load_corpus([path], keep=True)
    (entry,) = entries()
    assert stat.S_IMODE((entry.parent / snapshot.KEY_FILE).stat().st_mode) == 0o600
    assert stat.S_IMODE(entry.parent.stat().st_mode) == 0o700
    body = entry.read_bytes()[len(snapshot._MAGIC) + snapshot._SEAL :]
    planted = body.replace(b"Diffusion", b"Planted!!")
    assert planted != body
    entry.write_bytes(snapshot._MAGIC + sealed(os.urandom(64), planted) + planted)
    assert [p.title for p in load_corpus([path], keep=True).papers] == ["Graph Transformers", "Diffusion"]
    # The same planted entry sealed with this user's key would be read: the key is what keeps it out.
    secret = (entry.parent / snapshot.KEY_FILE).read_bytes()
    entry.write_bytes(snapshot._MAGIC + sealed(secret, planted) + planted)
    assert [p.title for p in load_corpus([path], keep=True).papers] == ["Graph Transformers", "Planted!!"]


def test_without_a_key_the_files_are_read_each_time(tmp_path, monkeypatch):
    blocked = tmp_path / "blocked"
    blocked.write_text("a file where the cache dir should be")
    monkeypatch.setenv("XDG_CACHE_HOME", str(blocked))
    path = write(tmp_path, "one.json", ONE)
    calls = []
    real = loader._parsed
    monkeypatch.setattr(loader, "_parsed", lambda *args: calls.append(1) or real(*args))
    assert [p.id for p in load_corpus([path], keep=True).papers] == ["p1", "p2"]
    assert [p.id for p in load_corpus([path], keep=True).papers] == ["p1", "p2"]
    assert calls == [1, 1]


def test_a_damaged_key_turns_the_saved_corpus_off_not_the_reader(tmp_path):
    path = write(tmp_path, "one.json", ONE)
    load_corpus([path], keep=True)
    (entries()[0].parent / snapshot.KEY_FILE).write_bytes(b"short")
    assert [p.id for p in load_corpus([path], keep=True).papers] == ["p1", "p2"]
    assert len((entries()[0].parent / snapshot.KEY_FILE).read_bytes()) == 64  # replaced
    assert [p.id for p in load_corpus([path], keep=True).papers] == ["p1", "p2"]


def test_a_key_others_can_read_is_not_used(tmp_path, monkeypatch):
    path = write(tmp_path, "one.json", ONE)
    expected = load_corpus([path], keep=True)
    folder = entries()[0].parent
    calls = []
    real = loader._parsed
    monkeypatch.setattr(loader, "_parsed", lambda *args: calls.append(1) or real(*args))
    old_key = (folder / snapshot.KEY_FILE).read_bytes()
    folder.chmod(0o755)
    assert load_corpus([path], keep=True) == expected and calls == [1]
    assert stat.S_IMODE(folder.stat().st_mode) == 0o700  # private again, with a new key
    assert (folder / snapshot.KEY_FILE).read_bytes() != old_key
    assert load_corpus([path], keep=True) == expected and calls == [1]  # saved under the new key
    (folder / snapshot.KEY_FILE).chmod(0o644)
    assert load_corpus([path], keep=True) == expected and calls == [1, 1]
    assert stat.S_IMODE((folder / snapshot.KEY_FILE).stat().st_mode) == 0o600
    assert load_corpus([path], keep=True) == expected and calls == [1, 1]


def test_a_corpus_with_a_list_left_out_is_not_saved(tmp_path):
    good, broken = write(tmp_path, "one.json", ONE), tmp_path / "broken.json"
    broken.write_text("{not json", encoding="utf-8")
    corpus = load_corpus([good, broken], skip_broken=True, keep=True)
    assert corpus.problems and entries() == []


def test_every_check_on_the_files_still_holds(tmp_path, monkeypatch):
    path = write(tmp_path, "one.json", ONE)
    load_corpus([path], keep=True)
    monkeypatch.setattr(loader, "MAX_CORPUS_BYTES", 10)
    with pytest.raises(CorpusError, match="larger than"):
        load_corpus([path], keep=True)
    monkeypatch.setattr(loader, "MAX_CORPUS_BYTES", 1 << 20)
    path.unlink()
    with pytest.raises(CorpusError, match="no such file"):
        load_corpus([path], keep=True)


def test_the_papers_name_the_file_as_it_was_given(tmp_path, monkeypatch):
    path = write(tmp_path, "one.json", ONE)
    load_corpus([path], keep=True)
    monkeypatch.chdir(tmp_path)
    assert {p.source for p in load_corpus([Path("one.json")], keep=True).papers} == {"one.json"}
    assert {p.source for p in load_corpus([path], keep=True).papers} == {str(path)}


def test_a_new_version_of_the_code_loads_the_files_again(tmp_path, monkeypatch):
    path = write(tmp_path, "one.json", ONE)
    load_corpus([path], keep=True)
    monkeypatch.setattr(snapshot, "code_digest", lambda: "another version")
    calls = []
    real = loader._parsed
    monkeypatch.setattr(loader, "_parsed", lambda *args: calls.append(1) or real(*args))
    assert len(load_corpus([path], keep=True).papers) == 2
    assert calls == [1]


def test_a_bounded_number_of_sets_is_kept(tmp_path):
    lists = [write(tmp_path, f"list{n}.json", ONE) for n in range(snapshot.KEPT_ENTRIES + 2)]
    for number, path in enumerate(lists):
        load_corpus([path], keep=True)
        for entry in entries():
            if entry.stat().st_mtime > 1e9:  # the one just written: give each a distinct, ordered time
                os.utime(entry, (number, number))
    assert len(entries()) == snapshot.KEPT_ENTRIES


def test_new_facts_for_the_bundled_list_load_the_files_again(tmp_path, monkeypatch):
    """The facts (titles of the bundled abstracts) are part of what was saved: other facts, as an
    upgrade brings, are read again."""
    facts = tmp_path / "facts.json"
    facts.write_text("{}", encoding="utf-8")
    monkeypatch.setattr(snapshot, "facts_path", lambda: facts)
    path = write(tmp_path, "one.json", ONE)
    load_corpus([path], keep=True)
    calls = []
    real = loader._parsed
    monkeypatch.setattr(loader, "_parsed", lambda *args: calls.append(1) or real(*args))
    load_corpus([path], keep=True)
    assert calls == []
    facts.write_text('{"papers": []}', encoding="utf-8")
    load_corpus([path], keep=True)
    assert calls == [1]


def test_the_set_loaded_last_is_kept_however_long_ago_it_was_saved(tmp_path, files_not_read):
    lists = [write(tmp_path, f"list{n}.json", ONE) for n in range(snapshot.KEPT_ENTRIES + 1)]
    for path in lists[:-1]:
        load_corpus([path], keep=True)
    load_corpus([lists[0]], keep=True)  # the app's set, read from its entry again: the oldest written
    load_corpus([lists[-1]], keep=True)  # one more set: an entry has to go
    assert len(entries()) == snapshot.KEPT_ENTRIES
    files_not_read()
    assert [p.id for p in load_corpus([lists[0]], keep=True).papers] == ["p1", "p2"]


MANY = [  # 200 papers of 5 KB abstracts, in several scripts: 1 MB of abstracts
    {
        "id": f"m{n}",
        "title": f"Paper {n}",
        "abstract": f"Paper {n} on caf\u00e9 \u2211 \U0001d4d5 graphs. " + "word " * 1000,
    }
    for n in range(200)
]


def test_the_saved_corpus_leaves_the_abstracts_on_disk_until_read(tmp_path):
    """At 100,000 papers the abstracts are half the papers' memory: a load from the saved corpus
    reads them when asked for, not at start."""
    import tracemalloc

    path = write(tmp_path, "many.json", MANY)
    first = load_corpus([path], keep=True)
    tracemalloc.start()
    try:
        second = load_corpus([path], keep=True)
        held, _ = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    abstracts = sum(len(paper.abstract.encode()) for paper in first.papers)
    assert abstracts > 1_000_000 and held < abstracts / 4
    assert [paper.abstract for paper in second.papers] == [paper.abstract for paper in first.papers]
    assert second.papers[7].abstract.startswith("Paper 7 on caf\u00e9 \u2211 \U0001d4d5 graphs.")
    assert second == first


def test_abstracts_stay_readable_when_their_entry_goes(tmp_path):
    """Another instance may replace or prune the entry while this one shows its papers."""
    path = write(tmp_path, "many.json", MANY)
    load_corpus([path], keep=True)
    loaded = load_corpus([path], keep=True)
    (entry,) = entries()
    entry.unlink()
    assert loaded.papers[199].abstract.startswith("Paper 199 on")


def test_an_entry_damaged_after_it_was_read_costs_abstracts_not_the_reader(tmp_path):
    path = write(tmp_path, "many.json", MANY)
    load_corpus([path], keep=True)
    loaded = load_corpus([path], keep=True)
    (entry,) = entries()
    with open(entry, "r+b") as file:
        file.truncate(1000)  # in place: the open file shrinks too
    assert loaded.papers[150].abstract == ""
    assert loaded.papers[150].title == "Paper 150"


def test_papers_from_the_saved_corpus_reach_the_index_builds_whole(tmp_path):
    """The index is built in other processes, which get the papers pickled: with their abstracts."""
    import pickle

    path = write(tmp_path, "many.json", MANY)
    load_corpus([path], keep=True)
    loaded = load_corpus([path], keep=True)
    data = pickle.dumps(loaded.papers[:3])
    (entry,) = entries()
    entry.unlink()
    assert [paper.abstract for paper in pickle.loads(data)] == [p["abstract"].strip() for p in MANY[:3]]


def saved_files() -> list[Path]:
    cache = paths.cache_dir()
    return sorted([*(cache / "parsed").glob("*.bin"), *(cache / snapshot.CACHE_FOLDER).glob("*.bin")])


def test_a_start_can_save_its_parse_once_it_is_up(tmp_path, files_not_read):
    """The app's start saves what it parsed after its first frame, not before it."""
    from search.engine import SearchEngine

    lists = [write(tmp_path, "one.json", ONE), write(tmp_path, "other.json", OTHER)]
    engine = SearchEngine.from_paths(lists, save_later=True)
    assert [p.id for p in engine.papers] == ["p1", "p2", "q2"]
    assert saved_files() == []
    engine.save_for_next_start()
    assert len(saved_files()) == 3  # each list's parse and the merged corpus
    engine.save_for_next_start()  # once only
    files_not_read()
    assert SearchEngine.from_paths(lists).corpus == engine.corpus
