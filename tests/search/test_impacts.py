"""Common words' scores kept on disk beside the index (search/query/impacts.py): read back, they
rank as computed; a file that is damaged, cut short, written for another word or naming a paper out
of range is computed again, never trusted and never fatal."""

from array import array

import pytest

from search.models import SearchRequest
from search.query import impacts, scoring
from search.query.impacts import ScoreFiles

PAPERS = [
    {"id": f"p{n}", "title": f"Graph study {n}", "abstract": f"Graphs and networks, {'graph ' * (n % 4)}case {n}."}
    for n in range(40)
]
FIELDS = ("abstract", "keywords", "name", "title")


@pytest.fixture
def common_words(monkeypatch):
    """Every word counts as common: its scores are written once computed."""
    monkeypatch.setattr(scoring, "MIN_PAPERS", 1)


def postings_read(engine, monkeypatch) -> list:
    read: list = []
    for segment, _ in engine.runner._scorer._segments:
        postings = segment.postings
        monkeypatch.setattr(
            segment, "postings", lambda *args, _postings=postings: read.append(args) or _postings(*args)
        )
    return read


def forget_kept_scores(engine) -> None:
    scorer = engine.runner._scorer
    for cache in (scorer._cache, scorer._field_cache, scorer._impacts, scorer._word_docs, scorer._pairs):
        for key in list(cache):
            cache.forget(key)


def score_files(engine) -> ScoreFiles:
    files = engine.runner._scorer._files
    assert files is not None
    return files


def test_a_common_words_scores_are_read_back_rather_than_computed(engine_over, common_words, monkeypatch):
    engine = engine_over({"graphs.json": PAPERS})
    request = SearchRequest("graph netw", limit=5, partial=True)
    first = engine.search(request)
    files = score_files(engine)
    assert files.read(("graph", FIELDS)) is not None  # written once computed
    forget_kept_scores(engine)
    read = postings_read(engine, monkeypatch)
    again = engine.search(request)
    assert [args for args in read if args[0] != "authors" and args[1] in ("graph", "network")] == []
    assert (again.hits, again.total, again.any_words, again.all_words) == (
        first.hits,
        first.total,
        first.any_words,
        first.all_words,
    )


def test_rare_words_are_not_written(engine_over):
    engine = engine_over({"graphs.json": PAPERS})
    engine.search(SearchRequest("graph", limit=5))
    assert score_files(engine).read(("graph", FIELDS)) is None  # 40 papers: fewer than MIN_PAPERS


@pytest.mark.parametrize(
    "damage",
    [
        lambda data: data[: len(data) // 2],  # cut short
        lambda data: data[:-1] + bytes([data[-1] ^ 1]),  # a score changed
        lambda data: b"",
        lambda data: b"not a scores file at all",
        lambda data: data + b"\0" * 12,  # longer than its count says
    ],
)
def test_a_damaged_file_is_computed_again(engine_over, common_words, damage):
    engine = engine_over({"graphs.json": PAPERS})
    request = SearchRequest("graph", limit=5)
    first = engine.search(request)
    files = score_files(engine)
    path = files._path(("graph", FIELDS))
    path.write_bytes(damage(path.read_bytes()))
    assert files.read(("graph", FIELDS)) is None
    forget_kept_scores(engine)
    again = engine.search(request)
    assert (again.hits, again.total) == (first.hits, first.total)


def test_a_file_for_another_word_or_naming_papers_out_of_range_is_ignored(tmp_path):
    files = ScoreFiles(tmp_path / "set", doc_count=3)
    files.write(("graph", FIELDS), {0: 1.5, 2: 2.5}, [2, 0])
    assert [list(part) for part in files.read(("graph", FIELDS))] == [[0, 2], [1.5, 2.5], [2, 0]]
    files._path(("graph", FIELDS)).rename(files._path(("network", FIELDS)))
    assert files.read(("network", FIELDS)) is None  # the digest covers the word it was written for
    files.write(("graph", FIELDS), {0: 1.5, 2: 2.5}, [2, 0])
    assert ScoreFiles(tmp_path / "set", doc_count=2).read(("graph", FIELDS)) is None  # paper 2 of 2
    path = files._path(("graph", FIELDS))
    payload = array("i", [0, 2, -1, 0]).tobytes() + array("d", [1.5, 2.5]).tobytes()  # -1 best
    path.write_bytes(impacts._HEADER.pack(impacts.MAGIC, 2, impacts._digest(("graph", FIELDS), payload)) + payload)
    assert files.read(("graph", FIELDS)) is None


def test_nothing_is_written_past_the_folders_budget_or_where_it_cannot_be(tmp_path, monkeypatch):
    monkeypatch.setattr(impacts, "MAX_FOLDER_BYTES", 100)
    files = ScoreFiles(tmp_path / "set", doc_count=100)
    files.write((b"a", FIELDS), {0: 1.0, 1: 0.5}, [0, 1])  # 28 + 32 bytes
    files.write((b"b", FIELDS), dict.fromkeys(range(10), 1.0), list(range(10)))  # past the budget
    assert files.read((b"a", FIELDS)) is not None and files.read((b"b", FIELDS)) is None
    (tmp_path / "file").write_text("")
    blocked = ScoreFiles(tmp_path / "file" / "set", doc_count=100)  # its folder cannot be made
    blocked.write((b"a", FIELDS), {0: 1.0}, [0])
    assert blocked.read((b"a", FIELDS)) is None


def test_only_the_sets_used_last_are_kept(tmp_path):
    import os

    root = tmp_path / "scores"
    for number in range(impacts.KEPT_SETS + 2):
        (root / f"set{number}").mkdir(parents=True)
        os.utime(root / f"set{number}", (1000 + number, 1000 + number))
    (root / "set0" / ".abandoned.bin.123").write_bytes(b"")
    os.utime(root / "set0" / ".abandoned.bin.123", (1000, 1000))
    ScoreFiles(root / "set0", doc_count=10)._prune(root)  # set0 used again now
    kept = sorted(entry.name for entry in root.iterdir())
    newest = [f"set{number}" for number in range(impacts.KEPT_SETS + 2)][-(impacts.KEPT_SETS - 1) :]
    assert kept == ["set0", *newest]
    assert not (root / "set0" / ".abandoned.bin.123").exists()  # left by a killed write an hour ago


def test_the_files_live_beside_the_index_and_an_index_in_memory_has_none(engine_over, common_words):
    engine = engine_over({"graphs.json": PAPERS})
    files = score_files(engine)
    assert files.folder.parent.name == "scores"
    assert (files.folder.parent.parent / "index").is_dir()
    assert ScoreFiles.beside([], [], "") is None
