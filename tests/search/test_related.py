"""Related papers: more like this, over the abstract's most distinctive words."""

from search.models import SearchRequest


def by_name(engine, name):
    return next(p.id for p in engine.papers if engine.describe(p.id).name == name)


def test_related_papers_share_distinctive_words_and_never_include_the_paper(seed_engine):
    bitstack = by_name(seed_engine, "BitStack")
    hits = seed_engine.related(bitstack, limit=5)
    assert hits and bitstack not in [hit.paper_id for hit in hits]
    assert [hit.score for hit in hits] == sorted((hit.score for hit in hits), reverse=True)
    assert "Dobi-SVD" in [seed_engine.describe(hit.paper_id).name for hit in hits[:3]]  # both compress LLM weights
    assert "compress" in hits[0].terms or "compress" in hits[1].terms


def test_related_as_a_query_with_filters_and_unknown_ids(seed_engine):
    bitstack = by_name(seed_engine, "BitStack")
    result = seed_engine.search(f"related:{bitstack} has:code")
    assert result.hits and all(seed_engine.row(hit.paper_id).has_code for hit in result.hits)
    result = seed_engine.search("related:nope")
    assert result.total == 0 and "no paper with id 'nope'" in result.notice


def test_every_related_paper_can_be_reached_past_the_first_page(seed_engine):
    bitstack = by_name(seed_engine, "BitStack")
    first = seed_engine.search(SearchRequest(f"related:{bitstack}", limit=3))
    assert len(first.hits) == 3 and first.total > 3  # more than one page: the list pages in the rest
    every = seed_engine.search(SearchRequest(f"related:{bitstack}", limit=first.total))
    ids = [hit.paper_id for hit in every.hits]
    assert len(ids) == first.total == len(set(ids)) and bitstack not in ids
    assert ids[:3] == [hit.paper_id for hit in first.hits]


def test_related_on_real_corpora_stays_on_topic(real_engine):
    engine = real_engine
    gan = engine.search(SearchRequest('title:"generative adversarial"', limit=1)).hits[0].paper_id
    hits = engine.related(gan, limit=10)
    about_gans = [
        hit
        for hit in hits
        if any(word in engine.describe(hit.paper_id).rendered.text.lower() for word in ("adversarial", "gan"))
    ]
    assert len(about_gans) >= 8, [engine.row(hit.paper_id).headline for hit in hits]
