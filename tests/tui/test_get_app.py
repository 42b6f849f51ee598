"""Getting a list from the app: ctrl+g (or the palette) opens the catalogue, typing filters it, the
download runs against a local server while the app stays usable, and the list is searchable after."""

from __future__ import annotations

import pytest
from textual.widgets import OptionList

from search import Library, SearchEngine, UserStore, load_corpus
from tests.sources.server import records, snapshot
from tests.sources.test_arxiv import serve_results
from tests.sources.test_openreview import note, serve_notes
from tests.tui.conftest import settle
from tui.app import ReaderApp
from tui.screens.get_list import GetListScreen, catalogue_rows, matching
from tui.widgets.results_list import ResultsList


@pytest.fixture
def app(tmp_path):
    engine = SearchEngine(load_corpus(), cache_dir=tmp_path / "cache")
    return ReaderApp(engine, store=UserStore())


def test_the_catalogue_filters_by_name_and_year():
    rows = catalogue_rows()
    assert ("ICLR 2025", "iclr2025") in rows
    assert matching(rows, "iclr 2025") == [("ICLR 2025", "iclr2025")]
    assert all("ICLR" in label for label, _ in matching(rows, "iclr"))
    assert matching(rows, "nips2024")[0][1] == "nips2024"


async def wait_until(pilot, app, condition, rounds: int = 200) -> None:
    for _ in range(rounds):
        if condition():
            return
        await pilot.pause(0.05)
    raise AssertionError("the app never got there")


async def test_ctrl_g_picks_iclr_2025_downloads_it_and_searches_it(server, app):
    papers = records(30, prefix="zebra")
    server.route("/paperlists/iclr/iclr2025.json", lambda handler: handler.json(papers))
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot, app)
        await pilot.press("ctrl+g")
        await pilot.pause()
        assert isinstance(app.screen, GetListScreen)
        await pilot.press(*"iclr 2025")
        await pilot.pause()
        options = app.screen.query_one(OptionList)
        assert "ICLR 2025" in str(options.get_option_at_index(0).prompt)
        await pilot.press("enter")
        await wait_until(pilot, app, lambda: any(pid.startswith("zebra") for pid in app.screen.engine.by_id))
        await settle(pilot, app)
        assert len(app.screen.engine.papers) >= 30
        await pilot.press("ctrl+f", *"list:iclr2025 family zebra")
        await settle(pilot, app)
        found = app.screen.query_one(ResultsList).paper_ids
        assert found and all(pid.startswith("zebra") for pid in found[:10])
    assert Library().find("iclr2025") is not None
    assert server.paths("/paperlists") == ["/paperlists/iclr/iclr2025.json"]


@pytest.mark.parametrize(
    ("spec", "name", "serve"),
    [
        (
            "openreview:ICLR.cc/2025/Conference",
            "iclr2025-openreview",
            lambda server: serve_notes(server, [note(number) for number in range(12)]),
        ),
        ("arxiv:cat:cs.LG", "arxiv-cat-cs.lg", lambda server: serve_results(server, 7)),
    ],
)
async def test_the_picker_takes_openreview_and_arxiv_specs_too(server, app, spec, name, serve):
    serve(server)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot, app)
        await pilot.press("ctrl+g", *spec)
        await pilot.pause()
        assert str(app.screen.query_one(OptionList).get_option_at_index(0).prompt) == f"Get “{spec}”"
        await pilot.press("enter")
        await wait_until(pilot, app, lambda: len(app.screen.engine.papers) > 38)
        await settle(pilot, app)
        await pilot.press("ctrl+f", *f"list:{name}")
        await settle(pilot, app)
        assert len(app.screen.query_one(ResultsList).paper_ids) == len(app.screen.engine.papers) - 38
    assert Library().find(name) is not None


async def test_the_app_stays_usable_while_a_list_downloads(server, app, monkeypatch):
    from search.sources import http

    monkeypatch.setattr(http, "READ_TIMEOUT", 8.0)  # the server stalls until released below
    server.route("/paperlists/iclr/iclr2024.json", lambda handler: handler.stall(b"[{"))
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot, app)
        await pilot.press("ctrl+g", *"iclr2024", "enter")
        await wait_until(pilot, app, lambda: app.screen.downloading is not None)
        await pilot.press("ctrl+f", *"kv cache")
        await wait_until(pilot, app, lambda: app.screen.result is not None and app.screen.result.query == "kv cache")
        assert app.screen.downloading == "iclr2024"  # still downloading, and the search answered meanwhile
        server.release.set()  # the stalled server gives up; the download fails with a notice
        await wait_until(pilot, app, lambda: app.screen.downloading is None)
    assert Library().find("iclr2024") is None


@pytest.fixture
def notices(monkeypatch):
    """Every notification's message, in order."""
    shown: list[str] = []
    original = ReaderApp.notify

    def record(self, message, *args, **kwargs):
        shown.append(str(message))
        return original(self, message, *args, **kwargs)

    monkeypatch.setattr(ReaderApp, "notify", record)
    return shown


async def test_a_failed_download_is_a_notice_and_leaves_the_library_as_it_was(server, app, notices):
    before = snapshot(Library().folder)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot, app)
        await pilot.press("ctrl+g", *"iclr2031", "enter")
        await wait_until(pilot, app, lambda: any("iclr2031" in message for message in notices))
        await settle(pilot, app)
        assert app.screen.downloading is None
        assert any("iclr2031" in message and "--available" in message for message in notices), notices
        assert len(app.screen.engine.papers) == 38  # still the bundled list, still searchable
    assert snapshot(Library().folder) == before


async def test_esc_cancels_the_picker(app):
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot, app)
        await pilot.press("ctrl+g")
        await pilot.pause()
        await pilot.press("escape")
        await pilot.pause()
        assert not isinstance(app.screen, GetListScreen)
