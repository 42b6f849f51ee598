"""Detect the name a paper gives its method or system (TRGNN, BitStack, Dobi-SVD), never inventing one."""

from __future__ import annotations

import re
from bisect import bisect_left
from collections import Counter

from search.models import Rendered

# A name has two capitals (TRGNN, BitStack, HiBug2), a capital after its first letter (vLLM), or is a
# hyphenated compound of capitalised parts (Drop-Upcycling, T-JEPA).
_START = r"(?<![\w-])"
_WORD = r"[A-Za-z][A-Za-z0-9]*(?:-[A-Za-z0-9]+)*(?![\w-])"
_TOKEN = re.compile(_START + _WORD)
# Only tokens with a capital after their first letter, or capitalised and hyphenated, can be names
# (see _is_name_like): looking ahead for one skips the plain words, most of every abstract.
_CANDIDATE = re.compile(_START + r"(?=[A-Za-z][A-Za-z0-9-]*[A-Z]|[A-Z][A-Za-z0-9]*-)" + _WORD)
_INTRODUCTION = re.compile(
    r"\b(?:we\s+(?:propose|introduce|present|develop|design|call|name|term|dub|build|release|contribute)"
    r"|this\s+(?:paper|work)\s+(?:proposes|introduces|presents|develops)"
    r"|(?:called|dubbed|termed|named))\b",
    re.IGNORECASE,
)
# "Our approach, T-JEPA, ..." / "our hardware-optimization FlashRNN": the name follows at once.
_OUR = re.compile(r"\bour\s+(?:[\w-]+,?\s+)?", re.IGNORECASE)
_SENTENCE_END = re.compile(r"(?<!\be\.g)(?<!\bi\.e)(?<!\bal)[.!?](?=\s+[A-Z(\"“])")

GENERIC_ACRONYMS = frozenset(
    [
        "ai",
        "ml",
        "dl",
        "nn",
        "dnn",
        "cnn",
        "rnn",
        "gnn",
        "gcn",
        "gat",
        "mlp",
        "lstm",
        "gru",
        "vae",
        "gan",
        "llm",
        "vlm",
        "mllm",
        "lvlm",
        "lm",
        "plm",
        "slm",
        "moe",
        "rl",
        "marl",
        "rlhf",
        "ppo",
        "dpo",
        "sft",
        "sgd",
        "adam",
        "cot",
        "icl",
        "rag",
        "kv",
        "qa",
        "vqa",
        "nlp",
        "nlu",
        "cv",
        "asr",
        "tts",
        "ocr",
        "ood",
        "iid",
        "id",
        "ci",
        "ssl",
        "milp",
        "lp",
        "ilp",
        "qp",
        "sdp",
        "pde",
        "ode",
        "sde",
        "svd",
        "pca",
        "ica",
        "tsp",
        "co",
        "mdp",
        "pomdp",
        "mcts",
        "gpu",
        "cpu",
        "tpu",
        "api",
        "sota",
        "t2i",
        "t2v",
        "i2v",
        "i2i",
        "3d",
        "2d",
        "nerf",
        "sam",
        "clip",
        "vit",
        "bert",
        "gpt",
        "llama",
        "lora",
        "fid",
        "psnr",
        "ssim",
        "lpips",
        "auc",
        "roc",
        "map",
        "bleu",
        "rouge",
        "mse",
        "mae",
        "rmse",
        "kl",
        "iou",
        "ece",
        "shap",
        "gam",
        "cnns",
        "mu",
        "uq",
        "ab",
        "xai",
        "agi",
        "mt",
        "asr",
        "nas",
    ]
)


