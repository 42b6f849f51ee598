"""What the interface shows for a paper besides its abstract: name, headline and links."""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from urllib.parse import quote_plus

from search.models import Bookmark, Link, Paper, Rendered
from search.text.links import field_urls, safe_link
from search.text.markup import convert
from search.text.names import detect_name, title_name
from search.text.sanitize import sanitize

HEADLINE_CHARS = 110
ARXIV = "https://arxiv.org/abs/"
_SENTENCE_END = re.compile(r"(?<!\be\.g)(?<!\bi\.e)(?<!\bal)(?<!\bvs)[.!?](?=\s|$)")


@dataclass(frozen=True, slots=True)
class Description:
    """A paper with everything derived from it for display."""

    paper: Paper
    rendered: Rendered
    name: str | None
    headline: str
    links: tuple[Link, ...]

    @property
    def has_code(self) -> bool:
        return any(link.kind == "code" for link in self.links)


@dataclass(frozen=True, slots=True)
class Summary:
    """What the index keeps of a paper's description (its text, name, headline and whether it links
    to code), made without the rest of its links: a child build (search/index/child.py) describes
    every paper of a list once, and the links are made again when the reader shows the paper."""

    paper: Paper
    rendered: Rendered
    name: str | None
    headline: str
    has_code: bool


def describe(paper: Paper) -> Description:
    rendered = convert(paper.abstract)
    name = _name(paper, rendered)
    return Description(paper, rendered, name, headline(paper, rendered.text, name), paper_links(paper, rendered, name))


def summarize(paper: Paper) -> Summary:
    """`describe` without the links: the same text, name, headline and has_code."""
    rendered = convert(paper.abstract)
    name = _name(paper, rendered)
    return Summary(paper, rendered, name, headline(paper, rendered.text, name), _has_code(paper, rendered))


def _name(paper: Paper, rendered: Rendered) -> str | None:
    # A titled paper's name is its title's (or none): an abstract's acronyms are more often the
    # field's (NMT, MCMC) than the paper's. A title added to a list of abstracts (the bundled one)
    # leaves the paper the name its abstract introduces.
    title = None if paper.title_added else paper.title
    return title_name(title) if title else detect_name(rendered)


_CODE_URL = re.compile(r"(?<![\w.@-])(?:https?://)?(?:www\.)?(?:github\.com|gitlab\.com|bitbucket\.org)/[\w.-]+", re.I)
"""A repository named in the raw abstract, as the converted one's links find it (search/text/links.py)."""


def quick_has_code(paper: Paper) -> bool:
    """Whether the paper has code (the list's link, or a repository its abstract names), without
    converting the markup: what Description.has_code says for all but a handful of papers in the
    real lists, for the rows shown before the index has stored each paper's row."""
    return bool(paper.github) or _CODE_URL.search(paper.abstract) is not None


def quick_headline(paper: Paper) -> str:
    """A headline without markup conversion, for the moments before the index has stored the real one."""
    return paper.title or cut(" ".join(sanitize(paper.abstract).split()), HEADLINE_CHARS)


def headline(paper: Paper, plain: str, name: str | None) -> str:
    """The title when the corpus has one, else the name plus the first sentence, cut at a word."""
    if paper.title:
        return paper.title
    match = _SENTENCE_END.search(plain)
    sentence = plain[: match.start()] if match else plain
    sentence = cut(" ".join(sentence.split()), HEADLINE_CHARS)
    return f"{name}: {sentence}" if name else sentence


def cut(text: str, limit: int) -> str:
    """Shorten text to at most `limit` characters at a word boundary, marking the cut with '…'."""
    if len(text) <= limit:
        return text
    head = text[: limit - 1]
    if " " in head:
        head = head[: head.rindex(" ")]
    return head.rstrip(",;:- ") + "…"


