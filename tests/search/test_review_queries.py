"""The query language's review, citation, year, people and institution fields: counts equal those
computed from the list files themselves, sorting by rating gives descending means, and a field
the language does not know, or a value no paper has, says so."""

from __future__ import annotations

import json
import re

import pytest

from search import Marks, SearchEngine, SearchRequest, load_corpus
from search.query.facets import Range, range_of, split_facets

LISTS = ("iclr2017", "iclr2018", "colm2025", "nips2018")


@pytest.fixture(scope="module")
def lists(paperlist_files, tmp_path_factory):
    files = [path for path in paperlist_files if path.stem in LISTS]
    engine = SearchEngine(load_corpus(files), tmp_path_factory.mktemp("review-cache"))
    engine.ensure_index()
    by_id = {}
    for path in files:
        for record in json.loads(path.read_text(encoding="utf-8")):
            abstract = (record.get("abstract") or "").strip()
            if abstract and abstract != "abstract" and record.get("title") != "title":
                by_id[record["id"]] = {**record, "_year": int(path.stem[-4:]), "_list": path.stem}
    # A paper in two lists is one paper, with what either list says (the first list's where both do).
    for alias, kept in engine.aliases.items():
        other = by_id.pop(alias)
        by_id[kept].update({key: value for key, value in other.items() if not by_id[kept].get(key)})
    records = list(by_id.values())
    assert len(engine.papers) == len(records)
    yield engine, records
    engine.close()


def mean_rating(record) -> float | None:
    value = record.get("rating_avg")
    mean = value[0] if isinstance(value, list) else value
    return mean or None


def total(engine, query: str) -> int:
    return engine.search(SearchRequest(query, limit=5)).total


@pytest.mark.slow
def test_number_fields_count_what_the_files_say(lists):
    engine, records = lists
    ratings = [mean_rating(r) for r in records]
    assert total(engine, "rating:>=7") == sum(1 for m in ratings if m is not None and m >= 7) > 0
    assert total(engine, "rating:5..7") == sum(1 for m in ratings if m is not None and 5 <= m <= 7) > 0
    assert total(engine, "rating:6") == sum(1 for m in ratings if m is not None and 6 <= m < 7) > 0
    assert total(engine, "-rating:>=7") == len(records) - total(engine, "rating:>=7")
    cites = [r.get("gs_citation") for r in records]
    assert total(engine, "citations:>100") == sum(1 for c in cites if isinstance(c, int) and c > 100) > 0
    assert total(engine, "year:2018") == sum(1 for r in records if r["_year"] == 2018) > 0
    assert total(engine, "year:2017..2018") == sum(1 for r in records if 2017 <= r["_year"] <= 2018)
    sure = [r.get("confidence_avg") for r in records]
    sure = [(s[0] if isinstance(s, list) else s) or None for s in sure]
    assert total(engine, "confidence:>=4") == sum(1 for s in sure if s is not None and s >= 4) > 0


@pytest.mark.slow
def test_people_institutions_and_countries_count_what_the_files_say(lists):
    engine, records = lists

    def authors(record):
        return [name.strip() for name in (record.get("author") or "").split(";")]

    def listed(record, key):
        return [value.strip() for value in (record.get(key) or "").split(";")]

    welling = sum(1 for r in records if "Max Welling" in authors(r))
    assert total(engine, 'author:"Max Welling"') == welling > 0
    assert total(engine, 'author:"max welling"') == welling  # case folded
    cambridge = sum(1 for r in records if "University of Cambridge" in listed(r, "aff_unique_norm"))
    assert total(engine, 'inst:"University of Cambridge"') == cambridge > 0
    states = sum(1 for r in records if "United States" in listed(r, "aff_country_unique"))
    assert total(engine, 'country:"United States"') == states == total(engine, "country:usa")
    upenn = sum(1 for r in records if "UPenn" in listed(r, "aff_unique_abbr"))
    assert total(engine, "inst:upenn") >= upenn > 0


@pytest.mark.slow
def test_sort_by_rating_gives_descending_means_and_by_citations_most_first(lists):
    engine, records = lists
    result = engine.search(SearchRequest("sort:rating list:iclr2018", limit=2000))
    means = [engine.paper(hit.paper_id).rating for hit in result.hits]
    rated = [m for m in means if m is not None]
    assert rated == sorted(rated, reverse=True) and means[: len(rated)] == rated  # unrated last
    expected = sorted(
        (mean_rating(r) for r in records if r["_year"] == 2018 and "rating" in r), key=lambda m: -(m or 0)
    )
    assert rated == [m for m in expected if m is not None]
    result = engine.search(SearchRequest("graph sort:citations", limit=50))
    counts = [engine.paper(hit.paper_id).citations or 0 for hit in result.hits]
    assert counts == sorted(counts, reverse=True) and counts[0] > 100


