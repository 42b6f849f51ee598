"""A long session of the app at the real lists' size: a seeded random walk of the app's own keys
(tests/tui/walk.py's key set, with real queries typed now and then), driven with Pilot, the resident
memory sampled as it goes, and with --trace the largest growths in allocations between an early and
a late point, grouped by where they were made.

    python tests/perf/longwalk.py --cache DIR [--keys 3000] [--seed 1] [--size 120x36] [--trace]
        [--corpus PATH ...]

Prints one JSON object (the RSS samples, and with --trace the top growths). Run it with the tree
to measure first on sys.path (`cd TREE && python PATH/longwalk.py`: old and new in turns). No
thresholds: compare runs."""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import os
import random
import sys
import time
import tracemalloc
import webbrowser
from collections import Counter
from pathlib import Path

sys.path.insert(0, os.getcwd())  # the tree being measured (old or new)

PAPERLISTS = Path("/work/wt/shared/corpora/paperlists")
USER_ROUND = [
    # A tester's round: a search typed and cleared, results and the reader, a bookmark, the
    # bookmarks screen, Recommended and the stats from the palette or keys, related papers, resizes.
    "/",
    "QUERY",
    "enter",
    "j",
    "j",
    "enter",
    "j",
    "j",
    "pagedown",
    "escape",
    "b",
    "j",
    "enter",
    "G",
    "escape",
    "escape",
    "escape",
    "QUERY",
    "escape",
    "QUERY",
    "enter",
    "s",
    "j",
    "escape",
    "B",
    "j",
    "escape",
    "ctrl+p",
    "TYPE Recommended",
    "enter",
    "j",
    "j",
    "escape",
    "r",
    "j",
    "enter",
    "escape",
    "escape",
    "RESIZE",
    "z",
    "z",
    "]",
    "[",
    "/",
    "escape",
]
REAL = ["language model", "graph neural net", "diffusion", "reinforcement learning", "kv cache", "protein"]


def rss_mb(kind: str = "VmRSS") -> float:
    """The resident size in MB; kind="RssAnon": the process's own memory, "RssFile": pages of files
    it maps (the index, read through mmap), which the system takes back when it needs them."""
    with open("/proc/self/status", encoding="ascii") as status:
        for line in status:
            if line.startswith(f"{kind}:"):
                return int(line.split()[1]) / 1024
    return 0.0


def user_keys(rng: random.Random, count: int) -> list[str]:
    """Rounds of USER_ROUND, each with its own queries and terminal size."""
    from tests.tui.walk import TYPED

    keys: list[str] = []
    while len(keys) < count:
        for step in USER_ROUND:
            if step == "QUERY":
                keys.extend("space" if ch == " " else ch for ch in rng.choice([*REAL, *TYPED]))
            elif step.startswith("TYPE "):
                keys.extend("space" if ch == " " else ch for ch in step[5:])
            elif step == "RESIZE":
                keys.append(f"RESIZE {rng.choice([80, 100, 120, 160])} {rng.choice([24, 30, 40])}")
            else:
                keys.append(step)
    return keys[:count]


