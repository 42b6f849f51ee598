"""The ranking (search/query/scoring.py): its formula pinned on papers scored by hand, and the
papers each query matches checked against the query's boolean meaning over the posting lists."""

import random
from itertools import pairwise
from math import log

import pytest
from whoosh import query as wq

from search.models import SearchRequest
from search.query.scoring import ADJACENT, EVERY_WORD, FIELD_WEIGHTS, K1, B, Ranked, TermScorer, field_lengths

SEED_QUERIES = [
    "compression",
    "kv cache",
    "graph neural network",
    "large language models",
    "wasserstein distance",
    "title:language",
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
    "title:attention",
    "graph NOT neural",
    "(gan OR vae) AND image",
    "transf*",
    "convolutonal~1",
    '"generative adversarial networks"',
    '"gaussian process" regression',
    '"neural network" NOT graph',
]


def assert_matches_the_boolean_query(engine, text):
    """Every paper the ranking scores is one the query's boolean meaning selects, and no other."""
    runner = engine.runner
    query, _ = runner._parser.parse(text)
    assert TermScorer.handles(query), text
    ranked = TermScorer(runner._searcher.reader()).rank(query)
    assert ranked.scores, text
    assert set(ranked.scores) == matching_docs(runner._searcher, query), text


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
def test_seed_queries_match_what_they_say(seed_engine, text):
    assert_matches_the_boolean_query(seed_engine, text)


def test_real_corpora_queries_match_what_they_say(real_engine):
    for text in REAL_QUERIES:
        assert_matches_the_boolean_query(real_engine, text)


# -- the formula, on papers small enough to score by hand ------------------------------------------

GRAPHS = [
    {"id": "p1", "title": "Graph Kernels", "abstract": "Kernels compare graphs. Kernels are fast."},
    {"id": "p2", "title": "Road Networks", "abstract": "Networks of roads carry traffic."},
    {"id": "p3", "title": "Traffic Forecasting", "abstract": "We forecast traffic on road networks with graphs."},
]
"""Terms: titles of 2 each; abstracts "kernel compar graph kernel fast" (5), "network road carri
traffic" (4), "forecast traffic road network graph" (5): stop words take no position."""


def scores_of(engine, query: str) -> dict[str, float]:
    return {hit.paper_id: hit.score for hit in engine.search(SearchRequest(query, limit=10)).hits}


def saturated(tf: float) -> float:
    return tf * (K1 + 1) / (tf + K1)


def test_a_word_scores_once_across_title_and_abstract(engine_over):
    engine = engine_over({"graphs.json": GRAPHS})
    # "graph" is in 2 of the 3 papers: p1's title and abstract, p3's abstract.
    idf = log(1 + (3 - 2 + 0.5) / (2 + 0.5))
    mean_title, mean_abstract = 2, (5 + 4 + 5) / 3
    in_title = FIELD_WEIGHTS["title"] * 1 / (1 - B + B * 2 / mean_title)
    in_abstract = FIELD_WEIGHTS["abstract"] * 1 / (1 - B + B * 5 / mean_abstract)
    scores = scores_of(engine, "graph")
    assert scores == pytest.approx({"p1": idf * saturated(in_title + in_abstract), "p3": idf * saturated(in_abstract)})
    # Scored field by field and added up, as Whoosh would, p1 would count the word twice.
    assert scores["p1"] < idf * (saturated(in_title) + saturated(in_abstract))


def test_more_of_a_field_counts_less_in_a_longer_one(engine_over):
    engine = engine_over({"graphs.json": GRAPHS})
    # "traffic" once in p2's abstract (4 terms), once in p3's (5 terms) and in p3's title.
    idf = log(1 + (3 - 2 + 0.5) / (2 + 0.5))
    mean_abstract = (5 + 4 + 5) / 3
    p2 = FIELD_WEIGHTS["abstract"] / (1 - B + B * 4 / mean_abstract)
    p3 = FIELD_WEIGHTS["title"] / (1 - B + B * 2 / 2) + FIELD_WEIGHTS["abstract"] / (1 - B + B * 5 / mean_abstract)
    assert scores_of(engine, "traffic") == pytest.approx({"p2": idf * saturated(p2), "p3": idf * saturated(p3)})


