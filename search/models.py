"""The engine's value types. Frozen, so they can be cached and shared across threads."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import NamedTuple


@dataclass(frozen=True, slots=True)
class Link:
    """A labelled URL. `kind` says what it points at: code, project, paper, pdf, arxiv, search or link."""

    label: str
    url: str
    kind: str = "link"


@dataclass(frozen=True, slots=True)
class Span:
    """A style over text[start:end]; link spans carry the index of their entry in `links`."""

    start: int
    end: int
    style: str
    link: int | None = None


@dataclass(frozen=True, slots=True)
class Rendered:
    """Abstract source converted to plain text, style spans and the links it contains."""

    text: str
    spans: tuple[Span, ...] = ()
    links: tuple[Link, ...] = ()


class Facts(NamedTuple):
    """What a list says about a paper beyond its text: reviews, people, citations, summaries (see
    ../shared/notes/paperlists-fields.md). Per-author tuples follow `Paper.authors`' order, "" where
    the list has nothing for that author; several institutions or countries of one author are
    joined with " + ". Absent values are None or empty, never invented. A named tuple so the saved
    corpus writes it as a plain tuple (snapshot.py, parsed.py)."""

    ratings: tuple[float, ...] = ()
    """Each reviewer's score, in reviewer order."""
    confidences: tuple[float, ...] = ()
    rating_std: float | None = None
    """The spread of the ratings (the list's, or computed from `ratings`)."""
    confidence_avg: float | None = None
    author_ids: tuple[str, ...] = ()
    """OpenReview profile ids (~Name1), per author."""
    affiliations: tuple[str, ...] = ()
    """Per author, as the list writes them."""
    institutions: tuple[str, ...] = ()
    """Per author, normalised where the list normalises them (aff_unique_norm)."""
    abbreviations: tuple[str, ...] = ()
    """Per author, the institutions' abbreviations (UPenn)."""
    countries: tuple[str, ...] = ()
    """Per author."""
    positions: tuple[str, ...] = ()
    homepages: tuple[str, ...] = ()
    dblp: tuple[str, ...] = ()
    scholar: tuple[str, ...] = ()
    orcid: tuple[str, ...] = ()
    cited_by: str | None = None
    """Google Scholar's "cited by" page."""
    tldr: str | None = None
    area: str | None = None
    """The primary area the authors chose."""
    session: str | None = None
    landing: str | None = None
    """The venue's open-access landing page (`oa`: CVF, PMLR, NeurIPS proceedings)."""
    bibtex: str | None = None
    """The venue's own BibTeX entry, as the list gives it."""


def _bibtex(facts: Facts) -> str | None:
    """Facts.bibtex: the entry in its slot, or read now when the slot holds one kept on disk (the
    saved corpus keeps the venues' entries beside the abstracts: at 10,745 papers they are 10 MB
    that a session reads a few of)."""
    value = tuple.__getitem__(facts, _BIBTEX_AT)
    return value if value is None or value.__class__ is str else str(value)


_BIBTEX_AT = Facts._fields.index("bibtex")
Facts.bibtex = property(_bibtex, doc="The venue's own BibTeX entry, as the list gives it.")  # type: ignore[assignment]
NO_FACTS = Facts()


class Paper(NamedTuple):
    """One paper as loaded from a corpus; optional metadata is None when the corpus lacks it.

    A named tuple, not a frozen dataclass like the other values: every start makes each loaded paper
    from its saved row (search/corpus/snapshot.py), and a tuple is made in a fifth of the time (at
    100,000 papers 0.07 s, against 0.34 s that a frozen dataclass's checked setting of 18 fields
    takes). `paper._replace(...)` is its dataclasses.replace."""

    id: str
    abstract: str
    """The abstract as found in the corpus (LaTeX/Markdown source). A paper loaded from the saved
    corpus leaves it on disk until it is read (see `_abstract` below)."""
    venue: str | None = None
    title: str | None = None
    authors: tuple[str, ...] = ()
    keywords: tuple[str, ...] = ()
    status: str | None = None
    track: str | None = None
    year: int | None = None
    site: str | None = None
    pdf: str | None = None
    github: str | None = None
    project: str | None = None
    arxiv: str | None = None
    """The arXiv identifier, without a version (2410.23918)."""
    source: str = ""
    """Which corpus file the paper came from (the first, when it is in several)."""
    position: int = 0
    """Order within the loaded corpus set (corpus order)."""
    also_in: tuple[str, ...] = ()
    """The other corpus files the same paper was found in (see search/corpus/merge.py)."""
    title_added: bool = False
    """The title is a fact added to a list of abstracts (the bundled ICLR 2025 list): the paper's name
    is the one its abstract introduces, not the title's."""
    rating: float | None = None
    """The mean review rating (the list's rating_avg, else the mean of the reviewers' scores); None
    without public reviews."""
    citations: int | None = None
    """Google Scholar's count; None when unknown."""
    facts: Facts = NO_FACTS
    """Everything else the list says about the paper (reviews, people, summaries)."""


