"""iclr-reader benchmark: index build, search latency (vs SQLite FTS5), keystroke-to-repaint in the real
app, start-up against a minimal Textual app, peak memory and markup conversion.

    python tests/perf/bench.py [--corpus PATH ...] [--scale N] [--quick] [--build-only]

Default corpus: every file in ../shared/corpora/paperlists. The last line printed is one JSON object
with every figure. No thresholds here: compare runs, read the ratios.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import os
import re
import resource
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from search.corpus.loader import MAX_CORPUS_BYTES, bundled_paths, load_corpus  # noqa: E402
from search.engine import SearchEngine  # noqa: E402
from search.models import SearchRequest  # noqa: E402
from search.text.markup import _convert_cached  # noqa: E402

PAPERLISTS = ROOT.parent / "shared" / "corpora" / "paperlists"

QUERIES = [
    # single words
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
    # two to four words
    "kv cache",
    "large language models",
    "graph neural network",
    "contrastive learning images",
    "adversarial examples defense",
    "bayesian optimization",
    "variational inference",
    "meta learning few shot",
    "neural architecture search",
    "policy gradient variance",
    # phrases, prefixes, fuzzy terms, fields, booleans
    '"generative adversarial networks"',
    '"gaussian process"',
    "transf*",
    "optim*",
    "diffus*",
    "wasserstien~2",
    "convolutonal~1",
    "title:attention",
    "author:bengio",
    "venue:iclr",
    "graph NOT neural",
    "(gan OR vae) AND image",
    # typos that trigger correction
    "reinforcment learnng",
    "convolutonal networks",
    "diffsuion models",
]
TYPED = [
    "kv cache",
    "graph neural network",
    "diffusion models",
    "federated learning privacy",
    "wasserstien",
    "attention",
]


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    if not ordered:
        return 0.0
    index = min(len(ordered) - 1, max(0, round(q / 100 * (len(ordered) - 1))))
    return ordered[index]


KEPT_FIELDS = (
    "id",
    "title",
    "abstract",
    "author",
    "authors",
    "keywords",
    "status",
    "track",
    "site",
    "pdf",
    "github",
    "project",
    "venue",
    "year",
)


def _replica(record: dict, copy: int) -> dict:
    """A copy that is a different paper to the reader: a fresh id, its own abstract and no shared
    OpenReview or arXiv link (the same paper in two lists is merged into one)."""
    replica = {key: value for key, value in record.items() if key not in ("site", "pdf", "arxiv")}
    replica["id"] = f"{record.get('id', 'paper')}-r{copy}"
    replica["abstract"] = f"{record['abstract']} (Replica {copy}.)"
    return replica


def scaled_corpus(files: list[Path], target: int, folder: Path) -> list[Path]:
    """Replicate the records of files to `target` papers with fresh ids, as lists of 10,000 papers
    (like a library of conference lists), keeping only the fields the reader uses."""
    records = []
    for path in files:
        data = json.loads(path.read_text(encoding="utf-8"))
        records.extend(
            {key: r[key] for key in KEPT_FIELDS if key in r}
            for r in data
            if isinstance(r, dict) and isinstance(r.get("abstract"), str) and r["abstract"].strip()
        )
    out, copy = [], 0
    while len(out) < target:
        for record in records:
            if len(out) >= target:
                break
            out.append(record if copy == 0 else _replica(record, copy))
        copy += 1
    paths = []
    for part, start in enumerate(range(0, len(out), 10_000)):
        path = folder / f"scaled{target}-part{part + 1}.json"
        path.write_text(json.dumps(out[start : start + 10_000]), encoding="utf-8")
        paths.append(path)
    return paths


SCALED_NAMES = {
    "add_s": "add_{}_s",
    "rss_mb": "rss_{}_mb",
    "keystroke_p95_ms": "keystroke_{}_p95_ms",
    "startup_s": "startup_{}_s",
    "build_s": "build_{}_s",
    "search_vs_fts5_p95": "search_vs_fts5_{}_p95",
    "tantivy_p95_ms": "tantivy_{}_p95_ms",
    "changed_startup_s": "changed_startup_{}_s",
    "changed_rss_mb": "changed_rss_{}_mb",
    "changed_load_cpu_s": "changed_load_cpu_{}_s",
    "session_rss_mb": "session_rss_{}_mb",
    "session_paused_rss_mb": "session_paused_rss_{}_mb",
}
"""With --scale, these figures are repeated under the names of the scale's targets (add_100k_s...)."""


