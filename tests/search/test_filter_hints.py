"""Filters that mean what they say, empty results that explain themselves, and the papers with
all the words: statuses come from the loaded lists, an unknown facet value is never searched as
words, a field or filter the loaded lists cannot answer says so, and a query of plain words
counts (and with match:all lists) the papers that have every word."""

import pytest

from search import AvailableFilters, SearchEngine
from search.corpus.loader import load_corpus
from search.models import SearchRequest
from search.query.facets import split_facets, toggle


@pytest.fixture
def engine(engine_over):
    return engine_over(
        {
            "iclr2018.json": [
                {"id": "r1", "title": "Rejected Graphs", "abstract": "Graph networks, reviewed.", "status": "Reject"},
                {"id": "r2", "title": "Rejected Trees", "abstract": "Decision trees, reviewed.", "status": "reject"},
                {
                    "id": "w1",
                    "title": "Workshop Graphs",
                    "abstract": "Graph sketches for a workshop.",
                    "status": "Workshop",
                },
                {
                    "id": "x1",
                    "title": "Withdrawn Work",
                    "abstract": "Neural networks, withdrawn.",
                    "status": "Withdraw",
                },
                {
                    "id": "p1",
                    "title": "Poster Graphs",
                    "abstract": "Graph neural networks that reject noise; best on pdf date starred sets.",
                    "status": "Poster",
                    "github": "https://github.com/p/p",
                },
                {"id": "o1", "title": "Oral Graphs", "abstract": "Graph neural networks at scale.", "status": "Oral"},
                {"id": "s1", "title": "Spot", "abstract": "Neural fields.", "status": "Accept (Spotlight)"},
                {"id": "d1", "title": "Desk", "abstract": "Out of scope.", "status": "Desk Reject"},
                {"id": "n1", "title": "Undecided", "abstract": "Graph networks, pending."},
            ],
        }
    )


@pytest.fixture
def bare(engine_over):
    """A list of abstracts only: no titles, authors, keywords, statuses or code links."""
    return engine_over(
        {"notes.json": [{"id": "a", "abstract": "Memory for graphs."}, {"id": "b", "abstract": "Smith's memory."}]}
    )


def ids(result):
    return sorted(hit.paper_id for hit in result.hits)


def ranked_ids(result):
    return [hit.paper_id for hit in result.hits]


# -- statuses from the data ----------------------------------------------------------------------


def test_any_status_the_lists_use_is_a_filter(engine):
    assert ids(engine.search("status:reject")) == ["r1", "r2"]  # "Reject" and "reject" alike
    assert ids(engine.search("status:Workshop")) == ["w1"]
    assert ids(engine.search("status:withdraw")) == ["x1"]
    assert ids(engine.search("status:spotlight")) == ["s1"]  # named inside "Accept (Spotlight)"
    assert ids(engine.search("graph status:reject")) == ["r1"]
    assert engine.search("status:reject").notice is None


def test_a_status_filter_is_not_a_word_search(engine):
    # p1's abstract has the word "reject" but the paper is a poster.
    assert "p1" not in ids(engine.search("status:reject"))
    assert "p1" in ids(engine.search("reject"))


def test_a_status_of_several_words_is_typed_with_hyphens_or_quotes(engine):
    assert ids(engine.search("status:desk-reject")) == ["d1"]
    assert ids(engine.search('status:"Desk Reject"')) == ["d1"]
    assert "d1" not in ids(engine.search("status:reject"))


def test_a_negated_status_leaves_those_papers_out(engine):
    assert ids(engine.search("graph -status:reject")) == ["n1", "o1", "p1", "w1"]
    assert ids(engine.search("-status:reject -status:desk-reject list:iclr2018")) == [
        "n1",
        "o1",
        "p1",
        "s1",
        "w1",
        "x1",
    ]


def test_an_unknown_status_finds_nothing_and_names_the_loaded_ones(engine):
    for query in ("status:best", "graph status:best"):
        result = engine.search(query)
        assert result.total == 0 and not result.hits  # p1's abstract says "best": never a word search
        assert result.notice == (
            "status:best: no paper has that status "
            "(loaded: desk-reject, oral, poster, reject, spotlight, withdraw, workshop)"
        )
    result = engine.search("status:oral status:best")  # one facet's values are alternatives
    assert ids(result) == ["o1"] and "status:best: no paper has that status" in result.notice


