"""Preferences kept in config.toml across restarts, every bad file a notice with defaults (the file
left as it is), and the command palette's wording (descriptions shown literally, Keys opens our help)."""

from __future__ import annotations

import os
import tomllib

import pytest
from textual.command import CommandList, CommandPalette
from textual.theme import BUILTIN_THEMES

from search.user.store import UserStore
from tests.tui.conftest import WIDE, settle
from tui.app import ReaderApp
from tui.preferences import MAX_CONFIG_BYTES, Preferences, PreferencesError, load, save
from tui.screens.help import HelpScreen

CHOSEN = Preferences(theme="nord", split=30, sort="name", match="all", list_only=True)


@pytest.fixture
def config(isolated_dirs):
    """Where the app keeps its preferences in this test's XDG config dir (not created yet)."""
    return isolated_dirs / "xdg_config_home" / "iclr-reader" / "config.toml"


def write(path, content: bytes | str) -> bytes:
    path.parent.mkdir(parents=True, exist_ok=True)
    data = content.encode("utf-8") if isinstance(content, str) else content
    path.write_bytes(data)
    return data


@pytest.fixture
def notes(monkeypatch):
    """Every notification the app shows, as (title, message)."""
    shown = []
    original = ReaderApp.notify

    def record(self, message, *args, **kwargs):
        shown.append((kwargs.get("title", ""), str(message)))
        return original(self, message, *args, **kwargs)

    monkeypatch.setattr(ReaderApp, "notify", record)
    return shown


# -- the file ------------------------------------------------------------------------------------


def test_saved_preferences_are_read_back_from_the_xdg_config_dir(config):
    save(CHOSEN)
    assert config.is_file()  # the folder is created on the first save
    assert load() == load(config)
    assert load().preferences == CHOSEN and load().notice is None
    text = config.read_text(encoding="utf-8")
    assert text.startswith("# ")  # a header says what the file is
    assert tomllib.loads(text) == {"theme": "nord", "split": 30, "sort": "name", "match": "all", "list_only": True}


def test_strings_are_quoted_so_any_theme_name_comes_back_as_it_was(config):
    odd = Preferences(theme='say "hi" \\ back\\slash\n\ttab \x1b\x7f é 名')
    save(odd, config)
    assert load(config).preferences == odd


def test_no_file_means_the_defaults_and_no_notice(config):
    loaded = load()
    assert loaded.preferences == Preferences() and loaded.notice is None
    assert not config.exists()  # reading never creates it


def test_every_key_is_optional(config):
    write(config, "# only the split\nsplit = 60\n")
    loaded = load(config)
    assert loaded.preferences == Preferences(split=60) and loaded.notice is None


def test_a_file_fixed_after_a_problem_is_saved_again(config):
    write(config, "split = 90\n")
    with pytest.raises(PreferencesError):
        save(CHOSEN, config)
    write(config, "split = 60\n")
    save(CHOSEN, config)
    assert load(config).preferences == CHOSEN


