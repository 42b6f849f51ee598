"""The library of lists from the command line: add, lists, remove, and what the app then loads."""

import json

from search.engine import SearchEngine
from tui.cli import main


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def write_list(tmp_path, name, titles):
    path = tmp_path / name
    records = [
        {"id": f"{name}-{i}", "title": title, "abstract": f"{title}. An abstract about {title.lower()}."}
        for i, title in enumerate(titles)
    ]
    path.write_text(json.dumps(records), encoding="utf-8")
    return path


def test_add_copies_and_indexes_only_the_new_list(tmp_path, capsys, isolated_dirs):
    first = write_list(tmp_path, "nips2019.json", ["Graph Nets", "Sparse Coding"])
    code, out, _ = run(capsys, "add", str(first))
    assert code == 0 and out.startswith("Added 'nips2019': 2 papers")
    index_root = isolated_dirs / "xdg_cache_home" / "iclr-reader" / "index"
    before = {entry.name: entry.stat().st_mtime_ns for entry in index_root.iterdir()}
    second = write_list(tmp_path, "extra.csv.json", ["Kernel Methods"])
    code, out, _ = run(capsys, "add", str(second), "--name", "kernels")
    assert code == 0 and "Added 'kernels': 1 paper;" in out
    after = {entry.name: entry.stat().st_mtime_ns for entry in index_root.iterdir()}
    assert {name: after[name] for name in before} == before  # nothing already indexed was rebuilt
    assert len(after) == len(before) + 1
    first.unlink()  # the library keeps its own copy
    engine = SearchEngine.from_paths()
    assert len(engine.papers) == 38 + 3
    assert engine.search("graph nets").hits[0].paper_id == "nips2019.json-0"


def test_lists_shows_counts_and_venues(tmp_path, capsys):
    run(capsys, "add", str(write_list(tmp_path, "iclr2019.json", ["A", "B", "C"])))
    code, out, _ = run(capsys, "lists")
    assert code == 0
    assert out.splitlines()[0].split()[:3] == ["iclr2025", "38", "papers"]
    assert "iclr2019" in out and "3 papers  ICLR 2019" in out and out.rstrip().endswith("2 lists, 41 papers")
    code, out, _ = run(capsys, "lists", "--json")
    assert [(row["name"], row["papers"]) for row in json.loads(out)["lists"]] == [("iclr2025", 38), ("iclr2019", 3)]


def test_remove_and_errors_are_one_line_with_exit_2(tmp_path, capsys):
    path = write_list(tmp_path, "mine.json", ["A"])
    run(capsys, "add", str(path))
    code, _, err = run(capsys, "add", str(path))
    assert code == 2 and "already exists" in err and err.count("\n") == 1
    code, _, err = run(capsys, "add", str(tmp_path / "missing.json"))
    assert code == 2 and "no such file" in err
    code, _, err = run(capsys, "add", str(path), "--name", "bad name!")
    assert code == 2 and "not a usable list name" in err
    (tmp_path / "broken.json").write_text("[{", encoding="utf-8")
    code, _, err = run(capsys, "add", str(tmp_path / "broken.json"))
    assert code == 2 and "malformed JSON" in err
    code, out, _ = run(capsys, "remove", "mine")
    assert code == 0 and "Removed 'mine'" in out
    assert len(SearchEngine.from_paths().papers) == 38
    code, _, err = run(capsys, "remove", "mine")
    assert code == 2 and "no list named 'mine'" in err
    code, _, err = run(capsys, "remove", "iclr2025")
    assert code == 2 and "bundled" in err


def test_a_list_damaged_after_adding_is_left_out_with_a_warning(tmp_path, capsys):
    path = write_list(tmp_path, "good.json", ["Graph Nets"])
    run(capsys, "add", str(path))
    copy = next((tmp_path / "xdg_data_home").rglob("good.json"))
    copy.write_bytes(b"\x00\x01binary")
    code, _out, err = run(capsys, "search", "graph")
    assert code == 0 and "warning: left out" in err and "binary file" in err


def test_looking_at_the_lists_keeps_the_apps_saved_corpus(tmp_path, capsys, isolated_dirs, monkeypatch):
    """`lists` loads each list alone: those loads save nothing, so the set the app starts with stays
    saved (search/corpus/snapshot.py keeps a few sets) and its next start reads no file again."""
    from search.corpus import loader, snapshot

    for year in range(2015, 2015 + snapshot.KEPT_ENTRIES + 1):
        run(capsys, "add", str(write_list(tmp_path, f"iclr{year}.json", ["A", "B"])))
    SearchEngine.from_paths()  # the app's start: the bundled list and the library, saved
    saved = sorted((isolated_dirs / "xdg_cache_home" / "iclr-reader" / snapshot.CACHE_FOLDER).glob("*.bin"))
    assert run(capsys, "lists")[0] == 0
    after = sorted((isolated_dirs / "xdg_cache_home" / "iclr-reader" / snapshot.CACHE_FOLDER).glob("*.bin"))
    assert after == saved
    monkeypatch.setattr(loader, "_parsed", lambda *_: (_ for _ in ()).throw(AssertionError("a list was read again")))
    assert len(SearchEngine.from_paths().papers) == 38 + 2 * (snapshot.KEPT_ENTRIES + 1)
