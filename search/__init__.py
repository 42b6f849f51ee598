"""The iclr-reader engine: corpora, markup conversion, the Whoosh index, queries and user data.

It never imports Textual or Rich, so everything here is usable and testable without a terminal.
This module is the engine's public API: the interface (tui/) imports these names and nothing else
from search/ (an import-linter contract in pyproject.toml holds it to that).
"""

from search import paths
from search.corpus.library import BUNDLED_LIST, AddedList, Library, ListOrigin, list_name
from search.corpus.loader import MAX_CORPUS_BYTES, Corpus, bundled_paths, load_corpus
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
