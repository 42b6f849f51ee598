"""The iclr-reader engine: corpora, markup conversion, the Whoosh index, queries and user data.

It never imports Textual or Rich, so everything here is usable and testable without a terminal.
This module is the engine's public API: the interface (tui/) imports these names and nothing else
from search/ (an import-linter contract in pyproject.toml holds it to that).

Its names are loaded when first used (PEP 562): a command imports only the modules it needs, and a
cold start's other parsing process (corpus/parsed.py) is forked before the engine, the index and
Whoosh are imported (0.3 s of one core's imports, while the other core waited).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from search import paths
    from search.corpus.library import BUNDLED_LIST, AddedList, Library, ListOrigin, list_name
    from search.corpus.loader import MAX_CORPUS_BYTES, Corpus, bundled_paths, load_corpus, parsing_ahead
    from search.engine import Row, SearchEngine
    from search.errors import (
        BookmarkImportError,
        CorpusError,
        IndexCancelled,
        LibraryError,
        ReaderError,
        SourceError,
        StoreError,
        UnknownPaper,
    )
    from search.index.lifecycle import IndexStatus
    from search.index.lifecycle import forget as forget_index
    from search.models import (
        AvailableFilters,
        Bookmark,
        Hit,
        Link,
        Marks,
        Paper,
        Rendered,
        SearchRequest,
        SearchResult,
        Span,
        link_records,
        links_from_records,
    )
    from search.query.facets import MATCHES, Facets, facet_tokens, quoted, split_facets, toggle, without_facet
    from search.query.highlight import term_ranges
    from search.query.recommend import MAX_BOOKMARKS, Recommendations, Recommended
    from search.query.stats import RatingBucket, Stats
    from search.sources import (
        ARXIV_DEFAULT_MAX,
        Conference,
        ForumReviews,
        GotList,
        ListRequest,
        Reply,
        downloaded_lists,
        get_list,
        has_reviews,
        in_catalogue,
        parse_request,
        reviews_of,
        update_list,
        without_abstracts,
    )
    from search.sources import available as available_lists
    from search.text.describe import Description, bookmark_of, display_label, primary_link
    from search.text.markup import convert
    from search.untrusted import shown
    from search.user.export import (
        FORMATS,
        bibtex_entry,
        bookmark_record,
        clean_bookmark,
        export,
        markdown_citation,
        parse_json_export,
        read_bookmark_file,
        write_atomic,
    )
    from search.user.store import ToggleResult, UserStore
    from search.version import __version__

_WHERE: dict[str, tuple[str, str]] = {
    "ARXIV_DEFAULT_MAX": ("search.sources", "ARXIV_DEFAULT_MAX"),
    "AddedList": ("search.corpus.library", "AddedList"),
    "AvailableFilters": ("search.models", "AvailableFilters"),
    "BUNDLED_LIST": ("search.corpus.library", "BUNDLED_LIST"),
    "Bookmark": ("search.models", "Bookmark"),
    "BookmarkImportError": ("search.errors", "BookmarkImportError"),
    "Conference": ("search.sources", "Conference"),
    "Corpus": ("search.corpus.loader", "Corpus"),
    "CorpusError": ("search.errors", "CorpusError"),
    "Description": ("search.text.describe", "Description"),
    "FORMATS": ("search.user.export", "FORMATS"),
    "Facets": ("search.query.facets", "Facets"),
    "ForumReviews": ("search.sources", "ForumReviews"),
    "GotList": ("search.sources", "GotList"),
    "Hit": ("search.models", "Hit"),
    "IndexCancelled": ("search.errors", "IndexCancelled"),
    "IndexStatus": ("search.index.lifecycle", "IndexStatus"),
    "Library": ("search.corpus.library", "Library"),
    "LibraryError": ("search.errors", "LibraryError"),
    "Link": ("search.models", "Link"),
    "ListOrigin": ("search.corpus.library", "ListOrigin"),
    "ListRequest": ("search.sources", "ListRequest"),
    "MATCHES": ("search.query.facets", "MATCHES"),
    "MAX_BOOKMARKS": ("search.query.recommend", "MAX_BOOKMARKS"),
    "MAX_CORPUS_BYTES": ("search.corpus.loader", "MAX_CORPUS_BYTES"),
    "Marks": ("search.models", "Marks"),
    "Paper": ("search.models", "Paper"),
    "RatingBucket": ("search.query.stats", "RatingBucket"),
    "ReaderError": ("search.errors", "ReaderError"),
    "Recommendations": ("search.query.recommend", "Recommendations"),
    "Recommended": ("search.query.recommend", "Recommended"),
    "Rendered": ("search.models", "Rendered"),
    "Reply": ("search.sources", "Reply"),
    "Row": ("search.engine", "Row"),
    "SearchEngine": ("search.engine", "SearchEngine"),
    "SearchRequest": ("search.models", "SearchRequest"),
    "SearchResult": ("search.models", "SearchResult"),
    "SourceError": ("search.errors", "SourceError"),
    "Span": ("search.models", "Span"),
    "Stats": ("search.query.stats", "Stats"),
    "StoreError": ("search.errors", "StoreError"),
    "ToggleResult": ("search.user.store", "ToggleResult"),
    "UnknownPaper": ("search.errors", "UnknownPaper"),
    "UserStore": ("search.user.store", "UserStore"),
    "__version__": ("search.version", "__version__"),
    "available_lists": ("search.sources", "available"),
    "bibtex_entry": ("search.user.export", "bibtex_entry"),
    "bookmark_of": ("search.text.describe", "bookmark_of"),
    "bookmark_record": ("search.user.export", "bookmark_record"),
    "bundled_paths": ("search.corpus.loader", "bundled_paths"),
    "clean_bookmark": ("search.user.export", "clean_bookmark"),
    "convert": ("search.text.markup", "convert"),
    "display_label": ("search.text.describe", "display_label"),
    "downloaded_lists": ("search.sources", "downloaded_lists"),
    "export": ("search.user.export", "export"),
    "facet_tokens": ("search.query.facets", "facet_tokens"),
    "forget_index": ("search.index.lifecycle", "forget"),
    "get_list": ("search.sources", "get_list"),
    "has_reviews": ("search.sources", "has_reviews"),
    "in_catalogue": ("search.sources", "in_catalogue"),
    "link_records": ("search.models", "link_records"),
    "links_from_records": ("search.models", "links_from_records"),
    "list_name": ("search.corpus.library", "list_name"),
    "load_corpus": ("search.corpus.loader", "load_corpus"),
    "parsing_ahead": ("search.corpus.loader", "parsing_ahead"),
    "markdown_citation": ("search.user.export", "markdown_citation"),
    "parse_json_export": ("search.user.export", "parse_json_export"),
    "parse_request": ("search.sources", "parse_request"),
    "paths": ("search.paths", ""),
    "primary_link": ("search.text.describe", "primary_link"),
    "quoted": ("search.query.facets", "quoted"),
    "read_bookmark_file": ("search.user.export", "read_bookmark_file"),
    "reviews_of": ("search.sources", "reviews_of"),
    "shown": ("search.untrusted", "shown"),
    "split_facets": ("search.query.facets", "split_facets"),
    "term_ranges": ("search.query.highlight", "term_ranges"),
    "toggle": ("search.query.facets", "toggle"),
    "update_list": ("search.sources", "update_list"),
    "without_abstracts": ("search.sources", "without_abstracts"),
    "without_facet": ("search.query.facets", "without_facet"),
    "write_atomic": ("search.user.export", "write_atomic"),
}
"""Each public name -> (its module, its name there; "" for the module itself)."""


def __getattr__(name: str) -> Any:
    try:
        module, attribute = _WHERE[name]
    except KeyError:
        raise AttributeError(f"module 'search' has no attribute {name!r}") from None
    found = importlib.import_module(module)
    value = getattr(found, attribute) if attribute else found
    globals()[name] = value  # (looked up once)
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})


__all__ = [
    "ARXIV_DEFAULT_MAX",
    "BUNDLED_LIST",
    "FORMATS",
    "MATCHES",
    "MAX_BOOKMARKS",
    "MAX_CORPUS_BYTES",
    "AddedList",
    "AvailableFilters",
    "Bookmark",
    "BookmarkImportError",
    "Conference",
    "Corpus",
    "CorpusError",
    "Description",
    "Facets",
    "ForumReviews",
    "GotList",
    "Hit",
    "IndexCancelled",
    "IndexStatus",
    "Library",
    "LibraryError",
    "Link",
    "ListOrigin",
    "ListRequest",
    "Marks",
    "Paper",
    "RatingBucket",
    "ReaderError",
    "Recommendations",
    "Recommended",
    "Rendered",
    "Reply",
    "Row",
    "SearchEngine",
    "SearchRequest",
    "SearchResult",
    "SourceError",
    "Span",
    "Stats",
    "StoreError",
    "ToggleResult",
    "UnknownPaper",
    "UserStore",
    "__version__",
    "available_lists",
    "bibtex_entry",
    "bookmark_of",
    "bookmark_record",
    "bundled_paths",
    "clean_bookmark",
    "convert",
    "display_label",
    "downloaded_lists",
    "export",
    "facet_tokens",
    "forget_index",
    "get_list",
    "has_reviews",
    "in_catalogue",
    "link_records",
    "links_from_records",
    "list_name",
    "load_corpus",
    "markdown_citation",
    "parse_json_export",
    "parse_request",
    "parsing_ahead",
    "paths",
    "primary_link",
    "quoted",
    "read_bookmark_file",
    "reviews_of",
    "shown",
    "split_facets",
    "term_ranges",
    "toggle",
    "update_list",
    "without_abstracts",
    "without_facet",
    "write_atomic",
]
