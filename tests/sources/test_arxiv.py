"""arXiv's Atom API against the local server: paging, pacing, the mapping to JSON records, and the
XML it must refuse (entity bombs, external entities, malformed or foreign feeds)."""

from __future__ import annotations

import json
import time

import pytest

from search import SourceError, get_list, load_corpus, parse_request
from search.sources import arxiv
from tests.sources.server import snapshot

QUERY = "cat:cs.LG AND ti:diffusion"


def entry(number: int) -> str:
    return f"""
  <entry>
    <id>http://arxiv.org/abs/2410.{number:05d}v2</id>
    <updated>2024-11-0{number % 9 + 1}T10:00:00Z</updated>
    <published>2024-10-3{number % 2}T17:59:5{number % 10}Z</published>
    <title>Diffusion Models, Case {number}:
      Faster Sampling with $\\tilde{{O}}(n)$ Steps</title>
    <summary>  We study diffusion sampling, case {number}, and show
that $\\tilde{{O}}(n)$ steps suffice &amp; more.
  </summary>
    <author><name>Ada Lovelace</name></author>
    <author><name>Alan Turing</name><arxiv:affiliation>Cambridge</arxiv:affiliation></author>
    <arxiv:doi>10.1000/xyz{number}</arxiv:doi>
    <link href="http://arxiv.org/abs/2410.{number:05d}v2" rel="alternate" type="text/html"/>
    <link title="pdf" href="http://arxiv.org/pdf/2410.{number:05d}v2" rel="related" type="application/pdf"/>
    <arxiv:primary_category term="cs.LG" scheme="http://arxiv.org/schemas/atom"/>
    <category term="cs.LG" scheme="http://arxiv.org/schemas/atom"/>
    <category term="stat.ML" scheme="http://arxiv.org/schemas/atom"/>
  </entry>"""


def feed(entries: str, total: int, start: int = 0) -> bytes:
    return f"""<?xml version="1.0" encoding="UTF-8"?>
<feed xmlns="http://www.w3.org/2005/Atom">
  <link href="http://arxiv.org/api/query" rel="self" type="application/atom+xml"/>
  <title type="html">ArXiv Query: search_query={QUERY}</title>
  <id>http://arxiv.org/api/abc</id>
  <updated>2024-11-01T00:00:00-04:00</updated>
  <opensearch:totalResults xmlns:opensearch="http://a9.com/-/spec/opensearch/1.1/">{total}</opensearch:totalResults>
  <opensearch:startIndex xmlns:opensearch="http://a9.com/-/spec/opensearch/1.1/">{start}</opensearch:startIndex>
  <opensearch:itemsPerPage xmlns:opensearch="http://a9.com/-/spec/opensearch/1.1/">2</opensearch:itemsPerPage>
  {entries}
</feed>
""".replace("<feed ", '<feed xmlns:arxiv="http://arxiv.org/schemas/atom" ', 1).encode("utf-8")


def serve_results(server, total: int) -> None:
    def respond(h):
        start, count = int(h.query["start"]), int(h.query["max_results"])
        body = feed("".join(entry(n) for n in range(start, min(start + count, total))), total, start)
        h.body(body, "application/atom+xml", compress=True)

    server.route("/arxiv/api/query", respond)


def test_results_page_and_map_to_records(server, library, monkeypatch):
    monkeypatch.setattr(arxiv, "PAGE_SIZE", 2)
    serve_results(server, total=7)
    got = get_list(parse_request(f"arxiv:{QUERY}", max_results=5))
    assert got.name == "arxiv-cat-cs.lg-and-ti-diffusion" and got.papers == 5 and got.requests == 3
    asked = [(seen.query["start"], seen.query["max_results"]) for seen in server.seen]
    assert asked == [("0", "2"), ("2", "2"), ("4", "1")]
    assert server.seen[0].query["search_query"] == QUERY and server.seen[0].query["sortBy"] == "submittedDate"
    record = json.loads(got.path.read_text(encoding="utf-8"))[0]
    assert record["id"] == record["arxiv"] == "2410.00000"
    assert record["title"] == "Diffusion Models, Case 0: Faster Sampling with $\\tilde{O}(n)$ Steps"
    assert (
        record["abstract"] == "We study diffusion sampling, case 0, and show that $\\tilde{O}(n)$ steps suffice & more."
    )
    assert record["author"] == "Ada Lovelace; Alan Turing" and record["keywords"] == "cs.LG; stat.ML"
    assert (record["site"], record["pdf"]) == (
        "https://arxiv.org/abs/2410.00000v2",
        "https://arxiv.org/pdf/2410.00000v2",
    )
    assert (record["year"], record["venue"], record["doi"]) == (2024, "arXiv", "10.1000/xyz0")
    paper = load_corpus([got.path]).papers[0]
    assert paper.title == "Diffusion Models, Case 0: Faster Sampling with Õ(n) Steps"
    assert paper.authors == ("Ada Lovelace", "Alan Turing") and paper.keywords == ("cs.LG", "stat.ML")
    assert paper.venue == "arXiv 2024" and paper.year == 2024
    origin = library.origin(got.name)
    assert (origin.kind, origin.source, origin.max_results) == ("arxiv", QUERY, 5)


