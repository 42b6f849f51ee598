"""OpenReview reviews end to end: `get openreview:VENUE --reviews` on the command line against the local
server, the numbers `show --json`, `search` and `stats` give equal to the fixture's, and R in the app
showing each review (reviewer, rating, confidence, sections), the meta-review and the decision, at
80x24 and 60x20; one line for a paper without reviews."""

from __future__ import annotations

import json

import pytest

from search import Library, SearchEngine
from search.user.store import UserStore
from tests.sources.test_openreview import VENUE
from tests.sources.test_reviews import forums, serve
from tests.tui.conftest import one_fast, settle
from tests.tui.test_browsing import NARROW, SMALL
from tui.app import ReaderApp
from tui.cli import main


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def got_with_reviews(server, capsys) -> str:
    serve(server, forums())
    code, out, err = run(capsys, "get", f"openreview:{VENUE}", "--all", "--reviews")
    assert code == 0 and err == "", err
    return out


def test_get_reviews_on_the_command_line_fills_the_numbers_show_search_and_stats_give(server, capsys):
    out = got_with_reviews(server, capsys)
    host = server.url.removeprefix("http://")
    assert out.startswith(f"Got 'iclr2025-openreview-all': 3 papers, 2 with reviews from {host} (")
    assert "4 requests" in out  # one page of notes and one request per forum

    code, out, _ = run(capsys, "show", "forum0000", "--json")
    paper = json.loads(out)
    assert code == 0 and paper["ratings"] == [8, 6, 8] and paper["confidences"] == [4, 3, 5]
    assert paper["rating_avg"] == pytest.approx(22 / 3, abs=0.01) and paper["status"] == "Oral"
    code, out, _ = run(capsys, "show", "forum0001", "--json")
    paper = json.loads(out)
    assert (paper["ratings"], paper["rating_avg"], paper["status"]) == ([3, 5], 4, "Reject")
    code, out, _ = run(capsys, "show", "forum0002", "--json")
    paper = json.loads(out)
    assert (paper["ratings"], paper["rating_avg"], paper["confidences"]) == (None, None, None)

    code, out, _ = run(capsys, "search", "list:iclr2025-openreview-all rating:>=7", "--json")
    assert [hit["id"] for hit in json.loads(out)["hits"]] == ["forum0000"]
    code, out, _ = run(capsys, "search", "list:iclr2025-openreview-all sort:rating", "--json")
    assert [hit["id"] for hit in json.loads(out)["hits"]][:2] == ["forum0000", "forum0001"]
    code, out, _ = run(capsys, "stats", "list:iclr2025-openreview-all", "--json")
    stats = json.loads(out)
    assert code == 0 and (stats["papers"], stats["rated"]) == (3, 2), stats
    assert Library().origin("iclr2025-openreview-all").reviews
    code, out, _ = run(capsys, "lists", "--verbose")
    line = next(line for line in out.splitlines() if line.startswith("iclr2025-openreview-all"))
    assert f"from openreview {VENUE} (all submissions, reviews), " in line
    code, out, _ = run(capsys, "lists", "--json")
    rows = {row["name"]: row for row in json.loads(out)["lists"]}
    assert rows["iclr2025-openreview-all"]["source"]["reviews"] is True


def test_reviews_is_refused_where_it_means_nothing(capsys):
    code, _, err = run(capsys, "get", "iclr2025", "--reviews")
    assert code == 2 and err.strip().endswith(
        "--reviews is for OpenReview venues (openreview:VENUE_ID), not 'iclr2025'"
    )
    assert len(err.strip().splitlines()) == 1
    code, _, err = run(capsys, "get", "--update", "--reviews")
    assert code == 2 and "--update takes only list names" in err and "Traceback" not in err


def app_with_reviews(server, capsys, monkeypatch) -> tuple[ReaderApp, list[str]]:
    got_with_reviews(server, capsys)
    said: list[str] = []
    monkeypatch.setattr(ReaderApp, "notify", lambda self, message, *a, **k: said.append(message))
    engine = SearchEngine.from_paths()
    engine.ensure_index()
    return ReaderApp(engine, store=UserStore(), query="list:iclr2025-openreview-all sort:rating"), said


