"""The bundled list's facts (assets/iclr2025-facts.json): real titles, authors and links for the 38
seed abstracts, with the abstracts and the paper ids left exactly as they were."""

import json
import re
import tomllib
from importlib import resources
from pathlib import Path

import bibtexparser

from search.corpus.bundled import FACTS_FILE, facts
from search.corpus.formats.common import stable_id
from search.corpus.loader import bundled_paths, load_corpus
from search.engine import SearchEngine
from search.index.shard import locate
from search.models import SearchRequest
from search.text.describe import bookmark_of, describe, primary_link
from search.user.export import bibtex_entry, export, markdown_citation
from tests.conftest import ROOT, SHARED, skip_unless_ci

OLD_IDS = [
    # The ids the loader gave the bundled abstracts before they had facts (bookmarks made then use them).
    *("f191cfbfdd14", "f9c6c889523a", "577eb84a57ce", "8929134f57cc", "1c2f89de0771", "38ccaa90306f"),
    *("e6665f92f1b1", "4c43fcc554b1", "29b994af531b", "94cdb25fd7bf", "d0bdfc57acdd", "29c853c9b040"),
    *("c4b383a45498", "45fc3d577492", "7fa784507016", "a74b276397d6", "6141be5b7489", "3085d5c52ace"),
    *("448dfb3b901a", "230529555649", "56534f4bfaf3", "d1f65cd58ec1", "8d63102c4c9a", "1e052227abde"),
    *("29bf9383670b", "19c22ce69fcb", "1ece29f38b34", "df2a5e036449", "48aa96c26730", "de38e16624e8"),
    *("81347afa4fd5", "116245794833", "f79420b85870", "fcb4437d5dbf", "a99afe9dcdd5", "60a8acd21998"),
    *("50473acb9923", "2c150110c126"),
]


def shipped() -> list[dict]:
    return json.loads(resources.files("assets").joinpath(FACTS_FILE).read_text(encoding="utf-8"))["papers"]


def paragraphs(path: Path) -> list[str]:
    """The seed file's abstracts, split the way the paragraph format always has (header dropped)."""
    parts = [part.strip() for part in re.split(r"\n[ \t]*\n\s*", path.read_text(encoding="utf-8").strip())]
    return [part for part in parts[1:] if part]


def test_every_bundled_abstract_has_its_fact_in_seed_order():
    papers = load_corpus().papers
    records = shipped()
    assert len(papers) == len(records) == len(facts()) == 38
    for paper, record in zip(papers, records):
        assert " ".join(paper.abstract.split()).startswith(record["abstract_starts"])
        assert paper.title == record["title"]
        assert paper.authors == tuple(record["authors"])
        assert paper.keywords == tuple(record["keywords"] or ())
        assert paper.status == record["status"]
        assert paper.arxiv == record["arxiv"]
    assert sum(paper.status == "Poster" for paper in papers) == 20
    assert sum(bool(paper.keywords) for paper in papers) == 18
    assert sum(bool(paper.arxiv) for paper in papers) == 31


def test_real_titles_for_example_basis_sharing():
    (paper,) = [
        p
        for p in load_corpus().papers
        if p.abstract.startswith("Large Language Models (LLMs) have achieved remarkable")
    ]
    assert paper.title == "Basis Sharing: Cross-Layer Parameter Sharing for Large Language Model Compression"
    assert paper.authors[0] == "Jingcun Wang" and paper.arxiv == "2410.03765"
    assert describe(paper).headline == paper.title


def test_abstracts_and_ids_are_the_seed_files_unchanged():
    papers = load_corpus().papers
    seeds = [abstract for path in bundled_paths() for abstract in paragraphs(path)]
    assert [paper.abstract for paper in papers] == ["\n".join(line.rstrip() for line in s.split("\n")) for s in seeds]
    assert [paper.id for paper in papers] == [stable_id(seed) for seed in seeds] == OLD_IDS


def test_a_bookmark_made_before_the_facts_still_opens(tmp_path):
    engine = SearchEngine(load_corpus(), tmp_path / "cache")
    assert engine.paper("230529555649").title.startswith("BitStack: Any-Size Compression")
    assert {engine.paper(old).id for old in OLD_IDS} == set(OLD_IDS)


def test_primary_link_is_the_openreview_forum_else_arxiv():
    papers = load_corpus().papers
    forums = {record["abstract_starts"]: record["openreview_forum"] for record in shipped()}
    primary = [primary_link(describe(paper).links).url for paper in papers]
    on_openreview = [url for url in primary if url.startswith("https://openreview.net/forum?id=")]
    assert len(on_openreview) == 29
    for paper, url in zip(papers, primary):
        forum = forums[" ".join(paper.abstract.split())[:60]]
        if forum:
            assert url == f"https://openreview.net/forum?id={forum}"
        elif paper.arxiv:
            assert url == f"https://arxiv.org/abs/{paper.arxiv}"
        else:
            assert describe(paper).links[0].kind == "search"


