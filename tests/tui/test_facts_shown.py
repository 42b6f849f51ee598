"""What the lists say about reviews, citations and people, shown: the reader's lines, the list's
rating column (citations when sorting by them), and nothing invented where a list says nothing."""

from __future__ import annotations

from search import SearchEngine, load_corpus
from search.user.store import UserStore
from tests.tui.conftest import settle
from tests.tui.test_browsing import NARROW, SMALL, WIDE, row_line, screen_line, write_list
from tui.app import ReaderApp
from tui.render import paper_text
from tui.widgets.reader import ReaderPane
from tui.widgets.results_list import MIN_TITLE_WIDTH, figure_text, figure_width_for

RATED = {
    "id": "r1",
    "title": "Sparse graph attention for molecules",
    "abstract": "We study sparse graph attention for molecules and proteins.",
    "venue": "COLM 2025",
    "status": "Poster",
    "author": "Ada Lovelace;Alan Turing",
    "aff": "University of Pennsylvania;MIT+Google",
    "aff_unique_index": "0;1+2",
    "aff_unique_norm": "University of Pennsylvania;Massachusetts Institute of Technology;Google",
    "aff_country_unique_index": "0;0",
    "aff_country_unique": "United States",
    "position": "PhD student;",
    "rating": "6;8;7",
    "confidence": "4;3;5",
    "rating_avg": [7.0, 0.8165],
    "gs_citation": 12345,
    "gs_cited_by_link": "https://scholar.google.com/scholar?cites=1",
    "tldr": "Sparse attention, read.",
    "primary_area": "learning on graphs",
}
PLAIN = {
    "id": "p1",
    "title": "Dense graph attention without reviews",
    "abstract": "We study dense graph attention for molecules.",
    "venue": "COLM 2025",
    "gs_citation": 3,
}


def engine_of(tmp_path, records) -> SearchEngine:
    engine = SearchEngine(load_corpus([write_list(tmp_path / "colm2025.json", records)]), cache_dir=tmp_path / "c")
    engine.ensure_index()
    return engine


def test_the_reader_shows_reviews_citations_area_tldr_and_people(tmp_path):
    engine = engine_of(tmp_path, [RATED, PLAIN])
    text = paper_text(engine.describe("r1")).plain
    assert "Rating: 7.00 ± 0.82 · 3 reviews, score/confidence: 6/4, 8/3, 7/5" in text
    links = engine.describe("r1").links
    cited = next(n for n, link in enumerate(links, 1) if link.kind == "citations")
    assert f"Citations: 12,345 (Google Scholar), cited by: [{cited}]" in text
    assert "Area: learning on graphs" in text and "TL;DR: Sparse attention, read." in text
    assert "Ada Lovelace — University of Pennsylvania · United States · PhD student" in text
    assert "Alan Turing — Massachusetts Institute of Technology + Google · United States" in text


def test_a_paper_without_reviews_or_people_gets_no_such_lines(tmp_path):
    engine = engine_of(tmp_path, [RATED, PLAIN])
    text = paper_text(engine.describe("p1")).plain
    assert "Rating" not in text and "TL;DR" not in text and "Authors\n" not in text
    assert "Citations: 3 (Google Scholar)" in text


async def test_the_list_has_a_rating_column_and_citations_when_sorting_by_them(tmp_path):
    engine = engine_of(tmp_path, [RATED, PLAIN])
    app = ReaderApp(engine, store=UserStore(), query="graph attention")
    async with app.run_test(size=NARROW) as pilot:
        await settle(pilot, app)
        rows = [row_line(app, n) for n in (0, 1)]
        rated = next(row for row in rows if "Sparse graph" in row)
        plain = next(row for row in rows if "Dense graph" in row)
        assert " 7.0 " in rated and "Sparse graph attention for molecules" in rated
        assert "Dense graph attention without reviews" in plain  # the whole title, at 80 columns
        assert "2 matches" in screen_line(app, 0) or "2 with any" in screen_line(app, 0)
        app.screen.query_one("SearchBox").value = "graph attention sort:citations"
        await settle(pilot, app)
        rows = [row_line(app, n) for n in (0, 1)]
        assert "12k" in rows[0] and "Sparse graph" in rows[0]
        assert "   3 " in rows[1] and "Dense graph" in rows[1]