def test_words_typed_together_score_more_where_they_stand_together(engine_over):
    apart = {
        "id": "p4",
        "title": "Networks Across Every Road",
        "abstract": "Cities grow. Every road needs networks.",
    }
    engine = engine_over({"roads.json": [GRAPHS[1], apart]})
    road, network = scores_of(engine, "road"), scores_of(engine, "networks")
    together = scores_of(engine, "road networks")
    # p2's title is "Road Networks"; p4 has both words, never side by side. Both have every word.
    assert together["p2"] == pytest.approx((1 + EVERY_WORD) * (1 + ADJACENT) * (road["p2"] + network["p2"]))
    assert together["p4"] == pytest.approx((1 + EVERY_WORD) * (road["p4"] + network["p4"]))


def test_papers_with_every_word_score_a_share_more(engine_over):
    engine = engine_over({"graphs.json": GRAPHS})
    scores = scores_of(engine, "kernel traffic graph")
    kernel, traffic, graph = (scores_of(engine, word) for word in ("kernel", "traffic", "graph"))
    # p3 has "traffic" and "graph", p1 "kernel" and "graph": neither has every word, no bonus.
    assert scores == pytest.approx(
        {"p1": kernel["p1"] + graph["p1"], "p2": traffic["p2"], "p3": traffic["p3"] + graph["p3"]}
    )
    both = scores_of(engine, "traffic graph")
    assert both["p3"] == pytest.approx((1 + EVERY_WORD) * (traffic["p3"] + graph["p3"]))
    assert both["p2"] == pytest.approx(traffic["p2"])


def test_the_paper_with_every_word_beats_a_short_one_with_the_rare_words(engine_over):
    """The quality benchmark's typical miss: a short abstract with the two rare words of the query
    against the paper all four words were taken from (the other two are common)."""
    known = {
        "id": "known",
        "title": "Sparse Rewards",
        "abstract": "Conformal constructions ease reporting of long clinical studies.",
    }
    short = {"id": "short", "title": "Prediction Sets", "abstract": "Conformal constructions of sets."}
    common = [
        {
            "id": f"f{i}",
            "title": f"Filler {i}",
            "abstract": "We ease the reporting of experiments." if i % 2 else "Reporting made easy, with ease.",
        }
        for i in range(6)
    ]
    engine = engine_over({"papers.json": [known, short, *common]})
    scores = scores_of(engine, "constructions conformal ease reporting")
    assert scores["known"] > scores["short"]
    assert scores["known"] / (1 + EVERY_WORD) < scores["short"]  # without the bonus it would lose


def test_queries_that_say_how_words_combine_get_no_bonus(engine_over):
    engine = engine_over({"graphs.json": GRAPHS})
    traffic, graph = scores_of(engine, "traffic"), scores_of(engine, "graph")
    assert scores_of(engine, "traffic AND graph") == pytest.approx({"p3": traffic["p3"] + graph["p3"]})


def test_the_best_come_first_and_ties_in_index_order(seed_engine):
    scorer = seed_engine.runner._scorer
    scores = {5: 1.0, 3: 2.0, 9: 2.0, 1: 1.0, 7: 0.5, 0: 1.0}
    everything = sorted(scores.items(), key=lambda item: (-item[1], item[0]))
    assert everything[:4] == [(3, 2.0), (9, 2.0), (0, 1.0), (1, 1.0)]
    for limit in range(1, 8):  # ties inside what is picked, across its end (limit 3, 4) and none
        assert scorer.top(Ranked(dict(scores), []), limit) == everything[:limit], limit
    rng = random.Random(3)
    for _ in range(200):
        many = {doc: float(rng.randrange(6)) for doc in rng.sample(range(400), rng.randrange(1, 60))}
        limit = rng.randrange(1, 40)
        assert scorer.top(Ranked(many, []), limit) == sorted(many.items(), key=lambda i: (-i[1], i[0]))[:limit]


def test_sloppy_phrases_are_left_to_whoosh(seed_engine):
    query, _ = seed_engine.runner._parser.parse('"node selection"~3')
    assert not TermScorer.handles(query)
    assert seed_engine.search('"node selection"~3').total >= 1


