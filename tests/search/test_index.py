"""When the index is (and is not) rebuilt, and that it is swapped in whole."""

import json
import os

import pytest
from whoosh import index as whoosh_index

from search.corpus.loader import load_corpus
from search.engine import SearchEngine
from search.index.shard import IndexCancelled
from search.models import SearchRequest


def corpus_file(tmp_path, abstracts, name="list.json"):
    path = tmp_path / name
    path.write_text(
        json.dumps([{"id": f"{name}-{i}", "abstract": a} for i, a in enumerate(abstracts)]), encoding="utf-8"
    )
    return path


def index_dirs(cache):
    return sorted(p.name for p in (cache / "index").iterdir())


def test_index_lives_in_xdg_cache_and_is_reused_when_nothing_changed(isolated_dirs):
    first = SearchEngine.from_paths()
    assert first.ensure_index().built
    status = SearchEngine.from_paths().ensure_index()
    assert not status.built
    assert status.path.is_relative_to(isolated_dirs / "xdg_cache_home" / "iclr-reader" / "index")


def test_changed_content_rebuilds_and_replaces_the_old_index(tmp_path):
    path = corpus_file(tmp_path, ["Graphs are fun.", "Trees are fun."])
    cache = tmp_path / "cache"
    assert SearchEngine(load_corpus([path]), cache).ensure_index().built
    old = index_dirs(cache)
    corpus_file(tmp_path, ["Graphs are fun.", "Forests are fun."])
    engine = SearchEngine(load_corpus([path]), cache)
    assert engine.ensure_index().built
    assert engine.search("forests").total == 1
    assert index_dirs(cache) != old and len(index_dirs(cache)) == 1


def test_schema_or_version_change_rebuilds(tmp_path, monkeypatch):
    path = corpus_file(tmp_path, ["Graphs are fun."])
    cache = tmp_path / "cache"
    SearchEngine(load_corpus([path]), cache).ensure_index()
    monkeypatch.setattr("search.index.shard.SCHEMA_VERSION", 999)
    assert SearchEngine(load_corpus([path]), cache).ensure_index().built
    monkeypatch.setattr("search.index.shard.__version__", "9.9.9")
    assert SearchEngine(load_corpus([path]), cache).ensure_index().built


def test_a_damaged_index_is_rebuilt(tmp_path):
    path = corpus_file(tmp_path, ["Graphs are fun."])
    cache = tmp_path / "cache"
    status = SearchEngine(load_corpus([path]), cache).ensure_index()
    (shard,) = status.paths
    for entry in shard.iterdir():
        entry.write_bytes(b"garbage")
    engine = SearchEngine(load_corpus([path]), cache)
    assert engine.ensure_index().built
    assert engine.search("graphs").total == 1


def test_a_cancelled_build_leaves_no_index_behind(tmp_path):
    import threading

    path = corpus_file(tmp_path, [f"Abstract {i} about graphs." for i in range(50)])
    cache = tmp_path / "cache"
    cancel = threading.Event()
    cancel.set()
    with pytest.raises(IndexCancelled):
        SearchEngine(load_corpus([path]), cache).ensure_index(cancel=cancel)
    assert index_dirs(cache) == []
    assert SearchEngine(load_corpus([path]), cache).ensure_index().built


def test_unwritable_cache_falls_back_to_an_in_memory_index(tmp_path):
    if os.geteuid() == 0:
        blocker = tmp_path / "cache"
        blocker.write_text("a file where the cache dir should be")
        cache = blocker
    else:  # pragma: no cover - CI runs as root
        cache = tmp_path / "ro"
        cache.mkdir(mode=0o500)
    engine = SearchEngine(load_corpus(), cache)
    status = engine.ensure_index()
    assert status.path is None and "in memory" in status.notice
    assert engine.search("BitStack").total == 1


def test_progress_is_reported_while_building(tmp_path):
    path = corpus_file(tmp_path, [f"Abstract {i} about graphs." for i in range(450)])
    calls = []
    SearchEngine(load_corpus([path]), tmp_path / "c").ensure_index(
        on_progress=lambda done, total: calls.append((done, total))
    )
    assert calls[-1] == (450, 450) and len(calls) >= 3


