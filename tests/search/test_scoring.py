"""The cached term scorer must rank exactly as Whoosh's own BM25F matchers would."""

import pytest
from whoosh import query as wq

from search.query.scoring import TermScorer

SEED_QUERIES = [
    "compression",
    "kv cache",
    "graph neural network",
    "large language models",
    "wasserstein distance",
    "title:attention",
    "name:omnibind",
    "diffusion NOT image",
    "(graph OR tabular) AND learning",
    "optim*",
    "wasserstien~2",
    "neural OR network OR model",
    '"node selection"',
    '"large language models" compression',
    'title:"language model"',
]
REAL_QUERIES = [
    "transformer",
    "learning",
    "graph neural network",
    "meta learning few shot",
    "contrastive learning images",
    "author:bengio",
    "venue:iclr",
    "graph NOT neural",
    "(gan OR vae) AND image",
    "transf*",
    "convolutonal~1",
    '"generative adversarial networks"',
    '"gaussian process" regression',
    '"neural network" NOT graph',
]


def assert_ranks_like_whoosh(engine, text):
    runner = engine._runner
    query, _ = runner._parser.parse(text)
    assert TermScorer.handles(query), text
    expected = whoosh_top(runner._searcher, query, 30)
    scorer = TermScorer(runner._searcher.reader())
    ranked = scorer.rank(query)
    got = scorer.top(ranked, 30)
    assert [doc for doc, _ in got] == [doc for doc, _ in expected], text
    assert [score for _, score in got] == pytest.approx([score for _, score in expected], rel=1e-9), text
    assert set(ranked.scores) == matching_docs(runner._searcher, query), text


def whoosh_top(searcher, query, limit):
    """Whoosh's own scores, ranked. Its top-N collector skips good papers in later segments
    (so every match is collected), and its AndNot matcher lets excluded papers through (so
    `a NOT b` is Whoosh's ranking of `a` without the papers that match `b`)."""
    excluded = set()
    if isinstance(query, wq.AndNot):
        query, excluded = query.a, matching_docs(searcher, query.b)
    ranked = searcher.search(query, limit=None)
    return [(hit.docnum, hit.score) for hit in ranked if hit.docnum not in excluded][:limit]


def matching_docs(searcher, query):
    """Set algebra over posting lists: the papers a boolean query matches, independently of scoring."""
    if query is wq.NullQuery:
        return set()
    if isinstance(query, wq.Term):
        reader = searcher.reader()
        return (
            set(reader.postings(query.fieldname, query.text).all_ids())
            if (query.fieldname, query.text) in reader
            else set()
        )
    if isinstance(query, wq.Phrase):
        return set(searcher.docs_for_query(query))  # word positions: Whoosh's own matcher decides
    if isinstance(query, wq.AndNot):
        return matching_docs(searcher, query.a) - matching_docs(searcher, query.b)
    parts = [matching_docs(searcher, child) for child in query.subqueries]
    return set.intersection(*parts) if isinstance(query, wq.And) else set().union(*parts)


@pytest.mark.parametrize("text", SEED_QUERIES)
def test_seed_ranking_matches_whoosh(seed_engine, text):
    assert_ranks_like_whoosh(seed_engine, text)


def test_real_corpora_ranking_matches_whoosh(real_engine):
    for text in REAL_QUERIES:
        assert_ranks_like_whoosh(real_engine, text)


def test_sloppy_phrases_are_left_to_whoosh(seed_engine):
    query, _ = seed_engine._runner._parser.parse('"node selection"~3')
    assert not TermScorer.handles(query)
    assert seed_engine.search('"node selection"~3').total >= 1


def test_hits_name_the_terms_they_matched(seed_engine):
    result = seed_engine.search("wasserstein zebra")
    assert result.hits and all("wasserstein" in hit.terms for hit in result.hits)


def test_not_excludes_every_paper_with_the_word(seed_engine):
    # Whoosh's own AndNot matcher (with optimize=False) let a paper mentioning "image" through here.
    result = seed_engine.search("diffusion NOT image", limit=50)
    assert result.hits
    for hit in result.hits:
        text = seed_engine.describe(hit.paper_id).rendered.text.lower()
        assert "diffusion" in text and "image" not in text
