"""The key bar shows the keys that work where the focus is, and is rebuilt only when they change."""

from __future__ import annotations

from textual.widgets._footer import FooterKey

from tests.tui.conftest import settle
from tui.widgets.footer import KeyFooter


def keys(app) -> list[tuple[str, str]]:
    return [(key.key_display, key.description) for key in app.screen.query_one(KeyFooter).query(FooterKey)]


async def test_the_key_bar_follows_the_focus(make_app):
    app = make_app()
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(pilot, app)
        typing = keys(app)
        assert ("^b", "Bookmark") in typing and ("⏎", "Open") not in typing
        await pilot.press("down")  # to the results
        await settle(pilot, app)
        browsing = keys(app)
        assert ("⏎", "Open") in browsing and ("b", "Bookmark") in browsing and ("^b", "Bookmark") not in browsing
        await pilot.press("slash")
        await settle(pilot, app)
        assert keys(app) == typing


async def test_the_key_bar_is_not_rebuilt_for_the_same_keys(make_app):
    app = make_app()
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(pilot, app)
        footer = app.screen.query_one(KeyFooter)
        before = list(footer.query(FooterKey))
        app.screen.refresh_bindings()  # what every focus change does
        await settle(pilot, app)
        assert list(footer.query(FooterKey)) == before and all(key.is_attached for key in before)
        await pilot.press("down")  # other keys: rebuilt
        await settle(pilot, app)
        assert not any(key.is_attached for key in before)