def test_hits_name_the_terms_they_matched(seed_engine):
    result = seed_engine.search("wasserstein zebra")
    assert result.hits and all("wasserstein" in hit.terms for hit in result.hits)


def test_not_excludes_every_paper_with_the_word(seed_engine):
    # Whoosh's own AndNot matcher (with optimize=False) let a paper mentioning "image" through here.
    result = seed_engine.search(SearchRequest("diffusion NOT image", limit=50))
    assert result.hits
    for hit in result.hits:
        text = seed_engine.describe(hit.paper_id).rendered.text.lower()
        assert "diffusion" in text and "image" not in text


def test_asking_for_no_hits_gives_none(seed_engine):
    scorer = seed_engine.runner._scorer
    assert scorer.top(Ranked({1: 1.0, 2: 1.0}, []), 0) == []


def test_field_lengths_read_in_one_go_are_whooshs_per_document_lengths(engine_over, seed_engine):
    """field_lengths reads Whoosh's lengths column directly (a private layout, docs/ARCHITECTURE.md):
    it must say what doc_field_length says for every document, where a field is missing too (the
    last papers without a title, a field no paper has) and for a length stored approximately."""
    long = {"id": "long", "title": "Long", "abstract": " ".join(f"word{n}" for n in range(3000))}
    untitled = [{"id": f"u{n}", "abstract": "An abstract about graphs without any title."} for n in range(3)]
    engine = engine_over({"lengths.json": [GRAPHS[0], long, *untitled]})
    for checked in (engine, seed_engine):
        for segment, _ in checked.runner._searcher.reader().leaf_readers():
            for field in ("title", "abstract", "authors", "keywords"):
                expected = [segment.doc_field_length(doc, field, 0) or 0 for doc in range(segment.doc_count_all())]
                assert field_lengths(segment, field) == expected, field
    lengths = [field_lengths(s, "title") for s, _ in engine.runner._searcher.reader().leaf_readers()]
    assert [length for part in lengths for length in part][-3:] == [0, 0, 0]
    assert (
        max(
            length
            for part in (field_lengths(s, "abstract") for s, _ in engine.runner._searcher.reader().leaf_readers())
            for length in part
        )
        > 2000
    )


def test_a_prefix_typed_again_is_answered_without_reading_postings(engine_over, monkeypatch):
    """Typing a prefix again after hundreds of other words (deleting back to it, a query retyped)
    takes its completions' kept scores: no posting list is read a second time, which is what made
    each of a prefix's keystrokes cost tens of milliseconds at 10,000 papers."""
    words = [f"word{n}" for n in range(400)]
    papers = [
        {"id": "g1", "title": "Graph Grammars", "abstract": "Graphs and gradients. " + " ".join(words[:200])},
        {"id": "g2", "title": "Gradient Graphs", "abstract": "Gradual grammar. " + " ".join(words[200:])},
    ]
    engine = engine_over({"grammar.json": papers})
    first = engine.search(SearchRequest("gra", partial=True))
    assert {hit.paper_id for hit in first.hits} == {"g1", "g2"}
    for word in words:  # over a thousand (word, field) pairs: more than any small cache keeps
        engine.search(word)
    read = []
    for segment, _ in engine.runner._scorer._segments:
        postings = segment.postings
        monkeypatch.setattr(
            segment, "postings", lambda *args, _postings=postings: read.append(args) or _postings(*args)
        )
    again = engine.search(SearchRequest("gra", partial=True))
    assert read == []
    assert again.hits == first.hits and again.total == first.total


