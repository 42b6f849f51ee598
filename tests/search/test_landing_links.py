"""Links a researcher follows: the venue's landing page is the page `y` copies (never the PDF when
a page exists), Google Scholar's cited-by page is listed, and an OpenReview search is offered only
for papers that may be on OpenReview."""

from __future__ import annotations

from search.models import Facts, Paper
from search.text.describe import describe, primary_link

ABSTRACT = "We study steerable convolutions for volumetric data."
CVF = "https://openaccess.thecvf.com/content/CVPR2023/html/X_Paper_CVPR_2023_paper.html"
PDF = "https://openaccess.thecvf.com/content/CVPR2023/papers/X_Paper_CVPR_2023_paper.pdf"


def links(paper: Paper):
    return describe(paper).links


def test_the_venues_landing_page_is_copied_not_the_pdf():
    paper = Paper("p", ABSTRACT, venue="CVPR 2023", year=2023, title="X", pdf=PDF, facts=Facts(landing=CVF))
    assert primary_link(links(paper)).url == CVF
    assert primary_link(links(paper._replace(facts=Facts()))).url == PDF  # without one, the PDF as before


def test_the_cited_by_page_is_a_link():
    cited = "https://scholar.google.com/scholar?cites=1"
    paper = Paper("p", ABSTRACT, title="X", citations=5, facts=Facts(cited_by=cited))
    assert any(link.url == cited and link.kind == "citations" for link in links(paper))


def test_openreview_search_only_where_the_paper_may_be_on_openreview():
    def searched(paper: Paper) -> bool:
        return any(link.label == "OpenReview search" for link in links(paper))

    assert not searched(Paper("p", ABSTRACT, venue="CVPR 2023", year=2023, title="X"))
    assert not searched(Paper("p", ABSTRACT, venue="NeurIPS 2018", year=2018, title="X"))
    assert searched(Paper("p", ABSTRACT, venue="NeurIPS 2023", year=2023, title="X"))
    assert searched(Paper("p", ABSTRACT, venue="ICLR 2018", year=2018, title="X"))
    assert searched(Paper("p", ABSTRACT, title="X"))  # a list that does not say where it is from
    assert searched(Paper("p", ABSTRACT, venue="CVPR 2023", site="https://openreview.net/forum?id=a", title="X"))
