"""What the lists say beyond a paper's text (reviews, people, institutions, citations, summaries)
reaches the paper (search/corpus/formats/facts.py), survives the caches, and is never invented."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from search import paths
from search.corpus import loader, parsed, snapshot
from search.corpus.formats import facts as facts_format
from search.corpus.formats import parse
from search.corpus.loader import load_corpus
from search.models import NO_FACTS, Paper, tldr_of

ABSTRACT = "We study how reviewers score papers about graphs and their institutions."
RATED = {
    "id": "r1",
    "title": "Rated",
    "abstract": ABSTRACT,
    "status": "Poster",
    "author": "Ada Lovelace;Alan Turing;Grace Hopper",
    "or_profile": "~Ada_Lovelace1;;~Grace_Hopper2",
    "aff": "University of Pennsylvania;MIT+Google;",
    "aff_unique_index": "0;1+2",
    "aff_unique_norm": "University of Pennsylvania;Massachusetts Institute of Technology;Google",
    "aff_unique_abbr": "UPenn;MIT;Google",
    "aff_country_unique_index": "0;0",
    "aff_country_unique": "United States",
    "position": "PhD student;;Professor",
    "homepage": "https://ada.example;;",
    "rating": "6;8;7",
    "confidence": "4;3;5",
    "rating_avg": [7.0, 0.816496580927726],
    "confidence_avg": [4.0, 0.8],
    "gs_citation": 123,
    "gs_cited_by_link": "https://scholar.google.com/scholar?cites=1",
    "tldr": "Scores, read.",
    "primary_area": "learning theory",
    "oa": "https://proceedings.example/r1.html",
    "bibtex": "@inproceedings{\nlovelace2025rated,\ntitle={Rated}\n}",
}
UNREVIEWED = {"id": "u1", "abstract": ABSTRACT + " Unreviewed.", "rating": "", "rating_avg": [0, 0], "gs_citation": -1}
OLD_STYLE = {"id": "o1", "abstract": ABSTRACT + " Old.", "rating": "4;5;6", "rating_avg": 5.0, "gs_citation": 0}
PLACEHOLDER = {"id": "HJWu8i18G", "title": "title", "abstract": "abstract", "author": "authors", "status": "Withdraw"}


def papers_of(tmp_path: Path, records, name: str = "conf2025.json"):
    path = tmp_path / name
    path.write_text(json.dumps(records), encoding="utf-8")
    return parse(path, path.read_text())


def test_a_records_reviews_people_and_citations_reach_the_paper(tmp_path):
    paper = papers_of(tmp_path, [RATED]).papers[0]
    facts = paper.facts
    assert paper.rating == 7.0 and math.isclose(facts.rating_std or 0, 0.8165, abs_tol=1e-4)
    assert facts.ratings == (6.0, 8.0, 7.0) and facts.confidences == (4.0, 3.0, 5.0)
    assert facts.confidence_avg == 4.0
    assert paper.citations == 123 and facts.cited_by == "https://scholar.google.com/scholar?cites=1"
    assert facts.author_ids == ("~Ada_Lovelace1", "", "~Grace_Hopper2")
    assert facts.institutions == (
        "University of Pennsylvania",
        "Massachusetts Institute of Technology + Google",
        "",
    )
    assert facts.abbreviations == ("UPenn", "MIT + Google", "")
    assert facts.countries == ("United States", "United States", "")
    assert facts.affiliations == ("University of Pennsylvania", "MIT + Google", "")
    assert facts.positions == ("PhD student", "", "Professor")
    assert facts.homepages == ("https://ada.example", "", "")
    assert (facts.tldr, facts.area, facts.landing) == ("Scores, read.", "learning theory", facts.landing)
    assert facts.landing == "https://proceedings.example/r1.html"
    assert facts.bibtex is not None and facts.bibtex.startswith("@inproceedings{\nlovelace2025rated,")


def test_a_lists_reviews_and_people_are_read_when_first_shown(tmp_path, monkeypatch):
    """Parsing a list reads its ratings, citations and TL;DRs (the list's columns and the index
    need them) but not its reviews and people, half of a cold start's parsing; the reader's pane
    gets them whole when it asks."""
    calls = []
    real_read = facts_format.read
    monkeypatch.setattr(facts_format, "read", lambda *args: calls.append(1) or real_read(*args))
    paper = papers_of(tmp_path, [RATED, UNREVIEWED]).papers[0]
    assert calls == []
    assert paper.rating == 7.0 and paper.citations == 123 and tldr_of(paper) == "Scores, read."
    assert paper.facts.institutions[0] == "University of Pennsylvania"
    assert paper.facts.ratings == (6.0, 8.0, 7.0)
    assert calls == [1]  # made once, then kept


def test_no_public_reviews_and_unknown_citations_stay_absent(tmp_path):
    unreviewed, old = papers_of(tmp_path, [UNREVIEWED, OLD_STYLE]).papers
    assert unreviewed.rating is None and unreviewed.citations is None and unreviewed.facts == NO_FACTS
    assert old.rating == 5.0 and old.facts.ratings == (4.0, 5.0, 6.0)
    assert old.citations == 0  # a count of none is a count
    assert math.isclose(old.facts.rating_std or 0, math.sqrt(2 / 3))


def test_placeholder_records_are_skipped_and_counted(tmp_path):
    result = papers_of(tmp_path, [RATED, PLACEHOLDER])
    assert [paper.id for paper in result.papers] == ["r1"]
    assert result.skipped == 1


def test_a_placeholder_padded_with_whitespace_is_still_one(tmp_path):
    padded = {**RATED, "id": "p1", "title": " " * 70 + "Title\n" + " " * 70}
    assert papers_of(tmp_path, [RATED, padded]).skipped == 1


def test_names_of_every_shape_are_read_as_one_line_each(tmp_path):
    """The usual lists of printable strings take a quicker path than the others; all read alike."""
    records = [
        {**RATED, "id": "n1", "authors": ["Ada  Lovelace", " ", "Kurt\tGödel"]},
        {**RATED, "id": "n2", "authors": [{"name": "Ada\u001b[31m Lovelace"}, 7, None, "Kurt Gödel"]},
        {**RATED, "id": "n3", "author": "Ada Lovelace; ;Kurt\u200e Gödel"},
    ]
    first, second, third = papers_of(tmp_path, records).papers
    assert first.authors == ("Ada Lovelace", "Kurt Gödel")
    assert second.authors == ("Ada Lovelace", "7", "Kurt Gödel")
    assert third.authors == ("Ada Lovelace", "Kurt Gödel")


def test_only_the_authors_with_an_affiliation_may_be_indexed(tmp_path):
    """corl2023 indexes only the authors whose affiliation is written."""
    record = {
        "id": "k1",
        "abstract": ABSTRACT,
        "author": "A One;B Two;C Three",
        "aff": "KAIST;;KAIST",
        "aff_unique_index": "0;0",
        "aff_unique_norm": "Korea Advanced Institute of Science and Technology",
        "aff_country_unique_index": "0;0",
        "aff_country_unique": "South Korea",
    }
    facts = papers_of(tmp_path, [record]).papers[0].facts
    kaist = "Korea Advanced Institute of Science and Technology"
    assert facts.institutions == (kaist, "", kaist)
    assert facts.countries == ("South Korea", "", "South Korea")


def test_openreview_notes_give_tldr_area_and_person_ids(tmp_path):
    note = {
        "id": "F1",
        "forum": "F1",
        "content": {
            "title": {"value": "A note"},
            "abstract": {"value": ABSTRACT},
            "authors": {"value": ["Ada Lovelace", "Alan Turing"]},
            "authorids": {"value": ["~Ada_Lovelace1", "~Alan_Turing1"]},
            "TL;DR": {"value": "Short."},
            "primary_area": {"value": "generative models"},
            "venue": {"value": "ICLR 2025 Oral"},
        },
    }
    paper = papers_of(tmp_path, [note], "notes.json").papers[0]
    assert paper.facts.tldr == "Short." and paper.facts.area == "generative models"
    assert paper.facts.author_ids == ("~Ada_Lovelace1", "~Alan_Turing1")
    assert paper.rating is None


def test_csv_columns_of_the_paperlists_names_are_read(tmp_path):
    path = tmp_path / "mine.csv"
    path.write_text(
        'title,abstract,authors,rating,gs_citation,aff\nOne,"' + ABSTRACT + '",A One;B Two,5;7,42,Oxford;\n',
        encoding="utf-8",
    )
    paper = parse(path, path.read_text()).papers[0]
    assert paper.rating == 6.0 and paper.facts.ratings == (5.0, 7.0)
    assert paper.citations == 42 and paper.facts.institutions == ("Oxford", "")


def test_facts_survive_the_parsed_cache_and_the_saved_corpus(tmp_path, monkeypatch):
    path = tmp_path / "conf2025.json"
    path.write_text(json.dumps([RATED, UNREVIEWED]), encoding="utf-8")
    first = load_corpus([path], keep=True)
    with monkeypatch.context() as patched:
        patched.setattr(loader, "parse", lambda *_: pytest.fail("the unchanged file was parsed again"))
        whole = snapshot.read
        patched.setattr(  # each file's parse from parsed/, not the merged corpus
            snapshot,
            "read",
            lambda key, folder=snapshot.CACHE_FOLDER: None if folder == snapshot.CACHE_FOLDER else whole(key, folder),
        )
        from_parse = load_corpus([path])
    monkeypatch.setattr(loader, "_parsed", lambda *_: pytest.fail("a file was read again"))
    from_snapshot = load_corpus([path], keep=True)
    for loaded in (from_parse, from_snapshot):
        assert [(p.rating, p.citations, p.facts) for p in loaded.papers] == [
            (p.rating, p.citations, p.facts) for p in first.papers
        ]
    assert from_snapshot.papers[0].facts.institutions[0] == "University of Pennsylvania"
    bibtex = from_snapshot.papers[0].facts.bibtex  # kept on disk beside the abstract, read when asked for
    assert type(bibtex) is str and bibtex == RATED["bibtex"].strip()
    assert from_snapshot.papers[1].facts.bibtex is None


def test_an_entry_of_an_earlier_version_is_parsed_afresh_not_a_crash(tmp_path, monkeypatch):
    path = tmp_path / "conf2025.json"
    path.write_text(json.dumps([RATED]), encoding="utf-8")
    load_corpus([path])
    assert len(list((paths.cache_dir() / parsed.CACHE_FOLDER).glob("*.bin"))) == 1
    monkeypatch.setattr(snapshot, "_MAGIC", b"iclr-reader corpus 3\n")  # rows of another shape
    load_corpus([path])
    monkeypatch.undo()
    calls = []
    real_parse = loader.parse
    monkeypatch.setattr(loader, "parse", lambda *args: calls.append(1) or real_parse(*args))
    again = load_corpus([path])
    assert calls == [1]
    assert again.papers[0].rating == 7.0 and again.papers[0].facts.tldr == "Scores, read."


def test_the_real_lists_ratings_and_citations_equal_the_files(paperlist_files):
    """Counted from the JSON directly: every paper whose rating_avg says it was reviewed has that
    mean; gs_citation -1 is unknown."""
    for path in paperlist_files:
        if path.stem not in ("iclr2017", "iclr2018", "colm2025", "nips2018"):
            continue
        records = {
            r["id"]: r
            for r in json.loads(path.read_text())
            if (r.get("abstract") or "").strip() not in ("", "abstract")
        }
        papers = parse(path, path.read_text()).papers
        assert len(papers) == len(records)
        for paper in papers:
            record = records[paper.id]
            average = record.get("rating_avg")
            mean = average[0] if isinstance(average, list) else average
            assert paper.rating == (mean or None), paper.id
            citations = record.get("gs_citation")
            assert paper.citations == (citations if isinstance(citations, int) and citations >= 0 else None)


def test_a_bibtex_lists_entry_is_the_papers_bibtex(tmp_path):
    path = tmp_path / "mine.bib"
    entry = "@inproceedings{snell2017proto,\n  title = {Prototypical Networks},\n  abstract = {We learn a metric space.},\n  tldr = {Prototypes.}\n}"
    path.write_text(entry + "\n", encoding="utf-8")
    paper = parse(path, path.read_text()).papers[0]
    assert paper.facts.bibtex == entry and paper.facts.tldr == "Prototypes."


def test_opening_the_index_makes_no_papers_facts(tmp_path, monkeypatch):
    """The index's key reads every paper's TL;DR: from the saved corpus, without making its facts."""
    from search.corpus import kept

    path = tmp_path / "conf2025.json"
    path.write_text(json.dumps([RATED, OLD_STYLE]), encoding="utf-8")
    load_corpus([path], keep=True)
    papers = load_corpus([path], keep=True).papers
    assert all(type(tuple.__getitem__(paper, Paper._fields.index("facts"))) is kept.KeptFacts for paper in papers)
    from search.index.shard import locate

    with monkeypatch.context() as patched:
        patched.setattr(kept.KeptFacts, "facts", lambda self: pytest.fail("facts were made"))
        first = locate(tmp_path / "index", str(path), papers)
    assert first == locate(tmp_path / "index", str(path), load_corpus([path]).papers)  # as parsed: the same key