def holders(app) -> None:
    """Which widgets (or other owners) hold the live Strips, through other Strips and caches: from
    one pass over every object's referents, each object's owner preferred over a container."""
    from textual.strip import Strip

    gc.collect()
    everything = gc.get_objects()
    plain = (dict, list, tuple, set)
    parent: dict[int, object] = {}
    for obj in everything:
        if type(obj).__name__ in ("frame", "function", "cell", "method"):
            continue
        for child in gc.get_referents(obj):
            known = parent.get(id(child))
            if known is None or (isinstance(known, plain) and not isinstance(obj, plain)):
                parent[id(child)] = obj
    strips = [o for o in everything if isinstance(o, Strip)]
    owners: Counter = Counter()
    for strip in strips:
        chain, up = [], strip
        for _ in range(40):
            up = parent.get(id(up))
            if up is None:
                chain.append("?")
                break
            label = type(up).__qualname__
            if label in ("Strip", "FIFOCache", "LRUCache", "dict", "list", "tuple"):
                if not chain or chain[-1] != label:
                    chain.append(label)
                continue
            chain.append(f"{label}({getattr(up, 'id', '') or ''})")
            if type(up).__module__.startswith(("tui", "textual.widget", "textual.screen", "textual.app")):
                break
        owners[" <- ".join(chain[-4:])] += 1
    from textual._styles_cache import StylesCache

    caches = sorted((o for o in everything if isinstance(o, StylesCache)), key=lambda c: -len(c._cache))
    print("StylesCaches:", len(caches), "lines:", sum(len(c._cache) for c in caches), file=sys.stderr)
    for cache in caches[:4]:
        print("  ", len(cache._cache), [type(r).__qualname__ for r in gc.get_referrers(cache)], file=sys.stderr)
        for ref in gc.get_referrers(cache):
            if isinstance(ref, tuple):
                print("     tuple", len(ref), [type(x).__qualname__ for x in ref][:8], file=sys.stderr)
                for outer in gc.get_referrers(ref)[:5]:
                    print("       <-", type(outer).__qualname__, str(outer)[:120], file=sys.stderr)
    print("strips:", len(strips), file=sys.stderr)
    for chain, n in owners.most_common(25):
        print(f"  {n:6d}  {chain}", file=sys.stderr)


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--cache", type=Path, required=True)
    parser.add_argument("--corpus", type=Path, nargs="*")
    parser.add_argument("--keys", type=int, default=3000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--size", default="120x36")
    parser.add_argument("--every", type=int, default=250, help="sample RSS every this many keys")
    parser.add_argument("--trace", action="store_true", help="tracemalloc: top growths early to late")
    parser.add_argument("--holders", action="store_true", help="at the end: what holds the live Strips")
    parser.add_argument("--types", action="store_true", help="the growth in live objects by type, per sample")
    parser.add_argument(
        "--user", action="store_true", help="rounds of a user's session (USER_ROUND) instead of random keys"
    )
    args = parser.parse_args()
    home = args.cache
    for name in ("CACHE", "DATA", "CONFIG"):
        os.environ[f"XDG_{name}_HOME"] = str(home / name.lower())
    config = home / "config" / "iclr-reader" / "config.toml"
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text("guide_seen = true\n", encoding="utf-8")

    from search import SearchEngine, SourceError, load_corpus, paths
    from search.user.store import UserStore
    from tests.tui import walk as walking
    from tests.tui.conftest import settle
    from tui import clipboard
    from tui.app import ReaderApp
    from tui.screens import getting

    class NoBrowser(webbrowser.BaseBrowser):
        def open(self, url, new=0, autoraise=True):
            return True

    def no_network(request, on_progress=None, **kwargs):
        raise SourceError("offline")

    webbrowser.get = lambda *a: NoBrowser()
    clipboard.pyperclip.copy = lambda text: None
    getting.get_list = no_network
    walking.TYPED.extend(REAL)

    files = args.corpus or sorted(PAPERLISTS.glob("*.json"))
    gc.disable()
    engine = SearchEngine(load_corpus(files, keep=True), cache_dir=paths.cache_dir())
    engine.ensure_index()
    gc.freeze()
    gc.enable()
    width, height = (int(n) for n in args.size.split("x"))
    rng = random.Random(args.seed)
    keys = user_keys(rng, args.keys) if args.user else walking.random_keys(rng, args.keys)
    samples: list[tuple[int, float, float]] = []
    snapshots: dict[str, tracemalloc.Snapshot] = {}
    early = max(args.every, args.keys // 5)
    previous: list[Counter] = [Counter()]
    anon: list[tuple[float, float]] = []

    async def run() -> None:
        app = ReaderApp(engine, store=UserStore())
        async with app.run_test(size=(width, height)) as pilot:
            await settle(pilot, app)
            samples.append((0, rss_mb(), time.process_time()))
            anon.append((rss_mb("RssAnon"), rss_mb("RssFile")))
            for done in range(0, len(keys), args.every):
                if args.user:
                    for key in keys[done : done + args.every]:
                        if key.startswith("RESIZE"):
                            await pilot.resize_terminal(*(int(n) for n in key.split()[1:]))
                        else:
                            await pilot.press(key)
                else:
                    await walking.walk(app, pilot, keys[done : done + args.every])
                await settle(pilot, app)
                gc.collect()
                engine.release_memory()
                samples.append((done + args.every, rss_mb(), time.process_time()))
                anon.append((rss_mb("RssAnon"), rss_mb("RssFile")))
                print(samples[-1], app.screen, len(app.screen_stack), file=sys.stderr, flush=True)
                if args.types:
                    counts = Counter(type(o).__qualname__ for o in gc.get_objects())
                    grown = (counts - previous[0]).most_common(12)
                    print("  grown:", grown, file=sys.stderr, flush=True)
                    previous[0] = counts
                if args.trace and done + args.every == early:
                    snapshots["early"] = tracemalloc.take_snapshot()
            if args.trace:
                snapshots["late"] = tracemalloc.take_snapshot()
            if args.holders:
                holders(app)
            from textual._styles_cache import StylesCache

            def live() -> int:
                return sum(isinstance(o, StylesCache) for o in gc.get_objects())

            print(
                "get_inner_outer:",
                StylesCache.get_inner_outer.cache_info(),
                "StylesCaches:",
                live(),
                "rss",
                rss_mb(),
                file=sys.stderr,
            )
            StylesCache.get_inner_outer.cache_clear()
            gc.collect()
            engine.release_memory()
            print("after cache_clear: StylesCaches:", live(), "rss", rss_mb(), file=sys.stderr)

    if args.trace:
        tracemalloc.start(12)
    asyncio.run(run())
    report: dict = {"samples": samples, "anon_file": anon, "papers": len(engine.corpus.papers)}
    if args.trace:
        diff = snapshots["late"].compare_to(snapshots["early"], "traceback")
        report["growth"] = [
            {"kb": round(stat.size_diff / 1024), "count": stat.count_diff, "where": stat.traceback.format()[-12:]}
            for stat in diff[:25]
        ]
        report["late_total_mb"] = sum(s.size for s in snapshots["late"].statistics("filename")) / 2**20
        report["early_total_mb"] = sum(s.size for s in snapshots["early"].statistics("filename")) / 2**20
    print(json.dumps(report, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