def test_each_file_has_its_own_index_and_adding_a_file_indexes_only_that_file(tmp_path):
    first = corpus_file(tmp_path, ["Graphs are fun.", "Trees are fun."], "a.json")
    second = corpus_file(tmp_path, ["Forests are fun."], "b.json")
    cache = tmp_path / "cache"
    status = SearchEngine(load_corpus([first]), cache).ensure_index()
    (first_shard,) = status.paths
    built_at = first_shard.stat().st_mtime_ns
    engine = SearchEngine(load_corpus([first, second]), cache)
    status = engine.ensure_index()
    assert status.built and status.paths[0] == first_shard and first_shard.stat().st_mtime_ns == built_at
    assert len(status.paths) == 2
    assert engine.search("fun").total == 3  # one search over both files
    assert [engine.paper(h.paper_id).source for h in engine.search("forests").hits] == [str(second)]


def test_big_corpora_are_built_by_child_processes_in_parallel(tmp_path, monkeypatch):
    monkeypatch.setattr("search.index.lifecycle.CHILD_BUILD_MIN_PAPERS", 10)
    monkeypatch.setattr("search.index.children.WORKERS", 2)
    files = [
        corpus_file(tmp_path, [f"Paper {i} of list {n} about graphs and trees." for i in range(30)], f"{n}.json")
        for n in "abc"
    ]
    started = []
    real_run = __import__("search.index.children", fromlist=["run_child"]).run_child
    monkeypatch.setattr(
        "search.index.children.run_child",
        lambda command, shards, *rest: started.append(shards) or real_run(command, shards, *rest),
    )
    calls = []
    engine = SearchEngine(load_corpus(files), tmp_path / "cache")
    status = engine.ensure_index(on_progress=lambda done, total: calls.append((done, total)))
    assert status.built and len(status.paths) == 3
    shards = [papers[0].source for shards in started for _, papers in shards]
    assert len(started) == 2 and sorted(shards) == sorted(str(f) for f in files)
    assert calls[-1] == (90, 90)
    assert engine.search("graphs").total == 90


class _SentWhenFirstBuilt:
    """A shard's papers that the parent can send only once the child has made progress on the shard
    before them (pickling them waits for it; the wait is a guard against hanging, not a timing)."""

    def __init__(self, papers, progressed, waited) -> None:
        self.papers, self.progressed, self.waited = papers, progressed, waited

    def __len__(self) -> int:
        return len(self.papers)

    def __reduce__(self):
        self.waited.append(self.progressed.wait(60))
        return tuple, (self.papers,)


def test_a_child_builds_its_first_shard_before_the_parent_has_sent_the_next(tmp_path):
    """A child given several shards starts indexing as soon as the first has arrived: at 100,000
    papers, a child's five shards took seconds to send, and its first progress waited for all of them."""
    import threading

    from search.index import children, shard

    first = load_corpus([corpus_file(tmp_path, [f"First list paper {i} on graphs." for i in range(5)], "a.json")])
    second = load_corpus([corpus_file(tmp_path, [f"Second list paper {i} on trees." for i in range(4)], "b.json")])
    locations = [shard.IndexLocation(tmp_path / "index", name, "0123456789abcdef") for name in ("a", "b")]
    progressed, waited, reports = threading.Event(), [], []

    def on_progress(done: int, total: int) -> None:
        reports.append((done, total))
        progressed.set()

    shards = [
        (locations[0], first.papers),
        (locations[1], _SentWhenFirstBuilt(second.papers, progressed, waited)),
    ]
    assert children.run_child(children.child_command(), shards, on_progress, threading.Event())
    assert waited == [True]  # the first shard's progress came while the second was still to send
    assert reports[-1] == (9, 9)
    assert [shard.open_existing(location) is not None for location in locations] == [True, True]


