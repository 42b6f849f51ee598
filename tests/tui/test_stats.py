"""Statistics you look at: the numbers (search/query/stats.py) equal what the list files say, the
stats screen draws the same numbers `stats --json` prints, and the charts read at 80 columns."""

from __future__ import annotations

import json
import math
import statistics
from collections import Counter

import pytest

from search import SearchEngine, load_corpus
from search.query.stats import compute
from search.user.store import UserStore
from tests.tui.conftest import settle
from tests.tui.test_browsing import NARROW, SMALL, write_list
from tui.app import ReaderApp
from tui.cli import main
from tui.screens.stats import StatsScreen
from tui.stats_view import stats_text

RECORDS = [
    {
        "id": "a",
        "title": "A",
        "abstract": "Graphs one.",
        "status": "Oral",
        "rating": "8;9",
        "gs_citation": 100,
        "author": "A One;A Two",
        "aff": "MIT;Google",
        "aff_country_unique": "United States",
        "aff_country_unique_index": "0;0",
        "keywords": "graphs;attention",
        "primary_area": "learning on graphs",
    },
    {
        "id": "b",
        "title": "B",
        "abstract": "Graphs two.",
        "status": "Poster",
        "rating": "6;7",
        "gs_citation": 10,
        "author": "B One;B Two",
        "aff": "MIT;",
        "aff_country_unique": "United States",
        "aff_country_unique_index": "0",
        "keywords": "graphs",
    },
    {
        "id": "c",
        "title": "C",
        "abstract": "Graphs three.",
        "status": "Reject",
        "rating": "6;6",
        "gs_citation": 2,
        "author": "C One",
        "aff": "Oxford",
        "aff_country_unique": "United Kingdom",
        "aff_country_unique_index": "0",
    },
    {"id": "d", "title": "D", "abstract": "Vision four.", "status": "Withdraw", "rating": "3;4"},
]


def engine_of(tmp_path) -> SearchEngine:
    engine = SearchEngine(load_corpus([write_list(tmp_path / "conf2025.json", RECORDS)]), cache_dir=tmp_path / "c")
    engine.ensure_index()
    return engine


def test_the_numbers(tmp_path):
    stats = engine_of(tmp_path).stats()
    assert stats.papers == 4 and stats.rated == 4
    assert dict(stats.decisions) == {"oral": 1, "poster": 1, "reject": 1, "withdraw": 1}
    buckets = {bucket.low: bucket for bucket in stats.ratings}
    assert sorted(buckets) == [3, 6, 8]
    assert (buckets[6].papers, buckets[6].accepted, buckets[6].accepted_share) == (2, 1, 0.5)
    assert buckets[6].by_decision == {"poster": 1, "reject": 1}
    assert stats.institutions[0] == ("MIT", 2) and ("Oxford", 1) in stats.institutions
    assert dict(stats.accepted_institutions) == {"MIT": 2, "Google": 1}
    assert dict(stats.countries) == {"United States": 2, "United Kingdom": 1}
    assert stats.keywords[0] == ("graphs", 2) and stats.areas == [("learning on graphs", 1)]
    cited = {entry.decision: entry for entry in stats.citations}
    assert cited["oral"].median == 100 and cited["reject"].papers == 1 and "withdraw" not in cited


def test_stats_json_and_a_query(tmp_path, capsys):
    corpus = write_list(tmp_path / "conf2025.json", RECORDS)
    code = main(["--corpus", corpus, "stats", "graphs", "--json"])
    data = json.loads(capsys.readouterr().out)
    assert code == 0 and data["query"] == "graphs" and data["papers"] == 3
    assert data["decisions"] == [["oral", 1], ["poster", 1], ["reject", 1]]
    assert data["ratings"][0] == {
        "low": 6,
        "papers": 2,
        "accepted": 1,
        "by_decision": {"poster": 1, "reject": 1},
        "accepted_share": 0.5,
    }
    code = main(["--corpus", corpus, "stats"])
    out = capsys.readouterr().out
    assert code == 0 and out.startswith("4 papers · 4 with review ratings · every loaded paper")
    assert "Mean rating, by decision" in out and "50% accepted" in out


def test_a_query_that_matches_nothing_says_so_not_empty_headings(tmp_path, capsys):
    corpus = write_list(tmp_path / "conf2025.json", RECORDS)
    code = main(["--corpus", corpus, "stats", "rating:>=10"])
    out = capsys.readouterr().out
    assert code == 0 and out.splitlines()[1:] == ["Nothing to count: no paper matches."], out


def test_the_charts_fit_80_and_60_columns(tmp_path):
    stats = engine_of(tmp_path).stats()
    for width in (80, 60):
        lines = stats_text(stats, width).plain.splitlines()
        assert max(len(line) for line in lines) <= width, width


