"""A list's code links, however the list writes them, reach the reader, `has:code`, `y` and `o`."""

import json

import pytest

from search.corpus.loader import load_corpus
from search.models import SearchRequest
from search.text.describe import describe, primary_link, summarize

ABSTRACT = "We study counting in visual question answering. It helps."
# iclr2018.json writes every github value as Markdown: a repository, a Papers with Code page, or both.
REPO_AND_PWC = (
    "[![github](/images/github_icon.svg) Cyanogenoid/vqa-counting](https://github.com/Cyanogenoid/vqa-counting)"
    " + [![Papers with Code](/images/pwc_icon.svg) 3 community implementations]"
    "(https://paperswithcode.com/paper/?openreview=B12Js_yRb)"
)
PWC_ONLY = (
    "[![Papers with Code](/images/pwc_icon.svg) 15 community implementations]"
    "(https://paperswithcode.com/paper/?openreview=B14TlG-RW)"
)
WITH_PARENTHESES = (
    "[![github](/images/github_icon.svg) vanderschaarlab/mlforhealthlabpub]"
    "(https://github.com/vanderschaarlab/mlforhealthlabpub/tree/main/alg/DeepSensing%20(MRNN))"
)
CODALAB = (
    "[worksheets/0xa21e7940](https://worksheets.codalab.org/worksheets/0xa21e794020bb474d8804ec7bc0543f52)"
    " + [![Papers with Code](/images/pwc_icon.svg) 3 community implementations]"
    "(https://paperswithcode.com/paper/?openreview=rJ4km2R5t7)"
)


def load(tmp_path, records, name="iclr2018.json"):
    path = tmp_path / name
    path.write_text(json.dumps(records), encoding="utf-8")
    return load_corpus([path]).papers


def code_urls(paper):
    return [link.url for link in describe(paper).links if link.kind == "code"]


@pytest.mark.parametrize(
    "github, expected",
    [
        (
            REPO_AND_PWC,
            ["https://github.com/Cyanogenoid/vqa-counting", "https://paperswithcode.com/paper/?openreview=B12Js_yRb"],
        ),
        (PWC_ONLY, ["https://paperswithcode.com/paper/?openreview=B14TlG-RW"]),
        (WITH_PARENTHESES, ["https://github.com/vanderschaarlab/mlforhealthlabpub/tree/main/alg/DeepSensing%20(MRNN)"]),
        (
            CODALAB,
            [
                "https://worksheets.codalab.org/worksheets/0xa21e794020bb474d8804ec7bc0543f52",
                "https://paperswithcode.com/paper/?openreview=rJ4km2R5t7",
            ],
        ),
        ("github.com/f-dangel/hbp", ["https://github.com/f-dangel/hbp"]),  # aistats2020: no scheme
        ("keypointnet.github.io", ["https://keypointnet.github.io"]),  # nips2018: a project-pages host
        ("https://github.com/wangyucheng1234/BerV AE", ["https://github.com/wangyucheng1234/BerVAE"]),
        ("https://github.com/a/b; https://gitlab.com/c/d", ["https://github.com/a/b", "https://gitlab.com/c/d"]),
        # a plain address beside a Markdown link is kept too
        ("https://github.com/a/b [demo](https://github.com/c/d)", ["https://github.com/c/d", "https://github.com/a/b"]),
    ],
)
def test_every_way_a_list_writes_its_code_link_gives_a_code_link(tmp_path, github, expected):
    (paper,) = load(tmp_path, [{"id": "p", "title": "Counting", "abstract": ABSTRACT, "github": github}])
    assert code_urls(paper) == expected
    assert describe(paper).has_code


def test_markdown_labels_and_icons_are_not_links(tmp_path):
    (paper,) = load(tmp_path, [{"id": "p", "abstract": ABSTRACT, "github": REPO_AND_PWC}])
    urls = [link.url for link in describe(paper).links]
    assert not any("github_icon" in url or "pwc_icon" in url for url in urls)
    labels = {link.url: link.label for link in describe(paper).links}
    assert labels["https://paperswithcode.com/paper/?openreview=B12Js_yRb"] == "Papers with Code"
    assert labels["https://github.com/Cyanogenoid/vqa-counting"] == "code"


