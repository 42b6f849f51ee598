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


def test_abstracts_kept_on_disk_are_read_a_run_at_a_time_and_scan_alike(isolated_dirs, tmp_path, monkeypatch):
    import json

    from search.corpus import kept

    lists = []
    for name in ("a", "b"):
        records = [
            {"id": f"{name}{i}", "abstract": f"Paper {name}{i}: graph diffusion of héat number {i}. " * (1 + i % 4)}
            for i in range(40)
        ]
        lists.append(tmp_path / f"{name}.json")
        lists[-1].write_text(json.dumps(records), encoding="utf-8")
    fresh = load_corpus(lists, keep=True).papers  # parsed: every abstract in memory
    saved = load_corpus(lists, keep=True).papers  # the saved corpus: every abstract kept on disk
    assert all(tuple.__getitem__(paper, 1).__class__ is kept.Kept for paper in saved)
    reads = []
    real = kept.KeptAbstracts.text
    monkeypatch.setattr(kept.KeptAbstracts, "text", lambda self, index: reads.append(index) or real(self, index))
    mixed = [*fresh[:30], *saved[30:50], *reversed(saved[50:])]  # in memory, in order, out of order
    expected = [paper.abstract for paper in mixed]
    reads.clear()
    assert list(kept.abstracts(mixed, chunk=16)) == expected
    assert len(reads) == 32  # the two chunks out of order: one read a paper; the rest, one a chunk
    reads.clear()
    assert list(kept.abstracts(saved)) == [paper.abstract for paper in fresh] and not reads
    assert scan(saved, "graph héat").ranked == scan(fresh, "graph héat").ranked != []


def test_a_scan_a_chunk_at_a_time_finds_what_a_paper_at_a_time_does():
    import re

    from search.query import scan as scan_module

    texts = [
        "graph",  # a word that is the whole text
        "a text ending in gr",  # and the next one beginning with `aph`: no `graph` across the two
        "aph begins this one; İstanbul graphs",  # `İ` lower-cases to two characters: offsets move
        "subgraph, _graph and 2graph are inside words; (graph) is not",
        "GRAPH Diffusion",
        "",
    ]
    papers = [
        paper(f"p{at}", texts[at % len(texts)], texts[(at * 7) % len(texts)] or None)
        for at in range(2 * scan_module.CHUNK + 3)
    ]

    def one_at_a_time(words):  # what each paper's score is, by the module's own definition
        ranked = []
        for item in papers:
            title, abstract = (item.title or "").lower(), item.abstract.lower()
            score = 0.0
            for word in words:
                start = re.compile(r"(?<![^\W_])" + re.escape(word))
                score += 2.0 if start.search(title) else 1.0 if start.search(abstract) else 0.0
            if score:
                ranked.append((item.id, score))
        return sorted(ranked, key=lambda pair: -pair[1])

    for query in ("graph", "aph", "gr", "istanbul graph", "diffusion graph", "i̇stanbul", "subgraph"):
        found = scan(papers, query)
        assert found.ranked == one_at_a_time(found.words), query
    assert scan(papers, "graph").ranked and scan(papers, "aph").ranked  # (something was found)


def test_the_index_first_open_waits_while_a_quick_search_runs(tmp_path, monkeypatch):
    """Hashing every paper's content (the index's first open) gives way to a quick search, which the
    user is waiting for: the two would share the interpreter."""
    from search import engine as engine_module

    path = tmp_path / "list.txt"
    path.write_text("TEST 2024 list\n\nA graph method.\n\nA diffusion method.\n", encoding="utf-8")
    engine = SearchEngine(load_corpus([path]), cache_dir=tmp_path / "cache")
    inside, go, order = threading.Event(), threading.Event(), []
    real_scan = engine_module.scan

    def held_scan(*args):
        inside.set()
        go.wait(30)
        order.append("scanned")
        return real_scan(*args)

    monkeypatch.setattr(engine_module, "scan", held_scan)
    searching = threading.Thread(target=engine.quick_search, args=("graph",))
    searching.start()
    assert inside.wait(30)
    hashing = threading.Thread(target=lambda: order.append(dict(engine.corpus.fingerprints) and "hashed"))
    hashing.start()
    hashing.join(0.5)
    waited = hashing.is_alive()  # (however slow the machine: it waits for the scan, up to 1.5 s)
    go.set()
    searching.join(30)
    hashing.join(30)
    assert waited and order == ["scanned", "hashed"]


def test_the_index_gives_way_for_a_bounded_time_only():
    from search.engine import _Foreground

    foreground = _Foreground()
    give_way = foreground.giver(0.0)
    with foreground.running():
        give_way()  # returns: no time left to wait
    foreground.giver(30.0)()  # returns at once: no quick search runs
