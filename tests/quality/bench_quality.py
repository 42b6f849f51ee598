"""iclr-reader quality benchmark: known-item MRR@10 and top-1 of iclr-reader against SQLite FTS5.

    python tests/quality/bench_quality.py [--per-list N] [--seed S] [--quick] [--typing]

Three corpora, each of every paper of the lists in ../shared/corpora/paperlists (--quick: three
small lists), the titles as the reader shows them (LaTeX converted):

  title -> abstracts          a paper's title pasted into a corpus of abstracts without titles
  words -> title+abstract     4 words from the paper's abstract that are rare in the corpus
  title -> title+abstract     the title, into a corpus with titles
  typos -> title+abstract     3 consecutive title words, lower case, with 1 or 2 typos (a letter
                              dropped, doubled, swapped with its neighbour or a key beside it)
                              in its words of 5+ letters, from a generator seeded per paper
  half title -> title+abstract  3 to 5 of the title's content words in another order, lower case,
                              one replaced by a synonym or another form ("networks" -> "nets")
  description -> title+abstract  a description written by hand (tests/quality/descriptions.json,
                              67 papers, 4 a list; not the abstract's rarest words), samples A and
                              B alternate over the file
  author + word -> title+abstract+authors  one author's surname and one content word of the
                              title, lower case ("hinton capsules"), into a corpus with authors too
  acronym -> title+abstract   the name a title opens with ("BitStack: ...", two capitals or more)

The known item is the paper the query came from. iclr-reader answers through `engine.search(query,
limit=10)`, the call `iclr-reader search` makes; FTS5 (tokenize='porter unicode61', bm25) answers
from a table built in the same run over the same papers and the same text (the title and the
abstract as the reader shows them), each query word quoted and the words OR-joined, as a plain
search box would. Two disjoint samples are drawn with a fixed seed: A is the one to tune on, B is
kept aside, and both are reported. The last line printed is one JSON object with every figure.
No thresholds here: compare runs, read the two samples side by side.

--typing: each query is searched as the app searches it while its last word is still being typed
(`partial`, no space after it: that word also matches its common completions), and its top 10 are
compared with those of the query finished (a space typed after it): the figures say how many agree.

The default, 50 papers per list (850 queries a sample over the 17 lists), takes about five minutes:
a title query costs both engines tens of milliseconds over the 10,745 papers. `--per-list 200` is the
issue's scale (3,400 a sample) and takes about four times as long.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import shutil
import sqlite3
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from search import Paper, ReaderError, SearchEngine, SearchRequest, load_corpus  # noqa: E402

PAPERLISTS = ROOT.parent / "shared" / "corpora" / "paperlists"
QUICK_LISTS = ("aistats2020", "colm2025", "www2025")
"""--quick: three of the smallest lists (1,250 papers)."""
CUTOFF = 10
PER_LIST = 50
QUICK_PER_LIST = 20
SEED = 20250
SAMPLES = ("a", "b")
ENGINES = ("iclr-reader", "fts5")

SETUPS = (
    # key, what the table calls it, the corpus it searches, what the query is
    ("title_to_abstracts", "title -> abstracts", "abstracts", "title"),
    ("words_to_title_abstract", "words -> title+abstract", "titled", "words"),
    ("title_to_title_abstract", "title -> title+abstract", "titled", "title"),
    ("typo_to_title_abstract", "typos -> title+abstract", "titled", "typo"),
    ("half_title_to_title_abstract", "half title -> title+abstract", "titled", "half"),
    ("description_to_title_abstract", "description -> title+abstract", "titled", "description"),
    ("author_word_to_title_abstract_authors", "author + word -> +authors", "authored", "author"),
    ("acronym_to_title_abstract", "acronym -> title+abstract", "titled", "acronym"),
)
DESCRIPTIONS = Path(__file__).with_name("descriptions.json")
"""Hand-written descriptions: {"list", "title", "description"} each; the title names the known item."""
FRAGMENT = 3
"""Words in a typo query: consecutive title words."""
MIN_TYPO_WORD = 5
"""Only words of this many letters or more get a typo (as spelling.py's MIN_CORRECTED)."""
_KEYS = ("qwertyuiop", "asdfghjkl", "zxcvbnm")
_NEIGHBOURS = {
    key: "".join(row[j] for j in (i - 1, i + 1) if 0 <= j < len(row)) for row in _KEYS for i, key in enumerate(row)
}
"""Each letter's neighbours on its keyboard row: a substituted letter is a key beside the right one."""
_SYNONYMS = {
    "learning": "training",
    "network": "net",
    "networks": "nets",
    "neural": "deep",
    "efficient": "fast",
    "fast": "quick",
    "robust": "resilient",
    "image": "picture",
    "images": "pictures",
    "generation": "synthesis",
    "analysis": "study",
    "approach": "method",
    "method": "approach",
    "methods": "approaches",
    "deep": "neural",
    "estimation": "estimating",
    "prediction": "forecasting",
    "language": "text",
    "large": "big",
    "detection": "recognition",
    "representation": "embedding",
    "representations": "embeddings",
    "stochastic": "random",
    "bayesian": "probabilistic",
    "inference": "estimation",
    "novel": "new",
    "towards": "toward",
    "video": "clip",
    "videos": "clips",
    "private": "privacy",
    "privacy": "private",
    "federated": "distributed",
    "online": "streaming",
    "models": "model",
    "model": "framework",
    "optimization": "optimisation",
    "training": "learning",
    "graph": "network",
    "graphs": "networks",
    "improving": "better",
    "understanding": "explaining",
    "scalable": "scaling",
    "adaptive": "adapting",
    "generative": "generating",
    "convolutional": "cnn",
    "recurrent": "rnn",
    "reinforcement": "rl",
}
"""A word half remembered as another (title words in lower case)."""

DISTINCTIVE_WORDS = 4
"""Words per distinctive-words query; a paper with fewer than MIN_WORDS candidates gives no query."""
MIN_WORDS = 3
MIN_WORD_LENGTH = 4
_STOP_LIST = """
    about above across after again against also although among amongst another anyone anything
    around because been before being below between both could does doing done down during each
    either else enough even ever every first from further given have having here hers herself
    himself into itself just least less like made make makes many more most much must neither never
    none nothing often once only onto other others otherwise ours over rather same several shall
    should show shows since some such than that their theirs them themselves then there therefore
    these they this those though through thus together toward towards under until upon very well
    were what whatever when where whereas whether which while whom whose will with within without
    would your yours yourself paper propose proposed proposes approach method methods based using
    used results result shown work however
"""
STOP_WORDS = frozenset(_STOP_LIST.split())
"""Words of MIN_WORD_LENGTH letters or more that never make a query distinctive."""
_SHORT_STOP_LIST = "the and for via with from into its are can our not how why"
_FUNCTION_WORDS = frozenset(_SHORT_STOP_LIST.split())
"""Shorter words a half-remembered title leaves out."""
_TOKEN = re.compile(r"\w+(?:\.\w+)*")
"""A word as the index sees one (Whoosh's default tokenizer): "S2DNet", "NYUv2" and "ethz.ch" stay whole."""
_PLAIN = re.compile(r"[a-z][a-z0-9]*")
"""A word someone would type: ASCII letters, then letters or digits ("s2dnet"); no "minₓ", "ethz.ch"."""


# -- the corpus -----------------------------------------------------------------------------------


@dataclass
class Setup:
    """One corpus as both engines see it."""

    engine: SearchEngine
    fts5: sqlite3.Connection


@dataclass
class Tally:
    """Reciprocal ranks of one engine over one setup's queries in one sample."""

    ranks: list[int | None] = field(default_factory=list)
    """The known item's rank (1-based) within the cutoff, None when it is not there."""
    seconds: float = 0.0
    """Time spent answering the queries."""

    def add(self, rank: int | None, seconds: float) -> None:
        self.ranks.append(rank)
        self.seconds += seconds

    @property
    def mrr(self) -> float:
        return sum(1 / r for r in self.ranks if r) / len(self.ranks) if self.ranks else 0.0

    @property
    def top1(self) -> float:
        return sum(1 for r in self.ranks if r == 1) / len(self.ranks) if self.ranks else 0.0


def list_files(quick: bool) -> list[Path]:
    if not PAPERLISTS.is_dir():
        raise SystemExit(
            f"bench_quality: the paper lists are missing: {PAPERLISTS} (../shared/corpora beside the checkout)"
        )
    files = sorted(PAPERLISTS.glob("*.json"))
    if quick:
        files = [path for path in files if path.stem in QUICK_LISTS]
    if not files:
        raise SystemExit(f"bench_quality: no paper lists (*.json) in {PAPERLISTS}")
    return files


def write_corpora(files: Sequence[Path], folder: Path) -> dict[str, list[Path]]:
    """Each list written three times as JSON records: id and abstract only; id, title and abstract;
    and those with the authors."""
    written: dict[str, list[Path]] = {"abstracts": [], "titled": [], "authored": []}
    for path in files:
        records = json.loads(path.read_text(encoding="utf-8"))
        kept = [
            record
            for record in records
            if isinstance(record, dict)
            and isinstance(record.get("abstract"), str)
            and record["abstract"].strip()
            and isinstance(record.get("title"), str)
            and record["title"].strip()
        ]
        for kind, fields in (
            ("abstracts", ("id", "abstract")),
            ("titled", ("id", "title", "abstract")),
            ("authored", ("id", "title", "abstract", "author")),
        ):
            out = folder / kind / path.name  # the list's own name: the same list names and venues
            out.parent.mkdir(parents=True, exist_ok=True)
            out.write_text(json.dumps([{key: r[key] for key in fields if key in r} for r in kept]), encoding="utf-8")
            written[kind].append(out)
    return written


def open_setup(paths: list[Path], cache: Path) -> Setup:
    engine = SearchEngine(load_corpus(paths), cache_dir=cache)
    engine.ensure_index()
    db = sqlite3.connect(":memory:")
    db.execute(
        "CREATE VIRTUAL TABLE docs USING fts5(id UNINDEXED, title, abstract, authors, tokenize='porter unicode61')"
    )
    db.executemany(  # (a column empty in every row adds nothing to any score)
        "INSERT INTO docs VALUES (?, ?, ?, ?)",
        (
            (paper.id, paper.title or "", engine.describe(paper.id).rendered.text, " ".join(paper.authors))
            for paper in engine.papers
        ),
    )
    db.commit()
    return Setup(engine, db)


def draw_samples(papers: Sequence[Paper], per_list: int, seed: int) -> dict[str, list[Paper]]:
    """Two disjoint samples of up to `per_list` papers from each list (half of a smaller list each)."""
    by_list: dict[str, list[Paper]] = {}
    for paper in papers:
        by_list.setdefault(Path(paper.source or "").stem, []).append(paper)
    rng = random.Random(seed)
    samples: dict[str, list[Paper]] = {name: [] for name in SAMPLES}
    for name in sorted(by_list):
        members = by_list[name]
        take = min(per_list, len(members) // 2)
        drawn = rng.sample(members, 2 * take)
        samples["a"] += drawn[:take]
        samples["b"] += drawn[take:]
    return samples


# -- the queries ----------------------------------------------------------------------------------


def words_of(text: str) -> list[str]:
    return [word.casefold() for word in _TOKEN.findall(text)]


def distinctive_queries(engine: SearchEngine) -> dict[str, str]:
    """Each paper's DISTINCTIVE_WORDS rarest plain abstract words (document frequency over the
    corpus's titles and abstracts as the reader shows them; ties by first position), in the
    abstract's order; none with fewer than MIN_WORDS candidates."""
    df: Counter[str] = Counter()
    abstracts: dict[str, list[str]] = {}
    for paper in engine.papers:
        abstract = words_of(engine.describe(paper.id).rendered.text)
        abstracts[paper.id] = abstract
        df.update(set(abstract) | set(words_of(paper.title or "")))
    queries = {}
    for paper_id, abstract in abstracts.items():
        first: dict[str, int] = {}
        for position, word in enumerate(abstract):
            if len(word) >= MIN_WORD_LENGTH and word not in STOP_WORDS and _PLAIN.fullmatch(word):
                first.setdefault(word, position)
        chosen = sorted(first, key=lambda word: (df[word], first[word]))[:DISTINCTIVE_WORDS]
        if len(chosen) >= MIN_WORDS:
            queries[paper_id] = " ".join(sorted(chosen, key=first.__getitem__))
    return queries


def _rng(seed: int, paper: Paper, kind: str) -> random.Random:
    """A generator for one paper's query of one kind: the same query whatever else is drawn."""
    return random.Random(f"{seed}:{kind}:{paper.id}")


def _typo(word: str, rng: random.Random) -> str:
    """word with one typo, never in its first letter: a letter dropped, doubled, swapped with the
    next one, or replaced by a key beside it."""
    at = rng.randrange(1, len(word))
    kind = rng.choice(("drop", "double", "swap", "key"))
    if kind == "swap" and at < len(word) - 1 and word[at] != word[at + 1]:
        return word[:at] + word[at + 1] + word[at] + word[at + 2 :]
    if kind == "double":
        return word[: at + 1] + word[at:]
    if kind == "key" and word[at] in _NEIGHBOURS:
        return word[:at] + rng.choice(_NEIGHBOURS[word[at]]) + word[at + 1 :]
    return word[:at] + word[at + 1 :]


def typo_query(paper: Paper, seed: int) -> str | None:
    """FRAGMENT consecutive words of the title, lower case, with a typo in one of its words of
    MIN_TYPO_WORD letters or more, or (half the time, when it has two) in two of them."""
    rng = _rng(seed, paper, "typo")
    words = [word for word in words_of(paper.title or "") if _PLAIN.fullmatch(word)]
    starts = [
        start
        for start in range(len(words) - FRAGMENT + 1)
        if any(len(word) >= MIN_TYPO_WORD and word.isalpha() for word in words[start : start + FRAGMENT])
    ]
    if not starts:
        return None
    start = rng.choice(starts)
    fragment = words[start : start + FRAGMENT]
    long_words = [i for i, word in enumerate(fragment) if len(word) >= MIN_TYPO_WORD and word.isalpha()]
    for i in rng.sample(long_words, 2 if len(long_words) > 1 and rng.random() < 0.5 else 1):
        fragment[i] = _typo(fragment[i], rng)
    return " ".join(fragment)


def half_title_query(paper: Paper, seed: int) -> str | None:
    """3 to 5 of the title's content words (no stop words, 3+ letters), in another order, lower
    case, one of them replaced by a synonym (_SYNONYMS) or another form."""
    rng = _rng(seed, paper, "half")
    words = list(
        dict.fromkeys(
            word
            for word in words_of(paper.title or "")
            if _PLAIN.fullmatch(word) and len(word) >= 3 and word not in STOP_WORDS and word not in _FUNCTION_WORDS
        )
    )
    if len(words) < 3:
        return None
    chosen = rng.sample(words, min(len(words), rng.randint(3, 5)))
    if chosen == [word for word in words if word in chosen]:  # still in the title's order: reverse it
        chosen.reverse()
    swapped = [i for i, word in enumerate(chosen) if word in _SYNONYMS]
    at = rng.choice(swapped) if swapped else rng.randrange(len(chosen))
    chosen[at] = _SYNONYMS.get(chosen[at]) or _other_form(chosen[at])
    return " ".join(chosen)


def _other_form(word: str) -> str:
    """Another form of word: singular for plural, a bare stem for -ing/-ed/-al, else a plural."""
    for ending, replacement in (("ization", "ize"), ("ies", "y"), ("ing", ""), ("ed", ""), ("al", "")):
        if word.endswith(ending) and len(word) - len(ending) >= 4:
            return word[: -len(ending)] + replacement
    if word.endswith("s") and not word.endswith("ss"):
        return word[:-1]
    return word + "s"


def author_word_query(paper: Paper, authors: Sequence[str], seed: int) -> str | None:
    """One of the authors' surnames (the name's last plain word) and one content word of the
    title (4+ letters, no stop word), lower case."""
    rng = _rng(seed, paper, "author")
    surnames = [
        plain[-1] for plain in ([w for w in words_of(name) if _PLAIN.fullmatch(w)] for name in authors) if plain
    ]
    words = [
        word
        for word in dict.fromkeys(words_of(paper.title or ""))
        if _PLAIN.fullmatch(word) and len(word) >= MIN_WORD_LENGTH and word not in STOP_WORDS
    ]
    surnames = [name for name in surnames if len(name) >= 2]
    if not surnames or not words:
        return None
    return f"{rng.choice(surnames)} {rng.choice(words)}"


_ACRONYM = re.compile(r"\s*([A-Za-z][A-Za-z0-9]*(?:-[A-Za-z0-9]+)*)\s*:")


def acronym_query(paper: Paper) -> str | None:
    """The name a title opens with, before a colon, when it has two capitals or more ("PAWL",
    "BitStack", "GPT-4V"); else none."""
    found = _ACRONYM.match(paper.title or "")
    if not found:
        return None
    name = found.group(1)
    return name if sum(char.isupper() for char in name) >= 2 and len(name) >= 3 else None


def description_samples(papers: Sequence[Paper]) -> tuple[dict[str, list[Paper]], dict[str, str]]:
    """The hand-written descriptions' papers (found by list and title), alternately in samples A
    and B, and each one's description."""
    by_title = {(Path(paper.source or "").stem, " ".join((paper.title or "").split())): paper for paper in papers}
    samples: dict[str, list[Paper]] = {name: [] for name in SAMPLES}
    described = {}
    for number, entry in enumerate(json.loads(DESCRIPTIONS.read_text(encoding="utf-8"))):
        paper = by_title.get((entry["list"], " ".join(entry["title"].split())))
        if paper is None:
            continue  # a list not loaded (--quick)
        samples[SAMPLES[number % len(SAMPLES)]].append(paper)
        described[paper.id] = entry["description"]
    return samples, described


def fts5_query(query: str) -> str:
    """Each word quoted (so no FTS5 syntax survives), OR-joined."""
    words = [word for word in query.split() if re.search(r"[^\W_]", word)]
    return " OR ".join('"' + word.replace('"', '""') + '"' for word in words)


@dataclass
class Oddities:
    """What the engine said or did beyond ranking: notices, corrections, refusals."""

    notices: Counter[str] = field(default_factory=Counter)
    raised: Counter[str] = field(default_factory=Counter)
    corrected: Counter[str] = field(default_factory=Counter)
    """Each query answered with a spelling correction (the words changed: "halko -> halo")."""
    examples: dict[str, str] = field(default_factory=dict)
    typed: int = 0
    """--typing: queries searched as typed and finished."""
    agreed: int = 0
    """--typing: those whose top CUTOFF as typed are the finished query's (the same papers, in order)."""
    finished: list[str] = field(default_factory=list)
    """--typing: the last query's top CUTOFF once finished."""
    finished_ranks: list[int | None] = field(default_factory=list)
    """--typing: the known item's rank in each finished query's (as `iclr-reader search` ranks it)."""


TYPING = False
"""--typing: search each query as typed, its last word unfinished (see the module's docstring)."""
UNBOUNDED: dict[str, None] = {}
"""--no-budget: {"budget": None}, no time limit per search (on a loaded machine the limit cuts some short)."""


def engine_ids(engine: SearchEngine, query: str, odd: Oddities) -> list[str]:
    odd.finished = []
    try:
        # As `iclr-reader search` calls it (no marks: no is: facet); or as the app does while typing.
        result = engine.search(SearchRequest(query, limit=CUTOFF, partial=TYPING, **UNBOUNDED))
        if TYPING:
            finished = engine.search(SearchRequest(query + " ", limit=CUTOFF, partial=True, **UNBOUNDED))
            odd.typed += 1
            odd.agreed += [hit.paper_id for hit in result.hits] == [hit.paper_id for hit in finished.hits]
            odd.finished = [engine.canonical(hit.paper_id) for hit in finished.hits]
    except ReaderError as error:  # refused, as the CLI would say; anything else is a bug and stops the run
        kind = f"{type(error).__name__}: {error}"
        odd.raised[kind] += 1
        odd.examples.setdefault(kind, query)
        return []
    if result.notice:
        odd.notices[result.notice] += 1
        odd.examples.setdefault(result.notice, query)
    if result.corrected:
        changed = [f"{was} -> {now}" for was, now in zip(query.split(), result.corrected.split()) if was != now]
        odd.corrected[", ".join(changed) or result.corrected] += 1
    return [engine.canonical(hit.paper_id) for hit in result.hits]


def fts5_ids(db: sqlite3.Connection, query: str) -> list[str]:
    match = fts5_query(query)
    if not match:
        return []
    rows = db.execute("SELECT id FROM docs WHERE docs MATCH ? ORDER BY bm25(docs) LIMIT ?", (match, CUTOFF))
    return [paper_id for (paper_id,) in rows]


def rank_of(known: str, ids: list[str]) -> int | None:
    return ids.index(known) + 1 if known in ids else None


def run_setup(
    setup: Setup, queries: Callable[[Paper], str | None], samples: dict[str, list[Paper]], odd: Oddities
) -> dict[tuple[str, str], Tally]:
    tallies = {(engine, sample): Tally() for engine in ENGINES for sample in SAMPLES}
    for sample in SAMPLES:
        for paper in samples[sample]:
            query = queries(paper)
            if not query:
                continue
            known = setup.engine.canonical(paper.id)
            begun = time.perf_counter()
            ours = engine_ids(setup.engine, query, odd)
            if TYPING:
                odd.finished_ranks.append(rank_of(known, odd.finished))
            middle = time.perf_counter()
            theirs = fts5_ids(setup.fts5, query)
            tallies["iclr-reader", sample].add(rank_of(known, ours), middle - begun)
            tallies["fts5", sample].add(rank_of(known, theirs), time.perf_counter() - middle)
    return tallies


# -- main -----------------------------------------------------------------------------------------


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument(
        "--per-list", type=int, help=f"papers per list in each sample (default {PER_LIST}; --quick {QUICK_PER_LIST})"
    )
    parser.add_argument("--seed", type=int, default=SEED, help=f"the samples' seed (default {SEED})")
    parser.add_argument(
        "--quick",
        action="store_true",
        help=f"{len(QUICK_LISTS)} small lists, small samples (keeps the script working in CI)",
    )
    parser.add_argument("--typing", action="store_true", help="search each query with its last word being typed")
    parser.add_argument("--no-budget", action="store_true", help="no time limit per search (else 2 s, as the app's)")
    args = parser.parse_args()
    global TYPING
    TYPING = args.typing
    if args.no_budget:
        UNBOUNDED["budget"] = None
    per_list = args.per_list or (QUICK_PER_LIST if args.quick else PER_LIST)
    if per_list < 1:
        parser.error("--per-list must be at least 1")
    started = time.perf_counter()

    workdir = Path(tempfile.mkdtemp(prefix="iclr-quality-"))
    for name in ("XDG_CACHE_HOME", "XDG_DATA_HOME", "XDG_CONFIG_HOME"):
        os.environ[name] = str(workdir / name.lower())  # nothing of the user's is read or written
    try:
        files = list_files(args.quick)
        written = write_corpora(files, workdir)
        corpora = {kind: open_setup(paths, workdir / f"cache-{kind}") for kind, paths in written.items()}
        titled = corpora["titled"].engine
        n_papers = len(titled.papers)
        if len(corpora["abstracts"].engine.papers) != n_papers:
            raise SystemExit("bench_quality: the two corpora hold different papers (merged differently)")
        samples = draw_samples(titled.papers, per_list, args.seed)
        titles = {paper.id: paper.title for paper in titled.papers}
        words = distinctive_queries(titled)
        described_samples, described = description_samples(titled.papers)
        authors = {paper.id: paper.authors for paper in corpora["authored"].engine.papers}
        query_of: dict[str, Callable[[Paper], str | None]] = {
            "title": lambda paper: titles.get(paper.id),
            "words": lambda paper: words.get(paper.id),
            "typo": lambda paper: typo_query(paper, args.seed),
            "half": lambda paper: half_title_query(paper, args.seed),
            "description": lambda paper: described.get(paper.id),
            "author": lambda paper: author_word_query(paper, authors.get(paper.id, ()), args.seed),
            "acronym": acronym_query,
        }
        odd = {key: Oddities() for key, _, _, _ in SETUPS}
        results = {
            key: run_setup(
                corpora[corpus], query_of[kind], described_samples if kind == "description" else samples, odd[key]
            )
            for key, _, corpus, kind in SETUPS
        }
        for setup in corpora.values():
            setup.engine.close()
            setup.fts5.close()
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    seconds = time.perf_counter() - started

    figures: dict[str, float | int] = {"papers": n_papers, "lists": len(files), "per_list": per_list, "seed": args.seed}
    for key, _, _, _ in SETUPS:
        for sample in SAMPLES:
            for engine in ENGINES:
                tally = results[key][engine, sample]
                prefix = key if engine == "iclr-reader" else f"{key}_fts5"
                figures[f"{prefix}_mrr_{sample}"] = tally.mrr
                figures[f"{prefix}_top1_{sample}"] = tally.top1
            figures[f"{key}_queries_{sample}"] = len(results[key]["iclr-reader", sample].ranks)
    for engine in ENGINES:
        tallies = [tally for by_engine in results.values() for (name, _), tally in by_engine.items() if name == engine]
        answered = sum(len(tally.ranks) for tally in tallies)
        figures[f"{engine.replace('-', '_')}_query_ms"] = 1000 * sum(t.seconds for t in tallies) / max(answered, 1)
    figures["engine_raised"] = sum(sum(o.raised.values()) for o in odd.values())
    figures["engine_notices"] = sum(sum(o.notices.values()) for o in odd.values())
    figures["engine_corrected"] = sum(sum(o.corrected.values()) for o in odd.values())
    figures["seconds"] = seconds
    if TYPING:
        for key, _, _, _ in SETUPS:
            figures[f"{key}_typing_agreed"] = odd[key].agreed
            figures[f"{key}_typing_queries"] = odd[key].typed
            figures[f"{key}_finished_mrr"] = Tally(odd[key].finished_ranks).mrr

    print(
        f"iclr-reader quality benchmark: {n_papers:,} papers in {len(files)} lists, "
        f"samples A and B of {per_list} per list, seed {args.seed}"
        + (" (quick)" if args.quick else "")
        + (", the last word being typed" if TYPING else "")
    )
    header = ("setup", "engine", "sample", f"MRR@{CUTOFF}", "top-1", "queries")
    rows = [
        (name, engine, sample.upper(), f"{tally.mrr:.3f}", f"{tally.top1:.3f}", f"{len(tally.ranks):,}")
        for key, name, _, _ in SETUPS
        for engine in ENGINES
        for sample in SAMPLES
        for tally in (results[key][engine, sample],)
    ]
    widths = [max(len(row[i]) for row in (header, *rows)) for i in range(len(header))]
    for row in (header, *rows):
        cells = [cell.ljust(width) if i < 3 else cell.rjust(width) for i, (cell, width) in enumerate(zip(row, widths))]
        print("  " + "  ".join(cells))
    for key, name, _, _ in SETUPS:  # what iclr-reader said beyond its ranking
        seen = odd[key]
        for kind, count in seen.raised.most_common():
            print(f"  {name}: raised {count:,}x: {kind} (e.g. {seen.examples[kind]!r})")
        for notice, count in seen.notices.most_common(5):
            print(f"  {name}: notice {count:,}x: {notice} (e.g. {seen.examples[notice]!r})")
        if seen.corrected:
            examples = "; ".join(change for change, _ in seen.corrected.most_common(4))
            print(f"  {name}: spelling-corrected {seen.corrected.total():,} queries ({examples})")
        if seen.typed:
            print(
                f"  {name}: top {CUTOFF} as typed = finished for {seen.agreed:,} of {seen.typed:,} queries; "
                f"finished MRR@{CUTOFF} {Tally(seen.finished_ranks).mrr:.3f} (A and B)"
            )
    print(
        f"  mean time a query: iclr-reader {figures['iclr_reader_query_ms']:.1f} ms, "
        f"FTS5 {figures['fts5_query_ms']:.1f} ms; took {seconds:.1f} s in all"
    )
    print(json.dumps({key: round(value, 4) if isinstance(value, float) else value for key, value in figures.items()}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
