"""One paper, one row: the same paper in two lists (same OpenReview forum, arXiv id or abstract) is
shown once, keeps every list it is in, is indexed once and is found by any of its ids."""

import json

from search.corpus.library import Library
from search.corpus.loader import load_corpus
from search.corpus.merge import merge
from search.engine import SearchEngine
from search.models import Marks, Paper, SearchRequest
from search.text.describe import describe, primary_link

FILLER = (
    "We study problem number {n} in depth and report how a simple baseline compares with recent methods "
    "on several benchmarks of varying size, with ablations."
)


def write(path, records):
    path.write_text(json.dumps(records), encoding="utf-8")
    return path


def bundled_records() -> list[dict]:
    """The 38 bundled papers as a downloaded full iclr2025 list has them (paperlists records): the
    forum id as id and in site, the abstract with other line breaks; papers without a forum id have
    a record id of their own (they match by abstract)."""
    records = []
    for number, paper in enumerate(load_corpus().papers):
        forum = paper.site.rsplit("=", 1)[1] if paper.site else None
        record = {
            "id": forum or f"rec{number}",
            "title": paper.title,
            "abstract": " ".join(paper.abstract.split()),
            "author": ";".join(paper.authors),
            "status": "Poster",
            "track": "main",
            "site": f"https://openreview.net/forum?id={forum}" if forum else "",
        }
        records.append(record)
    return records


def others(count: int) -> list[dict]:
    return [
        {"id": f"other{n}", "title": f"Other paper {n}", "abstract": FILLER.format(n=n), "author": "A B;C D"}
        for n in range(count)
    ]


def test_the_bundled_list_inside_a_full_library_list_is_found_in_both_not_twice(tmp_path):
    bundled = load_corpus().papers
    full = write(tmp_path / "iclr2025.json", [*others(50), *bundled_records(), *others(100)[50:]])
    Library().add(full, name="iclr2025-all")
    engine = SearchEngine.from_paths()
    assert len(engine.papers) == 138 and engine.corpus.duplicates == 38
    assert [paper.id for paper in engine.papers[:38]] == [paper.id for paper in bundled]  # ids stay the bundled ones
    assert [paper.position for paper in engine.papers] == list(range(138))
    engine.ensure_index()
    assert engine.search(SearchRequest("list:iclr2025", limit=500)).total == 38
    assert engine.search(SearchRequest("list:iclr2025-all", limit=500)).total == 138
    assert engine.search(SearchRequest("-list:iclr2025-all", limit=500)).total == 0
    assert engine.lists == ["iclr2025", "iclr2025-all"]
    assert engine.list_counts() == {"iclr2025": 38, "iclr2025-all": 138}
    assert engine.lists_of(bundled[0].id) == ("iclr2025", "iclr2025-all")
    assert engine.search("bitstack").total == 1
    opened = engine._index.opened  # every shard together holds each paper exactly once
    assert opened is not None and sum(ix.doc_count() for ix in opened.indexes) == 138
    assert len(opened.rows) == 138


def test_either_id_finds_the_merged_paper(tmp_path):
    bundled = load_corpus().papers
    full = write(tmp_path / "full.json", bundled_records())
    engine = SearchEngine(load_corpus([*dict.fromkeys(p.source for p in bundled), full]), tmp_path / "cache")
    bitstack = next(paper for paper in bundled if paper.title and paper.title.startswith("BitStack"))
    assert engine.paper("lBntjGbyv0") is engine.paper(bitstack.id)  # the full list's id is an alias
    assert engine.canonical("lBntjGbyv0") == bitstack.id and engine.corpus.aliases["lBntjGbyv0"] == bitstack.id
    assert engine.paper("rec9").title.startswith("Basis Sharing")  # matched by its abstract
    assert engine.describe("lBntjGbyv0").paper.id == bitstack.id
    engine.ensure_index()
    marks = Marks(bookmarked=frozenset({"lBntjGbyv0"}), opened=frozenset({"lBntjGbyv0"}))
    assert [hit.paper_id for hit in engine.search(SearchRequest("is:bookmarked", marks=marks)).hits] == [bitstack.id]
    assert bitstack.id not in {
        hit.paper_id for hit in engine.search(SearchRequest("is:unread", limit=100, marks=marks)).hits
    }
    related = engine.related("lBntjGbyv0")
    assert related and bitstack.id not in {hit.paper_id for hit in related}
    assert engine.search("related:lBntjGbyv0").total > 0


def test_the_richer_record_wins_and_fills_nothing_it_lacks(tmp_path):
    abstract = FILLER.format(n="X")
    poor = {"id": "p1", "abstract": abstract, "title": "Short Title", "arxiv": "2401.00001"}
    rich = {
        "id": "r1",
        "abstract": "  " + abstract.replace(" ", "\n", 3).upper(),
        "title": "The Full Title",
        "author": "Ada Lovelace;Alan Turing",
        "keywords": "graphs;trees",
        "status": "Oral",
        "site": "https://openreview.net/forum?id=R1",
        "github": "https://github.com/a/b",
    }
    corpus = load_corpus([write(tmp_path / "a.json", [poor]), write(tmp_path / "b.json", [rich])])
    (paper,) = corpus.papers
    assert (paper.id, paper.source, paper.also_in) == ("p1", str(tmp_path / "a.json"), (str(tmp_path / "b.json"),))
    assert (paper.title, paper.authors, paper.status) == ("The Full Title", ("Ada Lovelace", "Alan Turing"), "Oral")
    assert paper.abstract == rich["abstract"].strip()
    assert paper.arxiv == "2401.00001"  # only the poorer record had it
    assert corpus.aliases == {"r1": "p1"} and corpus.duplicates == 1
    links = describe(paper).links
    assert primary_link(links).url == "https://openreview.net/forum?id=R1"
    assert {link.kind for link in links} >= {"paper", "code", "arxiv"}


