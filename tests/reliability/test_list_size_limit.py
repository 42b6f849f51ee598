"""A list over the size limit (search/corpus/formats/common.py: MAX_LIST_PAPERS records) is refused
with one line before its papers are made: `add` and `get` exit 2 and copy nothing, a list already in
the library is left out with a warning (a notice in the app) and the rest loads (issue 34).

1,000,000 tiny papers took 450 s and 1.34 GB to index, and a warm search of them 16 s. The tests lower
the limit where the count does not matter, so that they stay small."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from search.corpus.formats import common, paragraphs
from search.corpus.loader import CorpusError, load_corpus
from tests.sources.server import snapshot
from tests.tui.conftest import settle
from tui.cli import main

LIMIT = 50


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def library_folder(tmp_path: Path) -> Path:
    return tmp_path / "xdg_data_home" / "iclr-reader" / "lists"


def abstract(number: int) -> str:
    return f"We study graph problem {number} and its bounds."


def as_json(count: int) -> str:
    return json.dumps([{"id": f"p{n}", "abstract": abstract(n)} for n in range(count)])


def as_json_lines(count: int) -> str:
    return "".join(json.dumps({"id": f"p{n}", "abstract": abstract(n)}) + "\n" for n in range(count))


def as_csv(count: int) -> str:
    return "id,abstract\n" + "".join(f'p{n},"{abstract(n)}"\n' for n in range(count))


def as_bibtex(count: int) -> str:
    return "".join(f"@article{{p{n},\n  abstract = {{{abstract(n)}}},\n}}\n\n" for n in range(count))


def as_paragraphs(count: int) -> str:
    return "ICLR 2025\n\n" + "".join(f"{abstract(n)}\n\n" for n in range(count))


FORMATS = {
    "json": ("list.json", as_json, "records"),
    "json lines": ("list.jsonl", as_json_lines, "records"),
    "csv": ("list.csv", as_csv, "rows"),
    "bibtex": ("list.bib", as_bibtex, "BibTeX entries"),
    "paragraphs": ("list.txt", as_paragraphs, "abstracts"),
}


@pytest.fixture
def made(monkeypatch) -> list[int]:
    """How many papers a parse has begun to make (each format makes a paper's abstract first), with
    the limit lowered to LIMIT."""
    count = [0]
    abstract_of, stable_id = common.abstract, paragraphs.stable_id

    def counted_abstract(value):
        count[0] += 1
        return abstract_of(value)

    def counted_id(text):
        count[0] += 1
        return stable_id(text)

    monkeypatch.setattr(common, "abstract", counted_abstract)
    monkeypatch.setattr(paragraphs, "stable_id", counted_id)
    monkeypatch.setattr(common, "MAX_LIST_PAPERS", LIMIT, raising=False)
    return count


@pytest.mark.parametrize("name, content, what", FORMATS.values(), ids=FORMATS.keys())
def test_a_list_over_the_limit_is_refused_in_one_line_before_its_papers_are_made(tmp_path, made, name, content, what):
    path = tmp_path / name
    path.write_text(content(LIMIT), encoding="utf-8")
    assert len(load_corpus([path]).papers) == LIMIT  # the limit itself is allowed
    path.write_text(content(LIMIT + 1), encoding="utf-8")
    made[0] = 0
    with pytest.raises(CorpusError) as refused:
        load_corpus([path])
    assert str(refused.value) == f"{path}: more than {LIMIT} {what}, the most one list may hold"
    # CSV rows are counted as they are read: it stops at the one too many; the others count first.
    assert made[0] <= (LIMIT + 1 if what == "rows" else 0)


def test_records_without_an_abstract_count_too(tmp_path, made):
    path = tmp_path / "list.json"
    path.write_text(json.dumps([{"id": "a", "abstract": "One."}] + [{"id": n} for n in range(LIMIT)]), encoding="utf-8")
    with pytest.raises(CorpusError, match="more than 50 records"):
        load_corpus([path])


def test_add_of_a_list_over_the_limit_is_one_line_exit_2_and_copies_nothing(tmp_path, capsys):
    """At the real limit: 100,001 tiny records (2 MB) are refused before the copy and before indexing."""
    path = tmp_path / "huge.json"
    path.write_text(json.dumps([{"abstract": f"a{n}"} for n in range(common.MAX_LIST_PAPERS + 1)]), encoding="utf-8")
    before = snapshot(library_folder(tmp_path))
    code, out, err = run(capsys, "add", str(path))
    assert (code, out) == (2, "")
    assert err == f"iclr-reader: error: {path}: more than 100,000 records, the most one list may hold\n"
    assert snapshot(library_folder(tmp_path)) == before
    assert not (tmp_path / "xdg_cache_home" / "iclr-reader" / "index").exists()  # nothing was indexed


def big_list_in_the_library(tmp_path: Path) -> Path:
    """A list over the limit already in the library (copied there by hand, or by an older version)."""
    folder = library_folder(tmp_path) / "big"
    folder.mkdir(parents=True)
    path = folder / "big.json"
    path.write_text(as_json(LIMIT + 1), encoding="utf-8")
    return path


def test_a_library_list_over_the_limit_is_left_out_with_a_warning(tmp_path, capsys, made):
    path = big_list_in_the_library(tmp_path)
    code, out, err = run(capsys, "search", "graph")
    assert code == 0 and out  # the bundled list is searched
    assert err == f"iclr-reader: warning: left out {path}: more than {LIMIT} records, the most one list may hold\n"


async def test_the_app_shows_a_notice_for_a_library_list_over_the_limit(tmp_path, monkeypatch, made):
    from search import UserStore
    from tui.app import ReaderApp
    from tui.cli import build_parser
    from tui.cli.loading import load_engine

    path = big_list_in_the_library(tmp_path)
    shown: list[tuple[str, str]] = []
    original = ReaderApp.notify

    def notify(self, message, *args, **kwargs):
        shown.append((kwargs.get("title", ""), str(message)))
        return original(self, message, *args, **kwargs)

    monkeypatch.setattr(ReaderApp, "notify", notify)
    app = ReaderApp(load_engine(build_parser().parse_args([]), skip_broken=True), store=UserStore())
    assert len(app.engine.papers) == 38
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot, app)
    assert ("List not loaded", f"Left out: {path}: more than {LIMIT} records, the most one list may hold") in shown


def test_get_of_a_list_over_the_limit_leaves_the_library_as_it_was(tmp_path, capsys, server, made):
    server.route("/paperlists/iclr/iclr2025.json", lambda h: h.body(as_json(LIMIT + 1).encode(), "application/json"))
    before = snapshot(library_folder(tmp_path))
    code, _, err = run(capsys, "get", "iclr2025")
    assert code == 2 and err.count("\n") == 1 and err.startswith("iclr-reader: error: "), err
    assert f"more than {LIMIT} records, the most one list may hold" in err
    assert snapshot(library_folder(tmp_path)) == before
