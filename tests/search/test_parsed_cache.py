"""The cache of parsed corpus files (search/corpus/parsed.py): a start with unchanged files reads
each file's papers from the cache instead of parsing them again, and anything changed, damaged or
not sealed by this user's reader is parsed afresh, so what the user sees is always what the file
says."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from search import paths
from search.corpus import kept, loader, parsed, snapshot
from search.corpus.loader import CorpusError, load_corpus

RECORDS = [
    {"id": "p1", "title": "Graph  Transformers", "abstract": "We study graphs.", "author": "Ada Lovelace; Alan Turing"},
    {"id": "p2", "title": "Diffusion", "abstract": "Denoising $x^2$.", "keywords": "diffusion; score", "year": 2024},
    {"id": "p3", "title": "No abstract"},
]


@pytest.fixture(autouse=True)
def each_file_from_its_own_entry(monkeypatch):
    """Without the saved whole corpus (snapshot.py, tested in test_corpus_snapshot.py), which would
    answer a second load of unchanged files before any file's entry is read."""
    whole = snapshot.read
    monkeypatch.setattr(
        snapshot,
        "read",
        lambda key, folder=snapshot.CACHE_FOLDER: None if folder == snapshot.CACHE_FOLDER else whole(key, folder),
    )


def write_list(folder: Path, records=RECORDS, name: str = "conf2024.json") -> Path:
    path = folder / name
    path.write_text(json.dumps(records), encoding="utf-8")
    return path


def cache_files() -> list[Path]:
    return sorted((paths.cache_dir() / parsed.CACHE_FOLDER).glob("*.bin"))


def parses_counted(monkeypatch) -> list[int]:
    """One item a parse of a file (what a cache miss costs)."""
    calls: list[int] = []
    real_parse = loader.parse
    monkeypatch.setattr(loader, "parse", lambda *args: calls.append(1) or real_parse(*args))
    return calls


def test_a_second_load_reads_the_cache_and_gives_the_same_papers(tmp_path, monkeypatch):
    path = write_list(tmp_path)
    first = load_corpus([path])
    assert len(cache_files()) == 1
    monkeypatch.setattr(loader, "parse", lambda *_: pytest.fail("the unchanged file was parsed again"))
    second = load_corpus([path])
    assert second == first
    assert [p.title for p in second.papers] == ["Graph Transformers", "Diffusion"]
    assert second.papers[0].authors == ("Ada Lovelace", "Alan Turing")
    assert second.papers[1].keywords == ("diffusion", "score") and second.papers[1].year == 2024
    assert second.skipped == 1 and second.name == first.name


def test_the_bundled_list_keeps_its_titles_from_the_cache(monkeypatch):
    first = load_corpus()
    monkeypatch.setattr(loader, "parse", lambda *_: pytest.fail("the bundled list was parsed again"))
    second = load_corpus()
    assert second == first
    assert all(paper.title for paper in second.papers)


def test_an_edited_file_is_read_again_even_at_the_same_size(tmp_path):
    path = write_list(tmp_path)
    load_corpus([path])
    edited = [dict(RECORDS[0], title="Graph  Transformerz"), *RECORDS[1:]]
    path.write_text(json.dumps(edited), encoding="utf-8")
    stamp = path.stat()
    os.utime(path, ns=(stamp.st_atime_ns, stamp.st_mtime_ns + 1_000_000))
    assert load_corpus([path]).papers[0].title == "Graph Transformerz"


def test_a_new_version_of_the_code_parses_again(tmp_path, monkeypatch):
    path = write_list(tmp_path)
    load_corpus([path])
    monkeypatch.setattr(snapshot, "code_digest", lambda: "another version")
    calls = []
    real_parse = loader.parse
    monkeypatch.setattr(loader, "parse", lambda *args: calls.append(1) or real_parse(*args))
    assert len(load_corpus([path]).papers) == 2
    assert calls == [1]


