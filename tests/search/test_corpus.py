import json
import os

import pytest

from search.corpus.loader import CorpusError, bundled_paths, load_corpus, stable_id

ABSTRACT_A = "We propose FooNet, a method. It works well."
ABSTRACT_B = "Second abstract about graphs.\nIt spans two lines."


def write(tmp_path, name, content, mode="w"):
    path = tmp_path / name
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content, encoding="utf-8")
    return path


def test_bundled_corpus_has_38_iclr_2025_papers():
    corpus = load_corpus()
    assert len(bundled_paths()) == 2
    assert len(corpus.papers) == 38
    assert corpus.name == "ICLR 2025"
    assert {p.venue for p in corpus.papers} == {"ICLR 2025"}
    assert all(p.title and p.authors for p in corpus.papers)  # from assets/iclr2025-facts.json
    assert [p.position for p in corpus.papers] == list(range(38))
    assert corpus.papers[0].abstract.startswith("Branch-and-bound methods are pivotal")


def test_list_format_tolerates_crlf_bom_trailing_spaces_and_extra_blank_lines(tmp_path):
    messy = (
        "\ufeffNeurIPS 2024 paper list  \r\n\r\n\r\n\r\n"
        + ABSTRACT_A
        + "   \r\n \r\n\t\r\n"
        + ABSTRACT_B.replace("\n", "  \r\n")
        + "\r\n\r\n"
    )
    corpus = load_corpus([write(tmp_path, "messy.txt", messy)])
    assert [p.abstract for p in corpus.papers] == [ABSTRACT_A, ABSTRACT_B]
    assert corpus.papers[0].venue == "NeurIPS 2024"


def test_list_without_header_keeps_every_paragraph(tmp_path):
    corpus = load_corpus([write(tmp_path, "plain.txt", ABSTRACT_A + "\n\n" + ABSTRACT_B + "\n")])
    assert len(corpus.papers) == 2
    assert corpus.papers[0].venue is None


def test_ids_are_stable_across_reloads_reordering_and_whitespace(tmp_path):
    first = load_corpus([write(tmp_path, "a.txt", f"ICLR 2025\n\n{ABSTRACT_A}\n\n{ABSTRACT_B}\n")])
    second = load_corpus(
        [write(tmp_path, "b.txt", f"ICLR 2025\n\n{ABSTRACT_B}\n\n  {ABSTRACT_A.replace(' ', '  ')}\n")]
    )
    assert {p.id for p in first.papers} == {p.id for p in second.papers}
    assert stable_id(ABSTRACT_A) != stable_id(ABSTRACT_B)


def test_json_records_carry_all_metadata_and_skip_records_without_abstract(tmp_path):
    records = [
        {
            "id": "abc",
            "title": "FooNet",
            "abstract": ABSTRACT_A,
            "author": "Ada Lovelace; Alan Turing",
            "keywords": "graphs;  learning",
            "status": "Oral",
            "track": "main",
            "site": "https://openreview.net/forum?id=abc",
            "pdf": "https://openreview.net/pdf?id=abc",
            "github": "https://github.com/x/foonet",
            "project": "",
        },
        {"title": "No abstract"},
        {"abstract": "   "},
        {"abstract": ABSTRACT_B, "authors": ["Grace Hopper"], "keywords": ["a", "b"], "venue": "ICML", "year": 2018},
    ]
    corpus = load_corpus([write(tmp_path, "iclr2017.json", json.dumps(records))])
    assert corpus.skipped == 2
    foo, second = corpus.papers
    assert (foo.id, foo.title, foo.authors, foo.keywords) == (
        "abc",
        "FooNet",
        ("Ada Lovelace", "Alan Turing"),
        ("graphs", "learning"),
    )
    assert (foo.status, foo.track, foo.venue, foo.year) == ("Oral", "main", "ICLR 2017", 2017)
    assert foo.github == "https://github.com/x/foonet" and foo.project is None
    assert second.id == stable_id(ABSTRACT_B)
    assert (second.authors, second.keywords, second.venue, second.year) == (
        ("Grace Hopper",),
        ("a", "b"),
        "ICML 2018",
        2018,
    )


def test_json_lines(tmp_path):
    lines = "\n".join(json.dumps({"id": str(i), "abstract": f"Abstract number {i}."}) for i in range(3))
    corpus = load_corpus([write(tmp_path, "nips2016.jsonl", lines + "\n")])
    assert [p.id for p in corpus.papers] == ["0", "1", "2"]
    assert corpus.papers[0].venue == "NeurIPS 2016"


def test_duplicate_ids_are_kept_once_and_counted(tmp_path):
    path = write(tmp_path, "dup.json", json.dumps([{"id": "1", "abstract": "One."}, {"id": "1", "abstract": "Again."}]))
    corpus = load_corpus([path, path])
    assert [p.abstract for p in corpus.papers] == ["One."]
    assert corpus.duplicates == 3


@pytest.mark.parametrize(
    "name, content, message",
    [
        ("empty.txt", "", "empty file"),
        ("blank.txt", "  \n\n \n", "empty file"),
        ("binary.txt", b"\x00\x01\x02binary", "binary file"),
        ("latin1.txt", "caf\xe9 abstract".encode("latin-1"), "not UTF-8"),
        ("broken.json", '[{"abstract": "x"', "malformed JSON"),
        ("scalar.json", "[1, 2]", "no records with an abstract"),
        ("string.json", '"just a string"', "no abstracts found"),
        ("number.json", '{"papers": 3}', "JSON object has no list of papers"),
    ],
)
def test_bad_files_give_one_line_errors(tmp_path, name, content, message):
    path = write(tmp_path, name, content)
    with pytest.raises(CorpusError) as error:
        load_corpus([path])
    assert message in str(error.value)
    assert str(path) in str(error.value)
    assert "\n" not in str(error.value)