@pytest.mark.parametrize("size", one_fast([NARROW, SMALL]), ids=["80x24", "60x20"])
async def test_r_shows_each_review_the_meta_review_and_the_decision(server, capsys, monkeypatch, size):
    from tui.screens.reviews import ReviewsScreen

    app, said = app_with_reviews(server, capsys, monkeypatch)
    async with app.run_test(size=size) as pilot:
        await settle(pilot, app)
        app.screen.query_one("ResultsList").focus()
        await pilot.press("R")
        await settle(pilot, app)
        screen = app.screen
        assert isinstance(screen, ReviewsScreen) and said == []
        body = str(screen.query_one("#reviews-body").render())
        assert "Decision: Accept (Oral)" in body and "Ratings: 8 · 6 · 8  (mean 7.33)" in body
        assert "Reviewer 1 · Reviewer_a1 · rating 8 · confidence 4" in body
        assert "Reviewer 3 · Reviewer_c3 · rating 8 · confidence 5" in body
        assert "Reviewer_b2 summarises forum0000." in body and "Soundness\n3 good" in body
        assert "Meta-review · Area_Chair_x" in body and "Strong paper." in body and "Congrats." in body
        assert "Thanks!" not in body  # the authors' comment is not a review
        assert "Reviews · Note 0" in str(screen.query_one("#reviews-title").render())
        await pilot.press("G", "g", "j", "space")  # scrolls, never crashes
        await pilot.press("escape")
        await settle(pilot, app)
        assert not isinstance(app.screen, ReviewsScreen)

        await pilot.press("j", "j", "R")  # the withdrawn paper, last by rating
        await settle(pilot, app)
        assert not isinstance(app.screen, ReviewsScreen)
        assert said == ["OpenReview has no public reviews, meta-review or decision for this paper"]


async def test_r_on_a_list_fetched_without_reviews_says_so(tmp_path, monkeypatch):
    said: list[str] = []
    monkeypatch.setattr(ReaderApp, "notify", lambda self, message, *a, **k: said.append(message))
    engine = SearchEngine.from_paths()
    engine.ensure_index()
    app = ReaderApp(engine, store=UserStore(), query="attention")
    async with app.run_test(size=NARROW) as pilot:
        await settle(pilot, app)
        app.screen.query_one("ResultsList").focus()
        await pilot.press("R")
        await settle(pilot, app)
        assert said == [
            "No reviews kept for this paper: `iclr-reader get openreview:VENUE --reviews` fetches a venue's reviews"
        ]


async def test_the_picker_offers_an_openreview_venue_with_its_reviews(server, tmp_path, monkeypatch):
    from textual.widgets import OptionList

    from search import load_corpus
    from tests.tui.test_get_app import wait_until
    from tui import wording
    from tui.screens.get_list import GetListScreen

    statuses: list[str] = []
    real = wording.download_status
    monkeypatch.setattr(wording, "download_status", lambda *a: statuses.append(real(*a)) or statuses[-1])
    serve(server, forums())
    app = ReaderApp(SearchEngine(load_corpus(), cache_dir=tmp_path / "cache"), store=UserStore())
    spec = f"openreview:{VENUE}"
    async with app.run_test(size=NARROW) as pilot:
        await settle(pilot, app)
        await pilot.press("ctrl+g", *spec)
        await pilot.pause()
        assert isinstance(app.screen, GetListScreen)
        options = app.screen.query_one(OptionList)
        assert str(options.get_option_at_index(1).prompt) == f"Get “{spec}” with its reviews (one request per paper)"
        await pilot.press("down", "enter")
        await wait_until(pilot, app, lambda: "forum0000" in app.screen.engine.by_id)
        await settle(pilot, app)
        paper = app.screen.engine.paper("forum0000")
        assert paper.facts.ratings == (8.0, 6.0, 8.0) and paper.status == "Oral"
    assert Library().origin("iclr2025-openreview").reviews
    assert f"Getting {spec}: reviews of 3 of 3 papers…" in statuses


async def test_r_finds_the_reviews_of_a_paper_kept_from_another_list(server, capsys, monkeypatch, tmp_path):
    """The same paper in a paperlists list (read first) and in the OpenReview list with reviews is one
    paper: R reads the reviews beside the list that has them."""
    from tests.tui.test_browsing import write_list

    got_with_reviews(server, capsys)
    same = {
        "id": "forum0000",
        "title": "Note 0: Sparse Attention Revisited",
        "abstract": "We revisit sparse attention, case 0. Code: https://github.com/a/b0",
        "site": "https://openreview.net/forum?id=forum0000",
        "venue": "ICLR 2025",
    }
    from pathlib import Path

    Library().add(Path(write_list(tmp_path / "aaa.json", [same])), "aaa")
    said: list[str] = []
    monkeypatch.setattr(ReaderApp, "notify", lambda self, message, *a, **k: said.append(message))
    engine = SearchEngine.from_paths()
    engine.ensure_index()
    paper = engine.paper("forum0000")
    assert Path(paper.source).parent.name == "aaa" and paper.also_in  # kept from the list without reviews
    app = ReaderApp(engine, store=UserStore(), query="list:aaa")
    async with app.run_test(size=NARROW) as pilot:
        await settle(pilot, app)
        app.screen.query_one("ResultsList").focus()
        await pilot.press("R")
        await settle(pilot, app)
        from tui.screens.reviews import ReviewsScreen

        assert isinstance(app.screen, ReviewsScreen) and said == []
        assert "Reviewer 2 · Reviewer_b2 · rating 6 · confidence 3" in str(
            app.screen.query_one("#reviews-body").render()
        )