def bench_add(paths: list[Path], env: dict, folder: Path) -> tuple[float | None, str]:
    """`iclr-reader add` of all the papers into an empty library and cache: the wall time (copy,
    check, index build) and what was added. One list when it fits the 64 MiB a list may hold, else
    the parts as one command, `add PART...`, as a user adds several lists (each is checked and
    copied in, then their shards are built together, two at a time on two CPUs; adding them one
    command after another builds one at a time, in two halves). None when the add failed."""
    lists = paths
    if sum(path.stat().st_size for path in paths) <= MAX_CORPUS_BYTES:  # one list holds them all
        records = [record for path in paths for record in json.loads(path.read_text(encoding="utf-8"))]
        lists = [folder / f"whole{len(records)}.json"]
        lists[0].write_text(json.dumps(records), encoding="utf-8")
    what = "one list" if len(lists) == 1 else f"{len(lists)} lists, one command (one list is at most 64 MiB)"
    fresh = folder / "add"
    add_env = {**env, "XDG_CACHE_HOME": str(fresh / "cache"), "XDG_DATA_HOME": str(fresh / "data")}
    command = shutil.which("iclr-reader", path=str(Path(sys.executable).parent)) or "iclr-reader"
    started = time.perf_counter()
    done = subprocess.run([command, "add", *map(str, lists)], env=add_env, capture_output=True, text=True)
    if done.returncode:
        print(f"bench: add failed: {done.stderr.strip()[-300:]}", file=sys.stderr)
        return None, what
    seconds = time.perf_counter() - started
    shutil.rmtree(fresh, ignore_errors=True)
    return seconds, what


# -- engine ---------------------------------------------------------------------------------------


def bench_build(paths: list[Path], cache: Path) -> dict:
    """The cold build (wall time, and the CPU time of the processes that build: this one's and its
    children's, which a loaded machine inflates less than wall time) and an unchanged re-open."""
    corpus = load_corpus(paths, keep=True)  # as the app loads: saved whole for the next start
    engine = SearchEngine(corpus, cache_dir=cache)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = time.process_time()
    started = time.perf_counter()
    status = engine.ensure_index()
    build_s = time.perf_counter() - started
    cpu = time.process_time() - cpu
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    children_cpu = after.ru_utime + after.ru_stime - children.ru_utime - children.ru_stime
    assert status.built
    engine.close()
    started = time.perf_counter()
    again = SearchEngine(load_corpus(paths, keep=True), cache_dir=cache)
    status = again.ensure_index()
    reopen_s = time.perf_counter() - started
    assert not status.built, "an unchanged corpus must not be rebuilt"
    return {
        "engine": again,
        "n_papers": len(corpus.papers),
        "build_s": build_s,
        "build_docs_per_s": len(corpus.papers) / build_s,
        "build_cpu_s": cpu + children_cpu,
        "build_children_cpu_s": children_cpu,
        "reopen_s": reopen_s,
    }


def bench_search(engine: SearchEngine, repeats: int) -> tuple[dict, list[str]]:
    timings: list[float] = []
    for query in QUERIES:  # warm-up: first use of each code path
        engine.search(SearchRequest(query, limit=30))
    for _ in range(repeats):
        for query in QUERIES:
            started = time.perf_counter()
            result = engine.search(SearchRequest(query, limit=30))
            [engine.row(hit.paper_id).headline for hit in result.hits]
            timings.append((time.perf_counter() - started) * 1000)
    samples = []
    for query in ("kv cache", "reinforcment learnng", '"gaussian process"'):
        result = engine.search(SearchRequest(query, limit=3))
        heads = "; ".join(engine.row(h.paper_id).headline[:60] for h in result.hits)
        samples.append(f"{query!r} -> {result.total} ({result.corrected or 'as typed'}): {heads}")
    return {"search_p50_ms": percentile(timings, 50), "search_p95_ms": percentile(timings, 95)}, samples


def fts5_query(query: str) -> str:
    """The same intent in FTS5 syntax: OR of words, phrases, prefixes and columns kept."""
    query = re.sub(r"~\d*", "", query)
    query = query.replace("author:", "authors:")
    tokens = re.findall(r'"[^"]*"|\(|\)|[\w:*]+', query)
    out = []
    for token in tokens:
        if token in ("AND", "OR", "NOT", "(", ")") or token.startswith('"'):
            out.append(token)
        else:
            field, _, word = token.rpartition(":")
            word = word.replace("*", "")
            suffix = "*" if token.endswith("*") else ""
            out.append(f'{field + ":" if field else ""}"{word}"{suffix}' if word else "")
    joined = " ".join(t for t in out if t)
    if not re.search(r"\b(AND|OR|NOT)\b", joined):
        joined = " OR ".join(t for t in out if t)
    return joined


