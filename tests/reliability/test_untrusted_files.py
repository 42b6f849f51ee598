"""Files and names from outside, at the boundary where they enter (search/untrusted.py, the corpus
formats, the library): devices and FIFOs, JSON built to break the parser, lone surrogates in every
field, names holding escape sequences or newlines, and a library folder that is not a folder.

Each is what a user sees: on the command line one line on stderr and exit 2 (or a one-line warning
and the rest working), in the app a notice, and the user's files and library as they were."""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from search import Library, SearchEngine, load_corpus
from tests.sources.server import snapshot
from tests.tui.conftest import settle
from tui.cli import main

ROOT = Path(__file__).resolve().parents[2]
ESC_TITLE = "\x1b]2;PWNED\x07"
"""OSC 2: sets the terminal's window title."""
UNSAFE = ("\x1b", "\x07", "\x9b", "\x9d", "\ud800", "\udc00")


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def one_line_error(code: int, err: str, *wanted: str) -> None:
    assert code == 2, err
    assert err.count("\n") == 1 and err.startswith("iclr-reader: error: "), err
    assert "Traceback" not in err
    for text in wanted:
        assert text in err, err
    assert_terminal_safe(err)


def assert_terminal_safe(text: str) -> None:
    assert not any(character in text for character in UNSAFE), repr(text)
    text.encode("utf-8")  # strict: a lone surrogate cannot be printed


def library_folder(tmp_path: Path) -> Path:
    return tmp_path / "xdg_data_home" / "iclr-reader" / "lists"


def records_file(tmp_path: Path, name: str, records) -> Path:
    path = tmp_path / name
    path.write_text(json.dumps(records), encoding="utf-8")
    return path


# -- devices, FIFOs and files that lie about their size -------------------------------------------

CHILD = """
import json, sys
from tui.cli import main
for argv in json.loads(sys.argv[1]):
    code = main(argv)
    print(json.dumps(code), file=sys.stderr, flush=True)
"""


def test_dev_zero_and_a_fifo_are_refused_at_once_with_one_line(tmp_path):
    fifo = tmp_path / "list.json"
    os.mkfifo(fifo)
    runs = [
        ["--corpus", "/dev/zero", "list"],
        ["add", "/dev/zero"],
        ["--corpus", str(fifo), "list"],
        ["add", str(fifo), "--name", "piped"],
    ]

    def cap_memory() -> None:  # a regression reads /dev/zero until MemoryError: keep it small
        import resource

        resource.setrlimit(resource.RLIMIT_AS, (2 * 2**30, 2 * 2**30))

    # The timeout is a hang guard (a FIFO with no writer blocks an open forever), not a speed limit.
    child = subprocess.run(
        [sys.executable, "-c", CHILD, json.dumps(runs)],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=ROOT,
        preexec_fn=cap_memory,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    lines = child.stderr.splitlines()
    assert "Traceback" not in child.stderr and len(lines) == 8, child.stderr
    for index, kind in enumerate(["a character device", "a character device", "a named pipe", "a named pipe"]):
        message, code = lines[2 * index], lines[2 * index + 1]
        assert code == "2" and message.startswith("iclr-reader: error: "), child.stderr
        assert f"not a regular file ({kind}" in message
    assert not library_folder(tmp_path).exists() or not any(library_folder(tmp_path).iterdir())


def test_a_file_whose_size_says_nothing_is_held_to_the_limit_while_reading(capsys, monkeypatch):
    # /proc files say they are empty; the limit holds while reading (here made small).
    monkeypatch.setattr("search.corpus.loader.MAX_CORPUS_BYTES", 100)
    code, _, err = run(capsys, "--corpus", "/proc/self/maps", "list")
    one_line_error(code, err, "/proc/self/maps: larger than the", "limit")


def test_read_bytes_refuses_a_fifo_without_blocking_even_with_a_writer(tmp_path):
    from search.untrusted import UntrustedInputError, read_bytes

    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    done = threading.Event()

    def writer() -> None:  # unblocks a reader that opened the FIFO, so a regression cannot hang
        while not done.wait(0.05):
            with contextlib.suppress(OSError):
                os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))

    guard = threading.Thread(target=writer, daemon=True)
    guard.start()
    try:
        with pytest.raises(UntrustedInputError, match=r"pipe: not a regular file \(a named pipe"):
            read_bytes(fifo)
    finally:
        done.set()
        guard.join()


