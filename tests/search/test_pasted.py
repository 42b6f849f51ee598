"""Pasted text read as words (search/query/pasted.py): titles' punctuation and capitals are not syntax,
syntax typed on purpose still is."""

from __future__ import annotations

import json
import re
import time

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from whoosh import query as wq
from whoosh.filedb.filestore import RamStorage
from whoosh.spelling import ListCorrector

from search.index.schema import build_schema
from search.models import SearchRequest
from search.query.parse import WORD, QueryParser, syntax_problem
from search.query.pasted import words_meant

# -- real titles (from ../shared/corpora/paperlists) ------------------------------------------------


@pytest.mark.parametrize(
    "title, meant",
    [
        (
            "Does Invariant Risk Minimization Capture Invariance?",
            "Does Invariant Risk Minimization Capture Invariance ",
        ),
        ("Why did the distribution change?", "Why did the distribution change "),
        (
            "But Are You Sure? An Uncertainty-Aware Perspective on Explainable AI",
            "But Are You Sure  An Uncertainty-Aware Perspective on Explainable AI",
        ),
        (
            "Have We Learned to Explain?: How Interpretability Methods Can Learn to Encode Predictions",
            "Have We Learned to Explain   How Interpretability Methods Can Learn to Encode Predictions",
        ),
        (
            "Can 5th Generation Local Training Methods Support Client Sampling? Yes!",
            "Can 5th Generation Local Training Methods Support Client Sampling  Yes ",
        ),
        (
            "Gaming Helps! Learning from Strategic Interactions in Natural Dynamics",
            "Gaming Helps  Learning from Strategic Interactions in Natural Dynamics",
        ),
        ("HOGWILD!-Gibbs can be PanAccurate", "HOGWILD -Gibbs can be PanAccurate"),
        ("Graphons, mergeons, and so on!", "Graphons, mergeons, and so on "),
        (
            "Decentralized gradient methods: does topology matter?",
            "Decentralized gradient methods  does topology matter ",
        ),
        (
            "MLDemon:Deployment Monitoring for Machine Learning Systems",
            "MLDemon Deployment Monitoring for Machine Learning Systems",
        ),
        (
            "Fader Networks:Manipulating Images by Sliding Attributes",
            "Fader Networks Manipulating Images by Sliding Attributes",
        ),
        (
            "AUTOMATED DESIGN USING NEURAL NETWORKS AND GRADIENT DESCENT",
            "AUTOMATED DESIGN USING NEURAL NETWORKS and GRADIENT DESCENT",
        ),
        (
            "LEARNING TO SHARE: SIMULTANEOUS PARAMETER TYING AND SPARSIFICATION IN DEEP LEARNING",
            "LEARNING TO SHARE  SIMULTANEOUS PARAMETER TYING and SPARSIFICATION IN DEEP LEARNING",
        ),
        (
            "CAN AI GENERATE LOVE ADVICE?: TOWARD NEURAL ANSWER GENERATION FOR NON-FACTOID QUESTIONS",
            "CAN AI GENERATE LOVE ADVICE   TOWARD NEURAL ANSWER GENERATION FOR NON-FACTOID QUESTIONS",
        ),
        (
            'Can LLM "Self-report"?: Evaluating the Validity of Self-report Scales',
            'Can LLM "Self-report"   Evaluating the Validity of Self-report Scales',
        ),
        ('Decoupling "when to update" from "how to update"', 'Decoupling "when to update" from "how to update"'),
        # The and the brief's cases.
        ("Knowing What LLMs DO NOT Know", "Knowing What LLMs DO not Know"),
        ("Attention Is Not All You Need", "Attention Is Not All You Need"),
        ("TO BE OR NOT TO BE", "TO BE or not TO BE"),
        ("Vision AND Language: A Survey?", "Vision and Language  A Survey "),
        ("What Makes a Good Planner?", "What Makes a Good Planner "),
        ("why models DO NOT generalise", "why models DO not generalise"),
        ("Models: A Survey", "Models  A Survey"),
        ("Yes!", "Yes "),
    ],
)
def test_a_pasted_title_reads_as_its_words(title, meant):
    assert words_meant(title) == meant