def test_the_kept_scores_are_bounded_in_bytes_through_a_session(engine_over, monkeypatch):
    """A common word's kept scores take megabytes at 100,000 papers: kept by count alone (4,096
    words), a session of 1,000 searches grew the app to 464 MB. Here the bounds are made small, and
    a session searching hundreds of words each in hundreds of papers holds no more than them."""
    import tracemalloc

    from search.query import scoring

    budgets = {"CACHED_TERM_BYTES": 60_000, "CACHED_FIELD_BYTES": 30_000}
    budgets |= {"CACHED_PAIR_BYTES": 10_000, "CACHED_WORD_BYTES": 10_000, "CACHED_POSITIONS_BYTES": 30_000}
    for name, value in budgets.items():
        monkeypatch.setattr(scoring, name, value)
    words = [f"topic{n}" for n in range(150)]
    papers = [
        {"id": f"p{i}", "title": f"Paper {i}", "abstract": " ".join(words[j] for j in range(150) if (i + j) % 3)}
        for i in range(300)
    ]
    engine = engine_over({"many.json": papers})
    first = engine.search(SearchRequest(f"{words[0]} {words[1]}", limit=5))
    scorer = engine.runner._scorer
    tracemalloc.start()
    try:
        before, _ = tracemalloc.get_traced_memory()
        for a, b in pairwise(words):
            engine.search(SearchRequest(f"{a} {b}", limit=5))
        grown = tracemalloc.get_traced_memory()[0] - before
        scorer._field_tf(words[5].encode(), "abstract")  # its postings read first: only the entry is measured
        warmed = tracemalloc.get_traced_memory()[0]
        one = scorer._compute(words[5].encode(), ("abstract",))  # as large as any word's kept scores
        measured = tracemalloc.get_traced_memory()[0] - warmed
    finally:
        tracemalloc.stop()
    # The bounds, plus what other caches keep by count (the parser's queries: small entries).
    assert grown < sum(budgets.values()) + 250_000
    # What a cache counts for an entry is no less than it takes (give or take the few bytes an
    # interpreter free list keeps: 32 in one run of three, where the entry is 14 KB).
    assert measured <= scoring.weight(one) + 64
    for cache in (scorer._cache, scorer._field_cache, scorer._pairs, scorer._word_docs):
        assert cache.bytes == sum(scoring.weight(value) for value in cache.values())
        assert cache.bytes <= cache.budget or len(cache) == 1  # the newest is kept whatever it weighs
    assert scorer._blocks.bytes == sum(blocks.weight for blocks in scorer._blocks.values())
    assert scorer._blocks.bytes <= scorer._blocks.budget or len(scorer._blocks) == 1
    again = engine.search(SearchRequest(f"{words[0]} {words[1]}", limit=5))
    assert again.hits == first.hits and again.total == first.total  # scores forgotten are computed alike


def results_ranking_every_match(engine, request, monkeypatch):
    """The request's result with every match scored and heaped (top_words turned off)."""
    with monkeypatch.context() as patched:
        patched.setattr(TermScorer, "top_words", lambda *_args, **_kwargs: None)
        return engine.search(request)


TYPED = ["kv cache", "large language models", "graph neural network", "meta learning few shot", "diffusion"]


def assert_top_words_ranks_as_every_match(engine, monkeypatch, queries):
    used = []
    top_words = TermScorer.top_words
    monkeypatch.setattr(
        TermScorer, "top_words", lambda *args, **kwargs: used.append(top_words(*args, **kwargs)) or used[-1]
    )
    for text in queries:
        for limit in (1, 3, 40):
            request = SearchRequest(text, limit=limit, partial=True)
            found, expected = engine.search(request), results_ranking_every_match(engine, request, monkeypatch)
            assert (found.hits, found.total, found.all_words, found.any_words) == (
                expected.hits,
                expected.total,
                expected.all_words,
                expected.any_words,
            ), (text, limit)
    assert sum(top is not None for top in used) > len(used) / 2  # the queries typing makes take it


def test_the_best_found_without_scoring_every_match_are_the_same(seed_engine, monkeypatch):
    """A keystroke's search finds its best matches by the threshold algorithm (top_words): the same
    papers, scores, order and counts as scoring every match, whatever is typed or filtered."""
    typed = [text[:end] for text in TYPED for end in range(1, len(text) + 1) if not text[:end].endswith(" ")]
    extra = [
        "graph graph",
        "title:language model",
        "author:chen graph",
        "has:code diffusion",
        "graph match:all network",
        # A word in two clauses and a letter in none: counting one clause's papers the other's
        # too gave 1,823 matches where ranking every match gives 2,006 ("Log-DenseNet: How to
        # Sparsify a DenseNet" over the real lists).
        "Graph-Network: How to Prune a Network",
        "Optimization, fast and slow: optimally switching between local and Bayesian optimization",
        # The word being typed, its completions one word: beside a word that is one of them, a
        # name, a filter, and inside explicit syntax (ranked from every match there).
        "neural network neur",
        "author:chen neur",
        "has:code neur",
        "(graph OR tabular) AND neur",
        "graph NOT neur",
    ]
    assert_top_words_ranks_as_every_match(seed_engine, monkeypatch, typed + extra + SEED_QUERIES)


