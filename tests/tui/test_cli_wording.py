"""How the command line words what it did: counts in the right number with thousands separators, id
columns that line up, one line (with one time) per list added, and the same JSON hits from `search`
and `related`."""

import json
import re

import pytest

from search import UserStore
from tests.sources.server import records
from tui.cli import main
from tui.cli.loading import Progress
from tui.cli.wording import counted


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def mixed_ids(tmp_path):
    """--corpus for two lists whose ids differ in length, every paper about graphs; g1 shares one
    rarer word with each of the others, so both are related to it."""
    short = [{"id": "g1", "title": "Graph Nets", "abstract": "Graph networks pass messages between nodes."}]
    long = [
        {
            "id": "a-rather-long-bibtex-key-2024",
            "title": "Graph Kernels",
            "abstract": "Graph kernels compare messages.",
        },
        {"id": "mid-size-id", "title": "Graph Cuts", "abstract": "Graph cuts split networks."},
    ]
    (tmp_path / "short.json").write_text(json.dumps(short), encoding="utf-8")
    (tmp_path / "long.json").write_text(json.dumps(long), encoding="utf-8")
    return ["--corpus", str(tmp_path / "short.json"), "--corpus", str(tmp_path / "long.json")]


def columns_line_up(lines, texts):
    """Each text (a title) starts at the same column on its line."""
    starts = {next(line.index(text) for text in texts if text in line) for line in lines}
    return len(starts) == 1


GRAPH_TITLES = ("Graph Nets", "Graph Kernels", "Graph Cuts")


def test_counts_are_in_the_right_number_with_thousands_separators():
    assert counted(1, "paper") == "1 paper"
    assert counted(0, "paper") == "0 papers"
    assert counted(1467, "paper") == "1,467 papers"
    assert counted(1, "match") == "1 match"
    assert counted(12000, "match") == "12,000 matches"


def test_search_says_one_match_and_lines_up_its_columns(capsys, mixed_ids):
    code, out, _ = run(capsys, *mixed_ids, "search", "kernels")
    assert code == 0 and out.splitlines()[0] == "1 match"
    code, out, _ = run(capsys, *mixed_ids, "search", "graph")
    lines = out.splitlines()
    assert lines[0] == "3 matches" and len(lines) == 4
    assert columns_line_up(lines[1:], GRAPH_TITLES)
    scores = {re.search(r"\d+\.\d\d", line).start() for line in lines[1:]}  # type: ignore[union-attr]
    assert len(scores) == 1


def test_list_and_related_line_up_their_columns(capsys, mixed_ids):
    code, out, _ = run(capsys, *mixed_ids, "list")
    assert code == 0 and columns_line_up(out.splitlines(), GRAPH_TITLES)
    code, out, _ = run(capsys, *mixed_ids, "related", "g1")
    lines = out.splitlines()
    assert code == 0 and lines[0] == "Related to g1  Graph Nets" and len(lines) == 3
    assert columns_line_up(lines[1:], GRAPH_TITLES)


def test_related_json_hits_have_the_shape_of_search_hits(capsys, mixed_ids):
    _, out, _ = run(capsys, *mixed_ids, "search", "kernels", "--json")
    searched = json.loads(out)["hits"][0]
    code, out, _ = run(capsys, *mixed_ids, "related", "g1", "--json")
    related = json.loads(out)
    assert code == 0 and set(related) == {"id", "hits"} and related["id"] == "g1"
    same_paper = next(hit for hit in related["hits"] if hit["id"] == searched["id"])
    assert set(same_paper) == set(searched)
    for field in ("name", "headline", "links"):  # only the score and the terms depend on the question
        assert same_paper[field] == searched[field]


def test_bookmarking_a_bookmarked_paper_says_so_and_keeps_its_note(capsys):
    _, out, _ = run(capsys, "search", "BitStack", "--json")
    paper_id = json.loads(out)["hits"][0]["id"]
    code, out, _ = run(capsys, "bookmarks", "add", paper_id)
    assert code == 0 and out.startswith(f"Bookmarked {paper_id}: BitStack")
    UserStore().set_note(paper_id, "read section 3")
    code, out, _ = run(capsys, "bookmarks", "add", paper_id)
    assert code == 0 and out.startswith(f"Already bookmarked {paper_id}: BitStack")
    assert UserStore().get(paper_id).note == "read section 3"


