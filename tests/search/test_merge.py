"""One paper, one row: the same paper in two lists (same OpenReview forum, arXiv id or abstract) is
shown once, keeps every list it is in, is indexed once and is found by any of its ids."""

import json
import random
import sys

import pytest

from search.corpus.formats import common
from search.corpus.formats.common import openreview_forum
from search.corpus.library import Library
from search.corpus.loader import load_corpus
from search.corpus.merge import MIN_ABSTRACT_CHARS, Merged, _combined, abstract_ends, merge, unspaced
from search.engine import SearchEngine
from search.models import Marks, Paper, SearchRequest
from search.text.describe import describe, primary_link

FILLER = (
    "We study problem number {n} in depth and report how a simple baseline compares with recent methods "
    "on several benchmarks of varying size, with ablations."
)


def write(path, records):
    path.write_text(json.dumps(records), encoding="utf-8")
    return path


def bundled_records() -> list[dict]:
    """The 38 bundled papers as a downloaded full iclr2025 list has them (paperlists records): the
    forum id as id and in site, the abstract with other line breaks; papers without a forum id have
    a record id of their own (they match by abstract)."""
    records = []
    for number, paper in enumerate(load_corpus().papers):
        forum = paper.site.rsplit("=", 1)[1] if paper.site else None
        record = {
            "id": forum or f"rec{number}",
            "title": paper.title,
            "abstract": " ".join(paper.abstract.split()),
            "author": ";".join(paper.authors),
            "status": "Poster",
            "track": "main",
            "site": f"https://openreview.net/forum?id={forum}" if forum else "",
        }
        records.append(record)
    return records


def others(count: int) -> list[dict]:
    return [
        {"id": f"other{n}", "title": f"Other paper {n}", "abstract": FILLER.format(n=n), "author": "A B;C D"}
        for n in range(count)
    ]


def test_the_bundled_list_inside_a_full_library_list_is_found_in_both_not_twice(tmp_path):
    bundled = load_corpus().papers
    full = write(tmp_path / "iclr2025.json", [*others(50), *bundled_records(), *others(100)[50:]])
    Library().add(full, name="iclr2025-all")
    engine = SearchEngine.from_paths()
    assert len(engine.papers) == 138 and engine.corpus.duplicates == 38
    assert [paper.id for paper in engine.papers[:38]] == [paper.id for paper in bundled]  # ids stay the bundled ones
    assert [paper.position for paper in engine.papers] == list(range(138))
    engine.ensure_index()
    assert engine.search(SearchRequest("list:iclr2025", limit=500)).total == 38
    assert engine.search(SearchRequest("list:iclr2025-all", limit=500)).total == 138
    assert engine.search(SearchRequest("-list:iclr2025-all", limit=500)).total == 0
    assert engine.lists == ["iclr2025", "iclr2025-all"]
    assert engine.list_counts() == {"iclr2025": 38, "iclr2025-all": 138}
    assert engine.lists_of(bundled[0].id) == ("iclr2025", "iclr2025-all")
    assert engine.search("bitstack").total == 1
    opened = engine._index.opened  # every shard together holds each paper exactly once
    assert opened is not None and sum(ix.doc_count() for ix in opened.indexes) == 138
    assert len(opened.rows) == 138


def test_either_id_finds_the_merged_paper(tmp_path):
    bundled = load_corpus().papers
    full = write(tmp_path / "full.json", bundled_records())
    engine = SearchEngine(load_corpus([*dict.fromkeys(p.source for p in bundled), full]), tmp_path / "cache")
    bitstack = next(paper for paper in bundled if paper.title and paper.title.startswith("BitStack"))
    assert engine.paper("lBntjGbyv0") is engine.paper(bitstack.id)  # the full list's id is an alias
    assert engine.canonical("lBntjGbyv0") == bitstack.id and engine.corpus.aliases["lBntjGbyv0"] == bitstack.id
    assert engine.paper("rec9").title.startswith("Basis Sharing")  # matched by its abstract
    assert engine.describe("lBntjGbyv0").paper.id == bitstack.id
    engine.ensure_index()
    marks = Marks(bookmarked=frozenset({"lBntjGbyv0"}), opened=frozenset({"lBntjGbyv0"}))
    assert [hit.paper_id for hit in engine.search(SearchRequest("is:bookmarked", marks=marks)).hits] == [bitstack.id]
    assert bitstack.id not in {
        hit.paper_id for hit in engine.search(SearchRequest("is:unread", limit=100, marks=marks)).hits
    }
    related = engine.related("lBntjGbyv0")
    assert related and bitstack.id not in {hit.paper_id for hit in related}
    assert engine.search("related:lBntjGbyv0").total > 0