def detect_name(rendered: Rendered) -> str | None:
    """The method/system name an abstract introduces, or None when it introduces none."""
    text = rendered.text
    occurrences = [(m.group(), m.start()) for m in _CANDIDATE.finditer(text) if _is_name_like(m.group())]
    if not occurrences:
        return None
    forms: dict[str, Counter[str]] = {}
    for token, _ in occurrences:
        forms.setdefault(_key(token), Counter())[token] += 1
    scores: dict[str, float] = {}
    for key, counts in forms.items():
        total = sum(counts.values())
        scores[key] = scores.get(key, 0) + min(total, 5) * 0.5
    for key in _defined_acronyms(text):
        if key in scores:
            scores[key] += 1
    for key in _styled_tokens(rendered):
        if key in scores:
            scores[key] += 3
    for key in _introduced(text, occurrences):
        if key in scores:
            scores[key] += 4
    first_seen: dict[str, int] = {}
    for token, start in occurrences:
        first_seen.setdefault(_key(token), start)
    best = max(scores, key=lambda k: (scores[k], -first_seen[k]))
    if scores[best] < 4:
        return None
    return forms[best].most_common(1)[0][0]


def _is_name_like(token: str) -> bool:
    if len(token) < 2 or (token[1:].islower() and "-" not in token):
        return False  # most words: cheap to rule out before anything else
    if _key(token) in GENERIC_ACRONYMS or token.isdigit():
        return False
    parts = token.split("-")
    if len(parts) > 1:
        if all(part[:1].isupper() or part[:1].isdigit() for part in parts):
            return not all(part.isdigit() for part in parts[1:])
        return _is_name_like(parts[0])
    capitals = sum(ch.isupper() for ch in token)
    return capitals >= 2 or any(ch.isupper() for ch in token[1:])


_SUFFIX = re.compile(r"-(?:based|like|style|type|free|aware|driven|guided|specific)$", re.IGNORECASE)


def _key(token: str) -> str:
    """Group spellings of one name: SCBENCH/SCBench, RVCE/RVCEs; drop -based/-like suffixes."""
    token = _SUFFIX.sub("", token)
    key = token.casefold()
    return key[:-1] if key.endswith("s") and len(key) > 3 and token[-1] == "s" and token[-2].isupper() else key


def _defined_acronyms(text: str) -> set[str]:
    return {_key(m.group(1)) for m in re.finditer(r"\(\s*([A-Za-z][\w-]*)\s*\)", text)}


def _styled_tokens(rendered: Rendered) -> set[str]:
    keys = set()
    for span in rendered.spans:
        if span.style in ("bold", "italic", "underline"):
            for match in _TOKEN.finditer(rendered.text[span.start : span.end]):
                keys.add(_key(match.group()))
    return keys


def _introduced(text: str, occurrences: list[tuple[str, int]]) -> set[str]:
    """The first name after each 'we propose/introduce/...' within its sentence.

    A name followed closely by a parenthesised acronym is that acronym's expansion
    ("In-Distribution Interventions (IDI)"): the acronym is what the paper calls it.
    Sentence ends and names are found once and looked up by binary search, so the work stays
    linear however many introductions an abstract has.
    """
    introduced = set()
    sentence_ends = [m.start() for m in _SENTENCE_END.finditer(text)]
    # "JEPA-based models" refers to existing work; it does not introduce a name.
    names = [(start, token) for token, start in occurrences if not _SUFFIX.search(token)]
    name_starts = [start for start, _ in names]
    for match in _INTRODUCTION.finditer(text):
        end = bisect_left(sentence_ends, match.end())
        limit = sentence_ends[end] if end < len(sentence_ends) else len(text)
        first = bisect_left(name_starts, match.end())
        if first < len(names) and names[first][0] < limit:
            start, token = names[first]
            introduced.add(_key(_acronym_for(text, token, start) or token))
    starts = {start: token for token, start in occurrences}
    for match in _OUR.finditer(text):
        for start in (match.end(), match.end() - len(match.group()) + 4):
            if start in starts:
                introduced.add(_key(starts[start]))
    return introduced


def _acronym_for(text: str, token: str, start: int) -> str | None:
    after = text[start + len(token) : start + len(token) + 80]
    match = re.match(r"((?:\s+[\w-]+){0,5}?)\s*\(\s*([A-Za-z][\w-]*)\s*\)", after)
    if not match or not _is_name_like(match.group(2)):
        return None
    acronym = match.group(2)
    # "SCBENCH (SharedContextBENCH)" spells the name out; "DCE (ADCE)" defines a new one.
    upper = sum(ch.isupper() for ch in acronym)
    return acronym if upper >= len(acronym) - upper else None