def test_unknown_values_of_other_facets_are_never_searched_as_words(engine):
    # p1's abstract holds every one of these words: a word search would find it.
    for query, hint in [
        ("has:pdf", "has:pdf (try has:code)"),
        ("is:starred", "is:starred (try is:bookmarked, is:unread, is:read)"),
    ]:
        for words in ("", "reviewed "):  # a filter not read matches nothing, beside words as alone
            result = engine.search(words + query)
            assert result.total == 0 and not result.hits and result.notice == hint, words + query
    every = [paper.id for paper in engine.papers]
    for query, hint in [
        ("sort:date", "sort:date (try sort:relevance, sort:order, sort:name, sort:rating, sort:citations, sort:year)"),
        ("match:some", "match:some (try match:any, match:all)"),
    ]:
        result = engine.search(query)  # an order not read is left out: every paper, as sort:relevance alone
        assert [hit.paper_id for hit in result.hits] == every[: len(result.hits)], query
        assert result.hits and result.total == len(every), query
        assert result.notice == hint, query
    result = engine.search("reviewed sort:date")  # the words are searched, the order only hinted at
    assert ids(result) == ["r1", "r2"] and "sort:date (try" in result.notice


def test_an_unknown_venue_says_which_there_are(engine):
    result = engine.search("graph venue:neurips")
    assert result.total == 0 and result.notice == "venue:neurips: no paper's venue has that (loaded: ICLR 2018)"
    assert engine.search("graph venue:iclr").notice is None


# -- lists that lack titles, authors, statuses -------------------------------------------------


def test_fields_and_filters_the_loaded_lists_lack_say_so(bare):
    for query, notice in [
        ("title:memory", "no loaded list has titles: title: finds nothing here"),
        ("author:smith", "no loaded list has authors: author: finds nothing here"),
        ("by:smith", "no loaded list has authors: by: finds nothing here"),
        ("keywords:memory", "no loaded list has keywords: keywords: finds nothing here"),
        ("status:oral", "no loaded list has statuses: status: finds nothing here"),
        ("has:code", "no loaded paper has a code link: has:code finds nothing here"),
        ("venue:iclr", "no loaded list names its venue: venue: finds nothing here"),
    ]:
        result = bare.search(query)
        assert result.total == 0 and result.notice == notice, query
    assert bare.search("memory").notice is None
    assert bare.search('"title: memory"').notice is None  # inside a phrase it is no field


def test_a_field_some_loaded_list_has_needs_no_notice(engine):
    result = engine.search("title:graphs")
    assert result.total == 4 and result.notice is None


def test_available_filters_are_what_the_loaded_papers_have(engine, bare):
    available = engine.available_filters()
    assert isinstance(available, AvailableFilters)
    assert available.papers == 9 and available.lists == (("iclr2018", 9),)
    assert available.statuses == (
        ("reject", 2),
        ("desk-reject", 1),
        ("oral", 1),
        ("poster", 1),
        ("spotlight", 1),
        ("withdraw", 1),
        ("workshop", 1),
    )
    assert (available.with_code, available.with_titles, available.with_authors) == (1, 9, 0)
    assert available.filters()[:3] == (("has:code", 1), ("status:reject", 2), ("status:desk-reject", 1))
    # Every token offered finds what it counts.
    for token, count in available.filters():
        assert engine.search(token).total == count, token
    nothing = bare.available_filters()
    assert nothing.statuses == () and nothing.filters() == ()
    assert (nothing.with_titles, nothing.with_authors, nothing.with_code) == (0, 0, 0)


def test_available_filters_before_the_index_is_open(tmp_path):
    path = tmp_path / "iclr2018.json"
    path.write_text('[{"id": "a", "abstract": "Graphs.", "status": "Reject"}]', encoding="utf-8")
    engine = SearchEngine(load_corpus([path]), tmp_path / "cache")
    available = engine.available_filters()
    assert not engine.ready  # nothing was built for it
    assert available.statuses == (("reject", 1),) and available.with_names is None


# -- all the words ---------------------------------------------------------------------------


@pytest.fixture
def words(engine_over):
    return engine_over(
        {
            "a.json": [
                {"id": "all1", "title": "Graph neural networks", "abstract": "A graph neural network for molecules."},
                {"id": "all2", "title": "Networks", "abstract": "Neural message passing on a graph network."},
                {"id": "two", "title": "Graph networks", "abstract": "Graph networks without the n-word."},
                {"id": "one", "title": "Neural fields", "abstract": "Neural fields for rendering."},
                {"id": "none", "title": "Trees", "abstract": "Decision trees."},
            ],
            "b.json": [
                {"id": "all3", "title": "Graph of neural networks", "abstract": "Neural networks over a graph."},
            ],
        }
    )


def test_plain_words_count_the_papers_with_all_of_them(words):
    result = words.search("graph neural network")
    assert ids(result) == ["all1", "all2", "all3", "one", "two"] and result.total == 5
    assert (result.all_words, result.any_words, result.match) == (3, 5, "any")


