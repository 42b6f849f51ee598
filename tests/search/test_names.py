"""Detected names over all 38 seed abstracts, annotated by reading each abstract."""

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
    untitled = [p._replace(title=None) for p in load_corpus().papers]  # as a list without titles
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


# -- titled papers: the name is the title's, or there is none --------------------------------------

ABSTRACT_WITH_FIELD_ACRONYMS = (
    "Neural machine translation (NMT) is widely used. We propose a new decoder for NMT that adapts "
    "its beam, and show NMT gains on four language pairs."
)


@pytest.mark.parametrize(
    "title, name",
    [
        ("BitStack: Any-Size Compression of Large Language Models", "BitStack"),
        ("E²-RAG: Towards Editable Efficient RAG by Editing Compressed KV Caches", "E²-RAG"),
        ("PointNet++: Deep Hierarchical Feature Learning on Point Sets", "PointNet++"),
        ("BOCK : Bayesian Optimization with Cylindrical Kernels", "BOCK"),
        ("Firebolt: Weak Supervision Under Weaker Assumptions", "Firebolt"),
        ("Parallel WaveNet: Fast High-Fidelity Speech Synthesis", "Parallel WaveNet"),
        ("Triangle Matters! TopDyG: Topology-aware Transformer for Link Prediction", "TopDyG"),
        ("Union of Intersections (UoI) for Interpretable Data Driven Discovery and Prediction", "UoI"),
        ("Position: Graph Learning Will Lose Relevance Due To Poor Benchmarks", None),
        ("Improving KernelSHAP: Practical Shapley Value Estimation Using Linear Regression", None),
        ("Beyond Worst-case: A Probabilistic Analysis of Affine Policies", None),
        ("Byzantine-Robust Distributed Learning: Towards Optimal Statistical Rates", None),
        ("COLD FUSION: TRAINING SEQ2SEQ MODELS TOGETHER WITH LANGUAGE MODELS", None),
        ("When Does Metadata Conditioning (NOT) Work for Language Model Pre-Training?", None),
        ("Boundary-preserving Mask R-CNN", None),  # an existing method the paper builds on
        ("Deep Reinforcement Learning That Matters", None),
    ],
)
def test_a_titled_papers_name_comes_from_its_title(title, name):
    from search.models import Paper

    paper = Paper(id="x", abstract=ABSTRACT_WITH_FIELD_ACRONYMS, title=title, source="/lists/papers.json")
    assert describe(paper).name == name


def test_an_acronym_the_abstract_repeats_is_not_a_titled_papers_name():
    """The issue's case: "Name: NMT" on a paper whose title says no such thing."""
    from search.models import Paper

    untitled = Paper(id="x", abstract=ABSTRACT_WITH_FIELD_ACRONYMS)
    titled = untitled._replace(title="Adaptive Beams for Translation", source="/lists/papers.json")
    assert describe(untitled).name == "NMT"  # an abstract alone is all an untitled paper has
    assert describe(titled).name is None
    assert describe(titled).headline == "Adaptive Beams for Translation"


def test_the_same_bundled_paper_in_another_list_is_named_from_its_title():
    """The bundled list keeps its abstracts' names (test_detected_name); the same paper with the
    same title in a list of titled records (its title its own, not added) gets the title's."""
    papers = {describe(p).name: p for p in load_corpus().papers}
    elsewhere = {
        name: paper._replace(source="/lists/iclr2025.json", title_added=False) for name, paper in papers.items()
    }
    assert describe(elsewhere["BitStack"]).name == "BitStack"
    assert describe(elsewhere["PORTLLM"]).name == "PortLLM"  # as the title spells it
    assert describe(elsewhere["TRGNN"]).name is None  # "Learning to Select Nodes in Branch and Bound ..."


@pytest.mark.corpora
def test_no_real_titled_papers_name_is_missing_from_its_title(real_corpora):
    engine = real_corpora.engine
    titled = [paper for paper in engine.papers if paper.title]
    named = {paper.id: engine.describe(paper.id).name for paper in titled}
    assert len(titled) > 10_000
    assert not [(name, paper.title) for paper in titled if (name := named[paper.id]) and name not in paper.title]
    assert sum(name is not None for name in named.values()) > 1_000  # most "Name: X:" titles still have one
