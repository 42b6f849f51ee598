"""Every binding the app has is documented: in the help screen's table and in README."""

from pathlib import Path

from tui.app import ReaderApp
from tui.keys import KEYS, markdown_table
from tui.screens.bookmarks import BookmarksScreen
from tui.screens.dialogs import LinkPicker, NoteDialog, TagsDialog
from tui.screens.help import HelpScreen
from tui.screens.main import MainScreen
from tui.screens.recommended import RecommendedScreen
from tui.widgets.reader import ReaderPane
from tui.widgets.results_list import ResultsList
from tui.widgets.search_box import SearchBox

README = Path(__file__).resolve().parents[2] / "README.md"
ALIASES = {
    "slash": "/",
    "question_mark": "?",
    "escape": "esc",
    "left_square_bracket": "[",
    "right_square_bracket": "]",
    "asterisk": "*",
}


def documented_keys() -> set[str]:
    return {key for _, keys, _ in KEYS for key in keys.split()}


def test_every_binding_is_in_the_key_table():
    documented = documented_keys()
    owners = (
        ReaderApp,
        MainScreen,
        ResultsList,
        ReaderPane,
        SearchBox,
        HelpScreen,
        BookmarksScreen,
        RecommendedScreen,
        NoteDialog,
        TagsDialog,
        LinkPicker,
    )
    for owner in owners:
        for binding in owner.BINDINGS:
            for key in binding.key.split(","):
                assert ALIASES.get(key, key) in documented, f"{owner.__name__}: {key} is not in tui/keys.py"


def test_readme_has_the_same_key_table():
    assert markdown_table() in README.read_text(encoding="utf-8")
