"""A seeded random walk over the app's own keys, and the invariants it checks after every few keys.

Shared by test_random_walk.py (the walk itself) and test_core_loop.py (the sequences it found, and
the ones users reported, as plain tests)."""

from __future__ import annotations

import json
import random
import re
from pathlib import Path

from search import SearchEngine, load_corpus
from tests.tui.conftest import settle
from tui.keys import KEYS as KEY_TABLE
from tui.screens.main import MainScreen
from tui.widgets.reader import ReaderPane
from tui.widgets.results_list import ResultsList

WORDS = ["learning", "graph", "diffusion", "memory", "transformer", "robust", "sparse", "kernel", "policy", "cache"]


def walk_corpus(folder: Path, papers: int = 1200) -> SearchEngine:
    """`papers` papers in two lists with different venues: most of them "learning", titles of many
    lengths, every seventh with a code link, statuses to filter by, authors and keywords."""
    rng = random.Random(1)
    lists = []
    for part, venue in enumerate(("ICLR 2018", "COLM 2025")):
        records = []
        for n in range(papers // 2):
            words = rng.sample(WORDS, 3)
            if n % 5:
                words[0] = "learning"
            title = f"{words[0].title()} {words[1]} for {words[2]} number {n}" + " with a long tail" * (n % 4)
            record = {
                "id": f"p{part}-{n:04d}",
                "title": title,
                "abstract": f"We study {' and '.join(words)}. Case {n} of {venue}; results improve on baselines.",
                "author": f"Ada Lovelace; Author {n % 37}",
                "keywords": "; ".join(words[:2]),
                "venue": venue,
                "status": ("Poster", "Oral", "Reject", "Spotlight")[n % 4],
            }
            if n % 7 == 0:
                record["github"] = f"https://github.com/example/repo{part}-{n}"
            records.append(record)
        path = folder / f"walk{part}.json"
        path.write_text(json.dumps(records), encoding="utf-8")
        lists.append(path)
    engine = SearchEngine(load_corpus(lists), cache_dir=folder / "cache")
    engine.ensure_index()
    return engine


def main_screen(app) -> MainScreen:
    return next(screen for screen in app.screen_stack if isinstance(screen, MainScreen))


_ALL_OF_ANY = re.compile(r"([\d,]+) with all words \(of [\d,]+ with any\)")
_COUNT = re.compile(r"([\d,]+) (?:matches|match|papers|paper)\b")


def header_count(sub_title: str) -> int:
    """How many papers the header says the list holds."""
    for pattern in (_ALL_OF_ANY, _COUNT):
        if found := pattern.search(sub_title):
            return int(found.group(1).replace(",", ""))
    raise AssertionError(f"no count in the header: {sub_title!r}")


def assert_consistent(app, after: str = "", selection_shown: bool = True) -> None:
    """The invariants of a settled app: it runs; the header's count is the number of rows the list
    can reach; no row appears twice; the selection is in the list (and on screen, unless the wheel
    moved the view since: `selection_shown`); the reader shows the selected paper, or says none is."""
    where = f"after {after!r}" if after else ""
    assert app.is_running and app._exception is None, f"{where}: {app._exception!r}"
    screen = main_screen(app)
    results = screen.query_one(ResultsList)
    ids = results.paper_ids
    assert len(set(ids)) == len(ids), f"{where}: a row appears twice"
    count = header_count(app.sub_title)
    if results.more:
        assert len(ids) < count, f"{where}: {len(ids)} listed, more asked for, header says {count}"
    else:
        assert len(ids) == count, f"{where}: {len(ids)} listed, header says {count}: {app.sub_title!r}"
    if not ids:
        assert results.highlighted is None and screen.current_paper_id() in (None, screen._pinned), where
    else:
        index = results.highlighted
        assert index is not None and 0 <= index < len(ids), f"{where}: selection {index} of {len(ids)}"
        height = results.scrollable_content_region.height
        if selection_shown and results.display and height > 0:
            top = round(results.scroll_y)
            assert top <= index < top + height, f"{where}: selection {index} off screen ({top}+{height})"
    reader = screen.query_one(ReaderPane)
    current = screen.current_paper_id()
    assert reader.shown_id == current, f"{where}: the reader shows {reader.shown_id}, the selection is {current}"
    if current is None:
        assert "No paper selected" in reader.text.plain, where


TYPED = [
    *WORDS,
    "graph learning",
    "diffusion model",
    "learn",
    "kv",
    "xyzzy",
    "has:code",
    "status:oral",
    "list:walk1",
    "sort:name",
    "author:lovelace",
    '"graph for"',
    "memo*",
    "transfromer",
]
KEY_NAMES = {
    "/": "slash",
    "?": "question_mark",
    "[": "left_square_bracket",
    "]": "right_square_bracket",
    "esc": "escape",
    "*": "asterisk",
}
NOT_PRESSED = {"q", "ctrl+q", "click", "wheel"}
"""Quitting ends the walk; the mouse is moved by `walk` itself (MOUSE)."""
KEYS = sorted(
    {KEY_NAMES.get(key, key) for _, keys, _ in KEY_TABLE for key in keys.split() if key not in NOT_PRESSED}
    | {"backspace", "escape"}
)
"""Every key the app's key table names (tui/keys.py: every binding of every screen), but quitting."""
MOUSE = ["wheel down", "wheel up"]
"""And "click N": a click on the list's Nth line (of those on screen)."""


def random_keys(rng: random.Random, count: int) -> list[str]:
    """`count` keys: mostly single keys, now and then a word typed letter by letter."""
    keys: list[str] = []
    while len(keys) < count:
        if rng.random() < 0.15:
            word = rng.choice(TYPED)
            keys.extend("space" if ch == " " else ch for ch in word)
        elif rng.random() < 0.05:
            keys.append(rng.choice([*MOUSE, f"click {rng.randrange(40)}"]))
        else:
            keys.append(rng.choice(KEYS))
    return keys[:count]


async def press(app, pilot, key: str) -> None:
    """A key, or a mouse action on the result list: a click on one of its rows, the wheel."""
    if key not in MOUSE and not key.startswith("click "):
        await pilot.press(key)
        return
    results = main_screen(app).query_one(ResultsList)
    if app.screen is not results.screen or not results.display or results.size.height == 0:
        return
    if key.startswith("click "):
        await pilot.click(results, offset=(5, 1 + int(key.split()[1]) % results.size.height))
    else:
        for _ in range(3):  # what one notch of a wheel does
            (results.scroll_down if key == "wheel down" else results.scroll_up)(animate=False)
        await pilot.pause()


async def walk(app, pilot, keys: list[str], check_every: int = 5) -> None:
    """Press `keys`, checking the invariants after every `check_every` (settled first) and at the end;
    a failure names the keys pressed so far, which reproduce it."""
    pressed: list[str] = []
    wheeled: tuple | None = None
    """The list and selection when the wheel last moved the view: until either changes, the
    selection may be off screen (the wheel moves the view, not the selection)."""

    def selection_state() -> tuple:
        results = main_screen(app).query_one(ResultsList)
        return id(results.paper_ids), results.highlighted

    try:
        for key in keys:
            pressed.append(key)
            await press(app, pilot, key)
            if key.startswith("wheel"):
                wheeled = selection_state()
            assert app.is_running and app._exception is None, repr(app._exception)
            if len(pressed) % check_every == 0 or len(pressed) == len(keys):
                await settle(pilot, app)
                if isinstance(app.screen, MainScreen):
                    assert_consistent(app, selection_shown=wheeled != selection_state())
    except AssertionError as failure:
        raise AssertionError(f"{failure}\nkeys that reproduce it: {pressed!r}") from failure
