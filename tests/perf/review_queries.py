"""What the review, people and number fields of the query language cost (issue 35).

    python tests/perf/review_queries.py [--scale N]

Over the 17 real lists (10,745 papers) or, with --scale, their records replicated with fresh ids
and every field kept to N papers. Each query's filter is worked out afresh (the engine keeps the
last 16, so a query typed on after its filters costs nothing more): the median of 5 runs of
Filters.allowed and the sort, on the papers, with no index (word search is what it was); what an
engine works out once (the statuses, the distinct institutions and countries) is timed apart."""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
from pathlib import Path

from search import Marks, load_corpus
from search.query.facets import split_facets
from search.query.filters import Filters

LISTS = Path(__file__).resolve().parents[2].parent / "shared" / "corpora" / "paperlists"
QUERIES = (
    "status:poster",  # filters there were before, for comparison
    "venue:iclr",
    "rating:>=7",
    "rating:5..7",
    "confidence:>=4",
    "citations:>100",
    "year:2018",
    "year:2017..2019",
    'author:"Max Welling"',
    "author:welling",
    "inst:cambridge",
    "inst:upenn",
    'country:"United States"',
    "area:vision",
    "sort:rating",
    "sort:citations",
    "sort:year",
    "rating:>=6 inst:mit country:usa sort:citations",
)


def replicated(files: list[Path], target: int, folder: Path) -> list[Path]:
    records = [
        {**r, "venue": path.stem[:-4].upper(), "year": int(path.stem[-4:])}  # the file name said them
        for path in files
        for r in json.loads(path.read_text(encoding="utf-8"))
        if isinstance(r, dict)
    ]
    out: list[dict] = []
    copy = 0
    while len(out) < target:
        for record in records:
            if len(out) >= target:
                break
            if copy:  # another paper: its own id and abstract, no page or PDF that would merge it
                record = {
                    **{key: value for key, value in record.items() if key not in ("site", "pdf", "oa", "arxiv")},
                    "id": f"{record.get('id')}-r{copy}",
                    "abstract": f"{record.get('abstract')} ({copy})",
                }
            out.append(record)
        copy += 1
    paths = []
    for part, start in enumerate(range(0, len(out), 10_000)):
        path = folder / f"replica{part:02d}.json"
        path.write_text(json.dumps(out[start : start + 10_000]), encoding="utf-8")
        paths.append(path)
    return paths


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scale", type=int)
    args = parser.parse_args()
    files = sorted(LISTS.glob("*.json"))
    with tempfile.TemporaryDirectory() as folder:
        if args.scale:
            files = replicated(files, args.scale, Path(folder))
        papers = load_corpus(files).papers
        print(f"{len(papers):,} papers")
        filters = Filters(papers, lambda: [], lambda paper: (), lambda pid: pid, lambda pid: False)
        started = time.perf_counter()
        filters.allowed(split_facets("inst:x country:x")[1], Marks())  # what is worked out once
        print(f"{'first use (statuses, institutions, countries)':<48} {(time.perf_counter() - started) * 1000:8.1f} ms")
        for query in QUERIES:
            _, facets = split_facets(query)
            times, found = [], 0
            for _ in range(5):
                filters._cache.clear()  # a new filter, as on the first keystroke after it
                started = time.perf_counter()
                allowed, _ = filters.allowed(facets, Marks())
                kept = [p for p in papers if allowed is None or p.id in allowed]
                filters.sort(kept, facets.sort)
                times.append(time.perf_counter() - started)
                found = len(kept)
            print(f"{query:<48} {statistics.median(times) * 1000:8.1f} ms  {found:>7,} papers")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