def paper_links(paper: Paper, rendered: Rendered, name: str | None) -> tuple[Link, ...]:
    """The record's code and project links, then the abstract's, then the record's paper page, PDF and
    arXiv page, then web searches that always exist. The record's own code comes before a repository
    the abstract mentions, so `y` and `o` (see `primary_link`) take the list's code link."""
    candidates = [
        *_own_links(paper, rendered),
        safe_link(_page_label(paper.site), paper.site, "paper"),
        safe_link("venue's page", paper.facts.landing, "paper"),
        safe_link("PDF", paper.pdf, "pdf"),
        safe_link("arXiv page", f"{ARXIV}{paper.arxiv}" if paper.arxiv else None, "arxiv"),
        safe_link("Google Scholar: cited by", paper.facts.cited_by, "citations"),
    ]
    query = paper.title or " ".join(filter(None, [name, " ".join(rendered.text.split()[:12])]))
    encoded = quote_plus(query)
    candidates.append(Link("Google Scholar search", f"https://scholar.google.com/scholar?q={encoded}", "search"))
    if on_openreview(paper):
        candidates.append(
            Link(
                "OpenReview search",
                f"https://openreview.net/search?term={encoded}&content=all&group=all&source=all",
                "search",
            )
        )
    links: list[Link] = []
    seen: set[str] = set()
    for link in candidates:
        if link is not None and link.url not in seen:
            seen.add(link.url)
            links.append(link)
    return tuple(links)


def _own_links(paper: Paper, rendered: Rendered) -> list[Link | None]:
    """The links `paper_links` lists first: the record's code and project links, then the abstract's.
    Every later one is of a kind other than code, so these alone say whether a paper has code."""
    return [
        *(safe_link(_code_label(url), url, "code") for url in field_urls(paper.github)),
        *(safe_link("project page", url, "project") for url in field_urls(paper.project)),
        *rendered.links,
    ]


def _has_code(paper: Paper, rendered: Rendered) -> bool:
    """Whether `paper_links` lists a code link: a URL listed twice keeps its first kind."""
    kinds: dict[str, str] = {}
    for link in _own_links(paper, rendered):
        if link is not None:
            kinds.setdefault(link.url, link.kind)
    return "code" in kinds.values()


NOT_ON_OPENREVIEW = frozenset({"CVPR", "ICCV", "ECCV", "WACV", "AAAI", "IJCAI", "KDD", "SIGGRAPH", "ICRA", "IROS"})
"""Venues whose papers are not on OpenReview."""
OPENREVIEW_SINCE = {"NEURIPS": 2021, "ICML": 2023, "CORL": 2021, "UAI": 2022, "AISTATS": 2025, "WWW": 2024}
"""Venues on OpenReview only since a year."""


def on_openreview(paper: Paper) -> bool:
    """Whether an OpenReview search may find the paper: its page, PDF or authors are there, or its
    venue is not one known to be elsewhere (CVPR; NeurIPS before 2021)."""
    if "openreview.net" in f"{paper.site} {paper.pdf}".lower() or any(paper.facts.author_ids):
        return True
    venue = (paper.venue or "").upper().split()
    if not venue:
        return True
    since = OPENREVIEW_SINCE.get(venue[0])
    if since is not None:
        return paper.year is None or paper.year >= since
    return venue[0] not in NOT_ON_OPENREVIEW


def _code_label(url: str) -> str:
    return "Papers with Code" if "://paperswithcode.com/" in url.lower() else "code"


def _page_label(url: str | None) -> str:
    host = (url or "").lower()
    if "openreview.net/" in host:
        return "OpenReview page"
    if "arxiv.org/" in host:
        return "arXiv page"
    return "paper page"


def bookmark_of(description: Description) -> Bookmark:
    """What the user store keeps of a paper when it is bookmarked."""
    paper = description.paper
    return Bookmark(
        paper_id=paper.id,
        headline=description.headline,
        venue=paper.venue,
        name=description.name,
        title=paper.title,
        authors=paper.authors,
        year=paper.year,
        links=description.links,
        abstract=description.rendered.text,
        abstract_hash=hashlib.sha256(paper.abstract.encode("utf-8", "surrogatepass")).hexdigest()[:16],
    )


def display_label(bookmark: Bookmark, short: bool = False) -> str:
    """How a paper is named in one line: its title; without one, its headline ("BitStack: We
    propose…"), or with `short` (notifications, BibTeX titles) its method name when one was found."""
    if bookmark.title:
        return bookmark.title
    return (bookmark.name or bookmark.headline) if short else bookmark.headline


PRIMARY_ORDER = (("paper",), ("arxiv",), ("pdf",), ("code", "project"), ("search",))
"""What `y` copies and citations link to, best first: the paper's own page (OpenReview forum, or
the list's paper page), its arXiv page, its PDF, then code or a project page, then a search."""


def primary_link(links: tuple[Link, ...]) -> Link:
    """The paper's page, else its arXiv page, else its PDF, else code or project page, else a search."""
    for kinds in PRIMARY_ORDER:
        for link in links:
            if link.kind in kinds:
                return link
    return links[0]
