"""The header and status line wording, exactly as the user reads it, without running the app."""

from __future__ import annotations

from search import Hit, SearchResult
from tui.wording import (
    INDEXING,
    WAITING_FOR_INDEX,
    all_papers_title,
    bookmarks_title,
    counted,
    index_failed_status,
    indexing_status,
    lists_label,
    none_loaded,
    recommended_from,
    related_paper,
    result_status,
    result_title,
    spelling_note,
)


def result(query: str, shown: int, total: int | None = None, **fields) -> SearchResult:
    hits = tuple(Hit(f"p{n}", 1.0) for n in range(shown))
    return SearchResult(query, hits, shown if total is None else total, **fields)


def test_counted_says_one_or_many_with_thousands_separators():
    assert counted(1, "paper") == "1 paper"
    assert counted(0, "paper") == "0 papers"
    assert counted(10_750, "paper") == "10,750 papers"


def test_lists_are_named_up_to_three_then_counted():
    assert lists_label(["iclr2025"]) == "iclr2025"
    assert lists_label(["iclr2024", "nips2023"]) == "iclr2024, nips2023"
    assert lists_label(["a", "b", "c"]) == "a, b, c"
    assert lists_label(["a", "b", "c", "d", "e"]) == "5 lists"


def test_header_over_every_paper():
    assert str(all_papers_title(["iclr2025"], 38)) == "iclr2025 · 38 papers"
    assert str(all_papers_title(["iclr2024", "nips2023"], 4)) == "iclr2024, nips2023 · 4 papers"
    assert str(all_papers_title(["a", "b", "c", "d", "e"], 5)) == "5 lists · 5 papers"
    assert str(all_papers_title(["corpus"], 1)) == "corpus · 1 paper"


def test_header_over_results_counts_every_match_even_while_only_the_first_are_listed():
    assert str(result_title(["iclr2025"], result("bitstack", 1))) == "iclr2025 · 1 match for “bitstack”"
    assert str(result_title(["iclr2025"], result("kv cache", 2))) == "iclr2025 · 2 matches for “kv cache”"
    # every match is reachable (the list grows as the user scrolls), so no "(top 200)"
    assert str(result_title(["iclr2025"], result("kv cache", 200, 1234))) == "iclr2025 · 1,234 matches for “kv cache”"
    assert str(result_title(["iclr2025"], result("qqzzxxyy", 0))) == "iclr2025 · 0 matches for “qqzzxxyy”"


def test_header_says_how_many_have_all_the_words_and_how_many_any():
    words = result("graph neural network", 200, 4863, all_words=312, any_words=4863)
    assert str(result_title(["iclr2018"], words)) == (
        "iclr2018 · “graph neural network”: 4,863 matches · 312 with all words (a)"
    )
    assert result_status(words) == ""  # the header says it all: no status line appears while typing
    only_all = result("graph neural network match:all", 200, 312, all_words=312, any_words=4863, match="all")
    assert str(result_title(["iclr2018"], only_all)) == (
        "iclr2018 · “graph neural network match:all”: 312 with all words (of 4,863 with any)"
    )
    assert result_status(only_all) == ""
    every = result("kv cache", 12, all_words=12, any_words=12)  # every match has both words: one count
    assert str(result_title(["iclr2025"], every)) == "iclr2025 · 12 matches for “kv cache”"
    assert result_status(every) == ""


def test_header_names_the_corrected_query_when_one_was_searched_instead():
    corrected = result("wasserstien", 1, corrected="wasserstein")
    assert str(result_title(["iclr2025"], corrected)) == "iclr2025 · 1 match for “wasserstein”"


def test_header_over_related_papers_names_the_paper_by_its_headline():
    related = result("related:abc", 40)
    assert related_paper(related) == "abc"
    assert str(result_title(["iclr2024", "nips2023"], related, "Zebra Graph Networks")) == (
        "iclr2024, nips2023 · 40 papers related to “Zebra Graph Networks”"
    )
    assert str(result_title(["corpus"], related)) == "corpus · 40 matches for “related:abc”"  # paper not loaded
    assert related_paper(result("graph networks", 3)) is None


def test_status_for_a_corrected_query_says_what_was_searched_and_how_to_search_it_as_typed():
    assert result_status(result("wasserstien", 1, corrected="wasserstein")) == (
        "No papers contain “wasserstien”; showing results for “wasserstein”. ctrl+z: search “wasserstien” as typed."
    )
    two = result("grpah nueral networks list:iclr2025", 3, corrected="graph neural networks list:iclr2025")
    assert result_status(two) == (
        "No papers contain “grpah” or “nueral”; showing results for “graph neural networks list:iclr2025”."
        " ctrl+z: search “grpah nueral networks list:iclr2025” as typed."
    )


