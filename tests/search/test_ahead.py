"""Common words' scores written ahead (search/query/ahead.py): after the first search a niced child
writes the files of the words no keystroke has computed yet, so none computes them first; they rank
as computed; the child writes nothing for shards that are not the ones open, never fails the app,
and stops at its share of the folder's bytes."""

import pytest

from search.models import SearchRequest
from search.query import ahead, impacts, scoring
from tests.search.test_impacts import FIELDS, PAPERS, forget_kept_scores, score_files

WORDS = ("graph", "network", "case", "studi")
"""Stems of PAPERS' words."""


@pytest.fixture
def common_words(monkeypatch):
    """Every word counts as common."""
    monkeypatch.setattr(scoring, "MIN_PAPERS", 1)


def computed(monkeypatch) -> list:
    """The words whose scores are computed from here on, of those with any papers (a word the authors
    lack, say, is looked up and found in none)."""
    found: list = []
    compute = scoring.TermScorer._compute

    def recorded(self, text, fields):
        scores = compute(self, text, fields)
        if scores:
            found.append((text, fields))
        return scores

    monkeypatch.setattr(scoring.TermScorer, "_compute", recorded)
    return found


def reader_of(engine):
    return engine.runner._searcher.reader()


def test_words_written_ahead_are_read_not_computed_and_rank_as_computed(engine_over, common_words, monkeypatch):
    engine = engine_over({"graphs.json": PAPERS})
    files = score_files(engine)
    assert ahead.write_ahead(reader_of(engine), files, min_papers=1) >= len(WORDS)
    assert all(files.read((word, FIELDS)) is not None for word in WORDS)
    read = computed(monkeypatch)
    requests = [SearchRequest(text, limit=5, partial=True) for text in ("graph netw", "studies case", "cas")]
    written = [engine.search(request) for request in requests]
    assert read == []  # not one word's scores computed
    for path in files.folder.iterdir():
        path.unlink()
    forget_kept_scores(engine)
    monkeypatch.undo()
    monkeypatch.setattr(scoring, "MIN_PAPERS", 10**9)  # computed, nothing written or read
    again = [engine.search(request) for request in requests]
    assert [(r.hits, r.total, r.any_words, r.all_words) for r in written] == [
        (r.hits, r.total, r.any_words, r.all_words) for r in again
    ]


def test_the_commonest_words_come_first_and_rare_ones_not_at_all(engine_over):
    engine = engine_over({"graphs.json": PAPERS})
    reader = reader_of(engine)
    keys = ahead.common_words(reader, 40)
    assert {("graph", FIELDS), ("case", FIELDS), ("studi", FIELDS)} <= set(keys)  # in each of the 40 papers
    assert all(type(word) is str for word, _ in keys)  # as a query's terms name them: the files' key
    assert ("0", FIELDS) not in ahead.common_words(reader, 2)  # "case 0": one paper
    assert ahead.common_words(reader, 1)[0][0] in ("case", "graph", "studi", "network")
    engine = engine_over({"authored.json": [dict(paper, authors=["Ada Li"]) for paper in PAPERS]})
    assert ("li", ("authors",)) in ahead.common_words(reader_of(engine), 40)  # a name scored on its own


def test_writing_ahead_stops_at_its_share_of_the_folder(engine_over, monkeypatch):
    engine = engine_over({"graphs.json": PAPERS})
    files = score_files(engine)
    monkeypatch.setattr(ahead, "AHEAD_BYTES", 1)
    assert ahead.write_ahead(reader_of(engine), files, min_papers=1) == 1  # then the folder holds more
    assert ahead.write_ahead(reader_of(engine), files, min_papers=1) == 0
    monkeypatch.setattr(ahead, "AHEAD_BYTES", impacts.MAX_FOLDER_BYTES)
    assert ahead.write_ahead(reader_of(engine), files, min_papers=1) > 0  # only those not written yet


def test_the_child_writes_ahead_once_the_first_search_is_done(engine_over, common_words, monkeypatch):
    engine = engine_over({"graphs.json": PAPERS})
    assert engine.runner.ahead is None  # nothing before the first matches
    engine.search(SearchRequest("graph", limit=5))
    child = engine.runner.ahead
    assert child is not None
    assert child.wait(120) and child.returncode == 0
    files = score_files(engine)
    assert files.read(("network", FIELDS)) is not None  # a word never searched
    forget_kept_scores(engine)
    read = computed(monkeypatch)
    engine.search(SearchRequest("networks case", limit=5))
    assert read == []
    engine.search(SearchRequest("graph", limit=5))
    assert engine.runner.ahead is child  # once per open index


def test_no_child_where_no_word_can_be_common(engine_over):
    engine = engine_over({"graphs.json": PAPERS})  # 40 papers, fewer than MIN_PAPERS
    engine.search(SearchRequest("graph", limit=5))
    assert engine.runner.ahead is None


def test_the_child_writes_nothing_for_other_shards_and_never_fails(engine_over, tmp_path):
    engine = engine_over({"graphs.json": PAPERS})
    files = score_files(engine)
    folders = [str(ix.storage.folder) for ix in engine.runner._indexes]
    other = ahead.Ahead(folders, "not-the-open-set", 1)
    assert other.wait(120) and other.returncode == 2
    assert not files.folder.exists() or not any(files.folder.iterdir())
    (tmp_path / "not-an-index").mkdir()
    damaged = ahead.Ahead([str(tmp_path / "not-an-index")], files.folder.name, 1)
    assert damaged.wait(120) and damaged.returncode == 1
