"""One paper object in every JSON output: `show --json`, `list --json`, `search --json` and
`related --json` hits, `bookmarks --json`; what a list says is there, what it does not is null."""

from __future__ import annotations

import json
from pathlib import Path

from tests.tui.test_cli import PAPER_KEYS
from tui.cli import main

ABSTRACT = "We study how reviewers score papers about sparse graph attention and their institutions."
RECORDS = [
    {
        "id": "r1",
        "title": "Sparse graph attention",
        "abstract": ABSTRACT,
        "status": "Poster",
        "author": "Ada Lovelace;Alan Turing",
        "or_profile": "~Ada_Lovelace1;",
        "aff": "University of Pennsylvania;MIT+Google",
        "aff_unique_index": "0;1+2",
        "aff_unique_norm": "University of Pennsylvania;Massachusetts Institute of Technology;Google",
        "aff_country_unique_index": "0;0+0",
        "aff_country_unique": "United States",
        "rating": "6;8;7",
        "confidence": "4;3;5",
        "rating_avg": [7.0, 0.8165],
        "gs_citation": 123,
        "gs_cited_by_link": "https://scholar.google.com/scholar?cites=1",
        "tldr": "Scores, read.",
        "primary_area": "learning theory",
        "site": "https://openreview.net/forum?id=r1",
        "pdf": "https://openreview.net/pdf?id=r1",
        "bibtex": "@inproceedings{lovelace2025sparse,\ntitle={Sparse graph attention}\n}",
    },
    {"id": "u1", "title": "Unreviewed sparse graphs", "abstract": ABSTRACT + " Unreviewed.", "rating_avg": [0, 0]},
    {"id": "o1", "title": "Something else", "abstract": "Robots grasp cups on tables with learned dynamics models."},
]


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def write(tmp_path: Path) -> str:
    path = tmp_path / "conf2025.json"
    path.write_text(json.dumps(RECORDS), encoding="utf-8")
    return str(path)


def test_show_json_gives_every_field_the_list_has(capsys, tmp_path):
    corpus = write(tmp_path)
    code, out, _ = run(capsys, "--corpus", corpus, "show", "r1", "--json")
    paper = json.loads(out)
    assert code == 0 and set(paper) == {*PAPER_KEYS, "abstract"}
    assert paper["rating_avg"] == 7.0 and paper["ratings"] == [6, 8, 7] and paper["confidences"] == [4, 3, 5]
    assert paper["citations"] == 123 and paper["cited_by"] == "https://scholar.google.com/scholar?cites=1"
    assert paper["institutions"] == ["University of Pennsylvania", "Massachusetts Institute of Technology", "Google"]
    assert paper["countries"] == ["United States"]
    assert paper["people"][0] == {
        "name": "Ada Lovelace",
        "id": "~Ada_Lovelace1",
        "affiliation": "University of Pennsylvania",
        "institution": "University of Pennsylvania",
        "country": "United States",
        "position": None,
        "homepage": None,
        "dblp": None,
        "google_scholar": None,
        "orcid": None,
    }
    assert (paper["tldr"], paper["area"], paper["status"]) == ("Scores, read.", "learning theory", "Poster")
    assert paper["bibtex"].startswith("@inproceedings{lovelace2025sparse,")
    assert paper["links"][0] == {
        "label": "OpenReview page",
        "url": "https://openreview.net/forum?id=r1",
        "kind": "paper",
    }


def test_absent_values_are_null_never_invented(capsys, tmp_path):
    corpus = write(tmp_path)
    _, out, _ = run(capsys, "--corpus", corpus, "show", "u1", "--json")
    paper = json.loads(out)
    for key in ("authors", "rating_avg", "ratings", "confidences", "citations", "institutions", "people", "tldr"):
        assert paper[key] is None, key


def test_search_list_related_and_bookmarks_carry_the_same_paper(capsys, tmp_path):
    corpus = write(tmp_path)
    _, out, _ = run(capsys, "--corpus", corpus, "show", "r1", "--json")
    shown = json.loads(out)
    del shown["abstract"]
    _, out, _ = run(capsys, "--corpus", corpus, "search", "sparse", "--json")
    hit = next(h for h in json.loads(out)["hits"] if h["id"] == "r1")
    assert {key: hit[key] for key in PAPER_KEYS} == shown
    _, out, _ = run(capsys, "--corpus", corpus, "list", "--json")
    listed = json.loads(out)["papers"][0]
    assert {key: listed[key] for key in PAPER_KEYS} == shown
    _, out, _ = run(capsys, "--corpus", corpus, "related", "u1", "--json")
    related = json.loads(out)["hits"][0]
    assert {key: related[key] for key in PAPER_KEYS} == shown
    assert run(capsys, "--corpus", corpus, "bookmarks", "add", "r1")[0] == 0
    _, out, _ = run(capsys, "--corpus", corpus, "bookmarks", "--json")
    bookmark = json.loads(out)["bookmarks"][0]
    assert set(PAPER_KEYS) <= set(bookmark)
    assert (bookmark["rating_avg"], bookmark["citations"], bookmark["tldr"]) == (7.0, 123, "Scores, read.")


def test_related_in_a_list_of_two_papers_finds_nothing_and_says_so(capsys, tmp_path):
    """Every word is in both papers: none says anything about likeness (this divided by zero)."""
    path = tmp_path / "pair2025.json"
    path.write_text(json.dumps(RECORDS[:2]), encoding="utf-8")
    code, out, _ = run(capsys, "--corpus", str(path), "related", "r1", "--json")
    assert code == 0 and json.loads(out)["hits"] == []
