"""Several papers at once (issue 38): space marks the highlighted paper and moves on, `*` marks every
match (asking first past 100), the header counts them, esc clears them, and b, t, y, Y, o and the
palette's export act on the marked papers."""

from __future__ import annotations

import json

import pyperclip
import pytest

from search import SearchEngine, load_corpus
from search.user.store import UserStore
from tests.tui.conftest import one_fast, settle
from tui.app import ReaderApp
from tui.screens import marking
from tui.screens.choosers import Chooser
from tui.widgets.results_list import MARKED_MARKER, ResultsList
from tui.widgets.search_box import SearchBox


@pytest.fixture
def copied(monkeypatch):
    texts: list[str] = []
    monkeypatch.setattr(pyperclip, "copy", texts.append)
    return texts


def rows(app) -> list[str]:
    results = app.screen.query_one(ResultsList)
    return [results.row(index).plain for index in range(len(results.paper_ids))]


async def mark_two_graph_papers(pilot, app) -> None:
    await settle(pilot, app)
    await pilot.press(*"graph")
    await settle(pilot, app)
    await pilot.press("enter", "space", "space")  # to the list; mark the first two
    await settle(pilot, app)


@pytest.mark.parametrize("size", one_fast([(140, 40), (80, 24), (60, 20)]))
async def test_space_marks_and_moves_on_the_header_counts_and_esc_clears(make_app, size):
    app = make_app()
    async with app.run_test(size=size) as pilot:
        await mark_two_graph_papers(pilot, app)
        shown = rows(app)
        assert [row[2] for row in shown] == [MARKED_MARKER, MARKED_MARKER, " ", " "]
        assert app.screen.query_one(ResultsList).highlighted == 2  # moved past the marked ones
        assert app.sub_title == "iclr2025 · 4 matches for “graph” · 2 marked"
        await pilot.press("k", "space")  # space again unmarks
        assert app.sub_title.endswith(" · 1 marked")
        await pilot.press("escape")
        assert MARKED_MARKER not in "".join(row[2] for row in rows(app))
        assert "marked" not in app.sub_title and app.screen.query_one(ResultsList).has_focus  # esc only cleared


async def test_marks_stay_across_queries_until_cleared(make_app):
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await mark_two_graph_papers(pilot, app)
        await pilot.press("slash", *"bitstack")
        await settle(pilot, app)
        assert app.sub_title == "iclr2025 · 1 match for “bitstack” · 2 marked"


async def test_y_copies_the_marked_papers_links_one_per_line_and_Y_as_markdown(make_app, copied, notices):
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await mark_two_graph_papers(pilot, app)
        await pilot.press("y")
        await pilot.pause()
        assert copied[-1] == (
            "https://openreview.net/forum?id=lBMRmw59Lk\nhttps://openreview.net/forum?id=gjRhw5S3A4\n"
        )
        assert notices[-1] == "Copied 2 links (one per line) to the clipboard"
        await pilot.press("Y")
        await pilot.pause()
        lines = copied[-1].splitlines()
        assert len(lines) == 2 and lines[1].startswith("- [GraphBridge: Towards Arbitrary Transfer Learning in GNNs](")
        assert notices[-1] == "Copied 2 papers as a Markdown list to the clipboard"


async def test_b_and_t_act_on_every_marked_paper(make_app, notices):
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await mark_two_graph_papers(pilot, app)
        marked = list(app.screen.marked)
        await pilot.press("b")
        await settle(pilot, app)
        assert notices[-1] == "Bookmarked 2 marked papers"
        assert set(UserStore().bookmarked_ids()) == set(marked)
        assert [row[0] for row in rows(app)[:2]] == ["★", "★"]
        await pilot.press("t", *"to-read", "enter")
        await settle(pilot, app)
        assert notices[-1] == "Tagged 2 marked papers: to-read"
        assert [UserStore().get(paper_id).tags for paper_id in marked] == [("to-read",), ("to-read",)]


async def test_o_opens_every_marked_papers_link(make_app, monkeypatch, notices):
    opened: list[str] = []
    monkeypatch.setattr(marking, "open_url", lambda app, url: opened.append(url))
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await mark_two_graph_papers(pilot, app)
        await pilot.press("o")
        await pilot.pause()
    assert opened == ["https://openreview.net/forum?id=lBMRmw59Lk", "https://openreview.net/forum?id=gjRhw5S3A4"]
    assert notices[-1] == "Opened 2 links"


async def test_the_palettes_export_copies_the_marked_papers(make_app, copied):
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await mark_two_graph_papers(pilot, app)
        await pilot.press("ctrl+p", *"export marked papers as bibtex")
        await pilot.pause()
        await pilot.press("enter")
        await pilot.pause()
    assert copied[-1].count("@inproceedings{") == 2 and "GraphBridge" in copied[-1]


def many_papers(tmp_path, count: int) -> SearchEngine:
    path = tmp_path / "many.json"
    records = [
        {"id": f"m{n}", "title": f"Paper {n} on quokkas", "abstract": f"Quokkas, case {n}."} for n in range(count)
    ]
    path.write_text(json.dumps(records), encoding="utf-8")
    engine = SearchEngine(load_corpus([path]), cache_dir=tmp_path / "cache")
    engine.ensure_index()
    return engine


async def test_star_marks_every_match_listed_or_not_asking_first_past_100(tmp_path):
    app = ReaderApp(many_papers(tmp_path, 250), store=UserStore())
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot, app)
        await pilot.press(*"quokkas")
        await settle(pilot, app)
        await pilot.press("enter", "asterisk")
        await pilot.pause()
        assert isinstance(app.screen, Chooser) and app.screen.title_text == "Mark all 250 matches?"
        await pilot.press("escape")  # cancelled: nothing marked
        await pilot.pause()
        assert "marked" not in app.sub_title
        await pilot.press("asterisk", "1")
        await settle(pilot, app)
        assert len(app.screen.query_one(ResultsList).paper_ids) == 200  # the first page is listed...
        assert app.sub_title.endswith("250 matches for “quokkas” · 250 marked")  # ...and every match is marked


async def test_star_marks_a_few_at_once(make_app):
    app = make_app()
    async with app.run_test(size=(60, 20)) as pilot:
        await settle(pilot, app)
        await pilot.press(*"graph")
        await settle(pilot, app)
        await pilot.press("enter", "asterisk")
        await pilot.pause()
        assert app.sub_title.endswith(" · 4 marked")


def test_the_marked_count_is_said_last_and_kept_at_any_width():
    from tui.wording import Title, with_marked

    title = with_marked(Title("iclr2025", "18 matches", "learning"), 3)
    assert str(title) == "iclr2025 · 18 matches for “learning” · 3 marked"
    assert title.fitted(30) == "18 matches · 3 marked"
    assert with_marked(title, 0) == title


async def test_space_and_star_in_the_search_box_are_typed_not_marks(make_app):
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot, app)
        await pilot.press(*"graph", "asterisk", "space")
        await settle(pilot, app)
        assert app.screen.query_one(SearchBox).value == "graph* "
        assert not app.screen.marked and "marked" not in app.sub_title