def test_the_best_found_without_scoring_every_match_are_the_same_over_real_lists(real_engine, monkeypatch):
    typed = [text[:end] for text in TYPED for end in range(3, len(text) + 1) if not text[:end].endswith(" ")]
    extra = ["list:iclr2018 graph neural", "is:oral diffusion models", "model match:all", "neural network neural"]
    extra += ["Log-DenseNet: How to Sparsify a DenseNet"]
    extra += ["program synthesis neur", "convolutional neural netw", "neural network neur", "is:oral graph neur"]
    assert_top_words_ranks_as_every_match(real_engine, monkeypatch, typed + extra + REAL_QUERIES)


def test_a_search_superseded_while_it_ranks_stops_before_it_merges(seed_engine, monkeypatch):
    """The app cancels a keystroke's search when the next key comes: one whose words' scores are
    read stops at the next round of the threshold algorithm, its matches never merged."""
    import threading

    cancelled = threading.Event()
    merged = []
    threshold = TermScorer._threshold

    def typed_on(self, *args):
        cancelled.set()  # the next key, while this search ranks
        return merged.append(1) or threshold(self, *args)

    monkeypatch.setattr(TermScorer, "_threshold", typed_on)
    result = seed_engine.search(SearchRequest("graph neural", partial=True), cancel=cancelled)
    assert merged == [1] and result.total == 0 and "search cancelled" in result.notice


def test_a_last_letter_searched_among_authors_alone_takes_the_threshold_path(seed_engine, monkeypatch):
    """A query ending in one letter searches it among the authors only (the text fields keep no
    single letters): a term in none of the query's clauses. Its matches count as ranking every
    match counts them, and the threshold path answers it (it used to merge every match: 60-160 ms
    a keystroke at 100,000 papers)."""
    used = []
    top_words = TermScorer.top_words
    monkeypatch.setattr(
        TermScorer, "top_words", lambda *args, **kwargs: used.append(top_words(*args, **kwargs)) or used[-1]
    )
    queries = ["graph neural n", "large language m", "kv cache c", "diffusion s"]
    for text in queries:
        for limit in (1, 40):
            request = SearchRequest(text, limit=limit, partial=True)
            found, expected = (
                seed_engine.search(request),
                results_ranking_every_match(seed_engine, request, monkeypatch),
            )
            assert (found.hits, found.total, found.all_words, found.any_words) == (
                expected.hits,
                expected.total,
                expected.all_words,
                expected.any_words,
            ), text
    assert used and all(top is not None for top in used)


# -- the word being typed: its completions count as one word -------------------------------------------

TYPED_TOPICS = ["molecules", "traffic", "citations", "proteins", "circuits", "social ties"]
COMPLETING = [
    *(
        {
            "id": f"g{number}",
            "title": f"Graph Neural Networks for {topic.title()}",
            "abstract": f"We study graph neural networks on {topic} and report results.",
        }
        for number, topic in enumerate(TYPED_TOPICS)
    ),
    # "neural" once, beside two rare words that complete it, each said twice: summed, the three
    # outscored every paper about graph neural networks while "neural" was being typed.
    {
        "id": "rare",
        "title": "Neuralfoo and Neuralbar for Graph Programs",
        "abstract": "A neural language, neuralfoo, and its checker, neuralbar, write graph programs.",
    },
    {"id": "only", "title": "Neuralfoo Search", "abstract": "Searching programs written in neuralfoo."},
]


def ids_of(result) -> list[str]:
    return [hit.paper_id for hit in result.hits]


