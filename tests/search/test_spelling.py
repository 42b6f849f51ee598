"""Spelling correction that never rewrites a real word, says what it did, and can be turned off; and
the completions of the word being typed (issue 16, item 4).

On the bundled corpus: words the papers lack but that are words (gan, vae, names typed with
capitals) are searched as typed; a misspelling in a short query is searched corrected with a note
saying so; in a long, pasted query it is only offered."""

from __future__ import annotations

import pytest

from search.models import SearchRequest
from search.query import spelling as spelling_module
from tui.wording import spelling_note

LONG_QUERY = "compressing large language models in variable memory envirnoments"
"""A pasted title (BitStack's, in lower case) with a misspelt word: 8 words."""


def papers(result) -> list[str]:
    return [hit.paper_id for hit in result.hits]


@pytest.mark.parametrize(
    "query",
    [
        "gan",
        "vae",
        "bert",
        "(gan OR vae) AND image",
        "GAN",
        "Wigner",
        "Ditch",
        "Fire",
        "Krein",
        "Byzantium",
        "Wigner Ditch Fire Krein Byzantium",
        "Grpah",  # a capital: a name or a title, never corrected
        "grpah2",  # digits: an identifier
    ],
)
def test_real_words_acronyms_and_names_are_searched_as_typed(seed_engine, query):
    result = seed_engine.search(query)
    assert result.corrected is None and result.suggestion is None, query
    assert spelling_note(result) is None
    assert papers(result) == papers(seed_engine.search(SearchRequest(query, correct=False)))


def test_gan_or_vae_and_image_is_not_searched_as_gap(seed_engine):
    result = seed_engine.search("(gan OR vae) AND image")
    assert result.query == "(gan OR vae) AND image" and result.corrected is None
    assert result.total == 0  # no paper of the 38 has gan or vae: nothing, rather than "gap"
    assert seed_engine.search("gap").total > 0


@pytest.mark.parametrize(
    "typed, meant",
    [("grpah", "graph"), ("trasnformer", "transformer"), ("wasserstien", "wasserstein"), ("modle", "model")],
)
def test_a_misspelling_in_a_short_query_is_searched_corrected_with_a_truthful_note(seed_engine, typed, meant):
    assert seed_engine.search(SearchRequest(typed, correct=False)).total == 0  # no paper contains it
    result = seed_engine.search(typed)
    assert result.query == typed and result.corrected == meant
    assert papers(result) == papers(seed_engine.search(meant))
    assert spelling_note(result) == f"No papers contain “{typed}”; showing results for “{meant}”"


def test_the_note_names_only_the_misspelt_words_and_the_whole_query_searched(seed_engine):
    result = seed_engine.search("grpah neural netwroks")
    assert result.corrected == "graph neural networks"
    assert spelling_note(result) == (
        "No papers contain “grpah” or “netwroks”; showing results for “graph neural networks”"
    )


def test_a_misspelling_in_a_long_pasted_query_is_only_offered(seed_engine):
    result = seed_engine.search(LONG_QUERY)
    assert result.corrected is None
    assert result.suggestion == "compressing large language models in variable memory environments"
    assert spelling_note(result) == f"Did you mean “{result.suggestion}”?"
    assert papers(result) == papers(seed_engine.search(SearchRequest(LONG_QUERY, correct=False)))  # searched as typed
    assert seed_engine.describe(result.hits[0].paper_id).name == "BitStack"


def test_searching_as_typed_searches_exactly_the_words_and_offers_the_correction(seed_engine):
    as_typed = seed_engine.search(SearchRequest("grpah neural networks", correct=False))
    assert as_typed.corrected is None and as_typed.suggestion == "graph neural networks"
    assert papers(as_typed) == papers(seed_engine.search("neural networks"))  # grpah finds nothing
    nothing = seed_engine.search(SearchRequest("grpah", correct=False))
    assert nothing.total == 0 and spelling_note(nothing) == "Did you mean “graph”?"


@pytest.mark.parametrize("query", ['"grpah neural"', "title:grpah", "grpah*", "grpa?h", "title:(grpah neural)"])
def test_explicit_syntax_is_never_rewritten(seed_engine, query):
    for partial in (False, True):
        result = seed_engine.search(SearchRequest(query, partial=partial))
        assert result.corrected is None and result.suggestion is None, (query, partial)


def test_corrections_keep_the_query_s_filters(seed_engine):
    result = seed_engine.search("grpah list:iclr2025")
    assert result.corrected == "graph list:iclr2025" and result.total > 0
    offered = seed_engine.search(f"{LONG_QUERY} has:code")
    assert offered.suggestion == "compressing large language models in variable memory environments has:code"


def test_a_misspelt_word_still_being_typed_is_corrected_once_nothing_matches(seed_engine):
    assert seed_engine.search(SearchRequest("grpah", partial=True)).corrected == "graph"
    typing = seed_engine.search(SearchRequest("grpah neu", partial=True))  # the settled word is corrected at once
    assert typing.corrected == "graph neu" and typing.total > 0


