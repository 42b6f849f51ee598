"""Every abstract in ../shared/corpora/paperlists loads, converts, indexes and searches, losing no prose."""

import re
import unicodedata

import pytest

from search.models import SearchRequest
from search.text.eaten import restore_in_prose
from search.text.mathtext import searchable

pytestmark = pytest.mark.corpora

_URLS = re.compile(r"\(https?://[^)]*\)|https?://\S+|www\.\S+")
# Math, colour names, environment names and macro names are markup, not prose.
_NOT_PROSE = re.compile(r"\$[^$]*\$|\\textcolor\{[^}]*\}|\\(?:begin|end)\{[^}]*\}|\\[A-Za-z]+")


@pytest.fixture
def engine(real_engine):
    """The session's engine over the real lists (tests/conftest.py): loaded and indexed once."""
    return real_engine


def _fold(text):
    return "".join(ch for ch in unicodedata.normalize("NFKD", text) if not unicodedata.combining(ch))


def test_all_records_load(engine):
    assert len(engine.papers) > 10_000
    assert engine.corpus.skipped > 0  # some records really have no abstract
    venues = {paper.venue for paper in engine.papers}
    assert {"ICLR 2017", "NeurIPS 2018", "AISTATS 2025", "WWW 2025"} <= venues
    assert all(paper.title for paper in engine.papers)


def test_every_abstract_converts_without_losing_a_word(engine):
    losses = {}
    for paper in engine.papers:
        text = _fold(searchable(engine.describe(paper.id).rendered.text))
        # Macros whose backslash a list's producer ate (` extit{e.g.}`) are markup too.
        prose = _NOT_PROSE.sub(" ", _URLS.sub(" ", restore_in_prose(paper.abstract)))
        missing = {word for word in re.findall(r"[A-Za-z]{3,}", _fold(prose)) if word not in text}
        if missing:
            losses[paper.id] = missing
    assert not losses


def test_no_control_characters_or_raw_macros_in_rendered_text(engine):
    for paper in engine.papers:
        text = engine.describe(paper.id).rendered.text
        assert not re.search(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]", text)
        assert "\\textbf" not in text and "\\emph" not in text


def test_search_over_the_real_corpora(engine):
    result = engine.search(SearchRequest("generative adversarial networks", limit=30))
    assert result.total > 100 and len(result.hits) == 30
    title = engine.paper(result.hits[0].paper_id).title.lower()
    assert "adversarial" in title or "gan" in title
    assert engine.search("author:bengio").total > 0
    corrected = engine.search("convolutonal networks")
    assert corrected.corrected == "convolutional networks" and corrected.total > 0


def test_every_paper_has_a_link_and_titles_are_headlines(engine):
    for paper in engine.papers[::50]:
        description = engine.describe(paper.id)
        assert description.links and description.headline == paper.title


def test_match_counts_are_exact_across_index_segments(engine):
    """The big index is built in segments; totals must count papers in all of them."""
    from search.index.analysis import STEMMING as ANALYZER  # Whoosh's own analyzer: an independent check

    for word in ("wasserstein", "transformer"):
        stem = next(iter(ANALYZER(word))).text
        expected = 0
        for paper in engine.papers:
            tldr = paper.facts.tldr or ""  # searched with the abstract
            raw = " ".join([paper.title or "", paper.abstract, tldr, *paper.keywords]).lower()
            if word[:6] not in raw:
                continue
            description = engine.describe(paper.id)
            text = " ".join(
                [paper.title or "", description.name or "", description.rendered.text, tldr, *paper.keywords]
            )
            if stem in {token.text for token in ANALYZER(text)}:
                expected += 1
        assert engine.search(word).total == expected, word