def test_status_for_a_spelling_offered_says_how_to_search_it():
    pasted = "graph nueral networks for molecules and proteins"
    offered = result(pasted, 5, suggestion="graph neural networks for molecules and proteins")
    assert result_status(offered) == (
        "Did you mean “graph neural networks for molecules and proteins”? ctrl+z: search that."
    )
    assert result_status(result("grpah", 0, suggestion="graph")) == (
        "Nothing matches “grpah”. Did you mean “graph”? ctrl+z: search that."
    )
    with_hint = result(pasted, 5, suggestion=offered.suggestion, notice="a* matches too many words")
    assert result_status(with_hint) == (
        "Did you mean “graph neural networks for molecules and proteins”? ctrl+z: search that."
        " Hint: a* matches too many words."
    )


def test_the_spelling_note_is_the_same_words_on_the_command_line():
    assert spelling_note(result("grpah", 4, corrected="graph")) == (
        "No papers contain “grpah”; showing results for “graph”"
    )
    assert spelling_note(result("a b c d e nueral", 4, suggestion="a b c d e neural")) == (
        "Did you mean “a b c d e neural”?"
    )
    assert spelling_note(result("graph", 4)) is None


def test_status_for_no_results():
    assert result_status(result("qqzzxxyy", 0)) == (
        "Nothing matches “qqzzxxyy”. Try fewer or other words, a prefix like graph*, or fuzzy~."
    )


def test_status_for_no_results_gives_the_engines_reason_first():
    assert result_status(result("list:nope", 0, notice="no list named 'nope' (loaded: iclr2025)")) == (
        "Nothing matches “list:nope”: no list named 'nope' (loaded: iclr2025)."
    )


def test_status_for_a_syntax_hint_and_for_plain_results():
    assert result_status(result('"kv cache', 3, notice="unbalanced quote")) == "Hint: unbalanced quote."
    assert result_status(result("kv cache", 2)) == ""


def test_index_status():
    assert INDEXING == "Indexing…"
    assert WAITING_FOR_INDEX == "Indexing… quick matches by word until the index is ready, then ranked results"
    assert indexing_status(300, 300) == "Indexing 300 of 300 papers (100%)…"
    assert indexing_status(1200, 10_750) == "Indexing 1,200 of 10,750 papers (11%)…"
    assert indexing_status(1200, 10_750, query_waiting=True) == (
        "Indexing 1,200 of 10,750 papers (11%)… quick matches by word; ranked results when it finishes"
    )
    assert index_failed_status("OSError: disk full") == "Search unavailable: OSError: disk full"


def test_bookmarks_header():
    assert bookmarks_title(1, 1, filtered=False) == "1 bookmark"
    assert bookmarks_title(3, 3, filtered=False) == "3 bookmarks"
    assert bookmarks_title(3, 1, filtered=True) == "3 bookmarks, 1 shown"


def test_a_narrow_header_cuts_the_query_then_the_lists_and_keeps_the_count():
    words = result("graph neural network for molecules", 200, 4863, all_words=312, any_words=4863)
    title = result_title(["iclr2017", "iclr2018"], words)
    assert title.fitted(200) == str(title)
    assert title.fitted(80) == "iclr2017, iclr2018 · “graph neural net…”: 4,863 matches · 312 with all words (a)"
    assert title.fitted(60) == "“graph neural netw…”: 4,863 matches · 312 with all words (a)"
    assert title.fitted(50) == "“graph n…”: 4,863 matches · 312 with all words (a)"
    assert title.fitted(30) == "4,863 matches · 312 with all"
    plain = result_title(["5 lists"], result("a rather long query about attention", 1234))
    assert plain.fitted(40) == "5 lists · 1,234 matches for “a rather …”"
    assert plain.fitted(24) == "1,234 matches for “a r…”"
    assert plain.fitted(15) == "1,234 matches"
    assert str(all_papers_title(["iclr2025"], 38)) == all_papers_title(["iclr2025"], 38).fitted(20)


def test_recommended_says_which_bookmarks_it_is_like():
    assert recommended_from(1, 0, 0) == "like your bookmark"
    assert recommended_from(8, 0, 0) == "like your 8 bookmarks"
    assert recommended_from(50, 12, 0) == "like your 50 most recent bookmarks (12 older left out)"
    assert recommended_from(3, 0, 2) == "like 3 of your 5 bookmarks (2 not in the loaded lists)"
    # The tester's two bookmarks, one in a list not loaded: "like your bookmark" said there was one.
    assert recommended_from(1, 0, 1) == "like 1 of your 2 bookmarks (1 not in the loaded lists)"
    assert recommended_from(50, 12, 3) == (
        "like your 50 most recent bookmarks (12 older left out, 3 not in the loaded lists)"
    )
    assert none_loaded(1) == "Your bookmark is in no loaded list: nothing to compare with."
    assert none_loaded(2) == "None of your 2 bookmarks is in the loaded lists: nothing to compare with."
