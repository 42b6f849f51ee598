"""Offline experiment (not shipped, not run by CI): query expansion with static word vectors. A
description-like query (meaning_experiment's gate: 6+ plain words, not a pasted title) gets, for each
of its content words, its nearest words in the library's vocabulary (plain words of the papers'
titles and abstracts with document frequency >= 2, each embedded once as the mean of its static
token vectors), those above a cosine threshold, at most k a word, not the same stem as a query word.

    python tests/quality/expansion_experiment.py --table NAME=W.safetensors:T.json [--table ...]
        [--per-list N] [--descriptions-only] [--semantic-only]

Two ways of adding them, each then ranked by the project's engine (engine.search):
  boost  the neighbours appended to the query text as `word^w` (parse.py keeps Whoosh's boosts:
         an Or of the words, each neighbour's BM25F score times w);
  rrf    a second word ranking of the neighbours alone, fused with the query's own ranking by
         weighted reciprocal rank (k, weight w).
Every other query is searched as typed, so only gated queries can move. Prints MRR@10 per set and
sample, the difference from the words alone, the vocabulary's embedding time and the per-query
cost of finding neighbours. --semantic-only drops neighbours that share their first 5 letters with
(or contain, or are contained in) a query word: surface variants (rankers for rank).

What it found (2026-12, 10,744 papers, --per-list 15; vocabulary 13,449 words, embedded in 0.2-0.8 s;
neighbours 6-25 ms a query, a boosted search 50-300 ms a gated query, on 2 busy cores): the gate
passes 65 descriptions and no query of another set (titles are caught by the title guard; words,
typos and half titles have fewer than 6 words), so every other set is exactly level. The words
alone 0.412 / 0.330; no variant lifts both samples by 0.07:
  wordllama, all neighbours   boost t0.6 k3 w0.3  0.435/0.365 (+0.023/+0.035); rrf t0.8 w0.5 +-0.00/+0.036
  wordllama, --semantic-only  boost t0.5 k5 w0.3  0.457/0.367 (+0.045/+0.037), the best;
                              boost t0.6 k3 w0.5  0.437/0.353 (+0.025/+0.022)
  MiniLM static, all          boost t0.7 k5 w0.5  0.442/0.342 (+0.030/+0.011)
  MiniLM static, semantic     boost t0.7 k5 w0.5  0.450/0.328 (+0.038/-0.002)
The neighbours are mostly surface forms (wordllama: retraining, rankers, linearizes) or loose
associations (phd for phones, clock for time); boosting beats a second fused ranking throughout.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from search import SearchEngine, SearchRequest, load_corpus
from search.index.analysis import stems
from tests.quality import bench_quality as bq
from tests.quality.meaning_experiment import DEPTH, Static, fuse, mrr, plain_words

MIN_DF = 2


class Vocabulary:
    """The library's plain words (df >= MIN_DF), embedded by a static table, and their neighbours."""

    def __init__(self, words: list[str], model: Static, semantic_only: bool = False) -> None:
        t0 = time.perf_counter()
        self.words = words
        self.index = {w: i for i, w in enumerate(words)}
        self.matrix = model.embed_ids(model.ids(words))
        self.seconds = time.perf_counter() - t0
        self.model = model
        self.semantic_only = semantic_only
        self.stem = [tuple(stems(w)) for w in words]

    def neighbours(self, query_words: list[str], threshold: float, k: int) -> list[tuple[str, float]]:
        """Each content word's k nearest vocabulary words above threshold (best cosine kept per word)."""
        content = [w for w in dict.fromkeys(query_words) if w not in bq.STOP_WORDS and len(w) >= 3]
        if not content:
            return []
        own = {s for w in query_words for s in stems(w)}
        qv = self.model.embed_ids(self.model.ids(content))
        sims = qv @ self.matrix.T
        found: dict[str, float] = {}
        for row in sims:
            order = np.argpartition(-row, 64)[:64]
            order = order[np.argsort(-row[order])]
            taken = 0
            for j in order:
                if row[j] < threshold or taken >= k:
                    break
                word = self.words[j]
                if word in bq.STOP_WORDS or not self.stem[j] or set(self.stem[j]) & own:
                    continue
                if self.semantic_only and any(word[:5] == q[:5] or q in word or word in q for q in content):
                    continue  # a surface variant of a query word (rankers for rank), not another word
                taken += 1
                found[word] = max(found.get(word, 0.0), float(row[j]))
        return sorted(found.items(), key=lambda item: -item[1])


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--table", action="append", required=True, help="NAME=WEIGHTS:TOKENIZER")
    parser.add_argument("--per-list", type=int, default=15)
    parser.add_argument("--descriptions-only", action="store_true")
    parser.add_argument("--thresholds", default="0.6,0.7,0.8")
    parser.add_argument("--ks", default="2,3,5")
    parser.add_argument("--weights", default="0.3,0.5")
    parser.add_argument("--methods", default="boost,rrf")
    parser.add_argument(
        "--semantic-only", action="store_true", help="no neighbour sharing 5 first letters with a query word"
    )
    parser.add_argument("--show", type=int, default=3, help="print the neighbours of this many descriptions")
    args = parser.parse_args()
    workdir = Path(tempfile.mkdtemp(prefix="iclr-expand-"))
    for name in ("XDG_CACHE_HOME", "XDG_DATA_HOME", "XDG_CONFIG_HOME"):
        os.environ[name] = str(workdir / name.lower())
    try:
        written = bq.write_corpora(bq.list_files(False), workdir)
        t0 = time.perf_counter()
        engine = SearchEngine(load_corpus(written["titled"]), cache_dir=workdir / "cache")
        engine.ensure_index()
        print(f"index built in {time.perf_counter() - t0:.1f} s", flush=True)
        papers = engine.papers
        df: Counter[str] = Counter()
        for p in papers:
            df.update(
                w
                for w in set(bq.words_of((p.title or "") + "\n" + engine.describe(p.id).rendered.text))
                if bq._PLAIN.fullmatch(w) and w.isalpha() and len(w) >= 3
            )
        vocab = sorted(w for w, n in df.items() if n >= MIN_DF)
        print(f"vocabulary: {len(vocab)} plain words with df >= {MIN_DF} (of {len(df)})", flush=True)

        samples = bq.draw_samples(papers, args.per_list, bq.SEED)
        titles = {p.id: p.title for p in papers}
        dsamples, described = bq.description_samples(papers)
        kinds = {
            "title": lambda p: titles.get(p.id),
            "typo": lambda p: bq.typo_query(p, bq.SEED),
            "half": lambda p: bq.half_title_query(p, bq.SEED),
            "description": lambda p: described.get(p.id),
        }
        if not args.descriptions_only:
            words = bq.distinctive_queries(engine)
            kinds["words"] = lambda p: words.get(p.id)
        sets: list[tuple[str, str, str]] = []
        for kind, fn in kinds.items():
            if args.descriptions_only and kind != "description":
                continue
            src = dsamples if kind == "description" else samples
            for sample in bq.SAMPLES:
                for p in src[sample]:
                    q = fn(p)
                    if q:
                        sets.append((f"{kind}_{sample}", q, engine.canonical(p.id)))
        names = sorted({s for s, _, _ in sets})
        t0 = time.perf_counter()
        word_lists = []
        for _, q, _ in sets:
            res = engine.search(SearchRequest(q, limit=DEPTH))
            word_lists.append([engine.canonical(h.paper_id) for h in res.hits])
        print(f"{len(sets)} queries, word rankings in {time.perf_counter() - t0:.1f} s", flush=True)
        title_words = {engine.canonical(p.id): set(bq.words_of(p.title or "")) for p in papers}

        def title_like(query: str, wl: list[str]) -> bool:
            if not wl:
                return False
            qw = bq.words_of(query)
            return sum(w in title_words[wl[0]] for w in qw) >= 0.8 * len(qw)

        gated = [plain_words(q) >= 6 and not title_like(q, wl) for (_, q, _), wl in zip(sets, word_lists)]
        print(
            "gated per set: " + " ".join(f"{n}={sum(g for (s, _, _), g in zip(sets, gated) if s == n)}" for n in names)
        )

        def report(label: str, lists: list[list[str]], base: dict[str, float] | None = None) -> dict[str, float]:
            out = {}
            for name in names:
                ranks = [
                    (lst.index(known) + 1 if known in lst[: bq.CUTOFF] else None)
                    for (s, _, known), lst in zip(sets, lists)
                    if s == name
                ]
                out[name] = mrr(ranks)
            line = " ".join(f"{n}={v:.3f}" for n, v in out.items())
            if base:
                diffs = {n: out[n] - base[n] for n in names}
                worst = min(((d, n) for n, d in diffs.items() if not n.startswith("description")), default=(0.0, "-"))
                ok = diffs["description_a"] >= 0.07 and diffs["description_b"] >= 0.07 and worst[0] >= -0.005
                line += (
                    f" | desc {diffs['description_a']:+.3f}/{diffs['description_b']:+.3f}"
                    f" worst other {worst[1]} {worst[0]:+.3f}{' PASS' if ok else ''}"
                )
            print(f"{label:34s} {line}", flush=True)
            return out

        base = report("words", word_lists)
        for spec in args.table:
            tname, paths = spec.split("=", 1)
            wpath, tpath = paths.split(":", 1)
            model = Static(Path(wpath), Path(tpath))
            v = Vocabulary(vocab, model, args.semantic_only)
            print(f"== {tname}: {len(vocab)} words embedded in {v.seconds:.2f} s", flush=True)
            qwords = [bq.words_of(q) for _, q, _ in sets]
            for threshold in [float(x) for x in args.thresholds.split(",")]:
                for k in [int(x) for x in args.ks.split(",")]:
                    t0 = time.perf_counter()
                    nbrs = [v.neighbours(qw, threshold, k) if g else [] for qw, g in zip(qwords, gated)]
                    n_gated = max(1, sum(gated))
                    t_nb = (time.perf_counter() - t0) / n_gated
                    avg = sum(len(n) for n in nbrs) / n_gated
                    print(f"-- {tname} thr{threshold} k{k}: {avg:.1f} neighbours a query, {1000 * t_nb:.1f} ms a query")
                    shown = 0
                    for (s, q, _), n in zip(sets, nbrs):
                        if n and s.startswith("description") and shown < args.show:
                            print(f"   {q[:70]!r} + {', '.join(w for w, _ in n[:12])}")
                            shown += 1
                    alone: list[list[str]] | None = None
                    for method in args.methods.split(","):
                        for w in [float(x) for x in args.weights.split(",")]:
                            t0 = time.perf_counter()
                            lists = []
                            if method == "rrf" and alone is None:
                                alone = []
                                for n in nbrs:
                                    if n:
                                        res = engine.search(SearchRequest(" ".join(x for x, _ in n), limit=DEPTH))
                                        alone.append([engine.canonical(h.paper_id) for h in res.hits])
                                    else:
                                        alone.append([])
                            for i, ((_, q, _), wl, n) in enumerate(zip(sets, word_lists, nbrs)):
                                if not n:
                                    lists.append(wl)
                                elif method == "boost":
                                    text = q + " " + " ".join(f"{x}^{w}" for x, _ in n)
                                    res = engine.search(SearchRequest(text, limit=DEPTH))
                                    lists.append([engine.canonical(h.paper_id) for h in res.hits])
                                else:
                                    lists.append(fuse([(wl, 1.0), (alone[i], w)], 10))
                            t_q = (time.perf_counter() - t0) / n_gated
                            report(f"{tname} {method} t{threshold} k{k} w{w} ({1000 * t_q:.0f}ms)", lists, base)
        engine.close()
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