def test_the_word_being_typed_ranks_as_the_word_finished(engine_over):
    """While its last word is typed, a query ranks as it will once a space follows: a paper with
    several rare completions of the word does not rise above the papers with the word itself, and
    the papers with a completion only still match."""
    engine = engine_over({"typed.json": COMPLETING})
    typing = engine.search(SearchRequest("graph neural", limit=10, partial=True))
    finished = engine.search(SearchRequest("graph neural ", limit=10, partial=True))
    assert ids_of(typing)[:6] == ids_of(finished)[:6]
    assert sorted(ids_of(typing)[:6]) == [f"g{number}" for number in range(6)]
    assert [hit.score for hit in typing.hits[:6]] == pytest.approx([hit.score for hit in finished.hits[:6]])
    assert typing.total == finished.total + 1 and "only" in ids_of(typing)  # neuralfoo alone matches too


def test_a_papers_score_for_the_word_being_typed_is_its_best_completions(engine_over):
    """One word typed: a paper scores its best completion's score, each completion counted at the
    idf of the most common (here the word typed), not their sum."""
    engine = engine_over({"typed.json": COMPLETING})
    papers = len(COMPLETING)

    def idf(having: int) -> float:
        return log(1 + (papers - having + 0.5) / (having + 0.5))

    neural, foo, bar = (scores_of(engine, word) for word in ("neural", "neuralfoo", "neuralbar"))
    typing = {hit.paper_id: hit.score for hit in engine.search(SearchRequest("neural", limit=10, partial=True)).hits}
    as_neural = idf(len(neural)) / idf(len(foo)), idf(len(neural)) / idf(len(bar))
    assert typing["rare"] == pytest.approx(max(neural["rare"], foo["rare"] * as_neural[0], bar["rare"] * as_neural[1]))
    assert typing["rare"] < neural["rare"] + foo["rare"] + bar["rare"]
    assert typing["only"] == pytest.approx(foo["only"] * as_neural[0])
    others = {paper: score for paper, score in neural.items() if paper != "rare"}
    assert {paper: typing[paper] for paper in others} == pytest.approx(others)  # the word itself, as it scores
    assert set(typing) == set(neural) | set(foo) | set(bar)


def test_graph_neural_typed_lists_the_graph_neural_network_papers_first(real_engine):
    """The tester's case over the real lists: `graph neural` typed listed "Neural Guided Constraint
    Logic Programming" (neural, neuralkanren) and "NeuralFDR" above the graph neural network papers
    that `graph neural ` lists first."""
    typing = real_engine.search(SearchRequest("graph neural", limit=10, partial=True))
    finished = real_engine.search(SearchRequest("graph neural ", limit=10, partial=True))
    assert ids_of(typing)[:5] == ids_of(finished)[:5]
    assert typing.total >= finished.total


def test_the_word_as_typed_keeps_its_own_score_beside_a_more_common_completion(engine_over):
    """`net` typed is a word of its own (in one paper) and the start of `networks` (in six): the
    paper with `net` scores what it will once a space follows, not `networks`' lower idf."""
    netted = {"id": "net", "title": "Deep Net Compression", "abstract": "We compress a deep net."}
    engine = engine_over({"typed.json": [*COMPLETING, netted]})
    typing = engine.search(SearchRequest("deep net", limit=10, partial=True))
    finished = engine.search(SearchRequest("deep net ", limit=10, partial=True))
    assert ids_of(typing)[0] == ids_of(finished)[0] == "net"
    assert typing.hits[0].score == pytest.approx(finished.hits[0].score)
    assert typing.total > finished.total  # the papers with networks match too


def test_a_typed_words_keys_are_those_of_the_parsers_terms(seed_engine):
    """The words a completion is scored as are named without parsing it (word_keys): the same
    keys as the query parser's terms of it, over the vocabulary's words."""
    from search.query.scoring import _word_key, word_keys

    runner = []
    seed_engine._index.read(lambda reader, attempt: runner.append(reader), lambda value: True)
    vocabulary = runner[0]._speller._words
    assert len(vocabulary) > 1000
    for word in [*vocabulary[::5], "GraphBridge", "Zhang", "of"]:
        parsed = runner[0]._parser.parse(word)[0]
        assert word_keys(word) == {_word_key(term) for term in parsed.leaves() if type(term) is wq.Term}, word