def test_ranges_read_as_typed():
    assert range_of("rating", ">=6") == Range("rating", 6.0, None)
    assert range_of("rating", ">6") == Range("rating", 6.0, None, low_included=False)
    assert range_of("rating", "5..7") == Range("rating", 5.0, 7.0)
    assert range_of("rating", "6") == Range("rating", 6.0, 7.0, high_included=False)
    assert range_of("year", "2019") == Range("year", 2019.0, 2019.0)
    assert range_of("year", "..2019") == Range("year", None, 2019.0)
    assert range_of("rating", "abc") is None and range_of("rating", "..") is None
    words, facets = split_facets('diffusion year:2019 author:"Max Welling" -inst:mit')
    assert words == "diffusion"
    assert facets.values == (("author", "Max Welling", False), ("inst", "mit", True))


RECORDS = [
    {
        "id": "a",
        "title": "Diffusion one",
        "abstract": "Diffusion models for images.",
        "year": 2019,
        "rating": "6;7",
        "author": "A B",
    },
    {"id": "b", "title": "Diffusion two", "abstract": "Diffusion models for text.", "year": 2020},
    {"id": "c", "title": "Graphs", "abstract": "Graph networks for molecules.", "year": 2019},
]


@pytest.fixture
def small(tmp_path):
    path = tmp_path / "conf2020.json"
    path.write_text(json.dumps(RECORDS), encoding="utf-8")
    engine = SearchEngine(load_corpus([path]), tmp_path / "cache")
    yield engine
    engine.close()


def test_year_with_words_filters_instead_of_searching_the_year(small):
    result = small.search("year:2019 diffusion")
    assert [hit.paper_id for hit in result.hits] == ["a"] and result.total == 1
    assert small.search("rating:>=6").total == 1 and small.search("sort:rating").hits[0].paper_id == "a"


def test_an_unknown_field_name_gives_a_hint_listing_the_fields(small):
    result = small.search("foo:bar diffusion")
    assert result.notice and "foo: is not a field" in result.notice and "rating:" in result.notice
    assert small.search("Diffusion: models for images").notice is None  # a colon in pasted text


def test_values_no_paper_has_and_fields_no_list_has_say_so(small):
    assert "no loaded list has institutions" in (small.search("inst:mit").notice or "")
    assert "no loaded paper is in that range (loaded: 2019 to 2020)" in (small.search("year:2018").notice or "")
    assert "not a number or a range" in (small.search("rating:high").notice or "")
    assert "no loaded paper has that author" in (small.search("author:nobody").notice or "")


def test_tags_and_notes_are_the_users_bookmarks(small):
    marks = Marks(frozenset({"a", "b"}), notes=(("a", "read for the reading group", ()), ("b", "", ("todo",))))
    assert [h.paper_id for h in small.search(SearchRequest("tag:todo", marks=marks)).hits] == ["b"]
    assert [h.paper_id for h in small.search(SearchRequest("tag:TODO", marks=marks)).hits] == ["b"]
    assert [h.paper_id for h in small.search(SearchRequest('note:"reading group"', marks=marks)).hits] == ["a"]
    assert small.search(SearchRequest("tag:none", marks=marks)).total == 0


def test_the_tldr_is_searched_as_words(tmp_path):
    records = [
        {"id": "t", "title": "Plain title", "abstract": "We study graphs.", "tldr": "Prototypes beat matching."},
        {"id": "u", "title": "Other", "abstract": "We study trees."},
    ]
    path = tmp_path / "conf2020.json"
    path.write_text(json.dumps(records), encoding="utf-8")
    engine = SearchEngine(load_corpus([path]), tmp_path / "cache")
    engine.ensure_index()
    assert [hit.paper_id for hit in engine.search("prototypes").hits] == ["t"]
    engine.close()


def test_a_value_of_punctuation_only_finds_nothing(tmp_path):
    record = {"id": "m", "abstract": "Graphs.", "author": "A B", "aff": "MIT", "primary_area": "graphs"}
    path = tmp_path / "conf2020.json"
    path.write_text(json.dumps([record]), encoding="utf-8")
    engine = SearchEngine(load_corpus([path]), tmp_path / "cache")
    assert engine.search("inst:mit").total == 1
    for query in ('inst:"("', 'author:"."', "area:--"):
        assert engine.search(query).total == 0, query
    engine.close()


def institutions_of(record) -> list[str]:
    """Every institution and abbreviation a record's authors have, as words (what inst: reads)."""
    found = []
    for key in ("aff_unique_norm", "aff_unique_abbr"):
        for per_author in (record.get(key) or "").split(";"):
            found += [" ".join(re.sub(r"[\W_]+", " ", part.lower()).split()) for part in per_author.split("+")]
    return [name for name in found if name]


def with_institution(records, word: str) -> set[str]:
    return {r["id"] for r in records if any(word in name.split() for name in institutions_of(r))}


def ids(engine, query: str) -> set[str]:
    return {hit.paper_id for hit in engine.search(SearchRequest(query, limit=100_000)).hits}


