"""Shared fixtures: every test runs with its own XDG dirs, so the real home directory is never touched."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared"
PAPERLISTS = SHARED / "corpora" / "paperlists"


@pytest.fixture(autouse=True)
def isolated_dirs(tmp_path, monkeypatch):
    for name in ("XDG_CACHE_HOME", "XDG_DATA_HOME", "XDG_CONFIG_HOME", "XDG_STATE_HOME"):
        folder = tmp_path / name.lower()
        folder.mkdir()
        monkeypatch.setenv(name, str(folder))
    return tmp_path


@pytest.fixture(scope="session")
def paperlist_files() -> list[Path]:
    """The 17 real conference lists; CI sets ICLR_READER_REQUIRE_CORPORA so they can never be skipped there."""
    files = sorted(PAPERLISTS.glob("*.json")) if PAPERLISTS.is_dir() else []
    if not files:
        message = f"needs the shared corpora at {PAPERLISTS} (not part of a fresh clone)"
        if os.environ.get("ICLR_READER_REQUIRE_CORPORA"):
            pytest.fail(message)
        pytest.skip(message)
    return files


@pytest.fixture(scope="session")
def seed_engine(tmp_path_factory):
    """The bundled corpus with its index built once for the session."""
    from search.engine import SearchEngine

    from search.corpus import load_corpus

    engine = SearchEngine(load_corpus(), cache_dir=tmp_path_factory.mktemp("seed-cache"))
    engine.ensure_index()
    return engine
