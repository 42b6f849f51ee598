"""Snapshots of the main screens at 80x24 and 140x40. Update only after reading the report:
pytest tests/tui/test_snapshots.py --snapshot-update"""

import pytest
from textual.widgets import Input, TextArea

from tests.tui.conftest import one_fast, settle
from tui.widgets.search_box import SearchBox

SIZES = {"80x24": (80, 24), "140x40": (140, 40)}


def prepared(*keys):
    async def run_before(pilot):
        app = pilot.app
        await settle(pilot, app)
        app.screen.query_one(SearchBox).cursor_blink = False
        for key in keys:
            await pilot.press(key)
            await settle(pilot, app)
        # A screen opened by the keys blinks too (help's filter, the note dialog's text): a blink
        # caught half-way would make the picture depend on when it was taken.
        for box in [*app.screen.query(Input), *app.screen.query(TextArea)]:
            box.cursor_blink = False
        await settle(pilot, app)

    return run_before


@pytest.mark.parametrize("size", one_fast(SIZES))
def test_start_screen(snap_compare, make_app, size):
    assert snap_compare(make_app(), terminal_size=SIZES[size], run_before=prepared())


@pytest.mark.parametrize("size", one_fast(SIZES))
def test_search_results(snap_compare, make_app, size):
    assert snap_compare(make_app(), terminal_size=SIZES[size], run_before=prepared(*"kv cache"))


@pytest.mark.parametrize("size", one_fast(SIZES))
def test_reader_open(snap_compare, make_app, size):
    keys = [*"bitstack", "enter", "enter"]
    assert snap_compare(make_app(), terminal_size=SIZES[size], run_before=prepared(*keys))


@pytest.mark.parametrize("size", one_fast(SIZES))
def test_empty_state_and_did_you_mean(snap_compare, make_app, size):
    assert snap_compare(make_app(), terminal_size=SIZES[size], run_before=prepared(*"wasserstien "))


@pytest.mark.parametrize("size", one_fast(SIZES))
def test_help_screen(snap_compare, make_app, size):
    assert snap_compare(make_app(), terminal_size=SIZES[size], run_before=prepared("down", "question_mark"))


# Two real abstracts (ICML 2017, AISTATS 2022) heavy in math: scripts, \widetilde, \mathbb, \cal,
# \frac, \max\{...\}, \left(...\right).
MATH_HEAVY = (
    r"We show that DBSCAN can estimate the connected components of the $\lambda$-density level set "
    r"$\{ x : f(x) \ge \lambda\}$ given $n$ i.i.d. samples from an unknown density $f$. When the data "
    r"lies in $\mathbb{R}^D$ we obtain a rate of $\widetilde{O}(n^{-1/(2\beta + D)})$, which matches "
    r"known lower bounds up to logarithmic factors. When the data lies on an embedded unknown "
    r"$d$-dimensional manifold in $\mathbb{R}^D$, then we obtain a rate of "
    r"$\widetilde{O}(n^{-1/(2\beta + d\cdot \max\{1, \beta \})})$.",
    r"In the episodic CMDP setting, Triple-Q achieves $\tilde{\cal O}\left(\frac{1 }{\delta}H^4 "
    r"S^{\frac{1}{2}}A^{\frac{1}{2}}K^{\frac{4}{5}} \right)$ regret, where $K$ is the total number of "
    r"episodes and $\delta$ is Slater's constant --- with ``zero'' constraint violation.",
)


@pytest.mark.parametrize("size", one_fast(SIZES))
def test_reader_shows_a_math_heavy_abstract(snap_compare, make_app, engine_for, size):
    app = make_app(engine=engine_for(*MATH_HEAVY))
    keys = [*"dbscan", "enter", "enter"]
    assert snap_compare(app, terminal_size=SIZES[size], run_before=prepared(*keys))


def with_bookmarks(*keys, theme: str | None = None):
    """`prepared(*keys)` after two papers were bookmarked, one with a note and tags."""
    then = prepared(*keys)

    async def run_before(pilot):
        from search import bookmark_of

        app = pilot.app
        engine = app.screen.engine
        first, second = engine.papers[0], engine.papers[5]
        app.store.add(bookmark_of(engine.describe(first.id)))
        app.store.add(bookmark_of(engine.describe(second.id)))
        app.store.set_note(second.id, "Read section 4 again: the ablation on cache size.")
        app.store.set_tags(second.id, ["kv-cache", "to-read"])
        if theme:
            app.theme = theme
        app.screen._load_marks()
        app.screen._refill()
        await then(pilot)

    return run_before


@pytest.mark.parametrize("size", one_fast(SIZES))
def test_bookmarks_screen(snap_compare, make_app, size):
    assert snap_compare(make_app(), terminal_size=SIZES[size], run_before=with_bookmarks("down", "B"))


@pytest.mark.parametrize("size", one_fast(SIZES))
def test_recommended_screen(snap_compare, make_app, size):
    assert snap_compare(make_app(), terminal_size=SIZES[size], run_before=with_bookmarks("down", "B", "r"))


@pytest.mark.parametrize("size", one_fast(SIZES))
def test_note_dialog(snap_compare, make_app, size):
    assert snap_compare(make_app(), terminal_size=SIZES[size], run_before=with_bookmarks("down", "n"))


@pytest.mark.parametrize("size", one_fast(SIZES))
def test_tags_dialog(snap_compare, make_app, size):
    keys = ["down", *["j"] * 5, "t"]
    assert snap_compare(make_app(), terminal_size=SIZES[size], run_before=with_bookmarks(*keys))


@pytest.mark.parametrize("size", one_fast(SIZES))
def test_get_picker(snap_compare, make_app, size):
    assert snap_compare(make_app(), terminal_size=SIZES[size], run_before=prepared("ctrl+g", *"iclr"))


@pytest.mark.parametrize("size", one_fast(SIZES))
def test_command_palette(snap_compare, make_app, size):
    assert snap_compare(make_app(), terminal_size=SIZES[size], run_before=prepared("ctrl+p", *"book"))


@pytest.mark.parametrize("size", one_fast(SIZES))
def test_filters_and_sort(snap_compare, make_app, size):
    assert snap_compare(make_app(), terminal_size=SIZES[size], run_before=prepared(*"kv cache", "ctrl+t"))


@pytest.mark.parametrize("size", one_fast(SIZES))
def test_light_theme(snap_compare, make_app, size):
    keys = [*"kv cache", "enter", "j"]
    run_before = with_bookmarks(*keys, theme="textual-light")
    assert snap_compare(make_app(), terminal_size=SIZES[size], run_before=run_before)