def test_permission_denied_is_one_line(tmp_path, capsys, monkeypatch):
    path = records_file(tmp_path, "secret.json", [{"abstract": "A secret abstract."}])

    real_open = os.open

    def denied(file, *args, **kwargs):
        if os.fspath(file) == str(path):
            raise PermissionError(13, "Permission denied")
        return real_open(file, *args, **kwargs)

    monkeypatch.setattr(os, "open", denied)  # root reads any file: simulate a file it may not
    code, _, err = run(capsys, "--corpus", str(path), "list")
    one_line_error(code, err, "secret.json: permission denied")


# -- JSON built to break the parser ---------------------------------------------------------------

BAD_JSON = {
    "deep.json": ("[" * 100_000 + "]" * 100_000, "nested deeper than 200 levels"),
    "deep-object.json": ('{"a":' * 100_000 + "1" + "}" * 100_000, "nested deeper than 200 levels"),
    "deep-record.json": (
        json.dumps([{"abstract": "An abstract."}])[:-1] + "," + "[" * 5000 + "]" * 5000 + "]",
        "nested deeper than 200 levels",
    ),
    "digits.json": ('[{"abstract": "An abstract.", "year": ' + "9" * 5000 + "}]", "a number of more than"),
    "nan.json": ('[{"abstract": "An abstract.", "score": NaN}]', "NaN is not JSON"),
    "infinity.json": ('[{"abstract": "An abstract.", "score": -Infinity}]', "-Infinity is not JSON"),
    "deep-line.jsonl": ('{"abstract": "One."}\n' + "[" * 100_000 + "]" * 100_000 + "\n", "at line 2"),
}


@pytest.mark.parametrize("name", sorted(BAD_JSON))
def test_deep_huge_and_non_finite_json_is_a_one_line_error(tmp_path, capsys, name):
    text, wanted = BAD_JSON[name]
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    code, _, err = run(capsys, "--corpus", str(path), "list")
    one_line_error(code, err, f"{name}: malformed JSON", wanted)
    code, _, err = run(capsys, "add", str(path))
    one_line_error(code, err, f"{name}: malformed JSON", wanted)
    assert not library_folder(tmp_path).exists() or not any(library_folder(tmp_path).iterdir())
    assert path.read_text(encoding="utf-8") == text  # the user's file is as it was


def test_load_json_raises_only_its_one_error():
    from search.untrusted import UntrustedInputError, load_json

    for text in ("[" * 100_000, "[" * 1000 + "]" * 1000, "1" * 5000, "[NaN]", "[1,", "", "\ud800"):
        with pytest.raises(UntrustedInputError):
            load_json(text, source="f.json")
    assert load_json('{"k\\udc00": ["\\ud800", "\\ud83d\\ude00"]}') == {"k\ufffd": ["\ufffd", "\U0001f600"]}


@pytest.mark.parametrize(
    ("escaped", "expected"),
    [
        ("\\ud83d\\ude00 and \\uD835\\uDC53", "\U0001f600 and \U0001d453"),  # pairs: kept
        ("pair \\ud83d\\ude00 then a lone \\ud83d", "pair \U0001f600 then a lone \ufffd"),
        ("\\ude00 low first", "\ufffd low first"),
        ("\\ud83d \\ude00 apart", "\ufffd \ufffd apart"),
        ("\\ud83d\\ud83d\\ude00", "\ufffd\U0001f600"),  # two highs, one low
        # An escaped backslash ends an escape: "\\ud83d" is text, so the low half after it is lone.
        ("\\\\ud83d\\ude00", "\\ud83d\ufffd"),
        ("\\\\\\ud83d\\ude00", "\\\U0001f600"),
    ],
)
def test_only_lone_surrogates_are_replaced_however_the_pairs_are_escaped(escaped, expected):
    from search.untrusted import load_json

    assert load_json(f'["{escaped}"]') == [expected]


# -- lone surrogates ------------------------------------------------------------------------------

