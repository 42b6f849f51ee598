"""Keeps the benchmark script working: a quick run on the bundled corpus. No thresholds here."""

import json
import subprocess
import sys
from pathlib import Path

BENCH = Path(__file__).with_name("bench.py")
KEYS = {
    "n_papers",
    "build_s",
    "reopen_s",
    "search_p50_ms",
    "search_p95_ms",
    "fts5_p50_ms",
    "fts5_p95_ms",
    "keystroke_p50_ms",
    "keystroke_p95_ms",
    "startup_s",
    "textual_floor_s",
    "startup_ratio",
    "rss_mb",
    "markup_p50_ms",
    "markup_p99_ms",
    "cold_first_results_s",
}


def test_quick_benchmark_prints_a_table_and_every_figure_as_json(tmp_path):
    result = subprocess.run([sys.executable, str(BENCH), "--quick"], capture_output=True, text=True, timeout=900)
    assert result.returncode == 0, result.stderr[-2000:]
    lines = result.stdout.strip().splitlines()
    assert lines[0] == "iclr-reader benchmark: 38 papers (quick)"
    assert any(line.strip().startswith("engine search p50 / p95") for line in lines)
    figures = json.loads(lines[-1])
    assert figures.keys() >= KEYS
    assert figures["n_papers"] == 38
    assert all(figures[key] > 0 for key in KEYS)
