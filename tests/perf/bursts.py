"""CPU of the app working through a burst of keys queued at once (as a terminal's driver queues
them while the app is busy), at 80x24 over the bundled list: `python tests/perf/bursts.py KIND N`
from the tree, KIND one of list (j/k in the result list), reader (j/k in the paper opened) or type
(characters into the search box). Prints the process's CPU (user+sys) until every key has acted."""

from __future__ import annotations

import asyncio
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from search.corpus.loader import load_corpus
from search.engine import SearchEngine
from search.user.store import UserStore
from tests.tui.conftest import keys_done, settle
from tests.tui.test_typing_order import burst
from tui.app import ReaderApp
from tui.preferences import Preferences


async def measure(kind: str, count: int) -> float:
    cache = Path(tempfile.mkdtemp())
    engine = SearchEngine(load_corpus(), cache_dir=cache)
    engine.ensure_index()
    app = ReaderApp(engine, store=UserStore(cache / "user.sqlite3"), preferences=Preferences())
    keys = list("abcdefghij" * (count // 10)) if kind == "type" else ["j", "k"] * (count // 2)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot, app)
        if kind in ("list", "reader"):
            await pilot.press("tab")
        if kind == "reader":
            await pilot.press("enter")
        await settle(pilot, app)
        start = time.process_time()
        burst(app, *keys)
        await keys_done(pilot, app)
        cpu = time.process_time() - start
        await settle(pilot, app)
    return cpu


if __name__ == "__main__":
    kind, count = sys.argv[1], int(sys.argv[2])
    print(f"{kind} {count}: {asyncio.run(measure(kind, count)):.3f} s CPU")