def bench_fts5(engine: SearchEngine, repeats: int) -> dict:
    db = sqlite3.connect(":memory:")
    db.execute(
        "CREATE VIRTUAL TABLE docs USING fts5(id UNINDEXED, name, title, abstract, authors, keywords, venue, tokenize='porter')"
    )
    rows = []
    for paper in engine.papers:
        description = engine.describe(paper.id)
        rows.append(
            (
                paper.id,
                description.name or "",
                paper.title or "",
                description.rendered.text,
                "; ".join(paper.authors),
                "; ".join(paper.keywords),
                paper.venue or "",
            )
        )
    db.executemany("INSERT INTO docs VALUES (?, ?, ?, ?, ?, ?, ?)", rows)
    db.commit()
    timings = []
    for _ in range(repeats):
        for query in QUERIES:
            started = time.perf_counter()
            try:
                hits = db.execute(
                    "SELECT id FROM docs WHERE docs MATCH ? ORDER BY bm25(docs) LIMIT 30", (fts5_query(query),)
                ).fetchall()
            except sqlite3.OperationalError:
                hits = []
            [engine.row(pid).headline for (pid,) in hits]
            timings.append((time.perf_counter() - started) * 1000)
    return {"fts5_p50_ms": percentile(timings, 50), "fts5_p95_ms": percentile(timings, 95)}


def bench_tantivy(engine: SearchEngine, repeats: int) -> dict:
    """tantivy (an optional benchmark dependency: `pip install tantivy`) over the same documents
    as FTS5, stemmed English, one thread: its build and its search p50 / p95 for the same queries
    (its lenient parser; `author:` as `authors:`). Empty when it is not installed."""
    try:
        import tantivy
    except ImportError:
        return {}
    builder = tantivy.SchemaBuilder()
    builder.add_text_field("id", stored=True, tokenizer_name="raw")
    fields = ("name", "title", "abstract", "authors", "keywords", "venue")
    for name in fields:
        builder.add_text_field(name, tokenizer_name="en_stem")
    index = tantivy.Index(builder.build())
    started = time.perf_counter()
    writer = index.writer(heap_size=200_000_000, num_threads=1)
    for paper in engine.papers:
        description = engine.describe(paper.id)
        writer.add_document(
            tantivy.Document(
                id=paper.id,
                name=description.name or "",
                title=paper.title or "",
                abstract=description.rendered.text,
                authors="; ".join(paper.authors),
                keywords="; ".join(paper.keywords),
                venue=paper.venue or "",
            )
        )
    writer.commit()
    writer.wait_merging_threads()
    index.reload()
    build_s = time.perf_counter() - started
    searcher = index.searcher()
    timings = []
    for _ in range(repeats):
        for query in QUERIES:
            started = time.perf_counter()
            parsed, _ = index.parse_query_lenient(query.replace("author:", "authors:"), list(fields))
            hits = searcher.search(parsed, 30).hits
            [engine.row(searcher.doc(address)["id"][0]).headline for _, address in hits]
            timings.append((time.perf_counter() - started) * 1000)
    return {
        "tantivy_build_s": build_s,
        "tantivy_p50_ms": percentile(timings, 50),
        "tantivy_p95_ms": percentile(timings, 95),
    }


def bench_markup(engine: SearchEngine) -> dict:
    convert = _convert_cached.__wrapped__
    timings = []
    for paper in engine.papers:
        started = time.perf_counter()
        convert(paper.abstract)
        timings.append((time.perf_counter() - started) * 1000)
    return {
        "markup_p50_ms": percentile(timings, 50),
        "markup_p99_ms": percentile(timings, 99),
        "markup_mean_ms": statistics.fmean(timings),
    }


# -- the app --------------------------------------------------------------------------------------


