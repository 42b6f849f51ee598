"""Paper lists from the network: Paper Copilot's paperlists (the default), OpenReview API v2 and
arXiv's API, one module each, over one careful HTTP client (http.py).

Each source downloads into a staging folder inside the library, the download is checked with the
corpus importer, and only then moved into the library (`Library.add`), so a failure or ctrl+c
leaves the library as it was. This package sits in the engine beside query and user: it may import
corpus and everything below it, never the interface.

Environment: ICLR_READER_PAPERLISTS_URL, ICLR_READER_OPENREVIEW_URL and ICLR_READER_ARXIV_URL
override each source's base URL (for mirrors and tests); ICLR_READER_OPENREVIEW_TOKEN is sent to
OpenReview as a bearer token; `--reviews` (reviews.py) fetches each OpenReview forum's replies too; the usual http_proxy / https_proxy / no_proxy are honoured."""

from search.sources import catalogue
from search.sources.arxiv import DEFAULT_MAX as ARXIV_DEFAULT_MAX
from search.sources.catalogue import Conference, available, without_abstracts
from search.sources.catalogue import known as in_catalogue
from search.sources.get import GotList, downloaded_lists, get_list, update_list
from search.sources.http import USER_AGENT
from search.sources.request import KINDS, ListRequest, Progress, parse_request
from search.sources.reviews import ForumReviews, Reply, has_reviews, reviews_of

__all__ = [
    "ARXIV_DEFAULT_MAX",
    "KINDS",
    "USER_AGENT",
    "Conference",
    "ForumReviews",
    "GotList",
    "ListRequest",
    "Progress",
    "Reply",
    "available",
    "catalogue",
    "downloaded_lists",
    "get_list",
    "has_reviews",
    "in_catalogue",
    "parse_request",
    "reviews_of",
    "update_list",
    "without_abstracts",
]
