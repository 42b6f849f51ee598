"""Keeps the benchmark script working: a quick run on the bundled corpus. No thresholds here."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

from search import load_corpus

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
    "keystroke_paint_cpu_ms",
    "startup_s",
    "textual_floor_s",
    "startup_ratio",
    "rss_mb",
    "markup_p50_ms",
    "markup_p99_ms",
    "cold_first_results_s",
    "changed_startup_s",
    "changed_rss_mb",
    "changed_load_cpu_s",
    "session_rss_mb",
    "session_paused_rss_mb",
    "session_search_cpu_p95_ms",
}


SCALED_KEYS = {"add_s", "add_50_s", "rss_50_mb", "keystroke_50_p95_ms", "startup_50_s", "build_50_s"}


def bundled_as_json(folder: Path) -> Path:
    """The bundled papers as one JSON list (the benchmark's --scale replicates them)."""
    records = [{"id": p.id, "title": p.title, "abstract": p.abstract} for p in load_corpus().papers]
    corpus = folder / "bundled.json"
    corpus.write_text(json.dumps(records), encoding="utf-8")
    return corpus


@pytest.mark.slow
def test_quick_benchmark_prints_a_table_and_every_figure_as_json(tmp_path):
    # The bundled papers as a JSON list, replicated to 50 papers: --scale's figures
    # (the add command among them) are measured too, under their scale's names.
    corpus = bundled_as_json(tmp_path)
    command = [sys.executable, str(BENCH), "--quick", "--corpus", str(corpus), "--scale", "50"]
    result = subprocess.run(command, capture_output=True, text=True, timeout=900)
    assert result.returncode == 0, result.stderr[-2000:]
    lines = result.stdout.strip().splitlines()
    assert lines[0] == "iclr-reader benchmark: 50 papers (quick)"
    assert any(line.strip().startswith("engine search p50 / p95") for line in lines)
    assert any(line.strip().startswith("iclr-reader add of them all") for line in lines)
    figures = json.loads(lines[-1])
    parts = {f"keystroke_{part}_p95_ms" for part in ("searched", "applied", "painted")}
    assert figures.keys() >= KEYS | SCALED_KEYS | parts | {"keystroke_layouts"}  # (none, maybe, at 50 papers)
    assert figures["n_papers"] == 50
    assert all(figures[key] > 0 for key in KEYS | SCALED_KEYS)


@pytest.mark.slow
def test_build_only_benchmark_prints_the_builds_figures(tmp_path):
    """--build-only: the cold build with its CPU, the re-open and (with --scale) the add, nothing else."""
    corpus = bundled_as_json(tmp_path)
    command = [sys.executable, str(BENCH), "--build-only", "--corpus", str(corpus), "--scale", "50"]
    result = subprocess.run(command, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr[-2000:]
    lines = result.stdout.strip().splitlines()
    assert lines[0].startswith("iclr-reader benchmark: 50 papers, build only")
    assert not any("search p50" in line for line in lines)
    figures = json.loads(lines[-1])
    build_keys = {"build_s", "build_cpu_s", "build_children_cpu_s", "reopen_s", "add_s", "add_50_s", "build_50_s"}
    assert figures.keys() >= build_keys | {"n_papers"}
    assert figures["n_papers"] == 50
    assert all(figures[key] > 0 for key in build_keys - {"build_children_cpu_s"})
