"""Importers: each format is recognised by its content, whatever the file is called."""

import json

import pytest

from search.corpus.formats import detect
from search.corpus.loader import CorpusError, load_corpus
from search.text.describe import describe, primary_link

NOTE = {
    "id": "abc123",
    "forum": "abc123",
    "invitations": ["ICLR.cc/2025/Conference/-/Submission"],
    "content": {
        "title": {"value": "Sparse Attention at Scale"},
        "abstract": {"value": "We study $O(n \\log n)$ attention. Code: https://github.com/x/sparse."},
        "authors": {"value": ["Ada Lovelace", "Alan Turing"]},
        "keywords": {"value": ["attention", "sparsity"]},
        "venue": {"value": "ICLR 2025 Spotlight"},
        "pdf": {"value": "/pdf/abc123.pdf"},
    },
}
REJECTED = {
    "id": "r1",
    "forum": "r1",
    "content": {"abstract": {"value": "Another abstract."}, "venue": {"value": "Submitted to ICLR 2025"}},
}


def write(tmp_path, name, content):
    path = tmp_path / name
    path.write_text(content, encoding="utf-8")
    return path


@pytest.mark.parametrize("wrapped", [True, False])
def test_openreview_v2_notes(tmp_path, wrapped):
    notes = [NOTE, REJECTED, {"id": "n", "content": {"title": {"value": "no abstract"}}}]
    path = write(tmp_path, "dump.json", json.dumps({"notes": notes} if wrapped else notes))
    corpus = load_corpus([path])
    assert corpus.skipped == 1
    paper, other = corpus.papers
    assert (paper.id, paper.title, paper.venue, paper.status) == (
        "abc123",
        "Sparse Attention at Scale",
        "ICLR 2025",
        "Spotlight",
    )
    assert paper.authors == ("Ada Lovelace", "Alan Turing") and paper.keywords == ("attention", "sparsity")
    assert paper.site == "https://openreview.net/forum?id=abc123"
    assert paper.pdf == "https://openreview.net/pdf/abc123.pdf"
    assert paper.github == "https://github.com/x/sparse"
    assert primary_link(describe(paper).links).url == "https://openreview.net/forum?id=abc123"  # the paper page first
    assert "https://openreview.net/forum?id=abc123" in [link.url for link in describe(paper).links]
    assert (other.venue, other.status) == ("ICLR 2025", None)


def test_openreview_v1_plain_values(tmp_path):
    note = {"id": "v1", "forum": "v1", "content": {"title": "Old API", "abstract": "Plain values.", "authors": ["A B"]}}
    (paper,) = load_corpus([write(tmp_path, "v1.jsonl", json.dumps(note) + "\n")]).papers
    assert (paper.title, paper.authors, paper.site) == ("Old API", ("A B",), "https://openreview.net/forum?id=v1")


@pytest.mark.parametrize("name", ["list.json", "list.csv", "notes.json"])
def test_titles_written_in_latex_are_shown_as_text(tmp_path, name):
    titles = ["Top-$k$ Arm Identification", 'Schr\\"odinger Bridges', "$100K or 100 Days"]
    records = [{"title": title, "abstract": f"Abstract number {n}."} for n, title in enumerate(titles)]
    if name == "list.csv":
        content = "title,abstract\n" + "".join(
            f'"{r["title"].replace(chr(34), 2 * chr(34))}",{r["abstract"]}\n' for r in records
        )
    elif name == "notes.json":
        content = json.dumps(
            {
                "notes": [
                    {"id": f"n{n}", "content": {key: {"value": value} for key, value in r.items()}}
                    for n, r in enumerate(records)
                ]
            }
        )
    else:
        content = json.dumps(records)
    papers = load_corpus([write(tmp_path, name, content)]).papers
    assert [paper.title for paper in papers] == ["Top-k Arm Identification", "Schrödinger Bridges", "$100K or 100 Days"]


def test_csv_with_synonyms_quotes_and_any_case(tmp_path):
    content = (
        "Paper Title,Summary,Author,Link,Conference,Year,Tags,Decision\n"
        '"Graphs, Trees","A multi-line\nabstract about graphs.","Ada Lovelace and Alan Turing",https://example.org/p1,NeurIPS,2023,graphs; trees,Oral\n'
        ",,,,,,,\n"
        "No abstract,,Someone,,,,,\n"
    )
    corpus = load_corpus([write(tmp_path, "papers.csv", content)])
    (paper,) = corpus.papers
    assert corpus.skipped == 1  # the empty row is not a paper, the row without an abstract is skipped
    assert paper.title == "Graphs, Trees" and paper.abstract == "A multi-line\nabstract about graphs."
    assert paper.authors == ("Ada Lovelace", "Alan Turing")
    assert (paper.site, paper.venue, paper.year, paper.status) == (
        "https://example.org/p1",
        "NeurIPS 2023",
        2023,
        "Oral",
    )
    assert paper.keywords == ("graphs", "trees")


def test_tsv_and_semicolon_authors(tmp_path):
    content = "title\tabstract\tauthors\tdoi\nT\tAn abstract.\tLovelace, Ada; Turing, Alan\t10.1/xyz\n"
    (paper,) = load_corpus([write(tmp_path, "list.tsv", content)]).papers
    assert paper.authors == ("Lovelace, Ada", "Turing, Alan") and paper.site == "https://doi.org/10.1/xyz"


def test_csv_without_an_abstract_column_is_refused_clearly(tmp_path):
    # The header mentions "abstract" (so it is read as CSV), but no column is an abstract.
    with pytest.raises(CorpusError, match="no abstract column"):
        load_corpus([write(tmp_path, "x.csv", "title,abstract length,year\nA,120,2020\n")])


BIB = r"""
% exported from a reference manager
@inproceedings{vaswani2017,
  title = {Attention is {All} You Need: {$\mathcal{O}(n^2)$} and {\"U}bermodels},
  author = {Vaswani, Ashish and Shazeer, Noam and M{\"u}ller, J{\"o}rg},
  abstract = {We propose the {Transformer}, based solely on attention.},
  booktitle = {NeurIPS},
  year = {2017},
  doi = {10.5555/3295222}
}
@article{arxiv2020, title={An arXiv paper}, author={Doe, Jane}, abstract={Preprint abstract.}, eprint={2001.00001}}
@book{noabstract, title={A Book}}
"""


def test_bibtex_entries_with_latex_converted(tmp_path):
    corpus = load_corpus([write(tmp_path, "refs.txt", BIB)])  # detected by content, not by extension
    first, second = corpus.papers
    assert corpus.skipped == 1
    assert first.id == "vaswani2017"
    assert first.title == "Attention is All You Need: 𝒪(n²) and Übermodels"
    assert first.authors == ("Ashish Vaswani", "Noam Shazeer", "Jörg Müller")
    assert (first.venue, first.year, first.site) == ("NeurIPS 2017", 2017, "https://doi.org/10.5555/3295222")
    assert second.site == "https://arxiv.org/abs/2001.00001"
    assert describe(first).rendered.text == "We propose the Transformer, based solely on attention."


@pytest.mark.parametrize(
    "content, kind",
    [
        ('[{"abstract": "x"}]', "json"),
        ('{"abstract": "x"}\n{"abstract": "y"}\n', "json"),
        ("@article{k, abstract={x}}", "bibtex"),
        ("title,abstract\nA,B\n", "csv"),
        ("ICLR 2025 list\n\nAn abstract, with commas, about abstract things.\n", "list"),
    ],
)
def test_format_is_detected_by_content(content, kind):
    assert detect(content) == kind