def bench_keystrokes(engine: SearchEngine, queries: list[str]) -> dict:
    """Key event in, until the screen has been painted with that query's results.

    Keys go straight to the driver (Pilot.press adds ~100 ms of idle-waiting of its own); a paint
    is an App._display call, which is where a real terminal would be written to. Also, per
    keystroke: the interface thread's CPU in the screen's updates (its layouts and paints: a load
    inflates it less than wall time) and the screen's layouts. A paint counts as the results' once
    the screen has applied them and no widget showing them still asks for a later frame. Where a
    keystroke's time goes, p50 and p95 of each part: the key until its search returned (in the
    search thread), until the screen applied the results, and until they were painted."""
    from tui.app import ReaderApp  # first: the tui package sets Textual's frame rate before its import
    from tui.screens.main import MainScreen
    from tui.widgets.header import AppHeader
    from tui.widgets.results_list import ResultsList
    from tui.widgets.search_box import SearchBox

    from textual import events  # isort: skip
    from textual.screen import Screen  # isort: skip

    async def run() -> list[float]:
        timings = []
        app = ReaderApp(engine)
        async with app.run_test(size=(140, 40)) as pilot:
            await app.workers.wait_for_complete()
            await pilot.pause()
            painted: list[float] = []
            display = app._display
            screen = app.screen
            results = screen.query_one(ResultsList)
            showing = [results, results.vertical_scrollbar, screen.query_one("#status"), screen.query_one(AppHeader)]

            def recording_display(screen, renderable):
                if not held[0]:
                    painted.append(time.perf_counter())
                return display(screen, renderable)

            def holding() -> bool:
                # Whether a widget showing the results still holds a request for a later frame as
                # the screen's update starts: a frame painted between the results applied and the
                # list's requests (made when it is next idle) showed the typed letter, not them.
                return any(w._repaint_required or w._layout_required for w in showing)

            held_before[0] = holding

            app._display = recording_display
            layouts: list[object] = []
            screen.screen_layout_refresh_signal.subscribe(screen, layouts.append)
            box = screen.query_one(SearchBox)
            for query in queries:
                box.value = ""
                await pilot.pause()
                paint_before, layouts_before = paint_cpu[0], len(layouts)
                for index, ch in enumerate(query):
                    expected = query[: index + 1]
                    key = "space" if ch == " " else ch
                    started = time.perf_counter()
                    app._driver.send_message(events.Key(key, ch))
                    shown_at = None
                    while time.perf_counter() - started < 10:
                        await asyncio.sleep(0.0002)
                        result = app.screen.result
                        current = box.value.strip()
                        typed = box.value == expected
                        if shown_at is None and typed and result is not None and result.query == current:
                            # From when the screen applied them: their frame may be painted before
                            # this loop looks again (it then waited for a later paint: the reader's).
                            shown_at = applied[-1] if applied and applied[-1] >= started else time.perf_counter()
                        if shown_at is not None and painted and painted[-1] >= shown_at:
                            break
                    timings.append((painted[-1] - started) * 1000)
                    found = searched[-1] if searched and searched[-1] >= started else started
                    shown = applied[-1] if applied and applied[-1] >= found else found
                    parts.append(((found - started) * 1000, (shown - found) * 1000, (painted[-1] - shown) * 1000))
                typing[0] += paint_cpu[0] - paint_before  # (not the emptying of the box between queries)
                typing[1] += len(layouts) - layouts_before
        return timings

    # The screen's update timer holds its method from the start: timed on the class, for this run.
    update = Screen._on_timer_update
    paint_cpu = [0.0]

    held = [False]
    held_before: list[Callable[[], bool]] = [lambda: False]

    def timed_update(screen: Screen) -> None:
        started = time.thread_time()
        held[0] = held_before[0]()
        update(screen)
        paint_cpu[0] += time.thread_time() - started

    # When each search returned (its thread) and when the screen applied its results.
    searched: list[float] = []
    applied: list[float] = []
    parts: list[tuple[float, float, float]] = []
    search, show_result = engine.search, MainScreen._show_result

    def timed_search(*args, **kwargs):
        try:
            return search(*args, **kwargs)
        finally:
            searched.append(time.perf_counter())

    def timed_show(screen: MainScreen, result) -> None:
        show_result(screen, result)
        applied.append(time.perf_counter())

    typing = [0.0, 0]
    Screen._on_timer_update = timed_update  # type: ignore[method-assign]
    MainScreen._show_result = timed_show  # type: ignore[method-assign]
    engine.search = timed_search  # type: ignore[method-assign]
    try:
        timings = asyncio.run(run())
    finally:
        Screen._on_timer_update = update  # type: ignore[method-assign]
        MainScreen._show_result = show_result  # type: ignore[method-assign]
        del engine.search
    figures = {
        "keystroke_p50_ms": percentile(timings, 50),
        "keystroke_p95_ms": percentile(timings, 95),
        "keystroke_paint_cpu_ms": typing[0] * 1000 / len(timings),
        "keystroke_layouts": typing[1] / len(timings),
    }
    for index, part in enumerate(("searched", "applied", "painted")):
        values = [times[index] for times in parts]
        figures[f"keystroke_{part}_p50_ms"] = percentile(values, 50)
        figures[f"keystroke_{part}_p95_ms"] = percentile(values, 95)
    return figures