@pytest.mark.parametrize(
    "query",
    [
        "(gan OR vae) AND image",
        "graph NOT neural",
        "graph NOT neural AND GPT",
        "object detection NOT YOLO",
        "diffusion AND GAN",
        "attention OR transformer",
        "Attention OR Transformer",
        "Vision AND Language",
        "memory AND compression",
        "(wasserstein OR climate)",
        "title:memory AND cache",
        '"a phrase" OR word',
        '"DO NOT" know',
        '"What Makes a Good Planner?"',
        '"Models: A Survey"',
        "graph ANDNOT neural",
        "graph ANDMAYBE neural",
        "(NOT graph) AND neural",
        "gr?ph",
        "?raph",
        "gr?*",
        "bitsta*",
        "*former",
        "wasserstien~",
        "wasserstien~2",
        "title:graf~3/2",
        '"node selection"~3',
        "word^2",
        "[graph TO graz]",
        "{a TO z}",
        "name:omnibind",
        "title:memory",
        "abstract:cache text:cache",
        "authors:smith author:smith by:smith",
        "keywords:graph keyword:graph kw:graph",
        "-title:memory (title:graph)",
        "id:x",
        "list:iclr2025 venue:iclr status:oral has:code is:unread sort:name match:all related:abc",
        "Title:memory",
        "*:graph",
        "memory AND",
        "NOT",
        "AND OR",
        "kv cache",
        "",
    ],
)
def test_explicit_syntax_is_left_as_typed(query):
    assert words_meant(query) == query


@pytest.mark.parametrize(
    "query, meant",
    [
        ("title:planner?", "title:planner "),
        ("gr?ph?", "gr?ph "),
        ("gra??", "gra  "),
        ("title:memory: a survey", "title:memory  a survey"),
        ("title::memory", "title: memory"),
        ("re:mixing", "re mixing"),
        ("12:30 meeting", "12 30 meeting"),
        ("???", "   "),
        (":::", "   "),
        ("what ? now !", "what   now  "),
        ('"unclosed? phrase', '"unclosed  phrase'),
        ('"what? no:" really?', '"what? no:" really '),
        ("a ؟ b؟", "a   b "),
        ("Knowing What LLMs DO NOT Know about (graph OR tree)", "Knowing What LLMs DO not Know about (graph or tree)"),
        ("GAN OR VAE", "GAN or VAE"),
        ("gan OR vae", "gan OR vae"),
        ("BERT AND fine tuning", "BERT and fine tuning"),
        ("Do Transformers REQUIRE Attention", "Do Transformers require Attention"),
    ],
)
def test_punctuation_and_capitals_by_the_rule(query, meant):
    assert words_meant(query) == meant


# -- what the parser makes of it -------------------------------------------------------------------


@pytest.fixture(scope="module")
def parser():
    """The engine's own parser over an empty index (its syntax does not depend on the papers)."""
    index = RamStorage().create_index(build_schema())
    return QueryParser(index.schema, index.reader(), ListCorrector([]))


def _kinds(query: wq.Query) -> set[str]:
    """The kinds of query node beyond words (an Or of Terms): phrases, wildcards, NOT, AND..."""
    kinds = set() if type(query) in (wq.Or, wq.Term) else {type(query).__name__}
    for child in query.children():
        kinds |= _kinds(child)
    return kinds


def _terms(parser, text: str) -> set[str]:
    return {term for _, term in parser.parse(text)[0].iter_all_terms()}


def _words(text: str) -> list[str]:
    return [word.lower() for word in WORD.findall(text)]


def _parsed_as_words(parser, title: str) -> None:
    meant = words_meant(title)
    assert len(meant) == len(title) and _words(meant) == _words(title), title
    query, notice = parser.parse(meant)
    if title.count('"') % 2:  # (an unbalanced quote: read as plain words, as before)
        assert notice == "unbalanced quote; searched for the words only", title
        return
    assert notice is None, title
    allowed = {"Phrase"}  # a title's own "quoted words"
    if "*" in meant:  # (C*-Algebraic, k*-Nearest: a wildcard, left alone)
        allowed |= {"NullQuery", "_NullQuery"}
    assert _kinds(query) <= allowed, (title, query)


