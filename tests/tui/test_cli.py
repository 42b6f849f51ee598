"""The command line as a script would use it: JSON shapes, plain output and one-line errors with exit 2."""

import json
import os
import subprocess
import sys

import pytest

from tui.cli import main

PAPER_KEYS = {
    *("id", "name", "headline", "title", "authors", "venue", "year", "status", "track", "links"),
    *("rating_avg", "rating_std", "ratings", "confidences", "confidence_avg", "citations", "cited_by"),
    *("institutions", "countries", "people", "tldr", "area", "session", "keywords", "bibtex"),
}
"""The one paper object every JSON output carries (issue 35)."""


def run(capsys, *argv, stdin=None, monkeypatch=None):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_version(capsys):
    with pytest.raises(SystemExit) as exit_:
        main(["--version"])
    assert exit_.value.code == 0
    assert capsys.readouterr().out.startswith("iclr-reader 0.")


def test_list_json_shape(capsys):
    code, out, _ = run(capsys, "list", "--json")
    papers = json.loads(out)["papers"]
    assert code == 0 and len(papers) == 38
    assert set(papers[0]) == {*PAPER_KEYS, "abstract"}
    bitstack = next(p for p in papers if p["name"] == "BitStack")
    assert "\\textbf{BitStack}" in bitstack["abstract"]  # the source text
    assert bitstack["venue"] == "ICLR 2025" and bitstack["links"][0]["url"].startswith("https://")


def test_search_json_shape_and_correction(capsys):
    code, out, _ = run(capsys, "search", "wasserstien", "--json")
    result = json.loads(out)
    assert code == 0
    assert (result["query"], result["corrected"], result["total"]) == ("wasserstien", "wasserstein", 1)
    hit = result["hits"][0]
    assert set(hit) == {*PAPER_KEYS, "score", "terms"}
    assert hit["name"] == "PAWL" and hit["score"] > 0 and "wasserstein" in hit["terms"]


def test_search_says_truthfully_when_it_searched_a_correction(capsys):
    code, out, err = run(capsys, "search", "grpah")
    assert code == 0
    assert err == "iclr-reader: note: No papers contain “grpah”; showing results for “graph”\n"
    assert out.startswith("4 matches\n") and "Graph" in out.splitlines()[1]
    code, out, err = run(capsys, "search", "gan")  # a word, not a typo of "gap"
    assert (code, out, err) == (0, "0 matches\n", "")


def test_search_as_typed_searches_the_words_exactly_and_offers_the_correction(capsys):
    code, out, err = run(capsys, "search", "grpah", "--as-typed")
    assert (code, out) == (0, "0 matches\n")
    assert err == "iclr-reader: note: Did you mean “graph”?\n"
    code, out, _ = run(capsys, "search", "grpah neural networks", "--as-typed", "--json")
    result = json.loads(out)
    assert (result["corrected"], result["suggestion"]) == (None, "graph neural networks")
    assert result["total"] == json.loads(run(capsys, "search", "neural networks", "--json")[1])["total"]


def test_search_help_documents_as_typed(capsys):
    with pytest.raises(SystemExit):
        main(["search", "--help"])
    assert "--as-typed" in capsys.readouterr().out


def test_a_long_pasted_query_is_searched_as_typed_with_a_suggestion(capsys):
    query = "compressing large language models in variable memory envirnoments"
    code, out, err = run(capsys, "search", query, "--limit", "1")
    assert code == 0 and "BitStack" in out
    assert err == (
        "iclr-reader: note: Did you mean “compressing large language models in variable memory environments”?\n"
    )


def test_search_limit_and_plain_output(capsys):
    code, out, _ = run(capsys, "search", "language models", "--limit", "3")
    lines = out.splitlines()
    assert code == 0 and lines[0].endswith("(showing 3)") and len(lines) == 4