def test_three_words_few_papers_have_all_of_are_ranked_reading_few_papers(engine_over, monkeypatch):
    """Three common words of which few papers have all three (`kernel robustness imag` at 100,000
    papers: 83 of them): the papers with every word are scored first, so the papers lacking one
    bound the rest without the every-word factor, and most matches are never scored (17,401
    papers were, for its 40 best). The best are those of scoring every match."""
    from search.query import scoring

    words = ["alpha", "beta", "gamma"]
    papers = []
    for n in range(900):
        having = [word for number, word in enumerate(words) if number != n % 3]  # two of the three
        papers.append({"id": f"p{n}", "title": f"Paper {n}", "abstract": " ".join(having * (1 + n % 5)) + " filler"})
    papers += [{"id": f"all{n}", "title": "All three", "abstract": "alpha beta gamma " * (3 + n)} for n in range(3)]
    engine = engine_over({"three.json": papers})
    scored: set[int] = set()
    unit_scores = scoring._unit_scores
    monkeypatch.setattr(
        scoring, "_unit_scores", lambda unit, gets, docs: scored.update(docs) or unit_scores(unit, gets, docs)
    )
    request = SearchRequest("alpha beta gamma", limit=3)
    found = engine.search(request)
    assert found.all_words == 3 and found.total == 903
    assert {hit.paper_id for hit in found.hits} == {"all0", "all1", "all2"}
    assert len(scored) < 400  # of 903 matches
    expected = results_ranking_every_match(engine, request, monkeypatch)
    assert found.hits == expected.hits


def test_a_word_is_not_looked_up_in_a_list_without_its_field(engine_over, monkeypatch):
    """Most real lists have no keywords (13 of 17): a new word's stem was looked up in each of
    them there anyway, a lookup in the terms table that found nothing (8,905 of a 10,744-paper
    session's 60,888). The word scores as before."""
    engine = engine_over(
        {
            "plain.json": [{"id": "p1", "title": "Graph kernels", "abstract": "Graphs compared by kernels."}],
            "tagged.json": [{"id": "t1", "title": "Kernel methods", "abstract": "On kernels.", "keywords": "kernels"}],
        }
    )
    looked: list[tuple] = []
    for segment, _ in engine.runner._scorer._segments:
        postings = segment.postings
        monkeypatch.setattr(
            segment,
            "postings",
            lambda *args, _at=segment, _postings=postings: looked.append((_at, *args)) or _postings(*args),
        )
    result = engine.search("kernels")
    assert {hit.paper_id for hit in result.hits} == {"p1", "t1"}
    assert len([args for args in looked if args[1] == "keywords"]) == 1  # the tagged list's only


def test_a_finished_words_positions_are_read_once_while_the_next_word_is_typed(engine_over, monkeypatch):
    """Each keystroke of the word after a common one makes a new pair of words that may stand
    together (`federated learning p`, `... pr`, ..., `... privacy`), and each read the common word's
    positions again: 470 blocks, 35-45 ms a keystroke for `learn` at 100,000 papers. Its blocks,
    decoded for the first pair, serve the next ones; the papers found together are the same."""
    papers = [{"id": f"p{n}", "title": f"Paper {n}", "abstract": f"Learning things number {n}."} for n in range(80)]
    papers += [{"id": f"f{n}", "title": f"Fed {n}", "abstract": "Federated learning at scale."} for n in range(10)]
    papers += [{"id": f"v{n}", "title": f"Priv {n}", "abstract": "Privacy in learning."} for n in range(5)]
    papers += [{"id": f"a{n}", "title": f"Adj {n}", "abstract": "On learning privacy budgets."} for n in range(5)]
    engine = engine_over({"learning.json": papers})
    engine.search(SearchRequest("federated learning", partial=True))  # the pair federated, learning
    read = []
    for segment, _ in engine.runner._scorer._segments:
        postings = segment.postings
        monkeypatch.setattr(
            segment, "postings", lambda *args, _postings=postings: read.append(args[:2]) or _postings(*args)
        )
    typed = engine.search(SearchRequest("federated learning privacy", partial=True))
    assert ("abstract", "learn") not in read
    monkeypatch.undo()
    fresh = engine_over({"learning.json": papers}).search(SearchRequest("federated learning privacy", partial=True))
    assert typed.hits == fresh.hits and typed.total == fresh.total
    with_privacy = [hit.paper_id for hit in typed.hits if hit.paper_id[0] in "av"]
    assert with_privacy[:5] == [f"a{n}" for n in range(5)]  # where the words stand together first