@pytest.mark.slow
def test_filters_combine_with_or_not_and_parentheses_as_the_files_say(lists):
    engine, records = lists
    kept = {r["id"] for r in records if r["_list"] in ("iclr2018", "colm2025")}
    cambridge, oxford = with_institution(records, "cambridge"), with_institution(records, "oxford")
    found = engine.search("inst:cambridge OR inst:oxford (list:iclr2018 OR list:colm2025)")
    assert found.total == len((cambridge | oxford) & kept) > len(cambridge & kept) > 0 and not found.notice
    high = sum(1 for r in records if (mean_rating(r) or 0) >= 7)
    assert total(engine, "NOT rating:>=7") == len(records) - high and high > 0
    mit = with_institution(records, "mit") | with_institution(records, "stanford")
    learning = ids(engine, "learning")
    assert ids(engine, "learning (inst:mit OR inst:stanford)") == learning & mit and learning & mit
    assert ids(engine, "learning AND (inst:mit OR inst:stanford)") == learning & mit
    assert total(engine, "list:colm2025 AND NOT inst:mit") == len(
        {r["id"] for r in records if r["_list"] == "colm2025"} - with_institution(records, "mit")
    )


def test_filters_joined_by_operators_on_a_small_list(small):
    assert {h.paper_id for h in small.search("year:2020 OR rating:>=6").hits} == {"a", "b"}
    assert {h.paper_id for h in small.search("NOT year:2019").hits} == {"b"}
    assert [h.paper_id for h in small.search("diffusion NOT (year:2020 OR rating:>=7)").hits] == ["a"]
    mixed = small.search("diffusion OR year:2020")
    assert mixed.notice and "OR joins filters with filters or words with words; read as AND" in mixed.notice
    assert [h.paper_id for h in mixed.hits] == ["b"]


def test_sorting_by_a_number_no_list_has_says_so(tmp_path):
    records = [
        {"id": "p", "title": "Diffusion one", "abstract": "Diffusion models for images."},
        {"id": "q", "title": "Graphs", "abstract": "Graph diffusion for text."},
    ]
    path = tmp_path / "plain.json"
    path.write_text(json.dumps(records), encoding="utf-8")
    engine = SearchEngine(load_corpus([path]), tmp_path / "cache")
    with_words = engine.search("diffusion sort:rating")
    assert with_words.notice == "no loaded list has ratings: sorted by relevance"
    assert [hit.paper_id for hit in with_words.hits] == [hit.paper_id for hit in engine.search("diffusion").hits]
    alone = engine.search("sort:citations")
    assert alone.notice == "no loaded list has citations: listed in corpus order" and alone.total == 2
    engine.close()


def test_a_range_from_high_to_low_is_read_the_other_way_and_said(small):
    result = small.search("rating:7..5")
    assert result.notice == "rating:7..5: a range from high to low, read as rating:5..7"
    assert [hit.paper_id for hit in result.hits] == ["a"]


def test_tags_and_notes_the_user_does_not_have_say_so(small):
    assert small.search("tag:todo").notice == "you have no tags yet: tag: finds nothing (t on a paper adds one)"
    assert small.search("note:idea").notice == "you have no notes yet: note: finds nothing (n on a paper writes one)"
    marks = Marks(frozenset({"a"}), notes=(("a", "", ("later", "maybe")),))
    assert small.search(SearchRequest("tag:todo", marks=marks)).notice == (
        "tag:todo: none of your bookmarks has that tag (yours: later, maybe)"
    )


def test_an_explicit_and_between_filters_of_one_field_wants_both(tmp_path):
    """Side by side, values of one field are alternatives (`list:a list:b`); joined by AND, each must
    hold: `inst:mit AND inst:stanford` is the papers with authors at both."""
    records = [
        {"id": "x", "title": "X", "abstract": "Graphs one.", "author": "A B", "aff": "MIT", "rating": "8;8"},
        {"id": "y", "title": "Y", "abstract": "Graphs two.", "author": "C D", "aff": "Stanford University"},
        {"id": "z", "title": "Z", "abstract": "Graphs both.", "author": "A B;C D", "aff": "MIT;Stanford University"},
    ]
    path = tmp_path / "conf2020.json"
    path.write_text(json.dumps(records), encoding="utf-8")
    engine = SearchEngine(load_corpus([path]), tmp_path / "cache")
    assert ids(engine, "inst:mit AND inst:stanford") == {"z"}
    assert ids(engine, "graphs inst:mit AND inst:stanford") == {"z"}
    assert ids(engine, "inst:mit AND (inst:stanford OR inst:nowhere)") == {"z"}
    assert ids(engine, "inst:mit inst:stanford") == {"x", "y", "z"}  # side by side: either, as documented
    assert ids(engine, "inst:mit OR inst:stanford") == {"x", "y", "z"}
    engine.close()


@pytest.mark.parametrize("operator", ["OR", "AND", "NOT"])
def test_an_operator_still_being_typed_after_a_filter_keeps_the_filter(small, operator):
    """`rating:>=6 OR` is on screen on the way to `rating:>=6 OR year:2019`: the filter's papers, not
    nothing."""
    found = small.search(f"rating:>=6 {operator}")
    assert [hit.paper_id for hit in found.hits] == [hit.paper_id for hit in small.search("rating:>=6").hits]
    assert found.total == 1