def test_bookmark_listings_line_up_their_columns(capsys, mixed_ids):
    for paper_id in ("g1", "a-rather-long-bibtex-key-2024", "mid-size-id"):
        run(capsys, *mixed_ids, "bookmarks", "add", paper_id)
    code, out, _ = run(capsys, "bookmarks")
    assert code == 0 and len(out.splitlines()) == 3 and columns_line_up(out.splitlines(), GRAPH_TITLES)
    for paper_id in ("g1", "mid-size-id"):
        run(capsys, "bookmarks", "remove", paper_id)
    code, out, _ = run(capsys, "bookmarks", "removed")
    assert code == 0 and len(out.splitlines()) == 2 and columns_line_up(out.splitlines(), GRAPH_TITLES)


def test_an_import_counts_its_bad_records_in_the_right_number(capsys, tmp_path):
    source = tmp_path / "bookmarks.json"
    good = [{"id": "one", "headline": "First paper"}, {"id": "two", "headline": "Second paper"}]
    source.write_text(json.dumps({"bookmarks": [*good, {"headline": "no id"}]}), encoding="utf-8")
    code, out, _ = run(capsys, "bookmarks", "import", str(source))
    assert code == 0
    assert (
        out
        == "Imported 2 new bookmarks; 0 already present (merged); skipped 1 bad record (first: bookmark 3 has no id)\n"
    )


def test_adding_a_list_is_one_line_with_one_time_even_when_indexing_is_slow(capsys, tmp_path, monkeypatch):
    monkeypatch.setattr(Progress, "delay", 0.0)  # as if the build took long enough for the progress bar
    path = tmp_path / "tiny.json"
    path.write_text(json.dumps([{"id": "t1", "abstract": "One tiny abstract."}, {"id": "t2"}]), encoding="utf-8")
    code, out, err = run(capsys, "add", str(path))
    assert code == 0 and err == ""
    assert re.fullmatch(r"Added 'tiny': 1 paper; 1 record without an abstract skipped; indexed in \d+\.\d s\n", out)
    code, out, err = run(capsys, "index", "--rebuild")
    assert code == 0 and err == "" and re.match(r"39 papers, index built in \d+\.\d s: ", out)


def test_a_one_paper_list_and_the_total_in_lists(capsys, tmp_path):
    path = tmp_path / "solo.json"
    path.write_text(json.dumps([{"id": "s1", "abstract": "Alone.", "venue": "Solo 2024"}]), encoding="utf-8")
    run(capsys, "add", str(path))
    code, out, _ = run(capsys, "lists")
    solo = next(line for line in out.splitlines() if line.startswith("solo"))
    bundled = next(line for line in out.splitlines() if line.startswith("iclr2025"))
    assert code == 0 and " 1 paper " in solo and "1 papers" not in solo
    assert bundled.index("ICLR 2025") == solo.index("Solo 2024")  # the venues stay in one column
    assert out.splitlines()[-1] == "2 lists, 39 papers"


def test_getting_a_list_says_what_was_left_out_in_words(server, capsys):
    body = json.dumps([*records(1, "n"), {"id": "empty", "title": "No abstract"}]).encode()
    server.route("/paperlists/nips/nips2024.json", lambda h: h.body(body, "application/json"))
    code, out, err = run(capsys, "get", "nips2024")
    host = server.url.removeprefix("http://")
    assert code == 0 and "Indexed" not in err
    assert out.startswith(f"Got 'nips2024': 1 paper from {host} (")
    assert "); 1 record without an abstract skipped; indexed in " in out and out.count("\n") == 1


@pytest.mark.slow
def test_a_real_list_is_counted_with_thousands_separators(paperlist_files, capsys, monkeypatch):
    monkeypatch.setattr(Progress, "delay", 0.0)
    nips2018 = next(path for path in paperlist_files if path.name == "nips2018.json")
    code, out, err = run(capsys, "add", str(nips2018))
    assert code == 0 and "Indexed" not in err  # the time is said once, on the line below
    assert re.fullmatch(
        r"Added 'nips2018': 1,008 papers; 1 record without an abstract skipped; indexed in \S+ s\n", out
    )
    code, out, _ = run(capsys, "lists")
    assert "nips2018    1,008 papers  NeurIPS 2018" in out and out.splitlines()[-1] == "2 lists, 1,046 papers"
    code, out, _ = run(capsys, "index")
    assert out.startswith("1,046 papers, index up to date")
    code, out, _ = run(capsys, "search", "list:nips2018", "--limit", "3")
    assert out.splitlines()[0] == "1,008 matches (showing 3)"