def test_show_plain_has_metadata_rendered_abstract_and_numbered_links(capsys):
    _, out, _ = run(capsys, "search", "BitStack", "--json")
    paper_id = json.loads(out)["hits"][0]["id"]
    code, out, _ = run(capsys, "show", paper_id, "--plain")
    assert code == 0
    assert out.startswith(
        "BitStack: Any-Size Compression of Large Language Models in Variable Memory Environments\nVenue: ICLR 2025\n"
    )
    assert "capability to availability" in out and "\\textit" not in out and "$" not in out
    assert "Code is available at https://github.com/xinghaow99/BitStack[1]." in out
    assert "[1] https://github.com/xinghaow99/BitStack\n" in out
    assert "[2] OpenReview page  https://openreview.net/forum?id=lBntjGbyv0\n" in out


def test_render_json_and_plain(capsys, monkeypatch):
    import io

    source = r"We propose \textbf{FooNet} with $x^2$, see https://e.org/a."
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(source.encode())))
    code, out, _ = run(capsys, "render", "--json")
    rendered = json.loads(out)
    assert code == 0 and rendered["text"] == "We propose FooNet with x², see https://e.org/a."
    assert {"start": 11, "end": 17, "style": "bold"} in rendered["spans"]
    assert rendered["links"] == [{"label": "https://e.org/a", "url": "https://e.org/a"}]
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(source.encode())))
    code, out, _ = run(capsys, "render", "--plain")
    assert out == "We propose FooNet with x², see https://e.org/a.\n"


def test_index_command_builds_then_reuses(capsys):
    code, out, _ = run(capsys, "index")
    assert code == 0 and "38 papers, index built" in out
    code, out, _ = run(capsys, "index")
    assert "index up to date" in out
    code, out, _ = run(capsys, "index", "--rebuild")
    assert "index built" in out


@pytest.mark.parametrize(
    "setup, argv, message",
    [
        (None, ["--corpus", "{tmp}/missing.json", "list"], "missing.json: no such file"),
        ("dir", ["--corpus", "{tmp}/adir", "list"], "is a directory"),
        ("empty", ["--corpus", "{tmp}/empty.txt", "list"], "empty file"),
        ("latin1", ["--corpus", "{tmp}/latin1.txt", "list"], "not UTF-8"),
        ("badjson", ["--corpus", "{tmp}/bad.json", "list"], "malformed JSON"),
        (None, ["show", "no-such-id"], "no paper with id 'no-such-id'"),
        (None, ["search", "x", "--limit", "0"], "--limit must be at least 1"),
    ],
)
def test_errors_are_one_line_with_exit_code_2(capsys, tmp_path, setup, argv, message):
    (tmp_path / "adir").mkdir()
    (tmp_path / "empty.txt").write_text("")
    (tmp_path / "latin1.txt").write_bytes("caf\xe9".encode("latin-1"))
    (tmp_path / "bad.json").write_text('[{"abstract": ')
    code, _out, err = run(capsys, *[a.format(tmp=tmp_path) for a in argv])
    assert code == 2
    assert message in err and err.count("\n") == 1 and err.startswith("iclr-reader: error: ")
    assert "Traceback" not in err


def test_unreadable_corpus_file(capsys, tmp_path, monkeypatch):
    path = tmp_path / "secret.txt"
    path.write_text("Abstract.")

    real_open = os.open

    def denied(file, *args, **kwargs):
        if os.fspath(file) == str(path):
            raise PermissionError(13, "Permission denied", str(path))
        return real_open(file, *args, **kwargs)

    # Root can read any file, so the permission error is simulated where the loader opens it.
    monkeypatch.setattr(os, "open", denied)
    code, _, err = run(capsys, "--corpus", str(path), "list")
    assert code == 2 and "secret.txt: permission denied" in err


def test_every_command_has_help(capsys):
    # In this process: six Pythons started for it cost 3 s of CPU. That `python -m tui` starts and
    # reads its arguments is the next test's.
    for command in ([], ["list"], ["search"], ["show"], ["render"], ["index"]):
        with pytest.raises(SystemExit) as exit_:
            main([*command, "--help"])
        assert exit_.value.code == 0 and "usage: iclr-reader" in capsys.readouterr().out, command