def test_fewer_results_than_asked_stop_at_the_total(server, library, monkeypatch):
    monkeypatch.setattr(arxiv, "PAGE_SIZE", 2)
    serve_results(server, total=3)
    got = get_list(parse_request(f"arxiv:{QUERY}", name="few", max_results=100))
    assert got.papers == 3 and len(server.seen) == 2


def test_requests_are_paced_as_arxiv_asks(server, library, monkeypatch):
    monkeypatch.setattr(arxiv, "PAGE_SIZE", 1)
    monkeypatch.setattr(arxiv, "PAUSE", 0.25)
    serve_results(server, total=3)
    started = time.monotonic()
    get_list(parse_request(f"arxiv:{QUERY}", max_results=3))
    assert time.monotonic() - started >= 0.5


BOMB = b"""<?xml version="1.0"?>
<!DOCTYPE feed [
  <!ENTITY a "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa">
  <!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">
  <!ENTITY c "&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;">
  <!ENTITY d "&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;">
  <!ENTITY e "&d;&d;&d;&d;&d;&d;&d;&d;&d;&d;&d;&d;&d;&d;&d;&d;">
  <!ENTITY f "&e;&e;&e;&e;&e;&e;&e;&e;&e;&e;&e;&e;&e;&e;&e;&e;">
  <!ENTITY g "&f;&f;&f;&f;&f;&f;&f;&f;&f;&f;&f;&f;&f;&f;&f;&f;">
]>
<feed xmlns="http://www.w3.org/2005/Atom"><entry><id>http://arxiv.org/abs/1</id><title>t</title>
<summary>&g;</summary></entry></feed>"""

XXE = b"""<?xml version="1.0"?>
<!DOCTYPE feed [<!ENTITY secret SYSTEM "file:///etc/hostname">]>
<feed xmlns="http://www.w3.org/2005/Atom"><entry><id>http://arxiv.org/abs/1</id><title>t</title>
<summary>&secret;</summary></entry></feed>"""

REFUSED = "{host}: refused the answer: it declares a DTD or XML entities (DTDForbidden), which an arXiv feed never does"

ERROR_FEED = feed(
    "<entry><id>http://arxiv.org/api/errors#bad</id><title>Error</title>"
    "<summary>malformed query: unbalanced parentheses</summary></entry>",
    total=1,
)


@pytest.mark.parametrize(
    ("body", "message"),
    [
        (BOMB, REFUSED),
        (XXE, REFUSED),
        (
            b"<feed xmlns='http://www.w3.org/2005/Atom'><entry>",
            "{host}: the answer is not an Atom feed (malformed XML: ",
        ),
        (b"<rss version='2.0'><channel/></rss>", "{host}: the answer is not an Atom feed (its root is <rss>)"),
        (
            ERROR_FEED,
            "{host}: arXiv refused the query 'cat:cs.LG AND ti:diffusion': malformed query: unbalanced parentheses",
        ),
        (feed("", total=0), "{host}: arXiv found no papers for 'cat:cs.LG AND ti:diffusion'"),
    ],
    ids=["entity bomb", "external entity", "malformed", "not atom", "error feed", "no results"],
)
def test_bad_feeds_are_refused_and_the_library_unchanged(server, library, body, message):
    server.route("/arxiv/api/query", lambda h: h.body(body, "application/atom+xml"))
    before = snapshot(library.folder)
    started = time.monotonic()
    with pytest.raises(SourceError) as error:
        get_list(parse_request(f"arxiv:{QUERY}"))
    assert str(error.value).startswith(message.format(host=server.url.removeprefix("http://")))
    assert "\n" not in str(error.value) and time.monotonic() - started < 2  # the bomb is never expanded
    assert snapshot(library.folder) == before


def test_asking_beyond_what_arxiv_pages_through_is_refused(server):
    with pytest.raises(SourceError, match=r"--max 40,000 is more than arXiv pages through \(30,000\)"):
        get_list(parse_request(f"arxiv:{QUERY}", max_results=40_000))
    assert server.seen == []