@pytest.mark.parametrize("value", ["this URL", "arXiv:2006.06850", "github.com", "   "])
def test_text_that_is_no_address_gives_no_link_and_no_code_mark(tmp_path, value):
    (paper,) = load(tmp_path, [{"id": "p", "abstract": ABSTRACT, "github": value, "project": value}])
    assert paper.github is None and paper.project is None
    assert not describe(paper).has_code
    assert {link.kind for link in describe(paper).links} == {"search"}


def test_several_project_pages_are_each_a_link(tmp_path):
    project = "http://code.google.com/archive/p/word2vec; http://caffe.berkeleyvision.org/model_zoo"  # icml2017
    (paper,) = load(tmp_path, [{"id": "p", "abstract": ABSTRACT, "project": project}])
    pages = [link.url for link in describe(paper).links if link.kind == "project"]
    assert pages == ["http://code.google.com/archive/p/word2vec", "http://caffe.berkeleyvision.org/model_zoo"]


def test_the_records_code_link_comes_before_a_repository_the_abstract_mentions(tmp_path):
    abstract = "We count objects. Our earlier code is at https://github.com/someone/old-baseline."
    (paper,) = load(tmp_path, [{"id": "p", "abstract": abstract, "github": "github.com/Cyanogenoid/vqa-counting"}])
    assert code_urls(paper) == [
        "https://github.com/Cyanogenoid/vqa-counting",
        "https://github.com/someone/old-baseline",
    ]
    # y copies, o opens the primary link: with no paper page, PDF or arXiv page, the list's own code
    assert primary_link(describe(paper).links).url == "https://github.com/Cyanogenoid/vqa-counting"


def test_a_paper_page_stays_the_primary_link_when_there_is_code(tmp_path):
    site = "https://openreview.net/forum?id=B12Js_yRb"
    (paper,) = load(tmp_path, [{"id": "p", "abstract": ABSTRACT, "site": site, "github": REPO_AND_PWC}])
    assert primary_link(describe(paper).links).url == site


def test_the_abstracts_links_keep_their_numbers_in_the_text(tmp_path):
    """The reader numbers each link in the abstract by its place in the link list: a record's code
    link before it must not leave an abstract link unnumbered, nor the same address twice."""
    abstract = "Code: https://github.com/Cyanogenoid/vqa-counting and data at https://example.org/counts."
    (paper,) = load(tmp_path, [{"id": "p", "abstract": abstract, "github": REPO_AND_PWC}])
    urls = [link.url for link in describe(paper).links]
    assert len(urls) == len(set(urls))
    assert {link.url for link in describe(paper).rendered.links} <= set(urls)


def test_csv_and_bibtex_code_columns_without_a_scheme(tmp_path):
    csv = tmp_path / "list.csv"
    csv.write_text("title,abstract,code\nCounting,We count things well.,github.com/a/csv-code\n", encoding="utf-8")
    bib = tmp_path / "list.bib"
    bib.write_text(
        "@inproceedings{k, title={Counting}, abstract={We count.}, code={github.com/a/bib-code}}\n", encoding="utf-8"
    )
    (from_csv,) = load_corpus([csv]).papers
    (from_bib,) = load_corpus([bib]).papers
    assert code_urls(from_csv) == ["https://github.com/a/csv-code"]
    assert code_urls(from_bib) == ["https://github.com/a/bib-code"]


def test_an_openreview_notes_code_field_in_any_form(tmp_path):
    note = {
        "id": "abc",
        "forum": "abc",
        "content": {"abstract": {"value": ABSTRACT}, "code": {"value": "gitlab.com/team/counting"}},
    }
    (paper,) = load(tmp_path, [note], name="notes.json")
    assert code_urls(paper) == ["https://gitlab.com/team/counting"]


