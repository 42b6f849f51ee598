"""The key bar shows the keys that work where the focus is, and is drawn again only when they change."""

from __future__ import annotations

from tests.tui.conftest import settle
from tests.tui.test_browsing import footer
from tui.widgets.footer import KeyBar


def keys(app) -> list[tuple[str, str]]:
    return app.screen.query_one(KeyBar).keys


async def test_the_key_bar_follows_the_focus(make_app):
    app = make_app()
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(pilot, app)
        typing = keys(app)
        assert ("^b", "Bookmark") in typing and ("⏎", "Open") not in typing
        assert "^b Bookmark" in footer(app) and footer(app).rstrip().endswith("▏^p palette")
        await pilot.press("down")  # to the results
        await settle(pilot, app)
        browsing = keys(app)
        assert ("⏎", "Open") in browsing and ("b", "Bookmark") in browsing and ("^b", "Bookmark") not in browsing
        assert "⏎ Open" in footer(app)
        await pilot.press("slash")
        await settle(pilot, app)
        assert keys(app) == typing


async def test_the_key_bar_is_not_drawn_again_for_the_same_keys(make_app):
    app = make_app()
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(pilot, app)
        bar = app.screen.query_one(KeyBar)
        drawn = []
        refresh = bar.refresh
        bar.refresh = lambda *args, **kwargs: drawn.append(1) or refresh(*args, **kwargs)
        app.screen.refresh_bindings()  # what every focus change does
        await settle(pilot, app)
        assert not drawn
        await pilot.press("down")  # other keys: drawn again
        await settle(pilot, app)
        assert drawn


async def test_a_click_on_a_key_presses_it(make_app):
    app = make_app()
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(pilot, app)
        column = footer(app).index("f1 Help")
        await pilot.click(KeyBar, offset=(column + 1, 0))
        await settle(pilot, app)
        assert type(app.screen).__name__ == "HelpScreen"


async def test_under_a_dialog_the_key_bar_shows_the_dialogs_keys(make_app):
    """The save-search dialog and the help showed the main screen's keys below them (b, y, r...),
    which do nothing there."""
    from tui.screens.main import MainScreen

    app = make_app()
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(pilot, app)
        main = app.screen
        assert isinstance(main, MainScreen)
        bar = main.query_one(KeyBar)
        await pilot.press(*"graph", "ctrl+s")
        await settle(pilot, app)
        assert bar.keys == [("esc", "Cancel")] and "Bookmark" not in footer(app)
        await pilot.press("escape")
        await settle(pilot, app)
        assert ("^b", "Bookmark") in bar.keys and "^b Bookmark" in footer(app)
        await pilot.press("f1")
        await settle(pilot, app)
        assert type(app.screen).__name__ == "HelpScreen"
        assert bar.keys == [("esc", "Close")] and footer(app).strip() == "esc Close"
