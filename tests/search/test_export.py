"""Exports that other tools can read back: BibTeX (bibtexparser), CSV (csv module), JSON (our import)."""

import csv
import io

import bibtexparser

from search.models import Bookmark, Link
from search.user.export import bibtex_entry, export, markdown_citation, parse_json_export, write_atomic

TRICKY = Bookmark(
    paper_id="p:1/x",
    headline="Braces {and} 100% & #hash_tag $5 ~ ^ \\macro",
    title="Braces {and} 100% & #hash_tag $5 ~ ^ \\macro",
    name="Foo",
    authors=("Ada Lovelace", "Kurt Gödel"),
    venue="ICLR 2025",
    year=2025,
    links=(
        Link("code", "https://github.com/a/b?x={1}&y=%20", "code"),
        Link("search", "https://scholar.google.com/x", "search"),
    ),
    abstract='An abstract, with "quotes", commas,\nand a newline.',
    note="line one\nline two, with a comma",
    tags=("to-read", "théorie"),
)
PLAIN = Bookmark(
    paper_id="abc",
    headline="TRGNN: Branch-and-bound methods",
    name="TRGNN",
    venue="ICLR 2025",
    year=2025,
    links=(Link("Google Scholar search", "https://scholar.google.com/scholar?q=TRGNN", "search"),),
)


def test_bibtex_parses_with_bibtexparser():
    library = bibtexparser.parse_string(export([TRICKY, PLAIN], "bibtex"))
    assert not library.failed_blocks
    assert len(library.entries) == 2
    tricky, plain = library.entries
    assert tricky.entry_type == "inproceedings"
    assert tricky["author"] == "Ada Lovelace and Kurt Gödel"
    assert tricky["year"] == "2025" and tricky["booktitle"] == "ICLR 2025"
    assert tricky["url"] == "https://github.com/a/b?x=%7B1%7D&y=%20"
    assert "\\{and\\}" in tricky["title"] and "100\\%" in tricky["title"]
    assert plain["title"] == "TRGNN"
    assert len({entry.key for entry in library.entries}) == 2


def test_csv_round_trips_through_the_csv_module():
    rows = list(csv.DictReader(io.StringIO(export([TRICKY, PLAIN], "csv"))))
    assert rows[0]["id"] == "p:1/x" and rows[0]["title"] == TRICKY.title
    assert rows[0]["note"] == TRICKY.note and rows[0]["tags"] == "to-read; théorie"
    assert rows[0]["authors"] == "Ada Lovelace; Kurt Gödel" and rows[0]["url"] == TRICKY.links[0].url
    assert rows[1]["url"] == "https://scholar.google.com/scholar?q=TRGNN"


def test_json_export_imports_back_unchanged():
    again = parse_json_export(export([TRICKY, PLAIN], "json"))
    assert again == [TRICKY, PLAIN]


def test_markdown_citation_uses_the_primary_link():
    assert (
        markdown_citation(PLAIN)
        == "[TRGNN: Branch-and-bound methods](https://scholar.google.com/scholar?q=TRGNN). ICLR 2025"
    )
    assert export([TRICKY], "markdown").startswith("- [Braces {and}")
    assert "](https://github.com/a/b?x={1}&y=%20). Ada Lovelace, Kurt Gödel. ICLR 2025 — line one" in export(
        [TRICKY], "markdown"
    )


def test_single_bibtex_entry_for_the_palette():
    assert bibtex_entry(PLAIN).startswith("@inproceedings{trgnn2025trgnn_abc,")


def test_malformed_imports_are_one_line_errors(tmp_path):
    import pytest

    from search.user.export import BookmarkImportError

    for text, message in (
        ("{", "malformed JSON"),
        ('{"x": 1}', "expected"),
        ('{"bookmarks": [{"headline": "x"}]}', "has no id"),
    ):
        with pytest.raises(BookmarkImportError, match=message):
            parse_json_export(text, "f.json")


def test_atomic_write_replaces_whole_file(tmp_path):
    folder = tmp_path / "exports"
    folder.mkdir()
    target = folder / "out.bib"
    target.write_text("old")
    write_atomic(target, "new content")
    assert target.read_text() == "new content"
    assert [p.name for p in folder.iterdir()] == ["out.bib"]