@pytest.mark.parametrize(
    "title",
    [
        "Does Invariant Risk Minimization Capture Invariance?",
        "Can Pretext-Based Self-Supervised Learning Be Boosted by Downstream Data? A Theoretical Analysis",
        "Have We Learned to Explain?: How Interpretability Methods Can Learn to Encode Predictions in their Interpretations.",
        "Don’t Be Pessimistic Too Early: Look K Steps Ahead!",
        "MLDemon:Deployment Monitoring for Machine Learning Systems",
        "DEEP DENSITY NETWORKS AND UNCERTAINTY IN RECOMMENDER SYSTEMS",
        "NOVEL AND EFFECTIVE PARALLEL MIX-GENERATOR GENERATIVE ADVERSARIAL NETWORKS",
        "CAN AI GENERATE LOVE ADVICE?: TOWARD NEURAL ANSWER GENERATION FOR NON-FACTOID QUESTIONS",
        'Can LLM "Self-report"?: Evaluating the Validity of Self-report Scales in Measuring Personality',
        "Knowing What LLMs DO NOT Know",
        "TO BE OR NOT TO BE",
        "Vision AND Language: A Survey?",
        "Text: A Survey",
        "Title:Memory",
    ],
)
def test_the_parser_reads_a_rewritten_title_as_words(parser, title):
    _parsed_as_words(parser, title)


def test_the_parser_read_these_titles_as_syntax_before(parser):
    """What the rewrite is for: as pasted, `Planner?` was a wildcard that found nothing, and `NOT Know`
    excluded every paper with "know"."""
    assert "planner" not in _terms(parser, "What Makes a Good Planner?")
    assert "planner" in _terms(parser, words_meant("What Makes a Good Planner?"))
    assert {"Not", "AndNot"} & _kinds(parser.parse("Knowing What LLMs DO NOT Know")[0])
    assert not {"Not", "AndNot"} & _kinds(parser.parse(words_meant("Knowing What LLMs DO NOT Know"))[0])


@pytest.mark.slow
def test_every_real_title_reads_as_its_words(parser, paperlist_files):
    titles = {
        " ".join(record["title"].split())
        for path in paperlist_files
        for record in json.loads(path.read_text(encoding="utf-8"))
        if isinstance(record, dict) and isinstance(record.get("title"), str) and record["title"].strip()
    }
    assert len(titles) > 10_000
    # Parsing takes milliseconds: every title is checked for its words, and parsed when it has what
    # the parser reads as syntax (a colon after an unknown word it reads as text already).
    parsed = 0
    for title in sorted(titles):
        meant = words_meant(title)
        assert len(meant) == len(title) and _words(meant) == _words(title) and words_meant(meant) == meant, title
        if _SYNTAX_IN_TITLE.search(title):
            _parsed_as_words(parser, title)
            parsed += 1
    assert parsed > 150


_SYNTAX_IN_TITLE = re.compile(
    r'[?!"*()~^]|(?<!\S)(?:AND|OR|NOT|ANDNOT|ANDMAYBE|REQUIRE)(?!\S)|(?i:\b(?:title|name|text):)'
)


def test_operators_meant_as_operators_still_parse_as_operators(parser):
    assert "AndNot" in _kinds(parser.parse(words_meant("graph NOT neural"))[0])
    assert "And" in _kinds(parser.parse(words_meant("(gan OR vae) AND image"))[0])
    assert "And" in _kinds(parser.parse(words_meant("title:memory AND cache"))[0])
    assert "Phrase" in _kinds(parser.parse(words_meant('"node selection"~3 OR word'))[0])


def test_a_lowercased_operator_at_either_end_is_no_stray_operator():
    assert syntax_problem(words_meant("Why Models DO NOT")) is None
    assert syntax_problem("To Prune Or Not") is None
    assert syntax_problem("and then") is None
    assert syntax_problem("memory AND") == "'AND' needs a word on both sides"
    assert syntax_problem("OR memory") == "'OR' needs a word on both sides"
    assert syntax_problem("   ") is None


# -- never raises, linear, same words ----------------------------------------------------------------

SYNTAX = [
    "AND",
    "OR",
    "NOT",
    "ANDNOT",
    "ANDMAYBE",
    "REQUIRE",
    "and",
    "DO",
    "LLMs",
    "Graph",
    "graph",
    "?",
    "???",
    "!",
    ":",
    ":::",
    '"',
    '"a phrase"',
    "(",
    ")",
    "(NOT",
    "title:",
    "title:x",
    "Title:",
    "list:a",
    "*",
    "~2",
    "^2",
    "؟",
    "日本語",
    "İ",
    "ǅ",
    "\x00",
    "\n",
]
texts = st.lists(st.sampled_from(SYNTAX) | st.text(max_size=6), max_size=20).map(" ".join) | st.text(max_size=60)