def test_one_big_list_is_built_in_two_halves_that_search_as_one(tmp_path, monkeypatch):
    """One list to index on two CPUs: its child forks, each process writes about half the text as a
    segment, and the index searches as one process's index of the list does, ties in corpus order,
    with the same result rows and spelling words."""
    topics = ["graphs", "trees", "kernels", "graphs and trees", "proteins"]
    long = " ".join(f"filler{n}" for n in range(60))  # the first papers are long: fewer of them make half
    abstracts = [
        f"Paper {i} on {topics[i % 5]}, marker{i} and {'deep ' * (i % 3)}learning. {long if i < 60 else ''}"
        for i in range(300)
    ]
    path = corpus_file(tmp_path, abstracts)
    whole = SearchEngine(load_corpus([path]), tmp_path / "whole")
    (whole_shard,) = whole.ensure_index().paths
    monkeypatch.setattr("search.index.lifecycle.CHILD_BUILD_MIN_PAPERS", 10)
    monkeypatch.setattr("search.index.children.WORKERS", 2)
    calls = []
    halves = SearchEngine(load_corpus([path]), tmp_path / "halves")
    status = halves.ensure_index(on_progress=lambda done, total: calls.append((done, total)))
    (shard,) = status.paths
    with whoosh_index.open_dir(str(shard)).reader() as reader:
        first, second = [leaf.doc_count_all() for leaf, _ in reader.leaf_readers()]
    assert first + second == 300 and 30 < first < 60  # split by text: most of it is in the long papers
    assert calls[-1] == (300, 300) and [done for done, _ in calls] == sorted(done for done, _ in calls)
    for query in ["graphs", "learning", "deep learning", '"graphs and trees"', "marker7", "marker299", "kern*"]:
        # the same hits in the same order: papers of equal score come in corpus order in both
        expected = whole.search(SearchRequest(query, limit=400))
        found = halves.search(SearchRequest(query, limit=400))
        assert (found.total, [(hit.paper_id, hit.score) for hit in found.hits]) == (
            expected.total,
            [(hit.paper_id, hit.score) for hit in expected.hits],
        ), query
    assert halves.related("list.json-7") == whole.related("list.json-7")
    for side_file in ("rows.json", "words.txt"):
        assert (shard / side_file).read_text(encoding="utf-8") == (whole_shard / side_file).read_text(encoding="utf-8")


def test_child_builds_get_equal_amounts_of_text():
    from search.index.children import _split, _work
    from search.models import Paper

    def shard(name, characters):  # a paper counts as 30 characters more than its abstract
        return (name, (Paper(id=name, abstract="x" * (characters - 30), source=name),))

    # Largest first alone gives 700 against 500; moving one shard each way evens it out.
    shards = [shard("a", 300), shard("b", 300), shard("c", 200), shard("d", 200), shard("e", 200)]
    loads = _split(shards, 2)
    assert [sum(map(_work, load)) for load in loads] == [600, 600]
    assert sorted(name for load in loads for name, _ in load) == ["a", "b", "c", "d", "e"]
    assert [len(load) for load in _split(shards, 1)] == [5]


def test_an_unchanged_start_finds_its_shards_without_reading_an_abstract(isolated_dirs, tmp_path, monkeypatch):
    """The shard a list's papers are indexed in is found by the fingerprint saved with the corpus:
    at 100,000 papers, reading every abstract back to hash it cost 0.3 s of CPU at each start."""
    from search.corpus.kept import KeptAbstracts

    lists = [
        corpus_file(tmp_path, ["Graphs are fun.", "Trees are fun."]),
        corpus_file(tmp_path, ["Kernels."], "b.json"),
    ]
    first = SearchEngine.from_paths(lists)
    assert first.ensure_index().built
    read = []
    text = KeptAbstracts.text
    monkeypatch.setattr(KeptAbstracts, "text", lambda self, index: read.append(index) or text(self, index))
    again = SearchEngine.from_paths(lists)  # the saved corpus: its abstracts stay on disk
    status = again.ensure_index()
    assert not status.built and status.paths == first.ensure_index().paths
    assert read == []
    assert [hit.paper_id for hit in again.search("trees").hits] == ["list.json-1"]


def test_ensure_index_on_the_open_index_does_no_work(tmp_path, monkeypatch):
    path = corpus_file(tmp_path, ["Graphs are fun.", "Trees are fun."])
    engine = SearchEngine(load_corpus([path]), tmp_path / "cache")
    engine.ensure_index()
    monkeypatch.setattr("search.index.shard.fingerprint", lambda _: pytest.fail("the papers were hashed again"))
    monkeypatch.setattr("search.index.lifecycle.ShardedIndex._locate", lambda *_: pytest.fail("located again"))
    assert not engine.ensure_index().built
    assert engine.search("trees").total == 1