S = "\\ud800"  # as JSON writes it: a lone high surrogate
FIELDS = {
    "id": f"sur{S}1",
    "title": f"Surrogate{S} Graphs",
    "authors": [f"Ada{S} Lovelace", {"name": f"Alan{S}"}],
    "abstract": f"We study graphs{S} with lone\\udfff surrogates.\\n\\nA second{S} paragraph.",
    "keywords": [f"graphs{S}"],
    "venue": f"ICLR{S} 2020",
    "status": f"Oral{S}",
    "track": f"main{S}",
    "url": f"https://example.org/{S}paper",
    "pdf": f"https://example.org/{S}.pdf",
    "github": f"https://github.com/a/{S}b",
    "project": f"https://example.org/{S}project",
}


def surrogate_json(tmp_path: Path) -> Path:
    body = ", ".join(f'"{key}": {json.dumps(value).replace(chr(92) * 2, chr(92))}' for key, value in FIELDS.items())
    path = tmp_path / "surrogates.json"
    path.write_text(f"[{{{body}}}]", encoding="utf-8")
    assert "\\ud800" in path.read_text(encoding="utf-8")
    return path


def test_lone_surrogates_in_every_field_work_through_add_list_search_show_and_bookmarks(tmp_path, capsys):
    path = surrogate_json(tmp_path)
    original = path.read_bytes()
    code, out, err = run(capsys, "add", str(path))
    assert code == 0 and out.startswith("Added 'surrogates': 1 paper"), err
    paper_id = "sur\ufffd1"
    for argv in (
        ["lists"],
        ["lists", "--json"],
        ["list"],
        ["list", "--json"],
        ["search", "graphs"],
        ["search", "graphs", "--json"],
        ["index"],
        ["show", paper_id],
        ["bookmarks", "add", paper_id],
        *(["bookmarks", "export", "--format", kind] for kind in ("bibtex", "markdown", "csv", "json")),
    ):
        code, out, err = run(capsys, *argv)
        assert code == 0, (argv, err)
        assert "Traceback" not in err and "Search unavailable" not in out + err
        assert_terminal_safe(out + err)
    code, out, _ = run(capsys, "show", paper_id)
    assert "Surrogate\ufffd Graphs" in out and "Ada\ufffd Lovelace" in out and "second\ufffd paragraph" in out
    code, out, _ = run(capsys, "search", "surrogate")
    assert paper_id in out
    assert path.read_bytes() == original


def test_no_format_lets_a_lone_surrogate_into_a_paper(tmp_path):
    jsonl = tmp_path / "lines.jsonl"
    jsonl.write_text(surrogate_json(tmp_path).read_text(encoding="utf-8")[1:-1] + "\n", encoding="utf-8")
    notes = tmp_path / "notes.json"
    content = {key: {"value": f"{key}{S}"} for key in ("title", "abstract", "venue", "decision", "pdf", "code")}
    content["authors"] = {"value": [f"Ada{S}"]}
    content["keywords"] = {"value": [f"kw{S}"]}
    notes.write_text(
        '{"notes": [' + json.dumps({"id": "n1", "forum": "n1", "content": content}).replace("\\\\", "\\") + "]}",
        encoding="utf-8",
    )
    for source in (jsonl, notes):
        papers = load_corpus([source]).papers
        assert papers
        for paper in papers:
            for value in paper:
                for text in value if isinstance(value, tuple) else (value,):
                    if isinstance(text, str) and text != paper.source:
                        assert_terminal_safe(text)


# -- names ------------------------------------------------------------------------------------------


def test_list_names_with_control_characters_are_refused_with_one_line(tmp_path, capsys):
    path = records_file(tmp_path, "good.json", [{"abstract": "A good abstract."}])
    for name in ("nl\n", "\n", ESC_TITLE, "a/b", "", "tab\tname"):
        code, _, err = run(capsys, "add", str(path), "--name", name)
        one_line_error(code, err, "is not a usable list name")
    assert not library_folder(tmp_path).exists() or not any(library_folder(tmp_path).iterdir())