@pytest.mark.parametrize(
    "damage",
    [
        lambda entry: b"",
        lambda entry: entry[: len(entry) // 2],
        lambda entry: entry[:-1],
        lambda entry: entry[:40] + bytes([entry[40] ^ 1]) + entry[41:],  # in the seal
        lambda entry: entry.replace(b"We study graphs.", b"We study graphz."),  # an abstract
        lambda entry: entry.replace(b"Ada Lovelace", b"Ada Lovelacf"),  # an author
        lambda entry: entry[:-9] + bytes([entry[-9] ^ 1]) + entry[-8:],  # the papers' rows
        lambda entry: b"[" * 100_000,
    ],
    ids=["empty", "cut-short", "last-byte", "seal", "abstract", "author", "rows", "not-an-entry"],
)
def test_a_damaged_cache_is_parsed_afresh_and_rewritten(tmp_path, monkeypatch, damage):
    path = write_list(tmp_path)
    expected = load_corpus([path])
    (entry,) = cache_files()
    damaged = damage(entry.read_bytes())
    assert damaged != entry.read_bytes()
    entry.write_bytes(damaged)
    calls = parses_counted(monkeypatch)
    assert load_corpus([path]) == expected
    assert calls == [1]
    assert load_corpus([path]) == expected
    assert calls == [1]  # rewritten whole: the next load reads it


def test_a_cache_entry_for_another_file_is_not_used(tmp_path):
    one = write_list(tmp_path, name="one.json")
    other = write_list(tmp_path, [dict(RECORDS[0], id="x9", title="Other")], name="other.json")
    load_corpus([one])
    load_corpus([other])
    first, second = cache_files()
    first.write_bytes(second.read_bytes())  # each entry now names the other's file
    second.write_bytes(first.read_bytes())
    assert [p.id for p in load_corpus([one]).papers] == ["p1", "p2"]
    assert [p.id for p in load_corpus([other]).papers] == ["x9"]


def test_a_cache_that_cannot_be_written_costs_nothing(tmp_path, monkeypatch):
    blocked = tmp_path / "blocked"
    blocked.write_text("a file where the cache dir should be")
    monkeypatch.setenv("XDG_CACHE_HOME", str(blocked))
    path = write_list(tmp_path)
    assert [p.id for p in load_corpus([path]).papers] == ["p1", "p2"]
    assert [p.id for p in load_corpus([path]).papers] == ["p1", "p2"]


def test_a_cached_file_still_gets_every_check_on_the_file(tmp_path, monkeypatch):
    path = write_list(tmp_path)
    load_corpus([path])
    monkeypatch.setattr(loader, "parse", lambda *_: pytest.fail("parsed instead of refused"))
    monkeypatch.setattr(loader, "MAX_CORPUS_BYTES", 10)
    with pytest.raises(CorpusError, match="larger than"):
        load_corpus([path])
    monkeypatch.setattr(loader, "MAX_CORPUS_BYTES", 1 << 20)
    path.unlink()
    path.mkdir()
    with pytest.raises(CorpusError, match="is a directory"):
        load_corpus([path])
    path.rmdir()
    with pytest.raises(CorpusError, match="no such file"):
        load_corpus([path])


def test_the_papers_name_the_file_as_it_was_given(tmp_path, monkeypatch):
    path = write_list(tmp_path)
    load_corpus([path])
    monkeypatch.chdir(tmp_path)
    assert {p.source for p in load_corpus([Path("conf2024.json")]).papers} == {"conf2024.json"}


def test_a_same_size_edit_with_its_modification_time_put_back_is_read_again(tmp_path):
    path = write_list(tmp_path)
    load_corpus([path])
    before = path.stat()
    path.write_text(path.read_text(encoding="utf-8").replace("Graph  Transformers", "Graph  Transformerz"))
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))  # as rsync -t or touch -r do
    assert path.stat().st_size == before.st_size and path.stat().st_mtime_ns == before.st_mtime_ns
    assert load_corpus([path]).papers[0].title == "Graph Transformerz"


@pytest.mark.parametrize(
    "text",
    [
        b"\x1b[31mred!!",
        b"two\nlines",
        "\u202eright-to-le".encode(),
        b"\x07bell-ring",
        "\ud800 lone".encode("utf-8", "surrogatepass"),
    ],
    ids=["escape-sequence", "newline", "bidi", "control", "lone-surrogate"],
)
def test_a_title_planted_in_a_cache_entry_never_reaches_the_papers(tmp_path, text):
    """Someone who can write the cache dir but not read the sealing key cannot plant text the
    sanitiser would have changed (nor a lone surrogate, which would crash the index's encoding)."""
    path = write_list(tmp_path)
    expected = load_corpus([path])
    (entry,) = cache_files()
    data = entry.read_bytes()
    assert b"Diffusion" in data
    entry.write_bytes(data.replace(b"Diffusion", text[:9].ljust(9, b"!")))
    assert load_corpus([path]) == expected


def test_a_fifo_in_place_of_a_cache_entry_never_blocks(tmp_path):
    path = write_list(tmp_path)
    expected = load_corpus([path])
    (entry,) = cache_files()
    entry.unlink()
    os.mkfifo(entry)
    assert load_corpus([path]) == expected  # would wait forever if the entry were opened to read


def test_the_cache_keeps_a_bounded_number_of_entries(tmp_path, monkeypatch):
    monkeypatch.setattr(parsed, "KEPT_ENTRIES", 3)
    lists = [write_list(tmp_path, name=f"list{n}.json") for n in range(5)]
    for number, path in enumerate(lists):
        load_corpus([path])
        for entry in cache_files():
            if entry.stat().st_mtime > 1e9:  # the one just written: give each a distinct, ordered time
                os.utime(entry, (number, number))
    assert len(cache_files()) == 3
    calls = parses_counted(monkeypatch)
    for path in lists[2:]:
        load_corpus([path])
    assert calls == []  # the three written last are kept
    load_corpus([lists[0]])
    assert calls == [1]


