"""Where derived data (the index), user data and preferences live. platformdirs honours XDG_* on Linux."""

from __future__ import annotations

from pathlib import Path

import platformdirs

APP_NAME = "iclr-reader"


def cache_dir() -> Path:
    """Derived data that can be rebuilt at any time: search indexes."""
    return Path(platformdirs.user_cache_dir(APP_NAME, appauthor=False))


def data_dir() -> Path:
    """User data that must never be lost: bookmarks, notes, history."""
    return Path(platformdirs.user_data_dir(APP_NAME, appauthor=False))


def config_dir() -> Path:
    """Preferences the user may edit by hand: config.toml (XDG_CONFIG_HOME, else ~/.config)."""
    return Path(platformdirs.user_config_dir(APP_NAME, appauthor=False))
