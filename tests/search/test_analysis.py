"""Indexing and highlighting analysis (search/index/analysis.py) must give exactly the terms, positions,
weights and character spans that Whoosh's own analyzer gives, or queries, phrases and highlights
would miss what was indexed."""

from __future__ import annotations

from functools import lru_cache

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from whoosh.fields import TEXT

from search.corpus.loader import load_corpus
from search.index.analysis import LOWERCASE, STEMMING, FastText, stemmed_spans
from search.text.describe import describe
from search.text.mathtext import searchable

FIELDS = [
    (FastText(field_boost=2.0), TEXT(analyzer=STEMMING, field_boost=2.0)),
    (FastText(stemmed=False, field_boost=1.5), TEXT(analyzer=LOWERCASE, field_boost=1.5)),
]


def assert_same_index(text: str) -> None:
    for fast, whoosh in FIELDS:
        assert list(fast.index(text)) == list(whoosh.index(text)), text
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


REAL_CHUNKS = 6
"""Whoosh's analyzer is slow: the real papers are checked in interleaved parts, run side by side."""


@lru_cache(maxsize=1)
def real_papers(files: tuple) -> tuple:
    return load_corpus(list(files)).papers


@pytest.mark.parametrize("part", range(REAL_CHUNKS))
def test_the_real_corpora_index_as_whoosh_indexes_them(paperlist_files, part):
    papers = real_papers(tuple(paperlist_files))
    assert len(papers) > 10_000
    for text in indexed_texts(papers[part::REAL_CHUNKS]):
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