def test_installed_command_runs_without_traceback_on_bad_input(tmp_path):
    result = subprocess.run(
        [sys.executable, "-m", "tui", "--corpus", str(tmp_path / "nope.txt"), "search", "x"],
        capture_output=True,
        text=True,
    )
    assert result.returncode == 2 and "Traceback" not in result.stderr and result.stderr.count("\n") == 1


def test_bookmarks_commands_add_list_export_import_remove(capsys, tmp_path):
    _, out, _ = run(capsys, "search", "BitStack", "--json")
    paper_id = json.loads(out)["hits"][0]["id"]
    code, out, _ = run(capsys, "bookmarks")
    assert code == 0 and out.startswith("No bookmarks yet")
    code, out, _ = run(capsys, "bookmarks", "add", paper_id)
    assert code == 0 and out.startswith(f"Bookmarked {paper_id}: BitStack")
    code, out, _ = run(capsys, "bookmarks", "--json")
    assert [b["name"] for b in json.loads(out)["bookmarks"]] == ["BitStack"]
    target = tmp_path / "bookmarks.json"
    code, _, err = run(capsys, "bookmarks", "export", "--format", "json", "-o", str(target))
    assert (
        code == 0 and "Wrote 1 bookmark to" in err and json.loads(target.read_text())["bookmarks"][0]["id"] == paper_id
    )
    code, out, _ = run(capsys, "bookmarks", "export", "--format", "bibtex")
    assert out.startswith("@inproceedings{wang2025bitstack_")
    code, out, _ = run(capsys, "bookmarks", "remove", paper_id)
    assert code == 0 and "Removed bookmark" in out
    code, _, err = run(capsys, "bookmarks", "remove", paper_id)
    assert code == 2 and "is not bookmarked" in err
    code, out, _ = run(capsys, "bookmarks", "import", str(target))
    assert out.startswith("Imported 1 new bookmark;")
    code, out, _ = run(capsys, "bookmarks", "import", str(target))
    assert out.startswith("Imported 0 new bookmarks; 1 already present")
    code, out, _ = run(capsys, "bookmarks")
    assert out.count("\n") == 1


def test_bookmark_errors_are_one_line(capsys, tmp_path, monkeypatch):
    code, _, err = run(capsys, "bookmarks", "import", str(tmp_path / "missing.json"))
    assert code == 2 and "no such file" in err and err.count("\n") == 1
    (tmp_path / "bad.json").write_text("{")
    code, _, err = run(capsys, "bookmarks", "import", str(tmp_path / "bad.json"))
    assert code == 2 and "malformed JSON" in err
    code, _, err = run(capsys, "bookmarks", "add", "no-such-paper")
    assert code == 2 and "no paper with id" in err
    blocker = tmp_path / "file"
    blocker.write_text("x")
    monkeypatch.setenv("XDG_DATA_HOME", str(blocker))
    code, _, err = run(capsys, "bookmarks")
    assert code == 2 and "cannot create the data dir" in err and err.count("\n") == 1


def test_related_json_and_errors(capsys):
    _, out, _ = run(capsys, "search", "BitStack", "--json")
    bitstack = json.loads(out)["hits"][0]["id"]
    code, out, _ = run(capsys, "related", bitstack, "--json", "--limit", "3")
    related = json.loads(out)
    assert code == 0 and related["id"] == bitstack and len(related["hits"]) == 3
    assert set(related["hits"][0]) == {*PAPER_KEYS, "score", "terms"}  # as search's hits
    assert bitstack not in [paper["id"] for paper in related["hits"]]
    code, _, err = run(capsys, "related", "nope")
    assert code == 2 and "no paper with id 'nope'" in err


