"""Indexing and highlighting analysis (search/index/analysis.py) must give exactly the terms, positions,
weights and character spans that Whoosh's own analyzer gives, or queries, phrases and highlights
would miss what was indexed."""

from __future__ import annotations

import unicodedata

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from whoosh.fields import TEXT

from search.corpus.loader import load_corpus
from search.index.analysis import LOWERCASE, STEMMING, FastText, folded, stemmed_spans, stems
from search.index.shard import _WORD, vocabulary_words
from search.text.describe import describe
from search.text.mathtext import searchable

FIELDS = [
    (FastText(), TEXT(analyzer=STEMMING)),
    (FastText(stemmed=False), TEXT(analyzer=LOWERCASE)),
]


def assert_same_index(text: str) -> None:
    for fast, whoosh in FIELDS:
        indexed = list(whoosh.index(text))
        assert list(fast.index(text)) == indexed, text
        # what the grouping writer is given (writer.py): the same postings, flat, and the length
        added: dict[bytes, list] = {}
        assert fast.add_postings(text, 7, added) == sum(frequency for _, frequency, _, _ in indexed), text
        assert added == {term: [7, weight, value] for term, _, weight, value in indexed}, text
    # what highlighting marks: the same words, at the same characters
    assert list(stemmed_spans(text)) == [
        (token.startchar, token.endchar, token.text) for token in STEMMING(text, chars=True)
    ], text


def indexed_texts(papers, describe=describe) -> list[str]:
    texts = []
    for paper in papers:
        texts += [searchable(describe(paper).rendered.text), paper.title or "", " ; ".join(paper.authors)]
    return texts


def test_the_bundled_abstracts_index_as_whoosh_indexes_them():
    for text in indexed_texts(load_corpus().papers):
        assert_same_index(text)


def real_texts(real_corpora, every: int = 1) -> list[str]:
    """What the index is given for every `every`-th real paper; the abstracts converted by the shared
    engine, whose conversions are cached for the other real-corpora tests."""
    engine = real_corpora.engine
    return indexed_texts(engine.papers[::every], describe=lambda paper: engine.describe(paper.id))


@pytest.mark.slow
def test_every_word_of_the_real_corpora_indexes_as_whoosh_indexes_it(real_corpora):
    """Each distinct whitespace-separated chunk of all 10,750 papers (about 100,000: every spelling,
    every glued punctuation, every script), analysed in runs of 200."""
    chunks = sorted({chunk for text in real_texts(real_corpora) for chunk in text.split()})
    assert len(chunks) > 50_000
    for start in range(0, len(chunks), 200):
        assert_same_index(" ".join(chunks[start : start + 200]))


@pytest.mark.slow
def test_real_papers_index_as_whoosh_indexes_them(real_corpora):
    """Whole texts, for what only context shows (positions after dropped words, repeated terms):
    every eighth paper; Whoosh's analyzer is too slow for all of them on every run, and the words
    themselves are all checked above."""
    texts = real_texts(real_corpora, every=8)
    assert len(texts) > 3 * 1_300
    for text in texts:
        assert_same_index(text)


@pytest.mark.parametrize(
    "text",
    [
        "",
        "the of and",  # only stop words: no terms
        "A the model of models",  # a dropped first word moves the first position
        "x y z",  # single letters are dropped by the stemmed field, kept by the names field
        "İstanbul STRASSE Straße naïve café",  # lower-casing that changes length
        "3.14 e.g. U.S.A. foo*bar ** v1.2.3",  # the token pattern's dots and stars
        "Graph graphs graphing GRAPHS graph",  # one term, many positions
    ],
)
def test_edge_cases_index_as_whoosh_indexes_them(text):
    assert_same_index(text)


WORDS = st.sampled_from(
    ["the", "a", "of", "Model", "models", "İ", "ß", "x", "3.5", "e.g.", "*", "naïve", "GAN", "über", "to"]
)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.one_of(WORDS, st.text(max_size=8)), max_size=30).map(" ".join))
def test_any_text_indexes_as_whoosh_indexes_it(text):
    assert_same_index(text)


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet="aZ09_.-*' ", max_size=40))
def test_any_ascii_text_indexes_as_whoosh_indexes_it(text):
    """ASCII text is split by a pattern of its own (faster): the same terms and positions."""
    assert_same_index(text)