def test_an_arxiv_preprint_and_its_openreview_note_are_one_paper(tmp_path):
    abstract = FILLER.format(n="preprint")
    preprint = {
        "id": "2402.12345v2",
        "title": "A Preprint",
        "abstract": abstract,
        "site": "http://arxiv.org/abs/2402.12345v2",
    }
    note = {
        "id": "OR1",
        "forum": "OR1",
        "content": {
            "title": {"value": "A Preprint"},
            "abstract": {"value": abstract.replace(". ", ".\n")},
            "authors": {"value": ["Ada Lovelace"]},
            "venue": {"value": "ICLR 2025 Oral"},
        },
    }
    corpus = load_corpus(
        [write(tmp_path / "arxiv.json", [preprint]), write(tmp_path / "notes.json", {"notes": [note]})]
    )
    (paper,) = corpus.papers
    assert (paper.status, paper.venue, paper.arxiv) == ("Oral", "ICLR 2025", "2402.12345")
    assert paper.id == "2402.12345v2" and corpus.aliases == {"OR1": "2402.12345v2"}
    assert primary_link(describe(paper).links).url == "https://openreview.net/forum?id=OR1"


def test_the_same_forum_or_arxiv_id_merges_even_when_the_abstracts_differ(tmp_path):
    first = [
        {"id": "a", "abstract": "First version of the abstract.", "site": "https://openreview.net/forum?id=F1"},
        {"id": "b", "abstract": "A preprint, first version.", "arxiv": "arXiv:2403.00001v1"},
    ]
    second = [
        {"id": "F1", "abstract": "Revised abstract.", "pdf": "https://openreview.net/pdf?id=F1"},
        {"id": "c", "abstract": "A preprint, revised.", "site": "https://arxiv.org/abs/2403.00001v3"},
    ]
    corpus = load_corpus([write(tmp_path / "one.json", first), write(tmp_path / "two.json", second)])
    assert [paper.id for paper in corpus.papers] == ["a", "b"]
    assert corpus.aliases == {"F1": "a", "c": "b"}


def test_what_is_not_the_same_paper(tmp_path):
    placeholder = [{"id": "x", "abstract": "part of"}]
    twice = [{"id": "y1", "abstract": FILLER.format(n=1)}, {"id": "y2", "abstract": FILLER.format(n=1)}]
    corpus = load_corpus(
        [write(tmp_path / "a.json", placeholder), write(tmp_path / "b.json", [{"id": "z", "abstract": "part of"}])]
    )
    assert len(corpus.papers) == 2 and not corpus.aliases  # a placeholder abstract says nothing
    corpus = load_corpus([write(tmp_path / "twice.json", twice)])
    assert len(corpus.papers) == 2  # one list is taken as it is: only the same id is the same paper there
    corpus = load_corpus([write(tmp_path / "c.json", others(3)), write(tmp_path / "d.json", others(6)[3:])])
    assert len(corpus.papers) == 6 and corpus.duplicates == 0


def test_a_list_whose_papers_all_merged_is_still_a_list(tmp_path):
    bundled = load_corpus().papers
    copy = write(tmp_path / "copy.json", bundled_records())
    engine = SearchEngine(load_corpus([*dict.fromkeys(p.source for p in bundled), copy]), tmp_path / "cache")
    status = engine.ensure_index()
    assert len(engine.papers) == 38 and len(status.paths) == 2  # no shard for a file with no papers of its own
    assert "copy" in engine.lists and engine.list_counts()["copy"] == 38
    assert engine.search(SearchRequest("list:copy", limit=100)).total == 38 and not engine.search("list:copy").notice


def test_shards_keep_a_stable_content_hash_and_see_merged_code_links(tmp_path):
    bundled = load_corpus().papers
    cache = tmp_path / "cache"
    sources = list(dict.fromkeys(p.source for p in bundled))
    drop = next(paper for paper in bundled if paper.title and paper.title.startswith("Drop-Upcycling"))
    assert not SearchEngine(load_corpus(sources), cache).row(drop.id).has_code
    SearchEngine(load_corpus(sources), cache).ensure_index()  # the bundled list alone: no code link
    records = bundled_records()
    for record in records:
        if record["id"] == "gx1wHnf5Vp":  # Drop-Upcycling, richer in the full list, with its code
            record["github"] = "https://github.com/Taishi-N324/Drop-Upcycling"  # no other hashed field differs
    full = write(tmp_path / "full.json", records + others(5))
    engine = SearchEngine(load_corpus([*sources, full]), cache)
    status = engine.ensure_index()
    assert status.built and engine.row(drop.id).has_code
    assert drop.id in {hit.paper_id for hit in engine.search(SearchRequest("has:code", limit=100)).hits}
    again = SearchEngine(load_corpus([*sources, full]), cache).ensure_index()
    assert not again.built and again.paths == status.paths


def test_merge_keeps_corpus_order_and_counts():
    papers = [
        Paper(id="1", abstract=FILLER.format(n=1), source="a"),
        Paper(id="2", abstract=FILLER.format(n=2), source="a"),
        Paper(id="3", abstract=FILLER.format(n=1).upper(), source="b", title="T"),
        Paper(id="1", abstract="Same id, other file.", source="c"),
    ]
    merged = merge(papers)
    assert [paper.id for paper in merged.papers] == ["1", "2"]
    assert merged.papers[0].title == "T" and merged.papers[0].also_in == ("b", "c")
    assert merged.aliases == {"3": "1"} and merged.duplicates == 2
