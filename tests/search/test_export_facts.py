"""Exports carry what the lists say: the venue's own BibTeX entry and key, the new fields in CSV and
JSON, RIS for reference managers, and `bookmarks export --query` for a query's papers."""

from __future__ import annotations

import csv
import io
import json

from search.models import Bookmark, Facts, Link, Paper
from search.user.export import CSV_FIELDS, bibtex_entry, export, read_bookmark_file
from tui.cli import main

VENUE_ENTRY = "@inproceedings{\nsnell2017prototypical,\ntitle={Prototypical Networks},\nyear={2017}\n}"
PAPER = Paper(
    "B1",
    "We learn a metric space.",
    venue="ICLR 2017",
    title="Prototypical Networks for Few-shot Learning",
    authors=("Jake Snell", "Kevin Swersky"),
    status="Reject",
    year=2017,
    rating=5.0,
    citations=10893,
    facts=Facts(
        ratings=(4.0, 5.0, 6.0),
        institutions=("University of Toronto", "Twitter + University of Toronto"),
        countries=("Canada", "United States + Canada"),
        tldr="Prototypes.",
        bibtex=VENUE_ENTRY,
    ),
)
BOOKMARK = Bookmark(
    "B1",
    "Prototypical Networks for Few-shot Learning",
    venue="ICLR 2017",
    title="Prototypical Networks for Few-shot Learning",
    authors=("Jake Snell", "Kevin Swersky"),
    year=2017,
    links=(Link("OpenReview page", "https://openreview.net/forum?id=B1", "paper"),),
    abstract="We learn a metric space.",
    note="read it",
    tags=("metric",),
)


def test_bibtex_uses_the_venues_own_entry_and_key():
    assert bibtex_entry(BOOKMARK, PAPER) == VENUE_ENTRY + "\n"
    assert export([BOOKMARK], "bibtex", {"B1": PAPER}).startswith("@inproceedings{\nsnell2017prototypical,")
    ours = export([BOOKMARK], "bibtex")  # the list not loaded: our own entry, its stable key
    assert ours.startswith("@inproceedings{snell2017prototypical_B1,")


def test_a_venue_entry_that_is_not_one_whole_entry_is_not_used():
    for broken in ("@inproceedings{k, title={x}", "@misc{k, title={x}} @misc{evil, title={y}}", "title={x}"):
        paper = PAPER._replace(facts=PAPER.facts._replace(bibtex=broken))
        assert bibtex_entry(BOOKMARK, paper).startswith("@inproceedings{snell2017prototypical_B1,")


def test_csv_and_json_carry_the_new_fields():
    rows = list(csv.DictReader(io.StringIO(export([BOOKMARK], "csv", {"B1": PAPER}))))
    assert tuple(rows[0]) == CSV_FIELDS
    assert (rows[0]["status"], rows[0]["rating_avg"], rows[0]["ratings"], rows[0]["citations"]) == (
        "Reject",
        "5",
        "4; 5; 6",
        "10893",
    )
    assert rows[0]["institutions"] == "University of Toronto; Twitter"
    assert rows[0]["countries"] == "Canada; United States" and rows[0]["tldr"] == "Prototypes."
    record = json.loads(export([BOOKMARK], "json", {"B1": PAPER}))["bookmarks"][0]
    assert record["rating_avg"] == 5.0 and record["citations"] == 10893 and record["bibtex"] == VENUE_ENTRY
    unloaded = json.loads(export([BOOKMARK], "json", {}))["bookmarks"][0]
    assert unloaded["rating_avg"] is None and unloaded["status"] is None


def test_the_json_export_with_facts_imports_again(tmp_path):
    path = tmp_path / "backup.json"
    path.write_text(export([BOOKMARK], "json", {"B1": PAPER}), encoding="utf-8")
    imported = read_bookmark_file(path)
    assert [b.paper_id for b in imported.bookmarks] == ["B1"] and imported.skipped == 0


def test_ris_has_one_record_per_paper():
    text = export([BOOKMARK], "ris", {"B1": PAPER})
    lines = text.splitlines()
    assert lines[0] == "TY  - CONF" and lines[-1] == "ER  -"
    assert "AU  - Jake Snell" in lines and "AU  - Kevin Swersky" in lines and "PY  - 2017" in lines
    assert "UR  - https://openreview.net/forum?id=B1" in lines and "KW  - metric" in lines
    assert "N1  - read it" in lines and "T2  - ICLR 2017" in lines


def test_export_a_querys_papers(capsys, tmp_path):
    records = [
        {
            "id": "a",
            "title": "High",
            "abstract": "Graphs, high.",
            "rating": "8;8",
            "bibtex": "@misc{high2020,\ntitle={High}\n}",
        },
        {"id": "b", "title": "Low", "abstract": "Graphs, low.", "rating": "3;4"},
    ]
    path = tmp_path / "conf2020.json"
    path.write_text(json.dumps(records), encoding="utf-8")
    code = main(["--corpus", str(path), "bookmarks", "export", "--format", "bibtex", "--query", "rating:>=7"])
    out, _ = capsys.readouterr()
    assert code == 0 and out == "@misc{high2020,\ntitle={High}\n}\n"
    code = main(["--corpus", str(path), "bookmarks", "export", "--format", "csv", "--query", "graphs sort:rating"])
    out, _ = capsys.readouterr()
    assert [row["id"] for row in csv.DictReader(io.StringIO(out))] == ["a", "b"]
