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


def skip_unless_ci(message: str) -> None:
    """Skip with a reason on a developer's machine; CI sets ICLR_READER_NO_SKIP, where this fails instead."""
    if os.environ.get("ICLR_READER_NO_SKIP"):
        pytest.fail(f"{message} (CI must provide it)")
    pytest.skip(message)


@pytest.fixture(scope="session")
def paperlist_files() -> list[Path]:
    """The 17 real conference lists (CI has them beside the checkout)."""
    files = sorted(PAPERLISTS.glob("*.json")) if PAPERLISTS.is_dir() else []
    if not files:
        skip_unless_ci(f"needs the shared corpora at {PAPERLISTS} (not part of a fresh clone)")
    return files


@pytest.fixture(scope="session")
def seed_engine(tmp_path_factory):
    """The bundled corpus with its index built once for the session."""
    from search.corpus.loader import load_corpus
    from search.engine import SearchEngine

    engine = SearchEngine(load_corpus(), cache_dir=tmp_path_factory.mktemp("seed-cache"))
    engine.ensure_index()
    return engine


@pytest.fixture
def engine_over(tmp_path):
    """An engine with its index built, over JSON lists written from {file name: records}."""
    import json

    from search.corpus.loader import load_corpus
    from search.engine import SearchEngine

    def factory(lists: dict[str, list[dict]]) -> SearchEngine:
        paths = []
        for name, records in lists.items():
            path = tmp_path / name
            path.write_text(json.dumps(records), encoding="utf-8")
            paths.append(path)
        engine = SearchEngine(load_corpus(paths), tmp_path / "cache")
        engine.ensure_index()
        return engine

    return factory