def test_match_all_lists_only_the_papers_with_every_word_still_ranked(words):
    every = words.search("graph neural network match:all")
    assert ids(every) == ["all1", "all2", "all3"]
    assert (every.total, every.all_words, every.any_words, every.match) == (3, 3, 5, "all")
    anywhere = ranked_ids(words.search("graph neural network"))
    assert ranked_ids(every) == [paper for paper in anywhere if paper in ids(every)]
    assert [hit.score for hit in every.hits] == sorted((hit.score for hit in every.hits), reverse=True)
    assert ids(words.search("graph AND neural AND network")) == ids(every)


def test_the_match_mode_is_a_search_parameter_the_query_overrides(words):
    assert ids(words.search(SearchRequest("graph neural network", match="all"))) == ["all1", "all2", "all3"]
    assert words.search(SearchRequest("graph neural network match:any", match="all")).total == 5
    with pytest.raises(ValueError, match="match must be one of any, all"):
        words.search(SearchRequest("graph", match="some"))


def test_the_all_words_count_holds_within_filters(words):
    result = words.search("graph neural network list:a")
    assert (result.total, result.all_words, result.any_words) == (4, 2, 4)
    assert ids(words.search("graph neural network list:b match:all")) == ["all3"]


def test_stop_words_do_not_count_as_words(words):
    assert words.search("graph of networks").all_words == words.search("graph networks").all_words == 4


def test_one_word_or_explicit_syntax_has_no_all_words_count(words):
    for query in ("graph", "graph AND neural", "graph OR neural", "graph NOT neural", "(graph neural)", "status:x"):
        assert words.search(query).all_words is None, query
    result = words.search("graph OR trees match:all")
    assert result.total == 5 and result.match == "any"
    assert "match:all: the query's own AND, OR, NOT or parentheses say what matches" in result.notice


def test_match_all_with_no_paper_having_every_word_says_how_many_have_some(words):
    result = words.search("trees rendering match:all")
    assert result.total == 0 and result.corrected is None
    assert result.notice == "no paper has every word; 2 have some (match:any)"


def test_the_word_being_typed_counts_as_its_completions(words):
    typing = words.search(SearchRequest("graph neural netw", partial=True))
    assert (typing.all_words, typing.any_words) == (3, 5)
    # A facet after the word being typed ends it.
    assert ids(words.search(SearchRequest("graph neural netw match:all", partial=True))) == []
    assert ids(words.search(SearchRequest("match:all graph neural netw", partial=True))) == ["all1", "all2", "all3"]


def test_match_facets_toggle_and_split():
    assert split_facets("graph match:all")[1].match == "all"
    assert split_facets("graph")[1].match is None
    assert toggle("graph match:all", "match:any") == "graph match:any"
    assert toggle("graph match:all", "match:all") == "graph"


# -- the real lists --------------------------------------------------------------------------


@pytest.mark.slow
def test_status_reject_finds_iclr2018s_rejected_papers(paperlist_files, tmp_path):
    iclr2018 = [path for path in paperlist_files if path.name == "iclr2018.json"]
    engine = SearchEngine(load_corpus(iclr2018), tmp_path / "cache")
    counts = {status: engine.search(f"status:{status}").total for status in ("reject", "workshop", "withdraw")}
    # 69 withdrawn records, one of them the placeholder whose title is "title", abstract "abstract" (skipped)
    assert counts == {"reject": 496, "workshop": 90, "withdraw": 68}
    assert engine.search("reject").total < 496  # what status:reject used to find, as a word
    result = engine.search("status:best")
    assert result.total == 0
    assert (
        result.notice
        == "status:best: no paper has that status (loaded: active, oral, poster, reject, withdraw, workshop)"
    )
    engine.close()


def test_graph_neural_network_over_the_real_lists(real_engine):
    anywhere = real_engine.search(SearchRequest("graph neural network", limit=10_000))
    every = real_engine.search(SearchRequest("graph AND neural AND network", limit=10_000))
    assert anywhere.any_words == anywhere.total > anywhere.all_words == every.total > 0
    listed = real_engine.search(SearchRequest("graph neural network match:all", limit=10_000))
    assert listed.total == anywhere.all_words and ids(listed) == ids(every)
    with_all = set(ids(listed))
    assert ranked_ids(listed) == [paper for paper in ranked_ids(anywhere) if paper in with_all]


def test_the_real_lists_offer_their_own_statuses(real_engine):
    statuses = dict(real_engine.available_filters().statuses)
    assert {"poster", "oral", "spotlight", "reject", "workshop", "withdraw"} <= set(statuses)
    assert real_engine.search("status:workshop").total == statuses["workshop"]
