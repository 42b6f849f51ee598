"""What the engine keeps through a long session stays bounded."""

from __future__ import annotations

from search import SearchEngine, load_corpus


def test_a_session_that_reads_thousands_of_papers_keeps_a_bounded_number_of_descriptions(tmp_path):
    """Each paper the reader showed stayed described (its rendered abstract, 3.8 KB on average) for
    the rest of the session: 40 MB had every one of 10,744 papers been shown, or built here."""
    path = tmp_path / "many.txt"
    abstracts = [f"Paper {n} studies $x^{n}$ with \\emph{{care}} and https://example.org/{n}." for n in range(3000)]
    path.write_text("MANY 2024 list\n\n" + "\n\n".join(abstracts) + "\n", encoding="utf-8")
    engine = SearchEngine(load_corpus([path]), cache_dir=tmp_path / "cache")
    first = engine.papers[0].id
    shown = engine.describe(first).rendered.text
    for paper in engine.papers:
        assert engine.describe(paper.id).rendered.text
    assert engine.describe.cache_info().currsize < len(engine.papers) == 3000
    assert engine.describe(first).rendered.text == shown  # described again the same, when asked again
