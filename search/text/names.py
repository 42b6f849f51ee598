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


_TITLE_PREFIX = re.compile(r"\s*([^:]{2,60}?)\s*(?::|\s[-\u2013\u2014]\s)")
"""What comes before a title's colon ("BitStack: ...", "BOCK : ...", "G-LBM:Generative") or spaced dash."""
_AFTER_SENTENCE = re.compile(r"[?!.]\s+")
_TITLE_ACRONYM = re.compile(r"\(\s*([^\s()]{2,20})\s*\)")
TITLE_CHARS = 500
"""Where a title's acronyms are looked for: real titles are shorter, and a list may hold anything."""
_NOT_NAMES = frozenset(
    {
        "position",
        "survey",
        "review",
        "tutorial",
        "overview",
        "perspective",
        "perspectives",
        "editorial",
        "erratum",
        "corrigendum",
        "correction",
        "retraction",
        "comment",
        "commentary",
        "note",
        "notes",
        "keynote",
        "invited",
        "abstract",
        "introduction",
        "discussion",
    }
)
"""One-word title prefixes that say what kind of paper it is ("Position: ..."), not what it is called."""
_NOT_NAME_STARTS = frozenset(
    {"a", "an", "the", "on", "of", "in", "for", "to", "towards", "toward", "beyond", "from", "with", "via"}
    | {"what", "when", "why", "how", "do", "does", "is", "are", "can"}
)
"""Words a two- or three-word prefix does not start with when it is a name ("Beyond Worst-case: ...")."""


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


def title_name(title: str) -> str | None:
    """The name a title gives its paper, spelt as the title spells it, or None (most titles).

    One word before the colon ("BitStack: Any-Size Compression...", "PointNet++: ...", "E²-RAG: ...");
    a short title-case phrase there with a name in it ("Parallel WaveNet: ...", "Riemannian SVRG:
    ..."); or an acronym the title defines ("Union of Intersections (UoI) for ..."). A name-like word
    elsewhere in a title is most often an existing method the paper uses (R-CNN, ADMM, MCMC), so it
    is not taken, whatever the abstract says."""
    prefix = _TITLE_PREFIX.match(title)
    if prefix:
        # "How Can I See My Future? FvTraj: Using ...": the name follows the opening question.
        words = _AFTER_SENTENCE.split(prefix.group(1))[-1].split()
        if len(words) == 1 and _is_prefix_word_name(words[0]):
            return words[0]
        if 2 <= len(words) <= 3 and _is_name_phrase(words, title):
            return " ".join(words)
    return _defined_in_title(title)


def _is_prefix_word_name(word: str) -> bool:
    """One word before a title's colon names the paper (PointNet++, Firebolt, mixup), unless it is a
    kind of paper ("Position:") or a field's common acronym ("LLM:")."""
    return any(ch.isalpha() for ch in word) and word.casefold() not in _NOT_NAMES and not _generic(word)


def _is_name_phrase(words: list[str], title: str) -> bool:
    """ "Parallel WaveNet", "Riemannian SVRG", "LevelSet R-CNN": capitalised words, one of them a
    name by its own capitals (not only a compound's, as in "Byzantine-Robust Distributed Learning"),
    not opening like a sentence ("Improving KernelSHAP", "Beyond the Nav-Graph"). In a title in
    capitals every word looks like a name, so none is taken there."""
    if title.isupper() or words[0].casefold() in _NOT_NAME_STARTS or words[0].lower().endswith("ing"):
        return False
    if not all(word[:1].isupper() or word[:1].isdigit() for word in words):
        return False
    return any(_is_name_like(part) for word in words for part in word.split("-"))


def _defined_in_title(title: str) -> str | None:
    """An acronym in parentheses that abbreviates the words before it: "Shifted Exponential Linear
    Units (ShELUs)", not "Metadata Conditioning (NOT) Work" or "SE(3)"."""
    for match in _TITLE_ACRONYM.finditer(title, 0, TITLE_CHARS):
        acronym = match.group(1)
        before = title[: match.start()].split()[-6:]
        initials = {word[0].casefold() for word in before}
        if _is_name_like(acronym) and acronym[0].casefold() in initials:
            return acronym
    return None


def _generic(word: str) -> bool:
    return _key(word) in GENERIC_ACRONYMS


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
