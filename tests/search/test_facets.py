"""Facets in the query: filters by list, venue, status, code, bookmarks and read marks, and sort."""

import pytest

from search.models import Marks, SearchRequest
from search.query.facets import split_facets, toggle


@pytest.fixture
def engine(engine_over):
    return engine_over(
        {
            "iclr2024.json": [
                {
                    "id": "a",
                    "title": "Zebra Graphs",
                    "abstract": "Graph learning for zebras.",
                    "status": "Oral",
                    "github": "https://github.com/a/a",
                },
                {"id": "b", "title": "Apple Graphs", "abstract": "Graph learning for apples.", "status": "Poster"},
                {
                    "id": "c",
                    "title": "Mango Trees",
                    "abstract": "Trees, not networks, at all.",
                    "status": "Accept (spotlight)",
                },
            ],
            "nips2023.json": [
                {
                    "id": "d",
                    "title": "Banana Graphs",
                    "abstract": "Graph learning for bananas. Code: https://github.com/d/d",
                },
            ],
        }
    )


def ids(result):
    return [hit.paper_id for hit in result.hits]


def test_list_and_venue_filters(engine):
    assert engine.lists == ["iclr2024", "nips2023"]
    assert sorted(ids(engine.search("graph list:nips2023"))) == ["d"]
    assert sorted(ids(engine.search("graph -list:nips2023"))) == ["a", "b"]
    assert sorted(ids(engine.search("graph venue:neurips"))) == ["d"]
    assert sorted(ids(engine.search("list:iclr2024 list:nips2023 banana"))) == ["d"]  # one facet's values: either
    result = engine.search("graph list:nope")
    assert result.total == 0 and "no list named 'nope'" in result.notice


def test_status_code_and_marks(engine):
    assert ids(engine.search("status:oral")) == ["a"]
    assert ids(engine.search("status:spotlight")) == ["c"]
    assert sorted(ids(engine.search("graph has:code"))) == ["a", "d"]  # a record's github, or a link in the abstract
    assert sorted(ids(engine.search("graph -has:code"))) == ["b"]
    marks = Marks(bookmarked=frozenset({"b"}), opened=frozenset({"a", "b"}))
    assert ids(engine.search(SearchRequest("is:bookmarked", marks=marks))) == ["b"]
    assert ids(engine.search(SearchRequest("graph is:unread", marks=marks))) == ["d"]
    assert sorted(ids(engine.search(SearchRequest("graph is:read", marks=marks)))) == ["a", "b"]


def test_facets_alone_list_in_corpus_order_and_sort_orders(engine):
    result = engine.search("list:iclr2024")
    assert ids(result) == ["a", "b", "c"] and result.total == 3
    assert ids(engine.search("graph sort:name")) == ["b", "d", "a"]  # Apple, Banana, Zebra
    assert ids(engine.search("graph sort:order")) == ["a", "b", "d"]
    assert ids(engine.search("sort:name")) == ["b", "d", "c", "a"]


def test_unknown_facet_values_are_explained_and_match_nothing_beside_words_as_alone(engine):
    """has:tests alone matched nothing, beside words it was left out (3 papers): now the same both
    ways, as with a value no paper has."""
    for query in ("has:tests", "graph has:tests"):
        result = engine.search(query)
        assert result.total == 0 and result.notice == "has:tests (try has:code)", query
    # A status no loaded paper has is a filter that lets nothing through, like list:nope.
    result = engine.search("graph status:workshop")
    assert result.total == 0
    assert "status:workshop: no paper has that status (loaded: oral, poster, spotlight)" in result.notice


def test_corrected_query_keeps_its_facets(engine):
    result = engine.search("bananna list:nips2023")
    assert ids(result) == ["d"] and result.corrected == "banana list:nips2023"


def test_split_and_toggle():
    assert split_facets('graph "list:x" has:code sort:name')[0] == 'graph "list:x"'
    assert toggle("graph", "has:code") == "graph has:code"
    assert toggle("graph has:code", "has:code") == "graph"
    assert toggle("graph sort:name", "sort:order") == "graph sort:order"
    assert toggle("graph list:a", "list:b") == "graph list:b"


def test_a_facet_typed_after_a_word_finishes_that_word(seed_engine):
    assert seed_engine.search(SearchRequest("is:read bitst", partial=True)).total == 0  # nothing read yet
    # Still typing "bitst": BitStack; then "bitst" was finished: no such word.
    assert seed_engine.search(SearchRequest("-is:read bitst", partial=True)).total == 1
    assert seed_engine.search(SearchRequest("bitst -is:read", partial=True)).total == 0