def _abstract(paper: Paper) -> str:
    """Paper.abstract: the text in its slot, or read now when the slot holds a kept abstract (an
    object whose str() is the text: search/corpus/kept.py). The saved corpus keeps abstracts on
    disk, not in memory, where at 100,000 papers they were half of what the papers take (133 MB)."""
    value = tuple.__getitem__(paper, 1)
    return value if value.__class__ is str else str(value)


# The field stays a field (constructor, _replace, pickling and equality see the slot); only reading
# it goes through _abstract.
Paper.abstract = property(_abstract, doc="The abstract as found in the corpus (LaTeX/Markdown source).")  # type: ignore[assignment]


def _facts(paper: Paper) -> Facts:
    """Paper.facts: the facts in the slot, or made now (once) from the saved corpus's row for them
    (search/corpus/kept.py's KeptFacts): a start does not build every paper's facts, which took
    four fifths of reading the saved corpus."""
    value = tuple.__getitem__(paper, _FACTS_AT)
    return value if value.__class__ is Facts else value.facts()  # type: ignore[union-attr]


_FACTS_AT = Paper._fields.index("facts")
Paper.facts = property(_facts, doc="Everything else the list says about the paper.")  # type: ignore[assignment]


class LazyFacts:
    """A paper's facts made from their source (a saved row, a record's raw fields) the first time
    they are asked for, then kept; compares, hashes and pickles as its Facts. Two threads may make
    them at once: the one that finds the source dropped returns what the other made (it sets them
    before it drops the source)."""

    __slots__ = ("_made", "_source", "tldr")

    def __init__(self, source: object, tldr: str | None) -> None:
        self._source: object | None = source
        self._made: Facts | None = None
        self.tldr = tldr
        """Facts.tldr, at hand without making the facts: the index's key reads every paper's."""

    def _make(self, source) -> Facts:
        raise NotImplementedError

    def facts(self) -> Facts:
        made, source = self._made, self._source
        if made is None:
            if source is None:  # another thread made them meanwhile
                return self._made or NO_FACTS
            made = self._make(source)
            self._made = made
            self._source = None
        return made

    def __eq__(self, other: object) -> bool:
        if isinstance(other, tuple):
            return self.facts() == other
        made = getattr(other, "facts", None)
        return self.facts() == made() if callable(made) else NotImplemented

    def __hash__(self) -> int:
        return hash(self.facts())

    def __reduce__(self) -> tuple:
        return (tuple.__new__, (Facts, tuple(self.facts())))

    def __repr__(self) -> str:
        return repr(self.facts())


def tldr_of(paper: Paper) -> str | None:
    """The paper's TL;DR without making its facts (the index's key reads every paper's)."""
    tldr: str | None = tuple.__getitem__(paper, _FACTS_AT).tldr  # type: ignore[union-attr]
    return tldr


@dataclass(frozen=True, slots=True)
class Hit:
    """One search result: which paper, how well it scored and which (stemmed) terms matched."""

    paper_id: str
    score: float
    terms: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class SearchResult:
    """The answer to one query, ranked best first."""

    query: str
    hits: tuple[Hit, ...]
    total: int
    corrected: str | None = None
    """The spelling-corrected query that produced these hits instead of `query`: a short query with
    a word no paper contains, plausibly misspelt (search/query/spelling.py)."""
    notice: str | None = None
    """A gentle hint, e.g. when the query's syntax was malformed and was read as plain words."""
    terms: tuple[str, ...] = field(default=())
    """Stemmed query terms, for highlighting."""
    all_words: int | None = None
    """For a query of two or more plain words: how many matches have every word ("312 with all
    words"). None when that does not apply: one word, explicit AND/OR/NOT or parentheses, facets
    only, related:."""
    any_words: int | None = None
    """With `all_words`: how many papers have any of the words (`total` with match "any")."""
    match: str = "any"
    """"all" when only the papers with every word are listed (match:all), else "any"."""
    suggestion: str | None = None
    """A spelling correction offered, not searched ("did you mean"): the hits are the query's as
    typed (a long, pasted query; or correction turned off)."""
    also_searched: tuple[tuple[str, str], ...] = ()
    """Rare words of the query also searched as a far more common spelling, (typed, also searched)
    each: `transfomer` is in one paper, `transformer` in hundreds (search/query/spelling.py)."""


