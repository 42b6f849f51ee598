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


# -- issue 34: a page is read a piece at a time, within bounds; paging that goes nowhere ends --------


def peak_memory(call) -> int:
    """The most memory Python held (tracemalloc) while `call` ran, in bytes."""
    import tracemalloc

    tracemalloc.start()
    try:
        call()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_a_page_of_many_elements_is_read_a_piece_at_a_time(server, library):
    """52 MB of nested XML in one page used to be built whole (2.15 GB); now the parser keeps one entry's
    fields at a time, so what a page costs does not grow with it: five times the page, about as much memory
    (the page built whole held 20 times its size)."""
    bodies = {}

    def respond(h):
        h.body(bodies[h.query["search_query"]], "application/atom+xml")

    server.route("/arxiv/api/query", respond)
    peaks, sizes = [], []
    for elements in (10_000, 50_000):
        junk = "<x><y/></x>" * elements
        query = f"cat:cs.LG {elements}"
        bodies[query] = feed(entry(1) + f"<entry><id>http://arxiv.org/abs/2410.00002v1</id>{junk}</entry>", total=2)
        got: list = []
        peaks.append(peak_memory(lambda: got.append(get_list(parse_request(f"arxiv:{query}", max_results=2)))))  # noqa: B023
        sizes.append(len(bodies[query]))
        assert got[0].papers == 1
    assert len(server.seen) == 2
    assert peaks[1] - peaks[0] < (sizes[1] - sizes[0]) / 4, f"{peaks} bytes held for pages of {sizes} bytes"


TOO_DEEP = "<entry><id>http://arxiv.org/abs/1</id>" + "<a>" * 100 + "</a>" * 100 + "</entry>"
NAMES = "".join(f"<x{number}/>" for number in range(1_200))
LONG_TEXT = "<entry><id>http://arxiv.org/abs/1</id><summary>" + "ab<!---->" * 12_000 + "</summary></entry>"
LONG_TAG = "<entry " + " ".join(f'a{number}=""' for number in range(40_000)) + "/>"


@pytest.mark.parametrize(
    ("content", "limits", "message"),
    [
        (TOO_DEEP, {}, "the answer is not an arXiv feed (XML nested deeper than 32 levels)"),
        ("<x/>" * 3_000, {"MAX_ELEMENTS": 2_000}, "the answer is not an arXiv feed (more than 2,000 XML elements"),
        (NAMES, {}, "the answer is not an arXiv feed (more than 1,000 different element and attribute names)"),
        (LONG_TEXT, {"MAX_TEXT": 20_000}, "(an entry's <summary> holds more than 20,000 characters)"),
        (LONG_TAG, {"MAX_RUN": 200_000, "CHUNK": 16_384}, "(more than 200,000 bytes without a '>')"),
        ("".join(entry(n) for n in range(3)), {}, "arXiv sent more than 2 results in one page where max_results=2"),
    ],
    ids=["too deep", "too many elements", "too many names", "a long field", "a long tag", "more than asked"],
)
def test_what_no_arxiv_page_holds_is_refused_as_it_is_read(server, library, monkeypatch, content, limits, message):
    for name, value in limits.items():
        monkeypatch.setattr(arxiv, name, value)
    server.route("/arxiv/api/query", lambda h: h.body(feed(content, total=2), "application/atom+xml"))
    before = snapshot(library.folder)
    with pytest.raises(SourceError) as error:
        get_list(parse_request(f"arxiv:{QUERY}", max_results=2))
    assert message in str(error.value) and "\n" not in str(error.value)
    assert len(server.seen) == 1 and snapshot(library.folder) == before


def test_pages_of_one_result_end_the_download_at_the_first(server, library):
    """Pages of one entry each used to go on for --max requests (1,000 at 3 s: 50 minutes)."""

    def respond(h):
        start = int(h.query["start"])
        h.body(feed(entry(start), total=50_000, start=start), "application/atom+xml")

    server.route("/arxiv/api/query", respond)
    before = snapshot(library.folder)
    with pytest.raises(SourceError) as error:
        get_list(parse_request(f"arxiv:{QUERY}"))
    host = server.url.removeprefix("http://")
    assert str(error.value) == (
        f"{host}: arXiv sent 1 result for start=0 where max_results=1,000 was asked, though it counts 50,000:"
        " it is not paging as asked; stopped at 1 of 1,000 papers and saved nothing (try again later)"
    )
    assert len(server.seen) == 1 and snapshot(library.folder) == before


def test_the_same_page_again_ends_the_download(server, library, monkeypatch):
    """A server that ignores start used to be paged to the end, keeping its first page as the whole list."""
    monkeypatch.setattr(arxiv, "PAGE_SIZE", 2)
    server.route("/arxiv/api/query", lambda h: h.body(feed(entry(0) + entry(1), total=10), "application/atom+xml"))
    before = snapshot(library.folder)
    with pytest.raises(SourceError) as error:
        get_list(parse_request(f"arxiv:{QUERY}", max_results=10))
    assert ": arXiv sent the same results again for start=2, though it counts 10: it is not paging as asked;" in str(
        error.value
    )
    assert len(server.seen) == 2 and snapshot(library.folder) == before


def test_a_page_a_little_short_goes_on_and_an_empty_one_before_the_end_stops(server, library, monkeypatch):
    monkeypatch.setattr(arxiv, "PAGE_SIZE", 4)

    def respond(h):  # three of the four asked for each time (arXiv sometimes sends a few less), then nothing
        start = int(h.query["start"])
        entries = "".join(entry(n) for n in range(start, start + 3)) if start < 9 else ""
        h.body(feed(entries, total=12, start=start), "application/atom+xml")

    server.route("/arxiv/api/query", respond)
    with pytest.raises(SourceError) as error:
        get_list(parse_request(f"arxiv:{QUERY}", max_results=12))
    assert "arXiv sent no results for start=9, though it counts 12: it is not paging as asked; stopped at 9 of 12" in (
        str(error.value)
    )
    assert [seen.query["start"] for seen in server.seen] == ["0", "3", "6", "9"]
    got = get_list(parse_request(f"arxiv:{QUERY}", max_results=9))
    assert got.papers == 9


def test_numbers_in_a_feed_are_ascii_digits_or_ignored():
    """`str.isdigit()` is true for "²" and "١": int() of them raised, or read a count no feed said."""
    from search.sources import arxiv

    entry = {
        "id": "http://arxiv.org/abs/2401.00001v1",
        "title": "T",
        "summary": "S",
        "published": "²²²²-01-01T00:00:00Z",
        "links": [],
        "authors": [],
        "categories": [],
    }
    record = arxiv._record(entry)
    assert record is not None and "year" not in record
