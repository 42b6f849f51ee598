"""Quick matches before the index is open (search/query/scan.py, SearchEngine.quick_search)."""

import threading

from search import Paper, SearchEngine, load_corpus
from search.engine import QUICK_NOTICE
from search.query.scan import scan


def paper(paper_id, abstract, title=None):
    return Paper(id=paper_id, abstract=abstract, venue="TEST", title=title)


PAPERS = [
    paper("a", "We study graph neural networks for molecules.", "Message passing"),
    paper("b", "A diffusion model for images.", "Graph diffusion"),
    paper("c", "Nothing about the query here."),
    paper("d", "Graph coloring and diffusion of heat on graphs."),
]


def test_papers_with_more_of_the_words_rank_first_and_the_title_counts_twice():
    found = scan(PAPERS, "graph diffusion")
    assert found.words == ("graph", "diffusion")
    # b: both words in its title (4); d: both in its abstract (2); a: one, in its abstract (1)
    assert found.ranked == [("b", 4.0), ("d", 2.0), ("a", 1.0)]


def test_words_match_in_any_case_and_query_syntax_is_read_as_words():
    assert [pid for pid, _ in scan(PAPERS, "GRAPH").ranked] == ["b", "a", "d"]
    found = scan(PAPERS, 'abstract:"heat" OR molecules*')  # operators and field names are no words
    assert found.words == ("heat", "molecules") and found.ranked == [("a", 1.0), ("d", 1.0)]  # corpus order


def test_no_words_find_nothing():
    assert scan(PAPERS, "  ? * a ").ranked == []


def test_a_cancelled_scan_stops():
    cancel = threading.Event()
    cancel.set()
    assert scan(PAPERS * 1000, "graph", cancel).ranked == []


def test_the_engine_answers_before_its_index_exists(tmp_path):
    path = tmp_path / "list.txt"
    path.write_text(
        "TEST 2024 list\n\nA graph method.\n\nA diffusion method.\n\nGraph diffusion both.\n", encoding="utf-8"
    )
    engine = SearchEngine(load_corpus([path]), cache_dir=tmp_path / "cache")
    result = engine.quick_search("graph diffusion", limit=1)
    assert not engine.ready  # nothing was built to answer
    assert result.total == 3 and len(result.hits) == 1
    assert engine.paper(result.hits[0].paper_id).abstract == "Graph diffusion both."
    assert result.notice == QUICK_NOTICE and result.terms == ("graph", "diffusion")


def test_excluded_words_are_not_looked_for_and_words_match_at_their_start():
    assert scan(PAPERS, "graph NOT diffusion").words == ("graph",)
    assert scan(PAPERS, "graph -diffusion").words == ("graph",)
    assert [pid for pid, _ in scan(PAPERS, "raph").ranked] == []  # inside `graph`: no match
    assert [pid for pid, _ in scan(PAPERS, "molec").ranked] == ["a"]  # a word being typed: found
