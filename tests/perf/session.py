"""A search session through the engine, as the app's typing makes one: the start's index open (the
corpus loaded as the app loads it), `ensure_index` called again on the open index, then every
prefix of many typed queries searched in turn, the searches' p50 / p95 and the resident memory
after them, and after the pause the app makes when typing stops (a collection, the freed memory
handed back).

    python tests/perf/session.py --corpus PATH ... [--searches 1000] [--cache DIR]

Prints one JSON object. Run it twice on the same cache: the first run builds the index. No
thresholds: compare runs (old and new code in turns)."""

from __future__ import annotations

import argparse
import dataclasses
import gc
import json
import re
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

WORDS = [
    "transformer",
    "diffusion",
    "reinforcement",
    "graph",
    "optimization",
    "attention",
    "robustness",
    "federated",
    "quantization",
    "causal",
    "learning",
    "kv",
    "cache",
    "large",
    "language",
    "models",
    "neural",
    "network",
    "contrastive",
    "images",
    "adversarial",
    "examples",
    "defense",
    "bayesian",
    "variational",
    "inference",
    "meta",
    "few",
    "shot",
    "architecture",
    "search",
    "policy",
    "gradient",
    "variance",
    "generative",
    "gaussian",
    "process",
    "convolutional",
    "sparse",
    "retrieval",
    "augmented",
    "generation",
    "vision",
    "benchmark",
    "agents",
    "reasoning",
    "protein",
    "molecule",
    "physics",
    "equivariant",
    "kernel",
    "spectral",
    "clustering",
    "pruning",
    "distillation",
    "tokenizer",
    "speech",
]


def typed_queries(count: int) -> list[str]:
    """`count` searches: each prefix of queries of one to three words, typed a character at a time."""
    searches: list[str] = []
    step = 0
    while len(searches) < count:
        words = [WORDS[(step * 7 + i * 13) % len(WORDS)] for i in range(1 + step % 3)]
        query = " ".join(words)
        searches.extend(query[: end + 1] for end in range(len(query)) if query[end] != " ")
        step += 1
    return searches[:count]


def memory() -> dict[str, float]:
    status = Path("/proc/self/status").read_text()
    found = {name: int(re.search(rf"{name}:\s+(\d+)", status).group(1)) / 1024 for name in ("VmRSS", "VmHWM")}
    return {"rss_mb": found["VmRSS"], "peak_mb": found["VmHWM"]}


def wait_ahead(engine) -> dict[str, float]:
    """Wait for the child writing common words' scores ahead: how long it took, its CPU, how many
    files the set holds then."""
    import resource

    ahead = engine.runner.ahead
    if ahead is None:
        return {"ahead": 0}
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    began = time.perf_counter()
    ahead.wait()
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    files = engine.runner._scorer._files
    return {
        "ahead_wait_s": time.perf_counter() - began,
        "ahead_cpu_s": after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime,
        "ahead_peak_mb": after.ru_maxrss / 1024,
        "ahead_returncode": ahead.returncode if ahead.returncode is not None else -1,
        "score_files": len(list(files.folder.glob("*.bin"))) if files is not None else 0,
        "score_files_mb": sum(path.stat().st_size for path in files.folder.glob("*.bin")) / 1e6 if files else 0,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", action="append", type=Path, required=True)
    parser.add_argument("--searches", type=int, default=1000)
    parser.add_argument("--limit", type=int, default=40)
    parser.add_argument(
        "--no-budget",
        action="store_true",
        help="no time limit per search: on a loaded machine the limit cuts searches short (fewer matches counted)",
    )
    parser.add_argument(
        "--wait-ahead",
        action="store_true",
        help="after the first search, wait for the common words' scores to be written ahead (ahead.py)",
    )
    args = parser.parse_args()

    from search.engine import SearchEngine
    from search.models import SearchRequest

    figures: dict[str, float] = {}
    started = time.perf_counter()
    engine = SearchEngine.from_paths(args.corpus)
    figures["load_s"] = time.perf_counter() - started
    started = time.process_time()
    wall = time.perf_counter()
    status = engine.ensure_index()
    figures["open_cpu_s"] = time.process_time() - started
    figures["open_s"] = time.perf_counter() - wall
    figures["built"] = status.built
    started = time.process_time()
    for _ in range(10):
        engine.ensure_index()
    figures["reopen_cpu_ms"] = (time.process_time() - started) * 100  # per call
    figures.update({f"start_{key}": value for key, value in memory().items()})
    timings, cpu = [], []
    totals = 0
    for text in typed_queries(args.searches):
        began, began_cpu = time.perf_counter(), time.thread_time()
        request = SearchRequest(text, limit=args.limit, partial=True)
        result = engine.search(dataclasses.replace(request, budget=None) if args.no_budget else request)
        timings.append((time.perf_counter() - began) * 1000)
        cpu.append((time.thread_time() - began_cpu) * 1000)
        totals += result.total
        if args.wait_ahead and len(timings) == 1:
            figures.update(wait_ahead(engine))
    timings.sort()
    figures["searches"] = len(timings)
    figures["search_p50_ms"] = timings[len(timings) // 2]
    figures["search_p95_ms"] = timings[int(len(timings) * 0.95)]
    figures["search_cpu_s"] = sum(cpu) / 1000
    cpu.sort()
    figures["search_cpu_p50_ms"] = cpu[len(cpu) // 2]
    figures["search_cpu_p95_ms"] = cpu[int(len(cpu) * 0.95)]
    figures["totals"] = totals
    figures.update({f"session_{key}": value for key, value in memory().items()})
    # What the app does when the user pauses (tui/collector.py): a full collection, then the freed
    # memory handed back (SearchEngine.release_memory).
    gc.collect()
    started = time.perf_counter()
    engine.release_memory()
    figures["release_ms"] = (time.perf_counter() - started) * 1000
    figures["paused_rss_mb"] = memory()["rss_mb"]
    print(json.dumps({key: round(value, 3) if isinstance(value, float) else value for key, value in figures.items()}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