BAD_FILES = {
    "bad TOML": ("theme = nord\n", "not valid TOML at line 1, column 9", Preferences()),
    "wrong types": (
        'split = "wide"\nlist_only = "yes"\nsort = 3\n',
        'split must be a whole number from 25 to 75 (percent), not "wide"; list_only must be true or false, '
        'not "yes"; sort must be "relevance", "order" or "name", not 3',
        Preferences(),
    ),
    "a boolean for a number": ("split = true\n", "split must be a whole number", Preferences()),
    "out of range, the good keys kept": (
        'split = 90\nmatch = "all"\n',
        "split must be a whole number from 25 to 75 (percent), not 90",
        Preferences(match="all"),
    ),
    "unknown key": (
        'sort = "order"\ncolour = "red"\n',
        'unknown key "colour" (the keys are theme, split, sort, match, list_only, guide_seen)',
        Preferences(sort="order"),
    ),
    "a table": ("[display]\nsplit = 30\n", 'unknown key "display"', Preferences()),
    "unknown theme": ('theme = "nrod"\n', 'theme "nrod" is not a theme the app knows', Preferences()),
    "too big": ("# padding\n" * (MAX_CONFIG_BYTES // 10 + 1), "larger than the 64 KiB limit", Preferences()),
    "not UTF-8": (b'theme = "caf\xe9"\n', "not UTF-8 text", Preferences()),
    "nested too deep": ("a = " + "[" * 20000 + "]" * 20000 + "\n", "nested too deep", Preferences()),
    "a number of thousands of digits": ("split = " + "9" * 5000 + "\n", "thousands of digits", Preferences()),
}


@pytest.mark.parametrize("content, problem, expected", BAD_FILES.values(), ids=BAD_FILES.keys())
def test_a_bad_file_gives_one_notice_the_defaults_and_stays_untouched(config, content, problem, expected):
    before = write(config, content)
    loaded = load(config, themes=BUILTIN_THEMES)
    assert loaded.preferences == expected
    assert loaded.notice is not None and "\n" not in loaded.notice
    assert loaded.notice.startswith(f"{config}: ") and problem in loaded.notice
    assert "the file is left untouched" in loaded.notice
    with pytest.raises(PreferencesError, match="fix or delete the file"):
        save(CHOSEN, config, themes=BUILTIN_THEMES)
    assert config.read_bytes() == before


def test_many_problems_are_counted_not_all_listed(config):
    write(config, "".join(f"key{number} = {number}\n" for number in range(10)))
    notice = load(config).notice
    assert notice is not None and 'unknown key "key2"' in notice and "and 7 more" in notice
    assert "key3" not in notice


DEEP_KEYS = {
    "a key of 20,000 parts": "a" + ".a" * 20_000 + " = 1\n",
    "a table of 16,000 parts, then 4,000 keys": "[a"
    + ".a" * 16_000
    + "]\n"
    + "".join(f"k{n}=1\n" for n in range(4000)),
    "quoted parts": '"a"' + '."a"' * 10_000 + " = 1\n",
    "spaced parts, after a good key": "split = 30\na . \"b\" . 'c'" + " . d" * 20 + " = 1\n",
    "in an inline table": "x = { " + "a." * 40 + "b = 1 }\n",
}


@pytest.mark.parametrize("content", DEEP_KEYS.values(), ids=DEEP_KEYS.keys())
def test_a_key_of_absurd_depth_is_refused_before_the_toml_is_parsed(config, monkeypatch, content):
    """tomllib's time grows with the square of a key's dotted parts (a 20,000-part key: 4.7 s, a
    16,000-part table followed by keys: 30 s and 1.5 GB): such a file is one notice, never parsed."""
    before = write(config, content)

    def never(*args, **kwargs):
        raise AssertionError("the file was parsed")

    monkeypatch.setattr(tomllib, "loads", never)
    loaded = load(config, themes=BUILTIN_THEMES)
    assert loaded.preferences == Preferences()
    assert loaded.notice == (
        f"{config}: a dotted key of more than 16 parts (the keys are single words). Using defaults for what is "
        "wrong; the file is left untouched and settings changed in the app are not saved until you fix or delete it."
    )
    with pytest.raises(PreferencesError, match="fix or delete the file"):
        save(CHOSEN, config, themes=BUILTIN_THEMES)
    assert config.read_bytes() == before


def test_dots_in_strings_comments_and_numbers_are_not_key_parts(config):
    dots = "." * 40
    content = (
        f"# a comment with {dots} and 'quotes\"\n"
        f'theme = "nord{dots}"  # {dots}\n'
        f"sort = '''order{dots}\n'''''\n"
        f'match = """{dots}\\""" {dots}"""\n'
        "split = 30.5\n"
        "a" + ".a" * 15 + " = 1\n"  # 16 parts: the most a key may have
    )
    write(config, content)
    loaded = load(config)  # parsed: each problem is a value's or an unknown key's
    assert loaded.preferences.theme == f"nord{dots}"
    assert loaded.notice is not None and "dotted key" not in loaded.notice
    assert 'sort must be "relevance", "order" or "name", not "order...' in loaded.notice
    assert "match must be" in loaded.notice and "split must be" in loaded.notice and "and 1 more" in loaded.notice


def test_a_directory_in_its_place_is_a_notice_and_stays(config):
    config.mkdir(parents=True)
    notice = load(config).notice
    assert notice is not None and "is a directory, not a config file" in notice
    with pytest.raises(PreferencesError):
        save(CHOSEN, config)
    assert config.is_dir() and not any(config.iterdir())


def test_a_named_pipe_in_its_place_is_refused_without_waiting_for_a_writer(config):
    config.parent.mkdir(parents=True)
    os.mkfifo(config)
    notice = load(config).notice
    assert notice is not None and "not a regular file" in notice


def test_an_unreadable_file_is_a_notice_and_is_not_replaced(config):
    config.parent.mkdir(parents=True)
    config.symlink_to(config.name)  # a link to itself: opening it fails with ELOOP, as root too
    notice = load(config).notice
    assert notice is not None and "cannot read (too many levels of symbolic links)" in notice
    with pytest.raises(PreferencesError):
        save(CHOSEN, config)
    assert os.readlink(config) == config.name


def test_a_file_without_read_permission_is_a_notice_and_is_not_replaced(config, monkeypatch):
    before = write(config, "split = 30\n")
    config.chmod(0o200)
    with monkeypatch.context() as patch:
        if os.geteuid() == 0:  # root reads a file whatever its mode (CI runs as root): refuse as the kernel would
            opened = os.open

            def refused(path, flags, *args, **kwargs):
                if os.fspath(path) == os.fspath(config):
                    raise PermissionError(13, "Permission denied", os.fspath(path))
                return opened(path, flags, *args, **kwargs)

            patch.setattr(os, "open", refused)
        notice = load(config).notice
        assert notice is not None and "permission denied" in notice
        with pytest.raises(PreferencesError):
            save(CHOSEN, config)
    config.chmod(0o600)
    assert config.read_bytes() == before


def test_a_config_folder_that_cannot_be_made_is_an_error_line(config):
    config.parent.parent.mkdir(parents=True, exist_ok=True)
    config.parent.write_text("a file where the folder should be", encoding="utf-8")
    with pytest.raises(PreferencesError) as raised:
        save(CHOSEN, config)
    assert str(raised.value).startswith(f"{config}") and "\n" not in str(raised.value)


# -- the app -------------------------------------------------------------------------------------


async def pick_theme(pilot, app, name: str) -> None:
    await pilot.press("ctrl+p")
    await pilot.press(*"theme")
    await pilot.pause(0.3)
    await pilot.press("enter")  # Theme: the palette now lists the themes
    await pilot.pause()
    await pilot.press(*name)
    await pilot.pause(0.3)
    await pilot.press("enter")
    await pilot.pause()


async def test_a_theme_picked_in_the_palette_is_back_after_a_restart(make_app, config):
    app = make_app()
    async with app.run_test(size=WIDE) as pilot:
        await settle(pilot, app)
        assert app.theme != "nord"
        await pick_theme(pilot, app, "nord")
        assert app.theme == "nord"
    restarted = make_app()
    async with restarted.run_test(size=WIDE) as pilot:
        await settle(pilot, restarted)
        assert restarted.theme == "nord"
        assert restarted.preferences.theme == "nord"


async def test_preferences_set_through_the_app_are_saved_with_the_others_kept(make_app, config):
    write(config, 'theme = "nord"\nsplit = 30\n')
    app = make_app()
    async with app.run_test(size=WIDE) as pilot:
        await settle(pilot, app)
        assert app.theme == "nord" and app.preferences.split == 30
        app.update_preferences(sort="name", list_only=True)
    assert load(config).preferences == Preferences(theme="nord", split=30, sort="name", list_only=True)


async def test_preferences_passed_to_the_app_are_used(seed_engine):
    app = ReaderApp(seed_engine, store=UserStore(), preferences=Preferences(theme="gruvbox", split=60))
    async with app.run_test(size=WIDE) as pilot:
        await settle(pilot, app)
        assert app.theme == "gruvbox" and app.preferences.split == 60


async def test_a_bad_file_is_a_notice_the_app_starts_and_a_change_leaves_the_file_alone(make_app, config, notes):
    before = write(config, "theme = nord\n")
    app = make_app()
    async with app.run_test(size=WIDE) as pilot:
        await settle(pilot, app)
        assert ("Preferences", load(config).notice) in notes
        await pick_theme(pilot, app, "nord")
        assert app.theme == "nord" and app.is_running  # the change holds for this run
        failures = [message for title, message in notes if title == "Preferences not saved"]
        assert len(failures) == 1 and "not valid TOML" in failures[0]
    assert config.read_bytes() == before


# -- the palette's wording -----------------------------------------------------------------------


async def palette_entries(pilot, app, query: str) -> list[str]:
    """What the palette lists for a query: each entry's title and description, as shown."""
    await pilot.press("ctrl+p")
    assert isinstance(app.screen, CommandPalette)
    await pilot.press(*query)
    await pilot.pause(0.3)
    commands = app.screen.query_one(CommandList)
    return [commands.get_option_at_index(index).prompt.plain for index in range(commands.option_count)]


async def test_the_palette_shows_the_markdown_citation_description_literally(make_app):
    app = make_app()
    async with app.run_test(size=WIDE) as pilot:
        await settle(pilot, app)
        entries = await palette_entries(pilot, app, "markdown citation")
        assert "Copy Markdown citation\nCopy [headline](url)" in entries


async def test_a_saved_search_with_brackets_is_listed_as_it_was_named(make_app):
    UserStore().save_search("[A] ideas", "[$x] graph")
    app = make_app()
    async with app.run_test(size=WIDE) as pilot:
        await settle(pilot, app)
        entries = await palette_entries(pilot, app, "saved search")
        assert any(entry.endswith("\n[$x] graph") and "[A] ideas" in entry for entry in entries)


async def test_the_palettes_keys_entry_opens_the_apps_help(make_app):
    app = make_app()
    async with app.run_test(size=WIDE) as pilot:
        await settle(pilot, app)
        entries = await palette_entries(pilot, app, "keys")
        assert entries[0] == "Keys\nShow the app's keys (?)"
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen)
        assert not app.query("HelpPanel")  # not Textual's panel of OptionList and Input keys