@dataclass(frozen=True, slots=True)
class AvailableFilters:
    """What the loaded papers let filters and fields find, for a menu of filters: each count is how
    many loaded papers have it."""

    papers: int
    lists: tuple[tuple[str, int], ...] = ()
    """(name, papers) for list:, in corpus order (a paper in two lists counts in both)."""
    statuses: tuple[tuple[str, int], ...] = ()
    """(status, papers) for status:, as it reads them (reject, poster), most papers first."""
    venues: tuple[tuple[str, int], ...] = ()
    """(venue, papers), most papers first."""
    with_code: int = 0
    """Papers with a code link (has:code)."""
    with_titles: int = 0
    with_authors: int = 0
    with_keywords: int = 0
    with_names: int | None = None
    """Papers with a method name (name:); None until the index is open (names come from its rows)."""

    def filters(self) -> tuple[tuple[str, int], ...]:
        """(token, papers) for each facet filter that finds something here, for a filter menu:
        has:code, then status:VALUE for each status (list: and venue: have their own counts,
        is: depends on the user's marks, not the papers)."""
        code = (("has:code", self.with_code),) if self.with_code else ()
        return (*code, *((f"status:{status}", count) for status, count in self.statuses))


@dataclass(frozen=True, slots=True)
class Marks:
    """The user's marks that `is:` filters read: bookmarked and opened paper ids."""

    bookmarked: frozenset[str] = frozenset()
    opened: frozenset[str] = frozenset()
    notes: tuple[tuple[str, str, tuple[str, ...]], ...] = ()
    """(paper id, note, tags) of the bookmarks with a note or tags, for `tag:` and `note:`."""


SEARCH_SECONDS = 2.0
"""Wall-clock time one search may take by default (the app's, the CLI's): ordinary queries take
milliseconds (p95 25 ms at 50,000 papers), the slowest realistic ones a few hundred."""


@dataclass(frozen=True, slots=True)
class SearchRequest:
    """One query as the caller means it: what to search and how. Cancelling is not part of it (a
    request is a value; `SearchEngine.search` takes the cancel event beside it)."""

    text: str
    limit: int = 50
    """Hits wanted, best first (`total` still counts every match)."""
    partial: bool = False
    """The last word is still being typed: it also matches its most common completions."""
    hit_terms: bool = True
    """Fill each hit's matched terms (the result's own `terms` are always there, for highlighting)."""
    marks: Marks = Marks()
    """The user's bookmarks and read papers, for `is:` filters."""
    match: str = "any"
    """"any" (papers with any of the words, ranked) or "all" (only those with every word), unless
    the query says match:."""
    sort: str = "relevance"
    """The order (relevance, order, name) unless the query says sort:."""
    correct: bool = True
    """False: search the words exactly as typed, never a spelling correction (one may still be
    offered, as the result's suggestion)."""
    budget: float | None = SEARCH_SECONDS
    """Seconds the search may take before it stops with what it has and a hint (None: no limit)."""


@dataclass(frozen=True, slots=True)
class Bookmark:
    """A saved paper: enough of it to show and export it even when its corpus is not loaded."""

    paper_id: str
    headline: str
    venue: str | None = None
    name: str | None = None
    title: str | None = None
    authors: tuple[str, ...] = ()
    year: int | None = None
    links: tuple[Link, ...] = ()
    abstract: str = ""
    """The abstract's plain text (markup converted)."""
    abstract_hash: str | None = None
    note: str = ""
    tags: tuple[str, ...] = ()
    created_at: float | None = None


def link_records(links: Iterable[Link], kinds: bool = True) -> list[dict[str, str]]:
    """Links as JSON-ready records, the one shape the store, exports and the CLI write:
    {"label", "url", "kind"} (`kinds=False` leaves out the kind, as `render --json` prints)."""
    if kinds:
        return [{"label": link.label, "url": link.url, "kind": link.kind} for link in links]
    return [{"label": link.label, "url": link.url} for link in links]


def links_from_records(records: object) -> tuple[Link, ...]:
    """Links back from records as link_records writes them. Records from outside (an import file)
    may be anything: only http(s) URLs with string fields are kept, a missing label is the URL."""
    if not isinstance(records, list):
        return ()
    links = []
    for record in records:
        if not isinstance(record, dict):
            continue
        url, label, kind = record.get("url"), record.get("label"), record.get("kind")
        if isinstance(url, str) and url.startswith(("http://", "https://")):
            links.append(
                Link(
                    label if isinstance(label, str) and label else url,
                    url,
                    kind if isinstance(kind, str) and kind else "link",
                )
            )
    return tuple(links)