MINIMAL_APP = """
import json, sys
from textual.app import App
from textual.widgets import Input, OptionList, Static
class Minimal(App):
    def compose(self):
        yield Input(placeholder="search")
        yield Static("ready")
        titles = []
        for path in sys.argv[1:]:
            text = open(path, encoding="utf-8").read()
            if path.endswith(".json"):
                titles += [r.get("title") or r["abstract"][:80] for r in json.loads(text) if r.get("abstract")]
            else:
                titles += [p.strip()[:80] for p in text.split("\\n\\n")[1:] if p.strip()]
        yield OptionList(*titles)
Minimal().run()
"""


class Terminal:
    """An app started in a 140x40 pseudo-terminal, its screen read back with pyte."""

    DEADLINE = 120.0
    """Seconds from the start after which a wait gives up."""

    def __init__(self, argv: list[str], env: dict) -> None:
        import pexpect
        import pyte

        self.program = argv[0]
        self.screen = pyte.Screen(140, 40)
        self._stream = pyte.ByteStream(self.screen)
        self.started = time.perf_counter()
        self.child = pexpect.spawn(argv[0], argv[1:], env=env, dimensions=(40, 140))

    def wait_for(self, found: Callable[[str], object]) -> float | None:
        """Seconds since the start when `found(screen text)` first holds; None when the app ends
        or the deadline passes first."""
        import pexpect

        while time.perf_counter() < self.started + self.DEADLINE:
            try:
                self._stream.feed(self.child.read_nonblocking(65536, timeout=0.01))
            except pexpect.TIMEOUT:
                pass
            except pexpect.EOF:
                return None
            if found("\n".join(self.screen.display)):
                return time.perf_counter() - self.started
        return None

    def close(self) -> str:
        """Stop the app; what it was doing when stopped, for an error message."""
        alive = self.child.isalive()
        self.child.terminate(force=True)
        self.child.close()
        return (
            "still running"
            if alive
            else f"exited with status {self.child.exitstatus}, signal {self.child.signalstatus}"
        )

    def failure(self, what: str, state: str) -> RuntimeError:
        seconds = time.perf_counter() - self.started
        shown = "\n".join(line.rstrip() for line in self.screen.display if line.strip())
        return RuntimeError(f"{self.program}: {what} in {seconds:.1f} s (the app {state}):\n{shown}")


def first_frame_seconds(argv: list[str], needle: str, env: dict, rss: bool = False) -> tuple[float, float | None]:
    """Wall time from spawning argv in a pseudo-terminal until `needle` is on the screen."""
    terminal = Terminal(argv, env)
    elapsed = terminal.wait_for(lambda shown: needle in shown)
    peak = None
    if rss and elapsed is not None:
        for query in ("graph neural network", "diffusion"):
            for ch in query:
                terminal.child.send(ch)
                time.sleep(0.02)
            time.sleep(0.5)
            terminal.child.send("\x1b")
        time.sleep(0.5)
        status = Path(f"/proc/{terminal.child.pid}/status").read_text()
        peak = int(re.search(r"VmHWM:\s+(\d+)", status).group(1)) / 1024
    state = terminal.close()
    if elapsed is None:
        raise terminal.failure(f"{needle!r} never appeared", state)
    return elapsed, peak


COLD_QUERY = "diffusion"
_MATCHES = re.compile(r"\d match(?:es)? for ")
"""The header's "4 matches for “diffusion”" (cut short in a narrow pty): matches are listed."""


def cold_first_results_seconds(argv: list[str], env: dict, ready: str) -> float:
    """On a cold cache (no index yet): wall time from spawning the app, typing COLD_QUERY as soon as
    its first frame (`ready`) is up, until the list shows matches for it."""
    terminal = Terminal(argv, env)
    typed = terminal.wait_for(lambda shown: ready in shown) is not None
    if typed:
        terminal.child.send(COLD_QUERY)
    elapsed = terminal.wait_for(_MATCHES.search) if typed else None
    state = terminal.close()
    if elapsed is None:
        raise terminal.failure(f"no matches for {COLD_QUERY!r} (typed: {typed})", state)
    return elapsed