@pytest.mark.parametrize(
    "words",
    [
        ("generated", "generation", "generate", "generates"),
        ("optimized", "optimization", "optimize", "optimizing"),
        ("hopping", "hop", "hops"),
        ("conflated", "conflate"),
    ],
)
def test_stemming_conflates_what_porter_conflates(words):
    """whoosh-reloaded's Porter step 1b anchored two suffix tests at the word's start: "generated"
    stemmed to "generat", "generation" to "gener", and a search for one missed the other."""
    assert len({term for word in words for term in stems(word)}) == 1, [stems(word) for word in words]


def test_accents_ligatures_and_compatibility_forms_fold_to_what_people_type():
    assert stems("Schrödinger signiﬁcantly naïve Ｗｉｄｅ") == stems("schrodinger significantly naive wide")
    assert [token.text for token in LOWERCASE("Bernhard Schölkopf")] == ["bernhard", "scholkopf"]


def folded_char_by_char(text: str) -> str:
    """What folding means: decomposed, every combining mark dropped, stroked letters unstroked,
    lower-cased (analysis.folded does it without a Python step per character)."""
    plain = "".join(char for char in unicodedata.normalize("NFKD", text) if not unicodedata.combining(char))
    return plain.translate(
        str.maketrans({"ı": "i", "ø": "o", "Ø": "O", "ł": "l", "Ł": "L", "đ": "d", "Đ": "D", "æ": "ae", "œ": "oe"})
    ).lower()


@pytest.mark.parametrize(
    "text",
    [
        "Łódź, Øresund, Kreı̆n and Đorđević: æsthetic œuvre",  # stroked letters, a decomposed breve
        "the Schrödinger bridge, signiﬁcant, Ｗｉｄｅ, İstanbul, STRASSE Straße",
        "x⃗ q͡u 𝅘𝅥𝅮 ᪰a",  # marks beyond the common accents, an astral one
        "plain ascii stays as it is",
    ],
)
def test_a_whole_text_folds_as_its_characters_do(text):
    assert folded(text) == folded_char_by_char(text)


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=40))
def test_any_text_folds_as_its_characters_do(text):
    assert folded(text) == folded_char_by_char(text)


def test_single_letters_joined_by_a_hyphen_are_terms():
    assert stems("k-means t-SNE U-Nets R-CNN top-k") == ["k", "mean", "t", "sne", "u", "net", "r", "cnn", "top", "k"]
    # Other single letters are still no terms (and take no position).
    assert stems("a b c x y") == []
    assert_same_index("k-means x y t-SNE and e.g. 1-D U-")


@pytest.mark.parametrize(
    "text",
    [
        "Deep k-means for U-Net's t-SNE: e.g. v1.2.3, S2DNet and GPT4o at 3x speed_up.",
        "ALL CAPS Words, and CamelCase mixedUP; a an the of",
        "",
        "x1y2z3 abc_def ab",
    ],
)
def test_the_vocabularys_ascii_words_are_the_folded_texts(text):
    """ASCII text takes a shorter path to its vocabulary words: the same words as folding it."""
    assert text.isascii()
    assert vocabulary_words(text) == set(_WORD.findall(folded(text)))
    assert vocabulary_words(text + " Schrödinger") == set(_WORD.findall(folded(text + " Schrödinger")))


@pytest.mark.corpora
def test_every_real_texts_vocabulary_words_are_the_folded_texts(real_corpora):
    for paper in real_corpora.engine.corpus.papers:
        text = f"{paper.title or ''} {paper.abstract}"
        assert vocabulary_words(text) == set(_WORD.findall(folded(text)))


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet=st.characters(max_codepoint=127), max_size=80))
def test_any_ascii_texts_vocabulary_words_are_the_folded_texts(text):
    assert vocabulary_words(text) == set(_WORD.findall(folded(text)))
