"""Issue 38's command-line frictions, as a newcomer meets them: several files in one `add`, `lists` in 80
columns, OpenReview venues named readably, a batch's every line naming its list, the filters in
`search --help`, ids that begin with `-`, and venues spelled as they spell themselves."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from search.query.facets import FACET_NAMES
from tests.sources.server import records
from tests.sources.test_openreview import note, serve_notes
from tui.cli import main


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def write(folder, name, data) -> str:
    path = folder / name
    path.write_text(json.dumps(data), encoding="utf-8")
    return str(path)


def test_add_takes_several_files_with_a_line_each_and_a_total(tmp_path, capsys):
    first = write(tmp_path, "alpha.json", records(3, "a"))
    second = write(tmp_path, "beta.json", [*records(2, "b"), {"id": "x", "title": "No abstract"}])
    code, out, err = run(capsys, "add", first, second)
    lines = out.splitlines()
    assert (code, err) == (0, "")
    assert lines[0] == "Added 'alpha': 3 papers"
    assert lines[1] == "Added 'beta': 2 papers; 1 record without an abstract skipped"
    assert lines[2].startswith("Added 2 lists: 5 papers; indexed in ") and len(lines) == 3
    code, out, _ = run(capsys, "search", "list:alpha list:beta")
    assert out.startswith("5 matches")


def test_after_add_the_next_command_reads_the_lists_as_saved_without_parsing_them(tmp_path, capsys, monkeypatch):
    """`add` writes what the next start reads (each list's parse, the merged corpus) while its
    shards build: by the time it returns, all of it is written."""
    first = write(tmp_path, "alpha.json", records(3, "a"))
    second = write(tmp_path, "beta.json", records(2, "b"))
    assert run(capsys, "add", first, second)[0] == 0

    def parse(*_args):
        raise AssertionError("a list was parsed again")

    monkeypatch.setattr("search.corpus.loader.parse", parse)
    code, out, err = run(capsys, "search", "list:alpha list:beta")
    assert (code, err) == (0, "") and out.startswith("5 matches")


def test_add_goes_on_past_a_bad_file_and_names_it(tmp_path, capsys):
    good = write(tmp_path, "good.json", records(2, "g"))
    broken = tmp_path / "broken.json"
    broken.write_text("[{", encoding="utf-8")
    missing = str(tmp_path / "missing.json")
    code, out, err = run(capsys, "add", str(broken), good, missing)
    assert code == 2
    assert out.splitlines()[0] == "Added 'good': 2 papers"
    assert out.splitlines()[1].startswith("Added 1 of 3 lists: 2 papers; indexed in ")
    errors = err.splitlines()
    assert len(errors) == 2 and "broken.json" in errors[0] and "malformed JSON" in errors[0]
    assert "missing.json" in errors[1]
    code, _, err = run(capsys, "add", good, str(broken), "--name", "mine")
    assert code == 2 and "--name names one list" in err


def test_lists_fits_80_columns_and_says_where_with_verbose(tmp_path, capsys):
    venues = [f"Workshop on a Rather Long Subject Number {n} 2024" for n in range(3)]
    data = [{"id": f"w{n}", "abstract": f"Abstract {n} about quokkas.", "venue": venues[n]} for n in range(3)]
    run(capsys, "add", write(tmp_path, "workshops.json", data))
    code, out, _ = run(capsys, "lists")
    assert code == 0
    assert max(len(line) for line in out.splitlines()) <= 80, out
    workshops = next(line for line in out.splitlines() if line.startswith("workshops"))
    assert "3 papers  Workshop on a Rather Long Subject Number" in workshops and "…" in workshops
    assert workshops.endswith("  file") and str(tmp_path) not in out
    assert next(line for line in out.splitlines() if line.startswith("iclr2025")).endswith("  bundled")
    code, out, _ = run(capsys, "lists", "--verbose")
    workshops = next(line for line in out.splitlines() if line.startswith("workshops"))
    assert ", ".join(venues) in workshops and workshops.endswith("workshops.json)")  # the path, last


def test_an_openreview_venue_under_its_organisations_domain_is_named_by_its_own_name(server, capsys):
    serve_notes(server, [note(0, "COLM 2024"), note(1, "COLM 2024")])
    code, out, err = run(capsys, "get", "openreview:colmweb.org/COLM/2024/Conference")
    assert code == 0, err
    assert out.startswith("Got 'colm2024-openreview': 2 papers")
    assert run(capsys, "search", "list:colm2024-openreview")[1].startswith("2 matches")


def test_every_failed_line_of_a_batch_names_its_list(server, capsys):
    """A message that has the list's name only inside a URL ("…/icml2024.json") read as naming it, so
    the line said which host failed but not which of the lists asked for."""
    server.route(
        "/paperlists/icml/icml2024.json", lambda h: h.answer(302, b"", {"Location": "http://a]b/icml2024.json"})
    )
    body = json.dumps(records(2, "c")).encode()
    server.route("/paperlists/cvpr/cvpr2019.json", lambda h: h.body(body, "application/json"))
    code, out, err = run(capsys, "get", "cvpr2019", "icml2024")
    assert code == 2 and out.startswith("Got 'cvpr2019': 2 papers")
    assert err.splitlines() == [
        f"iclr-reader: error: could not get icml2024: {server.url.removeprefix('http://')}: redirected to "
        "'http://a]b/icml2024.json', which is not a valid URL (Invalid IPv6 URL)"
    ]


def test_search_help_lists_every_filter(capsys):
    with pytest.raises(SystemExit):
        main(["search", "--help"])
    out = capsys.readouterr().out
    for facet in FACET_NAMES:
        assert f"\n  {facet}:" in out, facet
    for word in ("has:code", "is:unread", "sort:order", "match:all", "related:ID", "-has:code"):
        assert word in out
    assert max(len(line) for line in out.splitlines()) <= 80


DASHED = "-3G6_D66Aua"


def dashed_corpus(tmp_path) -> str:
    data = [
        {"id": DASHED, "title": "Contact Dynamics", "abstract": "We learn contact dynamics of quokkas."},
        {"id": "other", "title": "Contact Forces", "abstract": "We learn contact forces of quokkas."},
        {"id": "third", "title": "Graph Nets", "abstract": "We learn graph networks of quokkas."},
    ]
    return write(tmp_path, "corl2023.json", data)


def test_an_id_beginning_with_a_dash_is_taken_as_an_id(tmp_path, capsys):
    corpus = dashed_corpus(tmp_path)
    code, out, err = run(capsys, "--corpus", corpus, "show", DASHED, "--plain")
    assert code == 0 and "Contact Dynamics" in out, err
    code, out, err = run(capsys, "--corpus", corpus, "related", DASHED, "--limit", "1")
    assert code == 0 and out.startswith(f"Related to {DASHED}") and "other" in out, err
    code, out, err = run(
        capsys,
        "--corpus",
        write(tmp_path, "two.json", json.loads(Path(corpus).read_text(encoding="utf-8"))[:2]),
        "related",
        DASHED,
    )
    assert code == 0 and out.startswith(f"Related to {DASHED}"), err  # words in every paper: was a ZeroDivisionError
    code, out, err = run(capsys, "--corpus", corpus, "bookmarks", "add", DASHED)
    assert code == 0 and DASHED in out, err
    code, out, err = run(capsys, "--corpus", corpus, "bookmarks", "remove", DASHED)
    assert code == 0, err
    code, out, err = run(capsys, "--corpus", corpus, "bookmarks", "restore", DASHED)
    assert code == 0, err
    code, out, err = run(capsys, "--corpus", corpus, "search", "-has:code contact")  # a query may start with -
    assert code == 0 and out.startswith("2 matches"), err
    code, out, err = run(capsys, "--corpus", corpus, "show", "--", DASHED)  # the old way still works
    assert code == 0 and "Contact Dynamics" in out


def test_venues_are_spelled_as_they_write_themselves(tmp_path, capsys):
    corpus = dashed_corpus(tmp_path)
    code, out, _ = run(capsys, "--corpus", corpus, "show", "other", "--plain")
    assert "CoRL 2023" in out and "CORL" not in out
    code, out, _ = run(capsys, "get", "--available")
    assert "  CoRL " in out and "  AutoML " in out and "CORL" not in out and "AUTOML" not in out
    run(capsys, "--corpus", corpus, "bookmarks", "add", "other")
    code, out, _ = run(capsys, "bookmarks", "export", "--format", "markdown")
    assert code == 0 and "CoRL 2023" in out
    run(capsys, "add", corpus)
    code, out, _ = run(capsys, "lists")
    assert "CoRL 2023" in next(line for line in out.splitlines() if line.startswith("corl2023"))


def test_lists_shows_the_files_opened_with_corpus_as_the_apps_library_does(tmp_path, capsys):
    run(capsys, "add", write(tmp_path, "kept.json", records(2, "k")))
    opened = write(tmp_path, "Opened.json", records(3, "o"))
    code, out, err = run(capsys, "--corpus", opened, "lists")
    assert (code, err) == (0, "")
    lines = out.splitlines()
    assert lines[0].startswith("opened") and "3 papers" in lines[0] and lines[0].endswith("  --corpus")
    assert lines[1:] == ["1 list, 3 papers"]  # not the library's kept nor the bundled list
    code, out, _ = run(capsys, "--corpus", opened, "lists", "--json")
    assert [(row["name"], row["papers"], row["file"]) for row in json.loads(out)["lists"]] == [("opened", 3, opened)]