def bench_changed_start(paths: list[Path], env: dict) -> dict:
    """The first start after a list changes: one list's last paper gets a new abstract (what a
    `get` of a newer version does), then the app's first frame and its peak memory, as
    first_frame_seconds measures them. The list is put back afterwards."""
    command = str(Path(sys.executable).parent / "iclr-reader")
    if not Path(command).exists():
        command = shutil.which("iclr-reader") or command
    changed = next((path for path in paths if path.suffix == ".json"), None)
    if changed is None:
        return {"changed_startup_s": None, "changed_rss_mb": None, "changed_load_cpu_s": None}
    original = changed.read_bytes()
    records = json.loads(original)
    records[-1] = {**records[-1], "abstract": f"{records[-1]['abstract']} (Revised.)"}
    changed.write_text(json.dumps(records), encoding="utf-8")
    corpus_args = [arg for path in paths for arg in ("--corpus", str(path))]
    try:
        # The load the app makes before its first frame, in this process: its CPU time is the figure
        # a busy machine changes least (what it saves for the next start is not written).
        gc.disable()  # as the app loads
        started = time.process_time()
        n = len(load_corpus(paths, keep=True, later=[]).papers)
        load_cpu = time.process_time() - started
        gc.enable()
        seconds, peak = first_frame_seconds([command, *corpus_args], f"{n:,} paper", env, rss=True)
    finally:
        changed.write_bytes(original)
    return {"changed_startup_s": seconds, "changed_rss_mb": peak, "changed_load_cpu_s": load_cpu}


def bench_session(paths: list[Path], env: dict, searches: int = 1000) -> dict:
    """A session of `searches` typed searches through the engine (tests/perf/session.py, in a
    process of its own on the same cache): the open's CPU, search CPU p50 / p95 and the resident
    memory at the end."""
    script = Path(__file__).with_name("session.py")
    corpus_args = [arg for path in paths for arg in ("--corpus", str(path))]
    command = [sys.executable, str(script), *corpus_args, "--searches", str(searches)]
    done = subprocess.run(command, env=env, capture_output=True, text=True, check=True)
    figures = json.loads(done.stdout.strip().splitlines()[-1])
    return {
        "session_searches": figures["searches"],
        "session_open_cpu_s": figures["open_cpu_s"],
        "session_reopen_cpu_ms": figures["reopen_cpu_ms"],
        "session_search_cpu_p50_ms": figures["search_cpu_p50_ms"],
        "session_search_cpu_p95_ms": figures["search_cpu_p95_ms"],
        "session_rss_mb": figures["session_rss_mb"],
        "session_paused_rss_mb": figures["paused_rss_mb"],
    }


def bench_startup(paths: list[Path], env: dict, repeats: int, rss: bool) -> dict:
    command = str(Path(sys.executable).parent / "iclr-reader")
    if not Path(command).exists():
        command = shutil.which("iclr-reader") or command
    corpus_args = [arg for path in paths for arg in ("--corpus", str(path))]
    n = len(load_corpus(paths).papers)
    with tempfile.NamedTemporaryFile("w", suffix=".py", delete=False) as script:
        script.write(MINIMAL_APP)
    ours, floor, peak = [], [], None
    needle = f"{n:,} paper"
    for i in range(repeats):
        seconds, measured = first_frame_seconds([command, *corpus_args], needle, env, rss=rss and i == 0)
        ours.append(seconds)
        peak = measured if measured is not None else peak
        floor.append(first_frame_seconds([sys.executable, script.name, *map(str, paths)], "ready", env)[0])
    os.unlink(script.name)
    cold = []
    for i in range(repeats):
        # A new user's machine: nothing cached, no data (and nothing shared with the runs before).
        fresh = Path(env["XDG_CACHE_HOME"]).with_name(f"cold-{i}")
        cold_env = {**env, "XDG_CACHE_HOME": str(fresh / "cache"), "XDG_DATA_HOME": str(fresh / "data")}
        cold.append(cold_first_results_seconds([command, *corpus_args], cold_env, needle))
    return {
        "startup_s": statistics.median(ours),
        "textual_floor_s": statistics.median(floor),
        "rss_mb": peak,
        "cold_first_results_s": statistics.median(cold),
    }