async def test_s_opens_the_screen_with_the_numbers_stats_json_gives(tmp_path, capsys):
    engine = engine_of(tmp_path)
    app = ReaderApp(engine, store=UserStore(), query="graphs")
    for size in (NARROW, SMALL):
        async with app.run_test(size=size) as pilot:
            await settle(pilot, app)
            app.screen.query_one("ResultsList").focus()
            await pilot.press("s")
            await settle(pilot, app)
            screen = app.screen
            assert isinstance(screen, StatsScreen) and screen.stats == engine.stats("graphs")
            assert "3 papers" in str(screen.query_one("#stats-body").render())
            scroll = screen.query_one("#stats-scroll")
            assert scroll.max_scroll_y > 0  # longer than the screen at either size: the reader's keys move it
            await pilot.press("G")
            await pilot.wait_for_scheduled_animations()
            assert scroll.scroll_y == scroll.max_scroll_y
            await pilot.press("g")
            await pilot.wait_for_scheduled_animations()
            assert scroll.scroll_y == 0
            await pilot.press("escape")
            await settle(pilot, app)
            assert not isinstance(app.screen, StatsScreen)
        app = ReaderApp(engine, store=UserStore(), query="graphs")


async def test_the_screen_counts_the_papers_the_header_counts_while_a_word_is_typed(tmp_path):
    """The last word typed is a prefix in the app ("grap" finds Graphs): the statistics are of those
    papers, not of the word searched whole (which found none)."""
    engine = engine_of(tmp_path)
    app = ReaderApp(engine, store=UserStore())
    async with app.run_test(size=SMALL) as pilot:
        await settle(pilot, app)
        await pilot.press(*"grap")
        await settle(pilot, app)
        assert "3 matches" in app.sub_title, app.sub_title
        app.screen.query_one("ResultsList").focus()
        await pilot.press("s")
        await settle(pilot, app)
        screen = app.screen
        assert isinstance(screen, StatsScreen) and screen.stats is not None and screen.stats.papers == 3
        assert "3 papers" in str(screen.query_one("#stats-body").render())


@pytest.mark.slow
def test_ratings_by_decision_equal_the_file(paperlist_files):
    path = next(path for path in paperlist_files if path.stem == "iclr2018")
    stats = compute(load_corpus([path]).papers)
    records = [r for r in json.loads(path.read_text()) if (r.get("abstract") or "").strip() not in ("", "abstract")]
    expected: dict[int, Counter] = {}
    for record in records:
        if record.get("rating_avg"):
            low = math.floor(record["rating_avg"])
            expected.setdefault(low, Counter())[record["status"].lower()] += 1
    assert {b.low: b.by_decision for b in stats.ratings} == {low: dict(c) for low, c in expected.items()}
    cites = [r["gs_citation"] for r in records if r["status"] == "Oral" and r.get("gs_citation", -1) >= 0]
    oral = next(entry for entry in stats.citations if entry.decision == "oral")
    assert (oral.papers, oral.median) == (len(cites), statistics.median(cites))


def test_citations_by_decision_fit_the_width_with_counts_in_the_thousands(tmp_path):
    records = [
        {**record, "gs_citation": count, "id": f"{record['id']}{n}"}
        for n, count in enumerate((123_456, 98_765, 54_321, 1_234))
        for record in RECORDS
    ]
    engine = SearchEngine(load_corpus([write_list(tmp_path / "conf2025.json", records)]), cache_dir=tmp_path / "c")
    stats = engine.stats()
    assert stats.citations and max(entry.mean for entry in stats.citations) > 10_000
    for width in (136, 76, 56):  # the screen's at 140, 80 and 60 columns
        lines = stats_text(stats, width).plain.splitlines()
        assert max(len(line) for line in lines) <= width, width
        cited = lines[lines.index(next(line for line in lines if line.startswith("Citations by decision"))) + 1 :]
        assert all("papers, mean" in line for line in cited) and "█" in cited[0]  # one line each, a bar


def test_one_paper_is_one_paper_not_1_papers(tmp_path, capsys):
    corpus = write_list(tmp_path / "conf2025.json", RECORDS)
    code = main(["--corpus", corpus, "stats", "vision"])
    out = capsys.readouterr().out
    assert code == 0 and out.startswith("1 paper · "), out
    assert "1 papers" not in out


def test_stats_gives_the_notes_search_gives(tmp_path, capsys):
    """A value that is no number, a field that is no field: stats says so as search does (stderr)."""
    corpus = write_list(tmp_path / "conf2025.json", RECORDS)
    for query, note in (("rating:>=abc", "not a number"), ("nosuch:graphs", "nosuch: is not a field")):
        assert main(["--corpus", corpus, "search", query]) == 0
        searched = capsys.readouterr().err
        assert main(["--corpus", corpus, "stats", query]) == 0
        counted_err = capsys.readouterr().err
        assert note in searched and note in counted_err
        assert main(["--corpus", corpus, "stats", query, "--json"]) == 0
        assert note in capsys.readouterr().err  # stdout stays JSON


def test_a_range_no_paper_is_in_says_the_loaded_ratings_as_the_reader_shows_them(tmp_path, capsys):
    """`stats 'rating:>=99'` said "loaded: 6 to 9.66667": the list's mean of 9;10;10, written as no
    rating is written elsewhere. The reader and `search` write it 9.67."""
    records = [*RECORDS, {"id": "top", "title": "Top", "abstract": "Graphs at the top.", "rating": "9;10;10"}]
    corpus = write_list(tmp_path / "conf2025.json", records)
    assert main(["--corpus", corpus, "stats", "rating:>=99"]) == 0
    said = capsys.readouterr().err
    assert f"to {statistics.mean([9, 10, 10]):.2f})" in said and "9.66667" not in said
    assert main(["--corpus", corpus, "search", "sort:rating"]) == 0
    assert "9.67" in capsys.readouterr().out  # the same figure where search lists it
