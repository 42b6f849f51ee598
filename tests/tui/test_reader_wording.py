"""Issue 38's reader and wording: the Name line only when it adds something, no `Track: main`, the
reader keeping its place when the bookmark block appears above, a copy toast that keeps the link's
end (and says once how tmux passes OSC 52 on), and the status line saying a problem once."""

from __future__ import annotations

import json

import pyperclip
import pytest

from search import SearchEngine, load_corpus
from search.user.store import UserStore
from tests.tui.conftest import one_fast, settle
from tui import clipboard
from tui.app import ReaderApp
from tui.clipboard import TERMINAL, TMUX_HINT, copied_notice, short_url, tmux_hint
from tui.render import paper_text
from tui.widgets.reader import ReaderPane
from tui.wording import result_status


def engine_over(tmp_path, records) -> SearchEngine:
    path = tmp_path / "corpus.json"
    path.write_text(json.dumps(records), encoding="utf-8")
    return SearchEngine(load_corpus([path]), cache_dir=tmp_path / "cache")


RECORDS = [
    {
        "id": "dip",
        "title": '"Double-DIP": Unsupervised Image Decomposition via Coupled Deep-Image-Priors',
        "abstract": "We decompose images with two deep image priors.",
        "track": "main",
        "venue": "CVPR 2019",
    },
    {
        "id": "scb",
        "title": "SCBench: A KV Cache-Centric Analysis of Long-Context Methods",
        "abstract": "We benchmark KV cache methods over long contexts.",
        "track": "Datasets and Benchmarks",
    },
]


def test_the_name_line_only_when_the_title_does_not_say_it_and_no_track_main(tmp_path):
    engine = engine_over(tmp_path, RECORDS)
    dip = paper_text(engine.describe("dip")).plain
    assert dip.startswith('"Double-DIP": Unsupervised') and "Name:" not in dip  # the title starts with it
    assert "Track" not in dip and "Venue: CVPR 2019" in dip
    scb = paper_text(engine.describe("scb")).plain
    assert "Name:" not in scb and "Track: Datasets and Benchmarks" in scb


def test_a_name_the_title_does_not_start_with_is_shown_without_its_quotes(tmp_path, monkeypatch):
    from dataclasses import replace

    engine = engine_over(tmp_path, RECORDS)
    description = replace(engine.describe("dip"), name="“Deep-DIP”")
    assert "Name: Deep-DIP\n" in paper_text(description).plain


def visible_paper_line(reader: ReaderPane) -> int:
    """Which line of the paper's text is at the reader's top (as drawn: the scroll offset is a
    float, whose sum with the block's place can differ in its last bit)."""
    return round(reader.scroll_y - reader.query_one("#paper").virtual_region.y)


@pytest.mark.parametrize("size", one_fast([(140, 40), (80, 24), (60, 20)]))
async def test_b_while_scrolled_down_keeps_the_lines_in_view(make_app, size):
    app = make_app()
    async with app.run_test(size=size) as pilot:
        await settle(pilot, app)
        await pilot.press(*"bitstack")
        await settle(pilot, app)
        await pilot.press("enter", "enter", "G")
        await settle(pilot, app)
        await (
            pilot.wait_for_scheduled_animations()
        )  # G scrolls when the reader has laid out: not one frame on a busy machine
        await pilot.pause()
        reader = app.screen.query_one(ReaderPane)
        before = visible_paper_line(reader)
        assert reader.scroll_y > 0
        await pilot.press("b")  # the bookmark block appears above the text
        await settle(pilot, app)
        await pilot.wait_for_scheduled_animations()
        await pilot.pause()
        assert app.screen.query_one("#bookmark").has_class("active")
        assert visible_paper_line(reader) == before
        await pilot.press("b")  # and goes
        await settle(pilot, app)
        await pilot.wait_for_scheduled_animations()
        await pilot.pause()
        assert not app.screen.query_one("#bookmark").has_class("active")
        assert visible_paper_line(reader) == before


async def test_b_at_the_top_stays_at_the_top(make_app):
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot, app)
        await pilot.press(*"bitstack")
        await settle(pilot, app)
        await pilot.press("enter", "enter", "b")
        await settle(pilot, app)
        await pilot.pause()
        assert app.screen.query_one(ReaderPane).scroll_y == 0


def test_a_long_link_in_a_toast_keeps_its_end():
    assert short_url("https://openreview.net/forum?id=gjRhw5S3A4") == "openreview.net/…id=gjRhw5S3A4"
    assert short_url("https://arxiv.org/abs/2502.19252") == "arxiv.org/abs/2502.19252"  # short: whole


def test_the_tmux_hint_only_inside_a_tmux_that_keeps_osc_52(monkeypatch):
    monkeypatch.delenv("TMUX", raising=False)
    assert tmux_hint() is None
    monkeypatch.setenv("TMUX", "/tmp/tmux-0/default,1,0")

    class Answer:
        def __init__(self, stdout):
            self.stdout = stdout

    monkeypatch.setattr(clipboard.subprocess, "run", lambda *a, **k: Answer("external\n"))
    assert tmux_hint() == TMUX_HINT
    monkeypatch.setattr(clipboard.subprocess, "run", lambda *a, **k: Answer("on\n"))
    assert tmux_hint() is None
    assert copied_notice("x", TERMINAL, TMUX_HINT) == f"Copied x via OSC 52. {TMUX_HINT}"


async def test_the_first_osc_52_copy_in_tmux_says_how_to_pass_it_on_then_never_again(seed_engine, monkeypatch):
    def no_backend(text):
        raise pyperclip.PyperclipException("no backend")

    monkeypatch.setattr(pyperclip, "copy", no_backend)
    monkeypatch.setattr("tui.screens.paper_actions.tmux_hint", lambda: TMUX_HINT)
    shown: list[str] = []
    monkeypatch.setattr(ReaderApp, "notify", lambda self, message, *a, **k: shown.append(message))
    app = ReaderApp(seed_engine, store=UserStore())
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot, app)
        await pilot.press(*"graphbridge")
        await settle(pilot, app)
        await pilot.press("enter", "y", "y")
        await pilot.pause()
    copies = [message for message in shown if message.startswith("Copied")]
    assert copies == [
        f"Copied openreview.net/…id=gjRhw5S3A4 via OSC 52. {TMUX_HINT}",
        "Copied openreview.net/…id=gjRhw5S3A4 via OSC 52",
    ]


def test_a_query_that_is_only_a_misunderstood_filter_is_not_said_twice(seed_engine):
    said = result_status(seed_engine.search("has:pdf"))
    assert said.count("has:pdf") == 1 and said.startswith("Nothing matches: has:pdf (try has:code)")
    said = result_status(seed_engine.search("sort:date"))  # an order not read: every paper, and a hint
    assert said.count("sort:date") == 1 and said.startswith("Hint: sort:date (try sort:relevance")
    said = result_status(seed_engine.search("graph status:nonesuch"))
    assert said.startswith("Nothing matches “graph status:nonesuch”:")  # a query with more than the filter