def test_typing_walks_the_vocabulary_only_for_unknown_words_and_once_for_each(seed_engine, monkeypatch):
    built: list[str] = []
    real = spelling_module.levenshtein_automaton

    def recording(text, distance, prefix=0):
        built.append(text)
        return real(text, distance, prefix)

    monkeypatch.setattr(spelling_module, "levenshtein_automaton", recording)

    def typed(text: str) -> list[int]:
        """The automata built at each keystroke of typing text."""
        walks = []
        for end in range(1, len(text) + 1):
            before = len(built)
            seed_engine.search(SearchRequest(text[:end], partial=True))
            walks.append(len(built) - before)
        return walks

    assert set(typed("graph neural networks for language models")) == {0}  # known words cost nothing
    walks = typed("grpeh neural")
    assert max(walks) <= 1 and built.count("grpeh") <= 1  # looked up once, then remembered


# -- completions ----------------------------------------------------------------------------------


@pytest.fixture
def flows(engine_over):
    same_stem = ["flows", "flowing", "flowed"]
    records = [
        {"id": f"{word}{n}", "title": f"Paper {n}", "abstract": f"Neural {word} for images."}
        for word in same_stem
        for n in range(4)
    ]
    records += [
        {"id": "flower", "title": "Flower", "abstract": "Flower recognition with flowers."},
        {"id": "flowchart", "title": "Charts", "abstract": "Reading a flowchart."},
        {"id": "flowmeter", "title": "Meters", "abstract": "A flowmeter dataset."},
    ]
    return engine_over({"flows.json": records})


def test_the_word_being_typed_completes_to_other_words_not_its_own_forms(flows):
    """`Flow` must not spend its completions on flows, flowing, flowed (flow finds them already)."""
    result = flows.search(SearchRequest("Flow", partial=True))
    found = set(papers(flows.search(SearchRequest("Flow", partial=True, limit=50))))
    assert {"flower", "flowchart", "flowmeter"} <= found
    assert {"flows0", "flowing0", "flowed0"} <= found  # flow's own forms, found by stemming
    assert len(result.terms) == len(set(result.terms))
    assert "flower" in result.terms and "flowchart" in result.terms


# -- a rare word with a far more common spelling: searched as both (issue 36, deliver 1) ---------------


def _transformer_lists() -> dict[str, list[dict]]:
    """25 papers about transformers, one whose abstract has the typo `transfomer` (and nothing about
    sparse attention), one on sparse attention in transformers, a Wigner paper among papers on
    winners, and GAN papers beside gap ones."""
    records = [
        {"id": f"t{i}", "title": f"Transformer study {i}", "abstract": f"We train a transformer on task {i}."}
        for i in range(25)
    ]
    records += [
        {"id": "typo", "title": "A survey of pruning", "abstract": "A transfomer is pruned with sparse masks."},
        {"id": "meant", "title": "Sparse attention for transformers", "abstract": "Attention made sparse."},
        {"id": "wigner", "title": "Wigner matrices", "abstract": "Eigenvalues of Wigner matrices."},
        *({"id": f"w{i}", "title": f"The winner takes it all {i}", "abstract": "A winner."} for i in range(25)),
        {"id": "gan", "title": "Training a gan", "abstract": "A gan is trained."},
        *({"id": f"g{i}", "title": f"Mind the gap {i}", "abstract": "A gap."} for i in range(25)),
    ]
    return {"rare.json": records}


def test_a_rare_typo_is_also_searched_as_its_common_spelling_keeping_its_own_matches(engine_over):
    engine = engine_over(_transformer_lists())
    result = engine.search("sparse transfomer")
    assert result.also_searched == (("transfomer", "transformer"),)
    found = papers(result)
    assert found[0] == "meant"  # the paper with both words meant first
    assert "typo" in found  # the typed form's own paper stays among the matches
    assert spelling_note(result) == "Also searched “transformer” for “transfomer”"
    assert result.corrected is None and result.suggestion is None


def test_searching_as_typed_turns_the_common_spelling_off(engine_over):
    engine = engine_over(_transformer_lists())
    result = engine.search(SearchRequest("sparse transfomer", correct=False))
    assert result.also_searched == ()
    assert papers(result)[0] == "typo"
    assert "meant" in papers(result)  # by `sparse` only


@pytest.mark.parametrize("query", ["Wigner matrices", "gan training"])
def test_names_and_short_words_are_never_widened(engine_over, query):
    engine = engine_over(_transformer_lists())
    result = engine.search(query)
    assert result.also_searched == ()
    assert papers(result)[0] in {"wigner", "gan"}


def test_a_long_pasted_query_widens_its_rare_typo_too(engine_over):
    engine = engine_over(_transformer_lists())
    result = engine.search("how to make a transfomer attend sparsely to long documents")
    assert result.also_searched == (("transfomer", "transformer"),)