def test_recommend_json_and_plain(capsys):
    code, out, _ = run(capsys, "recommend")
    assert code == 0 and out.startswith("No bookmarks yet") and out.count("\n") == 1
    code, out, _ = run(capsys, "recommend", "--json")
    assert code == 0 and json.loads(out) == {"bookmarks_used": 0, "left_out": 0, "not_loaded": 0, "hits": []}
    _, out, _ = run(capsys, "search", "BitStack", "--json")
    bitstack = json.loads(out)["hits"][0]["id"]
    _, out, _ = run(capsys, "related", bitstack, "--json", "--limit", "2")
    first, second = (hit["id"] for hit in json.loads(out)["hits"])
    run(capsys, "bookmarks", "add", bitstack)
    run(capsys, "bookmarks", "add", second)
    run(capsys, "bookmarks", "remove", second)  # removed: neither compared with nor recommended
    code, out, _ = run(capsys, "recommend", "--json", "--limit", "3")
    recommended = json.loads(out)
    assert code == 0 and recommended["bookmarks_used"] == 1 and len(recommended["hits"]) == 3
    hit = recommended["hits"][0]
    assert set(hit) == {*PAPER_KEYS, "score", "closest_bookmark"}  # the paper object of show --json
    assert hit["id"] == first and hit["closest_bookmark"]["id"] == bitstack
    assert hit["closest_bookmark"]["headline"].startswith("BitStack")
    assert not {bitstack, second} & {paper["id"] for paper in recommended["hits"]}
    code, out, _ = run(capsys, "recommend", "--limit", "2")
    lines = out.splitlines()
    assert code == 0 and lines[0] == "Papers like your bookmark:" and len(lines) == 5
    assert lines[1].startswith(first) and lines[2].strip().startswith("like: BitStack")
    code, _, err = run(capsys, "recommend", "--limit", "0")
    assert code == 2 and err.count("\n") == 1


def test_search_prints_what_orders_the_hits_never_a_made_up_score(capsys, tmp_path):
    records = [
        {"id": "hi", "title": "Graph one", "abstract": "Graphs.", "rating": "8;8", "gs_citation": 12},
        {"id": "lo", "title": "Graph two", "abstract": "Graph graphs.", "rating": "3;5", "gs_citation": 1500},
        {"id": "no", "title": "Trees", "abstract": "Trees."},
    ]
    path = tmp_path / "conf2020.json"
    path.write_text(json.dumps(records), encoding="utf-8")
    corpus = ("--corpus", str(path))
    _, out, _ = run(capsys, *corpus, "search", "rating:>=1")  # filters alone: nothing scored
    assert out.splitlines()[1:] == ["hi  Graph one", "lo  Graph two"]
    _, out, _ = run(capsys, *corpus, "search", "sort:citations")
    assert out.splitlines()[1:] == [
        "lo  cited   1,500  Graph two",
        "hi  cited      12  Graph one",
        "no  cited       -  Trees",
    ]
    _, out, _ = run(capsys, *corpus, "search", "graph sort:rating")
    assert out.splitlines()[1:] == ["hi  rating    8.00  Graph one", "lo  rating    4.00  Graph two"]
    _, out, _ = run(capsys, *corpus, "search", "graph")
    assert all(float(line.split()[1]) > 0 for line in out.splitlines()[1:])  # words: their score
    _, out, _ = run(capsys, *corpus, "search", "rating:>=1", "--json")
    assert [hit["score"] for hit in json.loads(out)["hits"]] == [None, None]


@pytest.mark.parametrize(
    "argv, said",
    [
        (["search"], "search: the following arguments are required: query (see `iclr-reader search --help`)"),
        (["search", "x", "--limit"], "search: argument --limit: expected one argument"),
        (["nosuchcommand"], "invalid choice: 'nosuchcommand'"),
        (["bookmarks", "nosuch"], "bookmarks: argument ACTION: invalid choice"),
        (["search", "x", "--bogus"], "unrecognized arguments: --bogus (see `iclr-reader --help`)"),
    ],
)
def test_a_mistyped_command_is_one_line_with_exit_code_2(capsys, argv, said):
    """argparse printed its usage above the error: 2-4 lines where one says it."""
    with pytest.raises(SystemExit) as exit_:
        main(argv)
    out, err = capsys.readouterr()
    assert exit_.value.code == 2 and out == ""
    assert err.startswith("iclr-reader: error: ") and said in err and err.count("\n") == 1, err