def test_file_names_with_escape_sequences_never_reach_the_terminal(tmp_path, capsys):
    good = records_file(tmp_path, f"good{ESC_TITLE}\n.json", [{"abstract": "A good abstract about graphs."}])
    broken = tmp_path / f"broken{ESC_TITLE}.json"
    broken.write_text("[{", encoding="utf-8")
    missing = tmp_path / f"missing{ESC_TITLE}.json"
    for path in (broken, missing):
        code, _, err = run(capsys, "--corpus", str(path), "list")
        one_line_error(code, err, "\\x1b]2;PWNED\\x07")
    code, out, err = run(capsys, "--corpus", str(good), "search", "graphs")
    assert code == 0 and "1 match" in out
    assert_terminal_safe(out + err)
    code, out, err = run(capsys, "add", str(good))  # a name made from the file name is a usable one
    assert code == 0 and out.startswith("Added 'good-2-pwned'"), err
    assert_terminal_safe(out + err)
    code, out, err = run(capsys, "lists", "--verbose")
    assert code == 0 and "good-2-pwned" in out and "good\\x1b]2;PWNED\\x07\\n.json" in out
    assert_terminal_safe(out + err)
    next(library_folder(tmp_path).glob("good-2-pwned/*")).write_bytes(b"\x00 damaged")
    code, out, err = run(capsys, "search", "graphs")  # the damaged list is left out, with a warning
    assert code == 0 and "warning: left out" in err and "good\\x1b]2;PWNED\\x07\\n.json" in err
    assert [line for line in err.splitlines() if not line.startswith("Indexed ")] == [err.splitlines()[0]]
    assert_terminal_safe(out + err)


def test_a_name_made_by_an_older_version_is_listed_safely_and_can_be_removed(tmp_path, capsys):
    folder = library_folder(tmp_path)
    for name in ("nl\n", f"e{ESC_TITLE}"):
        (folder / name).mkdir(parents=True)
        records_file(folder / name, f"f{ESC_TITLE}.json", [{"abstract": f"An abstract in {name!r}."}])
    code, out, err = run(capsys, "lists")
    assert code == 0 and len(out.splitlines()) == 4, out  # bundled, the two lists, the total
    assert_terminal_safe(out + err)
    assert "nl\\n " in out and "e\\x1b]2;PWNED\\x07 " in out
    code, out, _ = run(capsys, "lists", "--json")
    assert code == 0 and "e\\x1b]2;PWNED\\x07" in [row["name"] for row in json.loads(out)["lists"]]
    code, out, err = run(capsys, "remove", "nl\\n")  # as `lists` shows it
    assert code == 0 and out.startswith("Removed 'nl\\n'"), err
    assert_terminal_safe(out)
    code, out, err = run(capsys, "remove", f"e{ESC_TITLE}")  # as it is on disk
    assert code == 0, err
    assert_terminal_safe(out)
    assert not any(folder.iterdir())


# -- the library folder itself --------------------------------------------------------------------


def break_library(folder: Path, how: str) -> None:
    folder.parent.mkdir(parents=True, exist_ok=True)
    if how == "a file":
        folder.write_text("not a folder")
    elif how == "a symlink loop":
        folder.symlink_to(folder.name)
    else:
        folder.symlink_to(folder.parent / "nowhere")


WHY = {"a file": "a file, not a folder", "a symlink loop": "a symbolic link loop", "dangling": "to nothing"}


@pytest.mark.parametrize("how", sorted(WHY))
def test_a_library_folder_that_is_not_a_folder_leaves_the_bundled_list_working(tmp_path, capsys, how):
    folder = library_folder(tmp_path)
    break_library(folder, how)
    before = snapshot(folder.parent)
    code, out, err = run(capsys, "lists")
    assert code == 0 and out.splitlines()[0].split()[:3] == ["iclr2025", "38", "papers"]
    assert err.count("\n") == 1 and "warning: left out the lists in" in err and WHY[how] in err
    code, out, err = run(capsys, "search", "graph")
    warnings = [line for line in err.splitlines() if not line.startswith("Indexed ")]  # a slow build says so
    assert code == 0 and "matches" in out and len(warnings) == 1 and WHY[how] in err
    path = records_file(tmp_path, "mine.json", [{"abstract": "Mine."}])
    code, _, err = run(capsys, "add", str(path))
    one_line_error(code, err, "cannot add lists to", WHY[how])
    assert snapshot(folder.parent) == before