def test_the_richer_record_wins_and_fills_nothing_it_lacks(tmp_path):
    abstract = FILLER.format(n="X")
    poor = {"id": "p1", "abstract": abstract, "title": "Short Title", "arxiv": "2401.00001"}
    rich = {
        "id": "r1",
        "abstract": "  " + abstract.replace(" ", "\n", 3).upper(),
        "title": "The Full Title",
        "author": "Ada Lovelace;Alan Turing",
        "keywords": "graphs;trees",
        "status": "Oral",
        "site": "https://openreview.net/forum?id=R1",
        "github": "https://github.com/a/b",
    }
    corpus = load_corpus([write(tmp_path / "a.json", [poor]), write(tmp_path / "b.json", [rich])])
    (paper,) = corpus.papers
    assert (paper.id, paper.source, paper.also_in) == ("p1", str(tmp_path / "a.json"), (str(tmp_path / "b.json"),))
    assert (paper.title, paper.authors, paper.status) == ("The Full Title", ("Ada Lovelace", "Alan Turing"), "Oral")
    assert paper.abstract == rich["abstract"].strip()
    assert paper.arxiv == "2401.00001"  # only the poorer record had it
    assert corpus.aliases == {"r1": "p1"} and corpus.duplicates == 1
    links = describe(paper).links
    assert primary_link(links).url == "https://openreview.net/forum?id=R1"
    assert {link.kind for link in links} >= {"paper", "code", "arxiv"}


def test_an_arxiv_preprint_and_its_openreview_note_are_one_paper(tmp_path):
    abstract = FILLER.format(n="preprint")
    preprint = {
        "id": "2402.12345v2",
        "title": "A Preprint",
        "abstract": abstract,
        "site": "http://arxiv.org/abs/2402.12345v2",
    }
    note = {
        "id": "OR1",
        "forum": "OR1",
        "content": {
            "title": {"value": "A Preprint"},
            "abstract": {"value": abstract.replace(". ", ".\n")},
            "authors": {"value": ["Ada Lovelace"]},
            "venue": {"value": "ICLR 2025 Oral"},
        },
    }
    corpus = load_corpus(
        [write(tmp_path / "arxiv.json", [preprint]), write(tmp_path / "notes.json", {"notes": [note]})]
    )
    (paper,) = corpus.papers
    assert (paper.status, paper.venue, paper.arxiv) == ("Oral", "ICLR 2025", "2402.12345")
    assert paper.id == "2402.12345v2" and corpus.aliases == {"OR1": "2402.12345v2"}
    assert primary_link(describe(paper).links).url == "https://openreview.net/forum?id=OR1"


def test_the_same_forum_or_arxiv_id_merges_even_when_the_abstracts_differ(tmp_path):
    first = [
        {"id": "a", "abstract": "First version of the abstract.", "site": "https://openreview.net/forum?id=F1"},
        {"id": "b", "abstract": "A preprint, first version.", "arxiv": "arXiv:2403.00001v1"},
    ]
    second = [
        {"id": "F1", "abstract": "Revised abstract.", "pdf": "https://openreview.net/pdf?id=F1"},
        {"id": "c", "abstract": "A preprint, revised.", "site": "https://arxiv.org/abs/2403.00001v3"},
    ]
    corpus = load_corpus([write(tmp_path / "one.json", first), write(tmp_path / "two.json", second)])
    assert [paper.id for paper in corpus.papers] == ["a", "b"]
    assert corpus.aliases == {"F1": "a", "c": "b"}


def test_what_is_not_the_same_paper(tmp_path):
    placeholder = [{"id": "x", "abstract": "part of"}]
    twice = [{"id": "y1", "abstract": FILLER.format(n=1)}, {"id": "y2", "abstract": FILLER.format(n=1)}]
    corpus = load_corpus(
        [write(tmp_path / "a.json", placeholder), write(tmp_path / "b.json", [{"id": "z", "abstract": "part of"}])]
    )
    assert len(corpus.papers) == 2 and not corpus.aliases  # a placeholder abstract says nothing
    corpus = load_corpus([write(tmp_path / "twice.json", twice)])
    assert len(corpus.papers) == 2  # one list is taken as it is: only the same id is the same paper there
    corpus = load_corpus([write(tmp_path / "c.json", others(3)), write(tmp_path / "d.json", others(6)[3:])])
    assert len(corpus.papers) == 6 and corpus.duplicates == 0


