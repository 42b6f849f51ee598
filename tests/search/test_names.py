"""Detected names over all 38 seed abstracts, annotated by reading each abstract."""

from dataclasses import replace

import pytest

from search.corpus.loader import load_corpus
from search.text.describe import describe

# First words of each abstract -> the name it introduces (None: it introduces none).
EXPECTED = {
    "Branch-and-bound methods are pivotal": "TRGNN",
    "As large language models (LLMs) increasingly": "PORTLLM",
    "Self-supervision is often used": "T-JEPA",
    "The Mixture of Experts (MoE) architecture": "Drop-Upcycling",
    "Large language models (LLMs) have shown remarkable capability": "ADCE",
    "Despite the rich works on machine learning (ML) for combinat": "ML4TSPBench",
    "Whether deterministic or stochastic, models": "MEVA",
    "Visual counterfactual explanations (VCEs)": "RVCEs",
    "Testing conditional independence": None,
    "Large Language Models (LLMs) have achieved remarkable breakthroughs": None,
    "The use of Large Language Models (LLMs) in climate science": "ClimaGen",
    "Robust fine-tuning aims to adapt": "DiGraP",
    "Long-context Large Language Models": "SCBench",
    "The machine learning community is increasingly": "SFD",
    "Graph neural networks (GNNs) are conventionally": "GraphBridge",
    "We propose a diffusion-based approach for Text-to-Image": None,
    "Traditional reinforcement learning and planning": "STRATEGIST",
    "Novel diffusion models can synthesize": None,
    "Generalizable rendering of an animatable human avatar": None,
    "Large language models (LLMs) have revolutionized": "BitStack",
    "Many works on graph neural networks": None,
    "We address the individualized treatment effect (ITE)": "GMCG",
    "Terrestrial carbon fluxes": "CarbonSense",
    "We introduce Enhancing Graph of Thoughts": "EGoT",
    "Despite the significant success of deep learning models": "HiBug2",
    "Recently, human-computer interaction": "OmniBind",
    "Diagnosing the root cause of an anomaly": "IDI",
    "Language model calibration refers": "PPO-M",
    "Zero-shot medical detection": "StructuralGLIP",
    "The training and fine-tuning of large language models": "ELREA",
    "Information retrieval has transitioned": "SiDR",
    "While Transformers and other sequence-parallelizable": "FlashRNN",
    "Partial Wasserstein helps": "PAWL",
    "To mitigate societal biases": None,
    "In recent years, the Shapley value": None,
    "Data scarcity in offline multi-agent": "INS",
    "We address the problem of active online assortment": None,
    "Large language models (LLMs) have sparked": "Dobi-SVD",
}


def _expected_for(abstract):
    matches = [name for start, name in EXPECTED.items() if abstract.startswith(start)]
    assert len(matches) == 1, f"no single annotation for: {abstract[:60]!r}"
    return matches[0]


def test_every_seed_abstract_is_annotated():
    assert len(EXPECTED) == 38


@pytest.mark.parametrize("paper", load_corpus().papers, ids=lambda p: p.abstract[:30])
def test_detected_name(paper):
    assert describe(paper).name == _expected_for(paper.abstract)


def test_about_a_quarter_of_seed_abstracts_have_no_name():
    assert sum(name is None for name in EXPECTED.values()) == 9


def test_headline_is_name_plus_first_sentence_cut_at_a_word():
    untitled = [replace(p, title=None) for p in load_corpus().papers]  # as a list without titles
    papers = {describe(p).name: describe(p) for p in untitled}
    bitstack = papers["BitStack"].headline
    assert bitstack.startswith("BitStack: Large language models (LLMs) have revolutionized numerous applications")
    assert len(bitstack) <= len("BitStack: ") + 110
    nameless = describe(untitled[8])
    assert nameless.headline.startswith("Testing conditional independence (CI) has many important applications")
    assert not nameless.headline.endswith(" …")


def test_title_is_the_headline_when_the_corpus_has_one():
    from search.models import Paper

    paper = Paper(id="x", abstract="We propose FooNet, a thing. More.", title="FooNet: A Thing")
    assert describe(paper).headline == "FooNet: A Thing"