async def test_no_rating_column_when_no_list_has_ratings_or_the_list_is_narrow(tmp_path):
    engine = engine_of(tmp_path, [PLAIN, {**PLAIN, "id": "p2", "title": "Another dense graph"}])
    app = ReaderApp(engine, store=UserStore(), query="graph")
    async with app.run_test(size=WIDE) as pilot:
        await settle(pilot, app)
        assert row_line(app, 0).lstrip("│ ").startswith(("Dense", "Another"))  # no figure column before it
    (tmp_path / "rated").mkdir()
    rated = engine_of(tmp_path / "rated", [RATED, PLAIN])
    app = ReaderApp(rated, store=UserStore(), query="graph")
    async with app.run_test(size=SMALL) as pilot:
        await settle(pilot, app)
        rows = "".join(row_line(app, n) for n in (0, 1))
        assert "Sparse graph attention for molecules" in rows and "Dense graph attention without reviews" in rows
        assert isinstance(app.screen.query_one(ReaderPane), ReaderPane)


def test_the_figure_column_goes_before_a_title_gets_narrower_than_its_minimum():
    assert figure_width_for("rating", 3 + 5 + MIN_TITLE_WIDTH) == 4
    assert figure_width_for("rating", 3 + 4 + MIN_TITLE_WIDTH) == 0
    assert figure_width_for("citations", 3 + 6 + MIN_TITLE_WIDTH) == 5
    assert figure_width_for(None, 200) == 0
    assert (figure_text("rating", 6.333, None), figure_text("rating", None, 5)) == ("6.3", "")
    assert (figure_text("citations", None, 9999), figure_text("citations", None, 10893)) == ("9999", "10k")


async def test_p_lists_the_authors_and_institutions_and_picking_one_searches_them(tmp_path, monkeypatch):
    said: list[str] = []
    monkeypatch.setattr(ReaderApp, "notify", lambda self, message, *a, **k: said.append(message))
    other = {
        "id": "o2",
        "title": "Another paper by Ada",
        "abstract": "We study sparse attention again.",
        "author": "Ada Lovelace",
        "aff": "University of Pennsylvania",
    }
    engine = engine_of(tmp_path, [RATED, PLAIN, other])
    app = ReaderApp(engine, store=UserStore(), query="molecules proteins")
    async with app.run_test(size=NARROW) as pilot:
        await settle(pilot, app)
        app.screen.query_one("ResultsList").focus()
        await pilot.press("p")
        await settle(pilot, app)
        from tui.screens.choosers import Chooser

        chooser = app.screen
        assert isinstance(chooser, Chooser)
        values = [value for _, value in chooser.choices]
        assert values[:2] == ['author:"Ada Lovelace"', 'author:"Alan Turing"']
        assert 'inst:"University of Pennsylvania"' in values and "inst:Google" in values
        await pilot.press("1")
        await settle(pilot, app)
        assert app.screen.query_one("SearchBox").value.strip() == 'author:"Ada Lovelace"'
        assert "2 matches" in screen_line(app, 0)
        assert 'author:"Ada Lovelace" (University of Pennsylvania): 2 papers · COLM 2025 2' in said


def test_the_filter_menu_offers_sorting_by_rating_and_citations_only_where_lists_have_them(tmp_path):
    from tui.screens.discovery import filter_choices

    tokens = [token for token, _ in filter_choices(engine_of(tmp_path, [RATED, PLAIN]))]
    assert "sort:rating" in tokens and "sort:citations" in tokens
    (tmp_path / "plain").mkdir()
    tokens = [token for token, _ in filter_choices(engine_of(tmp_path / "plain", [{**PLAIN, "gs_citation": -1}]))]
    assert "sort:rating" not in tokens and "sort:citations" not in tokens


async def test_tag_and_note_in_the_search_box_find_the_users_bookmarks(tmp_path):
    from search import bookmark_of

    engine = engine_of(tmp_path, [RATED, PLAIN])
    store = UserStore()
    store.add(bookmark_of(engine.describe("p1")))
    store.set_tags("p1", ["todo"])
    store.add(bookmark_of(engine.describe("r1")))
    store.set_note("r1", "for the reading group")
    app = ReaderApp(engine, store=store, query="tag:todo")
    async with app.run_test(size=NARROW) as pilot:
        await settle(pilot, app)
        assert "Dense graph attention" in row_line(app, 0) and "1 match" in screen_line(app, 0)
        app.screen.query_one("SearchBox").value = 'note:"reading group"'
        await settle(pilot, app)
        assert "Sparse graph attention" in row_line(app, 0) and "1 match" in screen_line(app, 0)


def test_one_review_is_one_review(tmp_path):
    engine = engine_of(tmp_path, [{**RATED, "rating": "6", "confidence": "4", "rating_avg": [6.0, 0.0]}])
    text = paper_text(engine.describe("r1")).plain
    assert "· 1 review, score/confidence: 6/4" in text and "1 reviews" not in text