def test_a_list_whose_papers_all_merged_is_still_a_list(tmp_path):
    bundled = load_corpus().papers
    copy = write(tmp_path / "copy.json", bundled_records())
    engine = SearchEngine(load_corpus([*dict.fromkeys(p.source for p in bundled), copy]), tmp_path / "cache")
    status = engine.ensure_index()
    assert len(engine.papers) == 38 and len(status.paths) == 2  # no shard for a file with no papers of its own
    assert "copy" in engine.lists and engine.list_counts()["copy"] == 38
    assert engine.search(SearchRequest("list:copy", limit=100)).total == 38 and not engine.search("list:copy").notice


def test_shards_keep_a_stable_content_hash_and_see_merged_code_links(tmp_path):
    bundled = load_corpus().papers
    cache = tmp_path / "cache"
    sources = list(dict.fromkeys(p.source for p in bundled))
    drop = next(paper for paper in bundled if paper.title and paper.title.startswith("Drop-Upcycling"))
    assert not SearchEngine(load_corpus(sources), cache).row(drop.id).has_code
    SearchEngine(load_corpus(sources), cache).ensure_index()  # the bundled list alone: no code link
    records = bundled_records()
    for record in records:
        if record["id"] == "gx1wHnf5Vp":  # Drop-Upcycling, richer in the full list, with its code
            record["github"] = "https://github.com/Taishi-N324/Drop-Upcycling"  # no other hashed field differs
    full = write(tmp_path / "full.json", records + others(5))
    engine = SearchEngine(load_corpus([*sources, full]), cache)
    status = engine.ensure_index()
    assert status.built and engine.row(drop.id).has_code
    assert drop.id in {hit.paper_id for hit in engine.search(SearchRequest("has:code", limit=100)).hits}
    again = SearchEngine(load_corpus([*sources, full]), cache).ensure_index()
    assert not again.built and again.paths == status.paths


def test_merge_keeps_corpus_order_and_counts():
    papers = [
        Paper(id="1", abstract=FILLER.format(n=1), source="a"),
        Paper(id="2", abstract=FILLER.format(n=2), source="a"),
        Paper(id="3", abstract=FILLER.format(n=1).upper(), source="b", title="T"),
        Paper(id="1", abstract="Same id, other file.", source="c"),
    ]
    merged = merge(papers)
    assert [paper.id for paper in merged.papers] == ["1", "2"]
    assert merged.papers[0].title == "T" and merged.papers[0].also_in == ("b", "c")
    assert merged.aliases == {"3": "1"} and merged.duplicates == 2


# -- any list merges in linear time (issue 34) ----------------------------------------------------

OPENING = "We study the problem of learning representations from data in a hostile setting, where " * 2


def calls_made(function, *args) -> int:
    """How many functions (Python's and built-in ones, generator steps included) a call makes: a count
    of work that does not depend on the machine's speed."""
    count = 0

    def profile(frame, event, arg):
        nonlocal count
        if event in ("call", "c_call"):
            count += 1

    sys.setprofile(profile)
    try:
        function(*args)
    finally:
        sys.setprofile(None)
    return count


