"""Keys reach a text box in a burst when the app is busy (a real terminal under load): editing keys
(ctrl+u, backspace, left) act in the order they were typed, never after the characters typed behind
them. Every text box of the app is an InOrderInput."""

from __future__ import annotations

import re
from pathlib import Path

from textual import events
from textual.app import App, ComposeResult

from search import bookmark_of
from tests.tui.conftest import keys_done, settle
from tui.screens.bookmarks import BookmarksScreen
from tui.widgets.in_order_input import InOrderTextArea
from tui.widgets.search_box import SearchBox

TUI = Path(__file__).resolve().parents[2] / "tui"

CHARACTER_KEYS = {" ": "space", ":": "colon", "/": "slash", "?": "question_mark"}
CONTROL_CHARACTERS = {"ctrl+u": "\x15", "backspace": "\x7f"}


def burst(app: App, *keys: str) -> None:
    """Queue every key before the app handles the first, as a terminal's driver does with bytes
    that arrive in one read while the app is busy. (Pilot's press waits for the app to go idle after
    each key, so keys never queue up behind one another there.) Single characters are typed as
    themselves; longer names are keys."""
    for key in keys:
        if len(key) == 1:
            event = events.Key(CHARACTER_KEYS.get(key, key), key)
        else:
            event = events.Key(key, CONTROL_CHARACTERS.get(key))
        event.set_sender(app)
        app.post_message(event)


class BoxApp(App[None]):
    def __init__(self, box: SearchBox | InOrderTextArea) -> None:
        super().__init__()
        self.box = box

    def compose(self) -> ComposeResult:
        yield self.box


def text_of(box: SearchBox | InOrderTextArea) -> str:
    return box.text if isinstance(box, InOrderTextArea) else box.value


async def typed_in_a_burst(*keys: str, before: str = "graph", box: SearchBox | InOrderTextArea | None = None) -> str:
    """What the box (a search box unless given) holds after `before` typed a key at a time, then `keys`."""
    box = SearchBox() if box is None else box
    app = BoxApp(box)
    async with app.run_test() as pilot:
        box.focus()
        await pilot.press(*before)
        assert text_of(box) == before
        burst(app, *keys)
        await pilot.pause()
        return text_of(box)


async def test_ctrl_u_clears_before_the_characters_typed_after_it():
    assert await typed_in_a_burst("ctrl+u", *"list") == "list"


async def test_backspace_deletes_the_character_before_it_not_after():
    assert await typed_in_a_burst("backspace", *"hic", before="grapj") == "graphic"


async def test_the_cursor_moves_before_the_next_character_is_typed():
    assert await typed_in_a_burst("left", "left", "X", "end", "s", before="graph") == "graXphs"


async def test_a_key_the_box_does_not_take_still_reaches_the_screen(make_app):
    """Esc is the screen's (it clears the query from the box): it still works from the box."""
    app = make_app()
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(pilot, app)
        box = app.screen.query_one(SearchBox)
        await pilot.press(*"graph")
        await pilot.press("escape")
        assert box.value == ""


async def test_the_tester_s_keys_in_the_app(make_app):
    """The report: "graph", a pause, ctrl+u, then a query typed while the app shows graph's results."""
    app = make_app()
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(pilot, app)
        box = app.screen.query_one(SearchBox)
        await pilot.press(*"graph")
        await settle(pilot, app)
        burst(app, "ctrl+u", *"list:iclr2018 AND x")
        await settle(pilot, app)
        assert box.value == "list:iclr2018 AND x"


async def test_the_bookmarks_filter_keeps_the_order_too(make_app, seed_engine):
    app = make_app()
    for paper in seed_engine.papers[:3]:
        app.store.add(bookmark_of(seed_engine.describe(paper.id)))
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(pilot, app)
        await pilot.press("tab", "B", "slash", *"graph")
        assert isinstance(app.screen, BookmarksScreen)
        box = app.screen.query_one("#bookmark-filter")
        burst(app, "ctrl+u", *"bit")
        await keys_done(pilot, app)
        assert box.value == "bit"


def test_every_text_box_is_an_in_order_input():
    """A plain Input would lose the order again (the note dialog's TextArea is not an Input)."""
    plain = [
        f"{path.relative_to(TUI)}:{number}"
        for path in sorted(TUI.rglob("*.py"))
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if re.search(r"(?<![\w.])Input\(", line)
    ]
    assert plain == []


async def test_the_note_s_backspace_and_arrows_act_before_the_characters_after_them():
    """The tester's bursts in the note dialog: "def" then backspace, backspace, X gave "de"; three
    lefts then Q put the Q before the lefts moved the cursor."""
    note = InOrderTextArea
    assert await typed_in_a_burst("backspace", "backspace", "X", before="def", box=note()) == "dX"
    assert await typed_in_a_burst("left", "left", "left", "Q", before="abcXYZ", box=note()) == "abcQXYZ"


async def test_the_note_dialog_s_box_is_an_in_order_text_area(make_app):
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot, app)
        await pilot.press("tab", "n")
        await pilot.pause()
        assert app.screen.query_one("#note").__class__ is InOrderTextArea