def test_a_corpus_without_fingerprints_still_finds_its_shards(tmp_path):
    """A corpus made otherwise than by loading files (no fingerprints) has its papers hashed."""
    import dataclasses

    path = corpus_file(tmp_path, ["Graphs are fun.", "Trees are fun."])
    cache = tmp_path / "cache"
    loaded = load_corpus([path])
    assert SearchEngine(loaded, cache).ensure_index().built
    bare = dataclasses.replace(loaded, fingerprints={})
    assert not SearchEngine(bare, cache).ensure_index().built


def test_the_fingerprints_are_computed_once_and_after_the_load(isolated_dirs, tmp_path, monkeypatch):
    """Hashing every abstract waits for the index's opening (the app's is after its first frame),
    and the corpus saved for the next start reuses what it computed."""
    from search.corpus import fingerprint

    computed = []
    by_source = fingerprint.by_source
    monkeypatch.setattr(fingerprint, "by_source", lambda papers, *rest: computed.append(1) or by_source(papers, *rest))
    lists = [corpus_file(tmp_path, ["Graphs are fun.", "Trees are fun."])]
    engine = SearchEngine.from_paths(lists, save_later=True)
    assert computed == []
    assert engine.ensure_index().built
    engine.save_for_next_start()
    assert computed == [1]
    again = SearchEngine.from_paths(lists)
    assert not again.ensure_index().built and computed == [1]  # read back with the saved corpus


def titled_lists(tmp_path):
    """Two lists (two shards): papers with titles (one named by its title), and one without."""
    first = tmp_path / "a.json"
    first.write_text(
        json.dumps(
            [
                {"id": "t1", "title": "Graphs for fun", "abstract": "Graphs are fun.", "github": "github.com/a/b"},
                {"id": "t2", "title": "ZebraNet: striped graphs", "abstract": "Zebras are graphs."},
                {"id": "u1", "abstract": "Trees are fun. They grow."},
            ]
        ),
        encoding="utf-8",
    )
    second = tmp_path / "b.json"
    second.write_text(json.dumps([{"id": "s1", "title": "Forests", "abstract": "Forests are trees."}]), "utf-8")
    return [first, second]


def test_the_open_index_keeps_no_second_copy_of_the_titles(tmp_path):
    engine = SearchEngine(load_corpus(titled_lists(tmp_path)), tmp_path / "cache")
    engine.ensure_index()
    rows = engine._index.opened.rows
    assert {paper_id: row[1] for paper_id, row in rows.items()} == {
        "t1": None,
        "t2": None,
        "u1": "Trees are fun",
        "s1": None,
    }
    assert (engine.row("t1").name, engine.row("t1").headline, engine.row("t1").has_code) == (
        None,
        "Graphs for fun",
        True,
    )
    assert (engine.row("t2").name, engine.row("t2").headline) == ("ZebraNet", "ZebraNet: striped graphs")
    assert engine.row("u1").headline == "Trees are fun" and engine.row("s1").headline == "Forests"
    assert rows["t1"] == (None, None, True) and rows["s1"] == (None, None, False) and rows["t2"][0] == "ZebraNet"


def test_each_shards_own_rows_and_words_are_let_go_once_merged_and_read_again_to_repair(tmp_path):
    lists = titled_lists(tmp_path)
    engine = SearchEngine(load_corpus(lists), tmp_path / "cache")
    engine.ensure_index()
    sharded = engine._index._index
    assert all(built.light and not built.rows and not built.words for built in sharded._shards.values())
    first = next(iter(sharded._shards))
    (first.path / "rows.json").write_text("[]", encoding="utf-8")  # damaged: the repair rebuilds it
    status = sharded.repair(engine._describe_paper)
    assert status is not None and status.damaged == (first.path,)
    engine._index._adopt()
    assert engine.row("t2").headline == "ZebraNet: striped graphs" and engine.row("s1").headline == "Forests"
    assert engine.search("forests").total == 1 and engine.search("zebras").total == 1
