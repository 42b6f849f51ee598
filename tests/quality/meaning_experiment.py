"""Offline experiment (not shipped, not run by CI): does a static embedding, alone or fused with the
word ranking, find the hand-written descriptions' papers, and what does fusing cost the other sets?

    python tests/quality/meaning_experiment.py --weights W.safetensors --tokenizer T.json [--per-list N]

Needs numpy, tokenizers and safetensors in the environment (not project dependencies). The weights
are a static token table (vocabulary x dims, e.g. wordllama's l2_supercat_256.safetensors) and the
tokenizer its tokenizers-JSON (wordllama's l2_supercat_tokenizer_config.json). Each paper's text is
its title and abstract as the reader renders them (LaTeX converted), the text the word index holds.

Reports MRR@10 per set (the bench_quality sets, descriptions A and B) for: words alone (engine.search,
as the CLI), each embedding variant (token weights: mean, corpus IDF, SIF a=1e-3, IDF squared) alone,
and reciprocal-rank fusion with the word ranking (depth 100) on the queries that read as a
description: plain words only, at least G of them, and not a pasted title (fewer than 80% of the
query's words in the word ranking's first title). --descriptions-only adds fusion that only
re-ranks the word ranking's 100, and, with --also-weights, three-way fusion of both tables.

What it found (2026-12, 10,744 papers, --per-list 15: 255 queries a set and sample; descriptions
A/B 34/33): the word ranking 0.412 / 0.330. The gate (6+ plain words) with the title guard keeps
every other set exactly level (title, words, typos, half titles), but no variant lifts A and B by
0.07 both:
  wordllama l2_supercat_256   alone 0.194/0.258 (mean) .. 0.161/0.230 (IDF);
                              best fused k10 w0.5 mean 0.390/0.408 (-0.022/+0.078)
  all-MiniLM-L6-v2 distilled  alone 0.153/0.154 (mean), 0.221/0.180 (IDF), 0.245/0.222 (SIF);
  (static, PCA 256)           best fused k10 w0.5 SIF 0.439/0.386 (+0.027/+0.056);
                              re-rank only SIF k10 w0.5 0.417/0.402 (+0.005/+0.072)
  both tables, 3-way          best 0.386/0.420 (SIF k10 w0.5)
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

import numpy as np
from safetensors.numpy import load_file
from tokenizers import Tokenizer

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from search import SearchEngine, SearchRequest, load_corpus
from tests.quality import bench_quality as bq

DEPTH = 100
"""How deep each ranking goes before fusion."""
_PLAIN_QUERY = re.compile(r"[A-Za-z][A-Za-z0-9'-]*")


def plain_words(query: str) -> int:
    """How many words the query has when every word is plain (no field, operator or quote syntax); 0 otherwise."""
    words = query.split()
    if any(not _PLAIN_QUERY.fullmatch(w) or w in ("AND", "OR", "NOT") for w in words):
        return 0
    return len(words)


class Static:
    """A static token-table model: text -> L2-normalised weighted mean of token vectors."""

    def __init__(self, weights: Path, tokenizer: Path) -> None:
        tensors = load_file(str(weights))
        self.table = next(iter(tensors.values())).astype(np.float32)
        self.tok = Tokenizer.from_file(str(tokenizer))
        self.tok.no_padding()
        self.tok.no_truncation()
        self.weight = np.ones(self.table.shape[0], dtype=np.float32)

    def ids(self, texts: list[str]) -> list[np.ndarray]:
        return [np.asarray(e.ids, dtype=np.int64) for e in self.tok.encode_batch(texts, add_special_tokens=False)]

    def fit_weights(self, docs: list[np.ndarray], kind: str) -> None:
        n = len(docs)
        df = np.zeros(self.table.shape[0], dtype=np.float64)
        tf = np.zeros(self.table.shape[0], dtype=np.float64)
        for ids in docs:
            df[np.unique(ids)] += 1
            np.add.at(tf, ids, 1)
        if kind == "mean":
            self.weight[:] = 1
        elif kind == "idf":
            self.weight = np.log((n + 1) / (df + 1)).astype(np.float32)
        elif kind == "sif":
            p = tf / tf.sum()
            a = 1e-3
            self.weight = (a / (a + p)).astype(np.float32)
        elif kind == "idf2":
            self.weight = (np.log((n + 1) / (df + 1)) ** 2).astype(np.float32)

    def embed_ids(self, docs: list[np.ndarray]) -> np.ndarray:
        out = np.zeros((len(docs), self.table.shape[1]), dtype=np.float32)
        for i, ids in enumerate(docs):
            if len(ids):
                w = self.weight[ids]
                out[i] = w @ self.table[ids]
        norms = np.linalg.norm(out, axis=1, keepdims=True)
        return out / np.maximum(norms, 1e-9)


def mrr(ranks: list[int | None]) -> float:
    return sum(1 / r for r in ranks if r and r <= bq.CUTOFF) / len(ranks) if ranks else 0.0


def rrf(word: list[str], meaning: list[str], k: float, w: float) -> list[str]:
    score: Counter[str] = Counter()
    for r, pid in enumerate(word, 1):
        score[pid] += 1 / (k + r)
    for r, pid in enumerate(meaning, 1):
        score[pid] += w / (k + r)
    return [pid for pid, _ in score.most_common(bq.CUTOFF)]


def fuse(rankings: list[tuple[list[str], float]], k: float) -> list[str]:
    """Weighted reciprocal-rank fusion of several rankings: the first CUTOFF ids."""
    score: Counter[str] = Counter()
    for ranking, weight in rankings:
        for r, pid in enumerate(ranking, 1):
            score[pid] += weight / (k + r)
    return [pid for pid, _ in score.most_common(bq.CUTOFF)]


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--weights", type=Path, required=True)
    parser.add_argument("--tokenizer", type=Path, required=True)
    parser.add_argument("--per-list", type=int, default=15)
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--descriptions-only", action="store_true", help="only the description set (fast)")
    parser.add_argument("--also-weights", type=Path, help="a second table: three-way fusion")
    parser.add_argument("--also-tokenizer", type=Path)
    args = parser.parse_args()
    workdir = Path(tempfile.mkdtemp(prefix="iclr-meaning-"))
    for name in ("XDG_CACHE_HOME", "XDG_DATA_HOME", "XDG_CONFIG_HOME"):
        os.environ[name] = str(workdir / name.lower())
    try:
        files = bq.list_files(args.quick)
        written = bq.write_corpora(files, workdir)
        t0 = time.perf_counter()
        engine = SearchEngine(load_corpus(written["titled"]), cache_dir=workdir / "cache")
        engine.ensure_index()
        print(f"index built in {time.perf_counter() - t0:.1f} s", flush=True)
        papers = engine.papers
        pids = [engine.canonical(p.id) for p in papers]
        texts = [(p.title or "") + "\n" + engine.describe(p.id).rendered.text for p in papers]
        model = Static(args.weights, args.tokenizer)
        t0 = time.perf_counter()
        doc_ids = model.ids(texts)
        t_tok = time.perf_counter() - t0
        print(f"{len(texts)} papers tokenised in {t_tok:.2f} s", flush=True)

        samples = bq.draw_samples(papers, args.per_list, bq.SEED)
        titles = {p.id: p.title for p in papers}
        words = bq.distinctive_queries(engine)
        dsamples, described = bq.description_samples(papers)
        kinds = {
            "title": lambda p: titles.get(p.id),
            "words": lambda p: words.get(p.id),
            "typo": lambda p: bq.typo_query(p, bq.SEED),
            "half": lambda p: bq.half_title_query(p, bq.SEED),
            "description": lambda p: described.get(p.id),
        }
        sets: list[tuple[str, str, str]] = []  # (set name, query, known id)
        for kind, fn in kinds.items():
            if args.descriptions_only and kind != "description":
                continue
            src = dsamples if kind == "description" else samples
            for sample in bq.SAMPLES:
                for p in src[sample]:
                    q = fn(p)
                    if q:
                        sets.append((f"{kind}_{sample}", q, engine.canonical(p.id)))
        print(f"{len(sets)} queries", flush=True)
        word_lists = []
        t0 = time.perf_counter()
        for _, q, _ in sets:
            res = engine.search(SearchRequest(q, limit=DEPTH))
            word_lists.append([engine.canonical(h.paper_id) for h in res.hits])
        print(f"word rankings in {time.perf_counter() - t0:.1f} s", flush=True)
        names = sorted({s for s, _, _ in sets}, key=lambda s: (list(kinds).index(s.rsplit("_", 1)[0]), s))

        def report(label: str, lists: list[list[str]]) -> dict[str, float]:
            out = {}
            for name in names:
                ranks = [
                    (lst.index(known) + 1 if known in lst[: bq.CUTOFF] else None)
                    for (s, _, known), lst in zip(sets, lists)
                    if s == name
                ]
                out[name] = mrr(ranks)
            print(f"{label:38s} " + " ".join(f"{n}={v:.3f}" for n, v in out.items()), flush=True)
            return out

        title_words = {engine.canonical(p.id): set(bq.words_of(p.title or "")) for p in papers}

        def title_like(query: str, word_list: list[str]) -> bool:
            """Most of the query's words are in the word ranking's first title: a pasted title, not a description."""
            if not word_list:
                return False
            qw = bq.words_of(query)
            return sum(w in title_words[word_list[0]] for w in qw) >= 0.8 * len(qw)

        base = report("words", word_lists)
        queries = [q for _, q, _ in sets]
        second: list[list[str]] | None = None
        if args.also_weights and args.also_tokenizer:
            other = Static(args.also_weights, args.also_tokenizer)
            other_ids = other.ids(texts)
            other.fit_weights(other_ids, "mean")
            sims2 = other.embed_ids(other.ids(queries)) @ other.embed_ids(other_ids).T
            second = [[pids[j] for j in row] for row in np.argsort(-sims2, axis=1)[:, :DEPTH]]
            report("second model (mean) alone", second)
        for kind in ("mean", "idf", "sif", "idf2"):
            model.fit_weights(doc_ids, kind)
            t0 = time.perf_counter()
            matrix = model.embed_ids(doc_ids)
            t_emb = time.perf_counter() - t0
            qv = model.embed_ids(model.ids(queries))
            sims = qv @ matrix.T
            top = np.argsort(-sims, axis=1)[:, :DEPTH]
            meaning = [[pids[j] for j in row] for row in top]
            print(f"-- {kind}: embedded {len(texts)} in {t_emb:.2f} s (+{t_tok:.2f} s tokenising)")
            report(f"{kind} alone", meaning)
            for k, w in ((10, 0.5), (20, 0.5), (60, 1.0)):
                described_like = [
                    plain_words(q) >= 6 and not title_like(q, wl) for (_, q, _), wl in zip(sets, word_lists)
                ]
                rerank = [
                    fuse([(wl, 1.0), ([pid for pid in ml if pid in set(wl)], w)], k) if fused else wl
                    for fused, wl, ml in zip(described_like, word_lists, meaning)
                ]
                report(f"{kind} rerank-only k{k} w{w}", rerank)
                if second is not None:
                    three = [
                        fuse([(wl, 1.0), (ml, w), (sl, w)], k) if fused else wl
                        for fused, wl, ml, sl in zip(described_like, word_lists, meaning, second)
                    ]
                    report(f"{kind} + second, 3-way k{k} w{w}", three)
            for gate in (6, 8):
                for k, w in ((60, 1.0), (20, 1.0), (60, 0.5), (10, 0.5), (10, 0.3)):
                    fused = [
                        rrf(wl, ml, k, w) if plain_words(q) >= gate and not title_like(q, wl) else wl
                        for (_, q, _), wl, ml in zip(sets, word_lists, meaning)
                    ]
                    got = report(f"{kind} rrf gate{gate} k{k} w{w}", fused)
                    diffs = {n: got[n] - base[n] for n in names}
                    worst = min(
                        ((d, n) for n, d in diffs.items() if not n.startswith("description")), default=(0.0, "none")
                    )
                    print(
                        f"{'':38s} desc +{diffs['description_a']:.3f}/+{diffs['description_b']:.3f}"
                        f" worst other {worst[1]} {worst[0]:+.3f}"
                    )
        engine.close()
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