@settings(max_examples=500, deadline=None)
@given(texts)
@example("AND AA AND Aa")  # once read differently the second time: the lowercased `and` counted as a word
def test_any_text_keeps_its_words_in_order_and_never_raises(text):
    meant = words_meant(text)
    assert len(meant) == len(text)
    assert _words(meant) == _words(text)
    assert words_meant(meant) == meant
    assert meant.count('"') == text.count('"')


@pytest.mark.parametrize(
    "unit",
    ["a", "a:", ":", "?", "a?", "?a", '"', '"a', "AND ", "DO NOT ", "title:", "(", "Word ", "x" * 50 + ":"],
)
def test_long_text_takes_linear_time(unit):
    text = unit * (200_000 // len(unit))
    started = time.perf_counter()
    meant = words_meant(text)
    assert len(meant) == len(text)
    assert time.perf_counter() - started < 5  # quadratic would be hours


# -- end to end: through SearchEngine.search (once runner.run calls words_meant) ---------------------


@pytest.fixture
def titled(engine_over):
    return engine_over(
        {
            "titles.json": [
                {
                    "id": "target",
                    "title": "Knowing What LLMs DO NOT Know: A Simple Yet Effective Self-Detection Method",
                    "abstract": "Large language models hallucinate. We detect the questions they cannot answer.",
                },
                {
                    "id": "knows",
                    "title": "What Do Language Models Know About the World",
                    "abstract": "Probing the facts that language models know, and what they know about LLMs.",
                },
                {
                    "id": "planner",
                    "title": "What Makes a Good Planner?",
                    "abstract": "We compare agents that plan with search.",
                },
                {
                    "id": "makes",
                    "title": "What Makes a Good Dataset",
                    "abstract": "What makes a dataset good? Good data makes good models.",
                },
                {
                    "id": "survey",
                    "title": "Vision and Language: A Survey",
                    "abstract": "We review models that see and read.",
                },
                {
                    "id": "pretraining",
                    "title": "Vision and Language Pretraining",
                    "abstract": "Pretraining on vision and language, vision and language, at scale.",
                },
                {
                    "id": "graph",
                    "title": "Graph Networks",
                    "abstract": "A graph network over molecules.",
                },
                {
                    "id": "neural",
                    "title": "Neural Graph Networks",
                    "abstract": "A neural network over a graph.",
                },
            ]
        }
    )


def _ids(result) -> list[str]:
    return [hit.paper_id for hit in result.hits]


@pytest.mark.parametrize(
    "pasted, target",
    [
        ("Knowing What LLMs DO NOT Know", "target"),
        ("Knowing What LLMs DO NOT Know: A Simple Yet Effective Self-Detection Method", "target"),
        ("What Makes a Good Planner?", "planner"),
        ("Vision AND Language: A Survey?", "survey"),
    ],
)
def test_a_pasted_title_finds_its_paper_first(titled, pasted, target):
    result = titled.search(pasted)
    assert _ids(result)[0] == target, _ids(result)
    assert result.notice is None
    assert result.query == pasted  # the query is shown as typed
    assert titled.search(SearchRequest(pasted, partial=True)).hits[0].paper_id == target


def test_a_pasted_title_counts_its_words_and_lists_them_all(titled):
    result = titled.search("Knowing What LLMs DO NOT Know")
    assert {"target", "knows"} <= set(_ids(result))
    assert result.all_words is not None  # its words, not an operator's clauses
    assert titled.search("Knowing What LLMs DO NOT Know match:all").notice is None


def test_explicit_syntax_still_works_end_to_end(titled):
    assert _ids(titled.search("graph NOT neural")) == ["graph"]
    assert set(_ids(titled.search("(planner OR dataset) AND good"))) == {"planner", "makes"}
    assert "graph" in _ids(titled.search("gr?ph"))
    assert _ids(titled.search("title:planner")) == ["planner"]
    assert _ids(titled.search('"vision and language" AND survey')) == ["survey"]