def test_the_entries_of_the_json_cache_before_are_removed(tmp_path):
    folder = paths.cache_dir() / parsed.CACHE_FOLDER
    folder.mkdir(parents=True)
    (folder / "0123456789abcdef0123.json").write_text('{"papers": []}')
    load_corpus([write_list(tmp_path)])
    assert [entry.suffix for entry in folder.iterdir()] == [".bin"]


def test_lists_read_from_the_cache_are_merged_reading_only_the_abstracts_that_may_be_equal(tmp_path, monkeypatch):
    """A start after one list changed merges the others from their entries, whose abstracts stay on
    disk (at 100,000 papers, reading them all back for the merge took a second of the start)."""
    text = "We study graphs and the transformers that read them, with a proof that depth helps. " * 2
    one = write_list(tmp_path, [dict(RECORDS[0], abstract=text), *RECORDS[1:]], name="one.json")
    other = write_list(tmp_path, [dict(RECORDS[0], id="x9", abstract=text.upper() + "  ")], name="other.json")
    expected = load_corpus([one, other])
    assert [p.id for p in expected.papers] == ["p1", "p2"]  # the same abstract: one paper, in both lists
    reads = []
    real_text = kept.KeptAbstracts.text
    monkeypatch.setattr(kept.KeptAbstracts, "text", lambda *args: reads.append(1) or real_text(*args))
    again = load_corpus([one, other])
    assert [(p.id, p.also_in) for p in again.papers] == [(p.id, p.also_in) for p in expected.papers]
    assert len(reads) == 2  # only the two abstracts whose ends agree, compared whole


def test_a_list_added_to_the_library_is_parsed_once(tmp_path, monkeypatch):
    """`add` checks the list by parsing it; the library's load of the copy reads that parse instead of
    parsing the same bytes again (at 100,000 papers, 2.7 s of CPU), and gets what a parse would give."""
    from search.corpus.library import Library

    library = Library(tmp_path / "lists")
    (tmp_path / "mine").mkdir()
    calls = parses_counted(monkeypatch)
    added = library.add(write_list(tmp_path / "mine"))
    loaded = load_corpus(library.files())
    assert len(calls) == 1
    assert {p.source for p in loaded.papers} == {str(added.path)}
    for entry in cache_files():
        entry.unlink()
    assert load_corpus(library.files()) == loaded
    assert len(calls) == 2


def test_a_parse_is_not_kept_for_a_file_changed_since_it_was_written(tmp_path):
    path = write_list(tmp_path)
    written = os.stat(path)
    checked = loader._parse(path)
    write_list(tmp_path, [dict(RECORDS[0], title="Planted"), *RECORDS[1:]])
    parsed.keep_written(path, loader.MAX_CORPUS_BYTES, checked, written)
    assert cache_files() == []
    assert load_corpus([path]).papers[0].title == "Planted"


def test_a_lists_entry_is_written_without_making_its_papers_facts_and_reads_back_the_same(tmp_path, monkeypatch):
    """Writing a list's entry made every paper's reviews, people and BibTeX entry (three quarters of
    what a cold start's other process spent on the entries it wrote); they are kept as the record's
    raw fields and made, the same, when a paper's facts are first read."""
    from search.corpus.formats import facts
    from tests.search.test_paper_facts import OLD_STYLE, RATED

    odd = {**RATED, "id": "r2", "bibtex": ["not", "text"], "tldr": None, "aff": "Ümlaut\u202e U;;"}
    records = [RATED, OLD_STYLE, odd, {**RATED, "id": "r3", "bibtex": "  @misc{x,\n title={Y}}  "}]
    path = write_list(tmp_path, records)
    made: list[int] = []
    real_read = facts.read
    monkeypatch.setattr(facts, "read", lambda *args: made.append(1) or real_read(*args))
    fresh = load_corpus([path]).papers  # parsed, its entry written
    assert made == [] and len(cache_files()) == 1
    monkeypatch.setattr(loader, "parse", lambda *_: pytest.fail("the unchanged file was parsed again"))
    again = load_corpus([path]).papers
    assert made == []  # read back, still not made
    assert list(again) == list(fresh)
    assert [tuple(paper.facts) for paper in again] == [tuple(paper.facts) for paper in fresh]
    assert again[0].facts.bibtex == "@inproceedings{\nlovelace2025rated,\ntitle={Rated}\n}"
    assert again[2].facts.bibtex is None and again[3].facts.bibtex == "@misc{x,\n title={Y}}"
    assert [paper.facts.tldr for paper in again] == ["Scores, read.", None, None, "Scores, read."]
