"""Shared fixtures: every test runs with its own XDG dirs, so the real home directory is never touched."""

from __future__ import annotations

import fcntl
import os
import threading
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared"
PAPERLISTS = SHARED / "corpora" / "paperlists"


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_auto_num_workers(config) -> int:
    """`-n auto` (the default, see pyproject.toml): two workers per CPU. Many tests spend half their
    time or more waiting rather than computing (Textual's pilot waits for the app to go idle, the e2e
    tests for a real terminal, the store tests for fsync); the second worker uses the CPU they leave
    idle (on 2 CPUs: 4 workers finished in 200 s where 3 took 214-237 s and 2 took 268 s).
    PYTEST_XDIST_AUTO_NUM_WORKERS still overrides it."""
    if os.environ.get("PYTEST_XDIST_AUTO_NUM_WORKERS"):
        return int(os.environ["PYTEST_XDIST_AUTO_NUM_WORKERS"])
    return 2 * len(os.sched_getaffinity(0))


CORPORA_FIXTURES = {"real_corpora", "real_engine", "paperlist_files"}
"""A test that takes one of these needs ../shared/corpora: it is marked `corpora`."""

PILOT_IDLE_SLICE = 0.005
"""Seconds per look of Textual's pilot at whether the app has gone idle (Textual: 0.02)."""


def pytest_configure(config) -> None:
    """Textual's pilot waits for an app to go idle after every key and pause by sleeping in slices
    and checking that the process used (almost) no CPU in the last one: at least three slices a key
    press, 60 ms of waiting where handling the key takes a few. Shorter slices, with the same share
    of CPU that counts as idle (one twentieth), see the idle app as surely and sooner: the app
    tests wait about half as long (test_app.py and test_robustness.py in one process: 180 -> 100 s). What decides
    that the app has handled a key (its messages processed) is unchanged."""
    from textual import _wait

    _wait.SLEEP_GRANULARITY = PILOT_IDLE_SLICE
    _wait.SLEEP_IDLE = PILOT_IDLE_SLICE / 20


@pytest.hookimpl(tryfirst=True)  # before xdist reads the groups
def pytest_collection_modifyitems(config, items):
    """Tests over the real lists run on one xdist worker (with --dist loadgroup), so the 10,750
    abstracts are loaded and converted once, not once per worker."""
    for item in items:
        fixtures = getattr(item, "fixturenames", ())
        if "real_corpora" in fixtures:
            item.add_marker(pytest.mark.xdist_group("real-corpora"))
        if CORPORA_FIXTURES.intersection(fixtures):
            # Whatever its module says: -m "not corpora" leaves it out; and slow, for loading and
            # indexing 10,745 real papers (20 s of a worker) is: make check leaves it to make test.
            item.add_marker(pytest.mark.corpora)
            item.add_marker(pytest.mark.slow)


@pytest.fixture(autouse=True)
def isolated_dirs(tmp_path, monkeypatch):
    for name in ("XDG_CACHE_HOME", "XDG_DATA_HOME", "XDG_CONFIG_HOME", "XDG_STATE_HOME"):
        folder = tmp_path / name.lower()
        folder.mkdir()
        monkeypatch.setenv(name, str(folder))
    return tmp_path


@pytest.fixture(autouse=True)
def no_progress_line(monkeypatch):
    """The command line's indexing progress and its "Indexed N papers in T s" line appear only when
    a build takes more than half a second, which depends on how busy the machine is: off in every
    test, so what a test reads on stderr never does. The tests of that line turn it back on."""
    monkeypatch.setattr("tui.cli.loading.Progress.delay", float("inf"))


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


def run_wide_dir(tmp_path_factory, name: str) -> Path:
    """A directory shared by every xdist worker of this test run (and only this run)."""
    base = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        base = base.parent  # each worker's basetemp is <run>/popen-gwN
    folder = base / name
    folder.mkdir(exist_ok=True)
    return folder


class RealCorpora:
    """An engine over the real lists, and the thread building its index."""

    def __init__(self, engine, cache: Path) -> None:
        self.engine = engine
        self._cache = cache
        self._failure: BaseException | None = None
        self._builder = threading.Thread(target=self._build, name="real-corpora-index", daemon=True)
        self._builder.start()

    def _build(self) -> None:
        with open(self._cache / "build.lock", "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)  # one build per run, whichever worker comes first
            try:
                self.engine.ensure_index()
            except Exception as error:  # noqa: BLE001 - handed to the tests that need the index
                self._failure = error
            finally:
                fcntl.flock(lock, fcntl.LOCK_UN)

    def indexed(self):
        """The engine, once its index is built."""
        self._builder.join()
        if self._failure is not None:
            raise self._failure
        return self.engine


@pytest.fixture(scope="session")
def real_corpora(paperlist_files, tmp_path_factory) -> RealCorpora:
    """The real conference lists (10,750 papers) loaded once; their index is built in the background
    (by child processes) while the tests that need only the papers run.

    The tests that use it run on one xdist worker (see pytest_collection_modifyitems), and the
    engine's `describe` is cached, so each abstract converts once. Should they be spread over
    workers anyway (--dist load), the index is still built once per run: the first worker builds
    it, the others wait for the lock and open it (an index is keyed by its content, see
    search/index/shard.py)."""
    from search.corpus.loader import load_corpus
    from search.engine import SearchEngine

    cache = run_wide_dir(tmp_path_factory, "real-corpora-cache")
    corpora = RealCorpora(SearchEngine(load_corpus(paperlist_files), cache_dir=cache), cache)
    yield corpora
    corpora._builder.join()
    corpora.engine.close()


@pytest.fixture(scope="session")
def real_engine(real_corpora):
    """The engine over the real lists, its index built (see real_corpora)."""
    return real_corpora.indexed()


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


@pytest.fixture
def server(monkeypatch):
    """The local HTTP server every network test talks to (tests/sources/server.py): 127.0.0.1 only,
    every other host unreachable, short timeouts, the sources' base URLs pointed at it; stopped after."""
    from tests.sources.server import LocalServer, fast, loopback_only, point_sources_at

    loopback_only(monkeypatch)
    fast(monkeypatch)
    local = LocalServer().start()
    point_sources_at(monkeypatch, local)
    yield local
    local.stop()