def test_o_offers_the_openreview_pdf_and_arxiv_links():
    bitstack = next(p for p in load_corpus().papers if p.title and p.title.startswith("BitStack"))
    links = {link.kind: link.url for link in reversed(describe(bitstack).links)}
    assert links["paper"] == "https://openreview.net/forum?id=lBntjGbyv0"
    assert links["pdf"] == "https://openreview.net/pdf?id=lBntjGbyv0"
    assert links["arxiv"] == "https://arxiv.org/abs/2410.23918"
    assert links["code"] == "https://github.com/xinghaow99/BitStack"  # from the abstract, still there


def test_exports_are_citations_with_every_author():
    bitstack = next(p for p in load_corpus().papers if p.title and p.title.startswith("BitStack"))
    bookmark = bookmark_of(describe(bitstack))
    (entry,) = bibtexparser.parse_string(bibtex_entry(bookmark)).entries
    assert entry.entry_type == "inproceedings"
    assert entry["title"] == bitstack.title
    assert entry["author"] == " and ".join(bitstack.authors) and len(bitstack.authors) == 6
    assert (entry["booktitle"], entry["year"]) == ("ICLR 2025", "2025")
    assert entry["url"] == "https://openreview.net/forum?id=lBntjGbyv0"
    assert (entry["eprint"], entry["archivePrefix"]) == ("2410.23918", "arXiv")
    citation = markdown_citation(bookmark)
    assert citation == (
        f"[{bitstack.title}](https://openreview.net/forum?id=lBntjGbyv0). {', '.join(bitstack.authors)}. ICLR 2025"
    )
    assert export([bookmark], "markdown") == f"- {citation}\n"
    assert "Xipeng Qiu" in export([bookmark], "csv")


def test_a_users_own_paragraph_file_is_read_as_it_is(tmp_path):
    bundled_abstract = paragraphs(bundled_paths()[1])[0]  # BitStack's, in a file of the user's own
    path = tmp_path / "mine.txt"
    path.write_text(f"NeurIPS 2024 list\n\n{bundled_abstract}\n\nWe study graphs. It works.\n", encoding="utf-8")
    papers = load_corpus([path]).papers
    assert [paper.id for paper in papers] == [stable_id(bundled_abstract), stable_id("We study graphs. It works.")]
    assert all(p.title is None and p.authors == () and p.site is None and p.arxiv is None for p in papers)
    assert papers[0].venue == "NeurIPS 2024"


def test_the_index_content_hash_sees_the_facts(tmp_path):
    papers = load_corpus().papers
    source = papers[0].source
    group = [paper for paper in papers if paper.source == source]
    bare = [paper._replace(title=None, authors=(), keywords=()) for paper in group]
    assert locate(tmp_path, source, group) == locate(tmp_path, source, list(group))
    assert locate(tmp_path, source, group).content_key != locate(tmp_path, source, bare).content_key


def test_status_and_author_search_over_the_facts(seed_engine):
    assert seed_engine.search(SearchRequest("status:poster", limit=50)).total == 20
    titles = [seed_engine.paper(hit.paper_id).title for hit in seed_engine.search("author:xipeng").hits]
    assert titles == ["BitStack: Any-Size Compression of Large Language Models in Variable Memory Environments"]


def test_the_facts_file_is_shipped_as_package_data():
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    assert "*.json" in config["tool"]["setuptools"]["package-data"]["assets"]
    assert (ROOT / "assets" / FACTS_FILE).is_file()
    assert "shared" not in (ROOT / "search" / "corpus" / "bundled.py").read_text(encoding="utf-8")


def test_the_shipped_facts_are_the_shared_data():
    original = SHARED / "data" / "iclr2025-bundled-facts.json"
    if not original.is_file():
        skip_unless_ci(f"needs {original} (not part of a fresh clone)")
    source = json.loads(original.read_text(encoding="utf-8"))["papers"]
    keep = ("abstract_starts", "title", "authors", "openreview_forum", "status", "keywords", "arxiv", "confidence")
    assert [{key: record[key] for key in keep} for record in shipped()] == [
        {key: record[key] for key in keep} for record in source
    ]


def test_each_fact_matches_exactly_one_abstract():
    papers = load_corpus().papers
    for record in shipped():
        matches = [
            paper
            for paper in papers
            if " ".join(paper.abstract.split()).startswith(record["abstract_starts"])
            and Path(paper.source).name == record["file"]
        ]
        assert len(matches) == 1 and matches[0].position == record["n"] - 1, record["n"]