# -- main -----------------------------------------------------------------------------------------


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", action="append", type=Path, help="corpus file (repeatable)")
    parser.add_argument("--scale", type=int, help="replicate the corpus with fresh ids to N papers")
    parser.add_argument(
        "--quick", action="store_true", help="bundled corpus, few repeats (keeps the script working in CI)"
    )
    parser.add_argument(
        "--build-only",
        action="store_true",
        help="only the cold build and re-open (and, with --scale, `iclr-reader add` of the papers)",
    )
    args = parser.parse_args()

    workdir = Path(tempfile.mkdtemp(prefix="iclr-bench-"))
    env = {
        **os.environ,
        "XDG_CACHE_HOME": str(workdir / "cache"),
        "XDG_DATA_HOME": str(workdir / "data"),
        "TERM": "xterm-256color",
    }
    os.environ.update({k: env[k] for k in ("XDG_CACHE_HOME", "XDG_DATA_HOME")})
    if args.quick:
        paths = args.corpus or bundled_paths()
    else:
        paths = args.corpus or sorted(PAPERLISTS.glob("*.json"))
        if not paths:
            parser.error(f"no corpus given and none found at {PAPERLISTS}")
    if args.scale:
        paths = scaled_corpus(paths, args.scale, workdir)
    else:  # copies: the first start after a list changes is measured by changing one
        (workdir / "lists").mkdir()
        bundled = set(bundled_paths())
        paths = [path if path in bundled else Path(shutil.copy(path, workdir / "lists")) for path in paths]
    repeats = 1 if args.quick else 3

    figures: dict = {}
    build = bench_build(paths, workdir / "cache" / "iclr-reader")
    engine = build.pop("engine")
    figures.update(build)
    if args.build_only:
        engine.close()
        return _report_build_only(args, paths, env, workdir, figures)
    search, samples = bench_search(engine, repeats)
    figures.update(search)
    figures.update(bench_fts5(engine, repeats))
    figures["search_vs_fts5_p50"] = figures["search_p50_ms"] / max(figures["fts5_p50_ms"], 1e-6)
    figures["search_vs_fts5_p95"] = figures["search_p95_ms"] / max(figures["fts5_p95_ms"], 1e-6)
    figures.update(bench_tantivy(engine, repeats))
    figures.update(bench_markup(engine))
    figures.update(bench_keystrokes(engine, TYPED[:2] if args.quick else TYPED))
    engine.close()
    figures.update(bench_startup(paths, env, 1 if args.quick else 3, rss=True))
    figures["startup_ratio"] = figures["startup_s"] / figures["textual_floor_s"]
    figures.update(bench_session(paths, env, 50 if args.quick else 1000))
    figures.update(bench_changed_start(paths, env))
    if not args.quick and not args.scale and not args.corpus:
        small = bench_startup(bundled_paths(), env, 3, rss=False)
        figures.update(
            {
                "startup_38_s": small["startup_s"],
                "textual_floor_38_s": small["textual_floor_s"],
                "startup_38_ratio": small["startup_s"] / small["textual_floor_s"],
            }
        )
    if args.scale:
        figures["add_s"], added = bench_add(paths, env, workdir)
        # The same figures under the names the 100k targets use (add_100k_s, rss_100k_mb, ...).
        size = f"{args.scale // 1000}k" if args.scale >= 1000 else str(args.scale)
        for key, name in SCALED_NAMES.items():
            if key in figures:  # tantivy only when installed
                figures[name.format(size)] = figures[key]
    shutil.rmtree(workdir, ignore_errors=True)

    print(f"iclr-reader benchmark: {figures['n_papers']:,} papers" + (" (quick)" if args.quick else ""))
    rows = [
        ("index build (cold)", f"{figures['build_s']:.2f} s", f"{figures['build_docs_per_s']:.0f} docs/s"),
        ("re-open, unchanged corpus", f"{figures['reopen_s'] * 1000:.0f} ms", "load corpus + open index, no rebuild"),
        (
            "engine search p50 / p95",
            f"{figures['search_p50_ms']:.1f} / {figures['search_p95_ms']:.1f} ms",
            f"{len(QUERIES)} queries x {repeats}, top 30",
        ),
        (
            "SQLite FTS5 p50 / p95",
            f"{figures['fts5_p50_ms']:.1f} / {figures['fts5_p95_ms']:.1f} ms",
            f"ours/FTS5 {figures['search_vs_fts5_p50']:.1f}x / {figures['search_vs_fts5_p95']:.1f}x",
        ),
        *(
            [
                (
                    "tantivy p50 / p95 (optional)",
                    f"{figures['tantivy_p50_ms']:.1f} / {figures['tantivy_p95_ms']:.1f} ms",
                    f"its build {figures['tantivy_build_s']:.2f} s, one thread, the same documents",
                )
            ]
            if "tantivy_p50_ms" in figures
            else []
        ),
        (
            "keystroke to repaint p50 / p95",
            f"{figures['keystroke_p50_ms']:.1f} / {figures['keystroke_p95_ms']:.1f} ms",
            f"Pilot, typed char by char; a key: {figures['keystroke_paint_cpu_ms']:.1f} ms of paint CPU,"
            f" {figures['keystroke_layouts']:.2f} layouts",
        ),
        (
            "... searched, applied, painted p50 / p95",
            " · ".join(
                f"{figures[f'keystroke_{part}_p50_ms']:.1f} / {figures[f'keystroke_{part}_p95_ms']:.1f}"
                for part in ("searched", "applied", "painted")
            )
            + " ms",
            "key to search returned, to results applied, to painted",
        ),
        (
            "first frame: iclr-reader / minimal Textual",
            f"{figures['startup_s']:.2f} / {figures['textual_floor_s']:.2f} s",
            f"ratio {figures['startup_ratio']:.2f}",
        ),
        (
            "cold cache: start to first matches",
            f"{figures['cold_first_results_s']:.2f} s",
            f"“{COLD_QUERY}” typed at the first frame, no index yet",
        ),
    ]
    if "startup_38_s" in figures:
        rows.append(
            (
                "first frame at 38 papers",
                f"{figures['startup_38_s']:.2f} / {figures['textual_floor_38_s']:.2f} s",
                f"ratio {figures['startup_38_ratio']:.2f}",
            )
        )
    rows += [
        (
            "first start after a list changed",
            f"{figures['changed_startup_s']:.2f} s" if figures["changed_startup_s"] else "n/a",
            f"peak RSS {figures['changed_rss_mb']:.0f} MB; its load {figures['changed_load_cpu_s']:.2f} s of CPU"
            if figures["changed_rss_mb"]
            else "no JSON list",
        ),
        (
            f"session of {figures['session_searches']} searches",
            f"{figures['session_rss_mb']:.0f} MB",
            f"RSS at the end ({figures['session_paused_rss_mb']:.0f} MB after a pause's release); "
            f"search CPU p50 / p95 {figures['session_search_cpu_p50_ms']:.1f} / "
            f"{figures['session_search_cpu_p95_ms']:.1f} ms; ensure_index again "
            f"{figures['session_reopen_cpu_ms']:.2f} ms",
        ),
        (
            "app peak RSS",
            f"{figures['rss_mb']:.0f} MB" if figures["rss_mb"] else "n/a",
            "VmHWM after start and two searches",
        ),
        (
            "markup conversion p50 / p99",
            f"{figures['markup_p50_ms']:.3f} / {figures['markup_p99_ms']:.2f} ms",
            "per abstract, uncached",
        ),
    ]
    if "add_s" in figures:
        shown = f"{figures['add_s']:.1f} s" if figures["add_s"] is not None else "failed"
        rows.append(("iclr-reader add of them all", shown, f"{added}: copy, check, index"))
    width = max(len(r[0]) for r in rows)
    for name, value, note in rows:
        print(f"  {name:<{width}}  {value:>18}  {note}")
    for sample in samples:
        print(f"  sample: {sample}")
    print(json.dumps({key: round(value, 4) if isinstance(value, float) else value for key, value in figures.items()}))
    return 0