def test_has_code_finds_markdown_and_schemeless_code_links(engine_over):
    engine = engine_over(
        {
            "iclr2018.json": [
                {"id": "md", "title": "Counting", "abstract": "Counting objects, case one.", "github": REPO_AND_PWC},
                {"id": "pwc", "title": "Others", "abstract": "Counting objects, case two.", "github": PWC_ONLY},
                {
                    "id": "bare",
                    "title": "Bare",
                    "abstract": "Counting objects, case three.",
                    "github": "github.com/a/b",
                },
                {"id": "none", "title": "None", "abstract": "Counting objects, case four.", "github": ""},
            ]
        }
    )
    found = {hit.paper_id for hit in engine.search("counting has:code").hits}
    assert found == {"md", "pwc", "bare"}
    assert {hit.paper_id for hit in engine.search("counting -has:code").hits} == {"none"}


@pytest.mark.corpora
def test_every_real_record_with_a_code_value_has_a_code_link(real_corpora, paperlist_files):
    engine = real_corpora.engine
    missing = []
    counted = 0
    for path in paperlist_files:
        for record in json.loads(path.read_text(encoding="utf-8")):
            if isinstance(record, dict) and record.get("github") and record.get("abstract"):
                counted += 1
                if not engine.describe(engine.canonical(str(record["id"]))).has_code:
                    missing.append((path.name, record["github"]))
    assert counted > 400 and not missing


@pytest.mark.corpora
def test_has_code_on_iclr2018_finds_every_paper_whose_record_has_code(real_engine, paperlist_files):
    (iclr2018,) = [path for path in paperlist_files if path.name == "iclr2018.json"]
    records = json.loads(iclr2018.read_text(encoding="utf-8"))
    with_code = {real_engine.canonical(str(r["id"])) for r in records if r.get("github") and r.get("abstract")}
    result = real_engine.search(SearchRequest("has:code list:iclr2018", limit=len(records)))
    assert len(with_code) > 250  # every one of them is Markdown: none was found before
    assert with_code <= {hit.paper_id for hit in result.hits}


def _summary_of(description):
    return (description.paper, description.rendered, description.name, description.headline, description.has_code)


@pytest.mark.parametrize(
    "record",
    [
        {"id": "p", "title": "Counting", "abstract": ABSTRACT, "github": REPO_AND_PWC},
        {
            "id": "p",
            "abstract": "We count. Code: https://github.com/a/b and https://x.org/y.",
            "project": "https://x.org/z",
        },
        {"id": "p", "abstract": ABSTRACT, "project": "keypointnet.github.io", "github": "github.com/f-dangel/hbp"},
        # the abstract's code link is the project page's URL: listed once, as the project page
        {"id": "p", "abstract": "See https://github.com/a/b for it.", "project": "https://github.com/a/b"},
        {"id": "p", "abstract": "$x^2$ holds for \\textbf{all} x, see \\url{https://gitlab.com/c/d}."},
        {"id": "p", "abstract": ABSTRACT},
    ],
)
def test_a_child_builds_summary_is_the_description_without_its_links(tmp_path, record):
    """What the index keeps of a paper (search/index/child.py summarizes, without making its links)
    is what the reader's description gives."""
    (paper,) = load(tmp_path, [record])
    assert _summary_of(summarize(paper)) == _summary_of(describe(paper))


def test_a_code_link_listed_first_as_a_project_page_is_no_code(tmp_path):
    record = {"id": "p", "abstract": "See https://github.com/a/b for it.", "project": "https://github.com/a/b"}
    (paper,) = load(tmp_path, [record])
    assert not describe(paper).has_code and not summarize(paper).has_code


@pytest.mark.corpora
def test_every_real_papers_summary_is_its_description_without_links(real_corpora):
    papers = real_corpora.engine.corpus.papers
    assert all(_summary_of(summarize(paper)) == _summary_of(describe(paper)) for paper in papers)