def app_for(argv: list[str], monkeypatch):
    """The app as `iclr-reader [argv]` starts it, and the notices it shows."""
    from search import UserStore
    from tui.app import ReaderApp
    from tui.cli import build_parser
    from tui.cli.loading import load_engine

    shown: list[str] = []
    original = ReaderApp.notify

    def notify(self, message, *args, **kwargs):
        shown.append(str(message))
        return original(self, message, *args, **kwargs)

    monkeypatch.setattr(ReaderApp, "notify", notify)
    engine = load_engine(build_parser().parse_args(argv), skip_broken=True)
    return ReaderApp(engine, store=UserStore()), shown


async def test_the_app_shows_a_notice_for_a_library_folder_that_is_a_file(tmp_path, monkeypatch):
    break_library(library_folder(tmp_path), "a file")
    app, shown = app_for([], monkeypatch)
    assert len(app.engine.papers) == 38
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot, app)
        assert any("lists in" in message and "a file, not a folder" in message for message in shown)


async def test_the_app_shows_file_names_with_escape_sequences_safely(tmp_path, monkeypatch):
    good = records_file(tmp_path, f"good{ESC_TITLE}.json", [{"abstract": "An abstract about graphs."}])
    broken = tmp_path / f"broken{ESC_TITLE}.json"
    broken.write_text("[{", encoding="utf-8")
    app, shown = app_for(["--corpus", str(good), "--corpus", str(broken)], monkeypatch)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot, app)
        assert "good\\x1b]2;pwned\\x07" in app.sub_title  # the header: the list's name, escapes visible
        assert_terminal_safe(app.sub_title)
        assert any("broken\\x1b]2;PWNED\\x07.json" in message for message in shown)  # "List not loaded"
        for message in shown:
            assert_terminal_safe(message)


# -- what the library keeps beside a list, and downloads --------------------------------------------


def test_a_damaged_source_file_beside_a_list_does_not_break_lists(tmp_path, capsys):
    path = records_file(tmp_path, "mine.json", [{"abstract": "Mine, about graphs."}])
    assert run(capsys, "add", str(path))[0] == 0
    metadata = library_folder(tmp_path) / "mine" / ".source.json"
    for text in (
        json.dumps({"kind": f"paperlists{ESC_TITLE}", "source": ["x"], "url": 5, "fetched_at": {"a": 1}}),
        json.dumps({"kind": "paperlists", "source": "x", "url": "u", "fetched_at": 20250101}),
        "[" * 100_000,
    ):
        metadata.write_text(text, encoding="utf-8")
        code, out, err = run(capsys, "lists")
        assert code == 0 and "mine" in out and "Traceback" not in err, err
        assert_terminal_safe(out + err)


def test_a_download_with_lone_surrogates_and_deep_json_is_handled(tmp_path, capsys, server):
    from tests.sources.test_openreview import VENUE, note

    raw = json.dumps({"notes": [note(0), note(1)], "count": 2}).replace("Sparse Attention", f"Sparse{S} Attention")
    server.route("/openreview/notes", lambda h: h.body(raw.encode(), "application/json"))
    code, out, err = run(capsys, "get", f"openreview:{VENUE}")
    assert code == 0, err
    code, out, err = run(capsys, "search", "sparse")
    assert code == 0 and "Sparse\ufffd Attention" in out, err
    assert_terminal_safe(out + err)

    before = snapshot(library_folder(tmp_path))
    server.route("/openreview/notes", lambda h: h.body(b'{"notes": ' + b"[" * 100_000, "application/json"))
    code, _, err = run(capsys, "get", f"openreview:{VENUE}", "--name", "deep")
    one_line_error(code, err, "not OpenReview notes", "nested deeper than 200 levels")
    assert snapshot(library_folder(tmp_path)) == before


def test_every_default_source_still_loads(tmp_path):
    # The library never raises for a folder it cannot read: the bundled list always loads.
    break_library(library_folder(tmp_path), "a symlink loop")
    assert Library().files() == [] and Library().problems()
    assert len(SearchEngine.from_paths().papers) == 38