def shared_openings(count: int) -> list[Paper]:
    """Distinct abstracts whose first 64+ characters are the same, half in each of two files (each
    paper the same as one in the other file)."""
    return [
        Paper(id=f"{source}{n}", abstract=f"{OPENING}variant {n} of it.", source=source)
        for source in ("a", "b")
        for n in range(count // 2)
    ]


def one_abstract_many_times(count: int) -> list[Paper]:
    """One abstract under many ids in each of two files: each copy pairs with one in the other file."""
    return [
        Paper(id=f"{source}{n}", abstract=f"{OPENING} one text.", source=source)
        for source in ("a", "b")
        for n in range(count // 2)
    ]


def one_forum_for_many(count: int) -> list[Paper]:
    """One id repeated in one file, then papers of another file all naming that paper's forum."""
    site = "https://openreview.net/forum?id=F"
    return [Paper(id="same", abstract=f"Text {n}.", source="a", site=site) for n in range(count // 2)] + [
        Paper(id=f"b{n}", abstract=f"Other {n}.", source="b", site=site) for n in range(count // 2)
    ]


@pytest.mark.parametrize("papers", [shared_openings, one_abstract_many_times, one_forum_for_many])
def test_merging_grows_linearly_with_the_papers_whatever_they_share(papers):
    """1,000 / 2,000 / 4,000 papers sharing an abstract's opening took 0.27 / 0.93 / 3.73 s: each was
    compared with every earlier one. Four times the papers must cost about four times the work."""
    small, large = calls_made(merge, papers(400)), calls_made(merge, papers(1600))
    assert large <= 5 * small, f"{large / small:.1f} times the work for 4 times the papers"


def test_loading_two_lists_that_share_openings_grows_linearly(tmp_path):
    def load(count: int) -> int:
        half = [{"id": paper.id, "abstract": paper.abstract} for paper in shared_openings(count)]
        first = write(tmp_path / f"a{count}.json", half[: count // 2])
        second = write(tmp_path / f"b{count}.json", half[count // 2 :])
        return calls_made(load_corpus, [first, second])

    small, large = load(300), load(1200)
    assert large <= 5 * small, f"{large / small:.1f} times the work for 4 times the papers"


def merged_by_definition(papers: list[Paper]) -> Merged:
    """The merge rules done the obvious way: each paper looks at every earlier one."""
    across_files = len({paper.source for paper in papers}) > 1
    placed: list[tuple[Paper, int]] = []
    groups: list[list[Paper]] = []

    def folded(paper: Paper) -> str | None:
        text = " ".join(paper.abstract.split()).casefold()
        return text if len(text) >= MIN_ABSTRACT_CHARS else None

    def keys(paper: Paper) -> list[tuple[str, str]]:
        forum = next((openreview_forum(url) for url in (paper.site, paper.pdf) if url and "openreview" in url), None)
        return [*([("forum", forum)] if forum else []), *([("arxiv", paper.arxiv)] if paper.arxiv else [])]

    for paper in papers:
        target = next((group for other, group in placed if other.id == paper.id), None)
        if target is None and across_files:
            candidates = [
                next(group for other, group in placed if key in keys(other))
                for key in keys(paper)
                if any(key in keys(other) for other, _ in placed)
            ]
            text = folded(paper)
            candidates += [number for number, group in enumerate(groups) if text and folded(group[0]) == text]
            target = next((c for c in candidates if all(m.source != paper.source for m in groups[c])), None)
        if target is None:
            target = len(groups)
            groups.append([])
        groups[target].append(paper)
        placed.append((paper, target))
    aliases = {other.id: group[0].id for group in groups for other in group[1:] if other.id != group[0].id}
    kept = [group[0] if len(group) == 1 else _combined(group) for group in groups]
    return Merged(kept, aliases, len(papers) - len(groups))


def test_merge_is_its_definition_on_random_lists():
    """Ids, forums, arXiv ids and abstracts (case, spacing, short ones) drawn from a few values, so
    that papers match in every way, in one file or several."""
    rng = random.Random(34)
    texts = [f"{OPENING}variant {n}" for n in range(3)] + ["short", f"Another start. {OPENING}"]
    texts += [f"Strasse. {OPENING}lossless gross"]  # folds alike as Straße ... loßleß groß (ß folds to ss)
    for _ in range(600):
        papers = []
        for number in range(rng.randrange(1, 30)):
            text = rng.choice(texts)
            text = rng.choice(
                [text, text.upper(), text.replace(" ", "  \n "), " " * 150 + text, text.replace("ss", "ß")]
            )
            forum = rng.choice([None, None, "F1", "F2"])
            papers.append(
                Paper(
                    id=rng.choice(["x", "y", f"own{number}"]),
                    abstract=text,
                    source=rng.choice(["a", "b", "c"]) if rng.random() < 0.9 else "a",
                    site=f"https://openreview.net/forum?id={forum}" if forum else None,
                    pdf=rng.choice([None, "https://openreview.net/pdf?id=F2"]),
                    arxiv=rng.choice([None, None, "2401.00001", "2401.00002"]),
                    title=rng.choice([None, "T"]),
                    year=rng.choice([None, 2024]),
                )
            )
        expected = merged_by_definition(papers)
        assert merge(papers) == expected, papers
        assert merge(papers, [abstract_ends(paper.abstract) for paper in papers]) == expected, papers


def test_a_forum_address_is_read_in_linear_time_however_many_it_holds(monkeypatch):
    """A site field of thousands of "openreview.net/forum?" took seconds (a regular expression
    searched the rest of the text from each): the text is now read a bounded number of times."""
    scanned = 0

    class Counting:
        def __init__(self, pattern):
            self.pattern = pattern

        def finditer(self, text, start=0, end=sys.maxsize):
            nonlocal scanned
            scanned += min(end, len(text)) - start
            return self.pattern.finditer(text, start, end)

        def search(self, text, start=0):
            nonlocal scanned
            found = self.pattern.search(text, start)
            scanned += (found.end() if found else len(text)) - start
            return found

        def match(self, text, start=0):
            nonlocal scanned
            found = self.pattern.match(text, start)
            scanned += found.end() - start if found else 1
            return found

    for name in ("_FORUM_PAGE", "_FORUM_ID", "_LATER_FORUM_ID", "_QUERY_END"):
        monkeypatch.setattr(common, name, Counting(getattr(common, name)))
    text = "openreview.net/forum?" * 20_000
    assert openreview_forum(text) is None and scanned <= 4 * len(text)
    assert openreview_forum(text + "&id=Last") == "Last"


@pytest.mark.parametrize(
    "url, forum",
    [
        ("https://openreview.net/forum?id=abc_D-1", "abc_D-1"),
        ("https://openreview.net/pdf?id=X", "X"),
        ("https://OpenReview.net/forum/?noteId=1&id=Y#top", "Y"),
        ("https://openreview.net/forum?id=A&id=B", "B"),
        ("https://openreview.net/forum?id=A&id=%", "A"),
        ("https://openreview.net/forum?xid=A https://openreview.net/forum?id=B", "B"),
        ("https://openreview.net/forum?x=1#&id=A", None),
        ("https://openreview.net/forum?x=1 &id=A", None),
        ("https://openreview.net/forum", None),
    ],
)
def test_forum_ids_are_read_as_before(url, forum):
    assert openreview_forum(url) == forum


def test_each_authors_facts_stay_with_that_author_when_lists_order_them_differently(tmp_path):
    abstract = FILLER.format(n="people")
    first = {
        "id": "f1",
        "abstract": abstract,
        "author": "Ada Lovelace;Alan Turing;Grace Hopper",
        "authorids": "~Ada_Lovelace1;~Alan_Turing1;",
        "aff": "University of Cambridge;University of Manchester;Yale University",
        "position": "PhD student;Professor;",
    }
    second = {  # richer: its order of the authors is the merged paper's
        "id": "s1",
        "abstract": abstract,
        "title": "Engines",
        "status": "Poster",
        "keywords": "engines",
        "author": "Alan Turing;GRACE  HOPPER;Ada Lovelace",
        "authorids": "~Alan_Turing1;;~Ada_Lovelace1",
        "homepage": "https://turing.example;https://hopper.example;",
        "position": ";Rear Admiral;",
    }
    (paper,) = load_corpus([write(tmp_path / "a.json", [first]), write(tmp_path / "b.json", [second])]).papers
    assert paper.authors == ("Alan Turing", "GRACE HOPPER", "Ada Lovelace")
    facts = paper.facts
    assert facts.affiliations == ("University of Manchester", "Yale University", "University of Cambridge")
    assert facts.author_ids == ("~Alan_Turing1", "", "~Ada_Lovelace1")
    assert facts.homepages == ("https://turing.example", "https://hopper.example", "")
    assert facts.positions == ("Professor", "Rear Admiral", "PhD student")
    by_ids = dict(second, author="A. M. Turing;Grace Hopper;Ada Lovelace")  # another spelling, the same id
    (paper,) = load_corpus([write(tmp_path / "a.json", [first]), write(tmp_path / "b.json", [by_ids])]).papers
    assert paper.facts.affiliations == ("University of Manchester", "Yale University", "University of Cambridge")


def test_an_abstract_without_its_whitespace_is_the_same_by_the_quick_way():
    """abstract_ends drops whitespace without splitting when the space is the only kind in the text:
    every kind of whitespace Python knows, alone, among words or beside other unprintable
    characters, is removed exactly as `"".join(text.split())` removes it."""
    spaces = [chr(code) for code in range(0x110000) if chr(code).isspace()]
    texts = ["", " ", "plain words only", "a\u00e9 b\u00df  c", "zero\u200bwidth", "bell\x07 ring", "\ud800 lone"]
    texts += [f"one{space}two three{space}" for space in spaces] + ["".join(spaces), " ".join(spaces)]
    for text in texts:
        assert unspaced(text) == "".join(text.split()), repr(text)