def _report_build_only(args: argparse.Namespace, paths: list[Path], env: dict, workdir: Path, figures: dict) -> int:
    """--build-only: the build's figures (and `add`'s with --scale), as a table then one JSON line."""
    rows = [
        ("index build (cold)", f"{figures['build_s']:.2f} s", f"{figures['build_docs_per_s']:.0f} docs/s"),
        (
            "  its CPU",
            f"{figures['build_cpu_s']:.2f} s",
            f"{figures['build_children_cpu_s']:.2f} s of it in the child builds",
        ),
        ("re-open, unchanged corpus", f"{figures['reopen_s'] * 1000:.0f} ms", "load corpus + open index, no rebuild"),
    ]
    if args.scale:
        figures["add_s"], added = bench_add(paths, env, workdir)
        shown = f"{figures['add_s']:.1f} s" if figures["add_s"] is not None else "failed"
        rows.append(("iclr-reader add of them all", shown, f"{added}: copy, check, index"))
        size = f"{args.scale // 1000}k" if args.scale >= 1000 else str(args.scale)
        for key in ("add_s", "build_s"):
            figures[SCALED_NAMES[key].format(size)] = figures[key]
    shutil.rmtree(workdir, ignore_errors=True)
    print(f"iclr-reader benchmark: {figures['n_papers']:,} papers, build only (load {os.getloadavg()[0]:.1f})")
    width = max(len(row[0]) for row in rows)
    for name, value, note in rows:
        print(f"  {name:<{width}}  {value:>18}  {note}")
    print(json.dumps({key: round(value, 4) if isinstance(value, float) else value for key, value in figures.items()}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
