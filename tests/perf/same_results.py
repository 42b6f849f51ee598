"""Two trees' engines over the same index: the results of every prefix of the session's and the
benchmark's queries, typed (`partial`), as each tree gives them, and any difference between them.

    python tests/perf/same_results.py --old TREE --new TREE --corpus PATH ... [--limit 40 --limit 200]

Each tree runs in its own process (its own `search` package) over the cache dir the environment
names (XDG_CACHE_HOME: build the index once, both open it), with no time budget, in two passes (the
first computes each prefix's words, the second finds them kept). Hits are compared by id, score (as
floats, exactly), matched terms and order; counts, corrections, notices and suggestions too. Prints
the differences (none: one line saying so) and exits 1 when there are any."""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

DUMP = r"""
import json, sys
from pathlib import Path
sys.path[:0] = [sys.argv[1], sys.argv[1] + "/tests/perf"]
from search.engine import SearchEngine
from search.models import SearchRequest
from bench import QUERIES, TYPED
from session import typed_queries

args = json.loads(sys.argv[2])
engine = SearchEngine.from_paths([Path(path) for path in args["corpus"]])
engine.ensure_index()
queries = list(dict.fromkeys(
    [text[: end + 1] for text in [*TYPED, *QUERIES] for end in range(len(text))] + typed_queries(args["searches"])
))
for number in range(2):
    for limit in args["limits"]:
        for text in queries:
            result = engine.search(SearchRequest(text, limit=limit, partial=True, budget=None))
            print(json.dumps({
                "pass": number, "limit": limit, "query": text,
                "hits": [(hit.paper_id, hit.score.hex(), list(hit.terms)) for hit in result.hits],
                "total": result.total, "all": result.all_words, "any": result.any_words,
                "corrected": result.corrected, "notice": result.notice, "suggestion": result.suggestion,
                "terms": list(result.terms), "also": [list(pair) for pair in result.also_searched],
            }))
"""


def dump(tree: Path, corpus: list[str], limits: list[int], searches: int) -> list[dict]:
    python = tree / ".venv" / "bin" / "python"
    arguments = json.dumps({"corpus": corpus, "limits": limits, "searches": searches})
    out = subprocess.run(
        [str(python if python.exists() else sys.executable), "-c", DUMP, str(tree), arguments],
        cwd=tree,
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    return [json.loads(line) for line in out.splitlines()]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--old", type=Path, required=True)
    parser.add_argument("--new", type=Path, default=ROOT)
    parser.add_argument("--corpus", action="append", required=True)
    parser.add_argument("--limit", action="append", type=int)
    parser.add_argument("--searches", type=int, default=1000)
    args = parser.parse_args()
    limits = args.limit or [40]
    corpus = [str(Path(path).resolve()) for path in args.corpus]
    old = dump(args.old, corpus, limits, args.searches)
    new = dump(args.new, corpus, limits, args.searches)
    differences = 0
    if len(old) != len(new):
        print(f"{len(old)} results old, {len(new)} new")
        differences += 1
    for before, after in zip(old, new):
        if before != after:
            differences += 1
            if differences <= 20:
                keys = [key for key in before if before[key] != after.get(key)]
                print(f"pass {before['pass']}, limit {before['limit']}, {before['query']!r}: {', '.join(keys)} differ")
                for key in keys:
                    if key == "hits":
                        for rank, (a, b) in enumerate(zip(before[key], after[key])):
                            if a != b:
                                print(f"  rank {rank}: old {a}\n          new {b}")
                                break
                    else:
                        print(f"  old {before[key]!r}\n  new {after[key]!r}")
    hits = sum(len(result["hits"]) for result in new)
    print(f"{len(new)} searches ({hits} hits) compared: {differences} differ")
    return 1 if differences else 0


if __name__ == "__main__":
    sys.exit(main())