def test_missing_file_and_directory(tmp_path):
    with pytest.raises(CorpusError, match="no such file"):
        load_corpus([tmp_path / "missing.json"])
    with pytest.raises(CorpusError, match="is a directory"):
        load_corpus([tmp_path])


def test_corpus_name_lists_a_few_venues_and_counts_the_rest(tmp_path):
    paths = [write(tmp_path, f"iclr{2017 + i}.json", json.dumps([{"abstract": f"Abstract {i}."}])) for i in range(5)]
    assert load_corpus(paths[:3]).name == "ICLR 2017, ICLR 2018, ICLR 2019"
    assert load_corpus(paths).name == "ICLR 2017, ICLR 2018 and 3 more"


def test_permission_denied_is_one_line(tmp_path, monkeypatch):
    path = write(tmp_path, "secret.json", "[]")

    real_open = os.open

    def denied(file, *args, **kwargs):
        if os.fspath(file) == str(path):
            raise PermissionError(13, "Permission denied")
        return real_open(file, *args, **kwargs)

    monkeypatch.setattr(os, "open", denied)  # root reads any file: simulate one it may not
    with pytest.raises(CorpusError, match="permission denied"):
        load_corpus([path])


def test_records_of_the_wrong_types_are_skipped_or_ignored_field_by_field(tmp_path):
    records = [
        {"abstract": 5},
        {"abstract": ["a list"]},
        {"abstract": None},
        "a string",
        7,
        None,
        [1, 2],
        {
            "abstract": "Good one.",
            "title": ["not", "a", "string"],
            "authors": {"name": "x"},
            "year": "soon",
            "keywords": 12,
            "github": {"url": "x"},
            "id": 3.5,
        },
    ]
    corpus = load_corpus([write(tmp_path, "odd.json", json.dumps(records))])
    (paper,) = corpus.papers
    assert corpus.skipped == 7
    assert (paper.abstract, paper.title, paper.authors, paper.year, paper.keywords, paper.github) == (
        "Good one.",
        None,
        (),
        None,
        (),
        None,
    )
    assert paper.id == "3.5"


def test_a_1_mb_abstract_loads_converts_and_searches(tmp_path):
    from search.engine import SearchEngine

    big = "Zebra " + ("word \\textbf{bold} $x^2$ " * 45_000) + " finale"
    path = write(
        tmp_path, "big.json", json.dumps([{"id": "big", "abstract": big}, {"id": "small", "abstract": "Small zebra."}])
    )
    assert path.stat().st_size > 1_000_000
    engine = SearchEngine(load_corpus([path]), tmp_path / "cache")
    engine.ensure_index()
    assert engine.describe("big").rendered.text.endswith("finale")
    assert engine.search("zebra").total == 2 and engine.search("finale").total == 1


def test_a_100_mb_corpus_is_refused_with_its_size_without_reading_it(tmp_path, monkeypatch):
    path = tmp_path / "huge.json"
    with path.open("wb") as handle:
        handle.truncate(100 * 2**20)  # sparse: nothing is written, nothing may be read

    def never(self):
        raise AssertionError("the file was read")

    monkeypatch.setattr(type(path), "read_bytes", never)
    with pytest.raises(CorpusError, match=r"105 MB is larger than the 64 MiB limit"):
        load_corpus([path])


def test_a_code_link_survives_a_code_key_and_merging_lists(tmp_path):
    """A list may call the field "code"; the same paper in another list without one keeps the link."""
    from search.text.describe import describe

    markdown = "[![github](/images/github_icon.svg) x/foonet](https://github.com/x/foonet)"
    first = write(tmp_path, "a.json", json.dumps([{"id": "a1", "title": "FooNet", "abstract": ABSTRACT_A * 3}]))
    second = write(
        tmp_path,
        "b.json",
        json.dumps([{"id": "b1", "title": "FooNet", "abstract": ABSTRACT_A * 3, "github": markdown}]),
    )
    coded = write(tmp_path, "c.json", json.dumps([{"id": "c1", "abstract": ABSTRACT_B, "code": "github.com/x/bar"}]))
    merged, other = load_corpus([first, second, coded]).papers
    assert merged.id == "a1" and describe(merged).has_code
    assert [link.url for link in describe(merged).links if link.kind == "code"] == ["https://github.com/x/foonet"]
    assert [link.url for link in describe(other).links if link.kind == "code"] == ["https://github.com/x/bar"]


def test_bibtex_is_told_by_an_entry_at_a_line_start_after_blank_lines_and_indentation(tmp_path):
    """The entry pattern no longer lets its leading spaces cross lines (quadratic in blank lines);
    what it finds is the same."""
    entry = "@article{k1,\n  title = {T},\n  abstract = {An abstract about graphs.},\n}\n"
    for padding in ("\n" * 300, " \n\t\n" * 100 + "   ", "% a comment\n\n  \t"):
        path = write(tmp_path, "refs.bib", padding + entry)
        assert [paper.id for paper in load_corpus([path]).papers] == ["k1"]
