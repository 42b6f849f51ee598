"""Property tests: any query string, typed or complete, searches without raising."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from search.models import Marks, SearchRequest
from tests.fuzz.guard import hang_guard

EXAMPLES = 400

pytestmark = pytest.mark.slow  # hundreds of examples each: CI and make test run them, make check does not
TOKENS = [
    "graph",
    "neural",
    "kv",
    "cache",
    "bitstack",
    "wasserstien",
    "compress",
    "the",
    "a",
    "x",
    "AND",
    "OR",
    "NOT",
    "ANDNOT",
    "ANDMAYBE",
    "and",
    "or",
    "not",
    '"',
    '"node selection"',
    "(",
    ")",
    "((",
    "))",
    "*",
    "?",
    "~",
    "~2",
    "~9",
    "^2",
    "\\",
    "-",
    "+",
    ":",
    "[",
    "]",
    "{",
    "}",
    "title:",
    "author:",
    "name:",
    "abstract:",
    "keywords:",
    "venue:",
    "foo:",
    "title:graph",
    "author:*",
    "id:x",
    "list:iclr2025",
    "list:nope",
    "-list:x",
    "has:code",
    "-has:code",
    "has:",
    "is:bookmarked",
    "is:unread",
    "is:read",
    "is:nonsense",
    "status:oral",
    "status:",
    "sort:name",
    "sort:order",
    "sort:random",
    "related:f191cfbfdd14",
    "related:nope",
    "related:",
    "graph*",
    "gr*ph",
    "*raph",
    "gra?h",
    "graph~",
    "graph~1",
    "[a TO z]",
    "{a TO z}",
    "日本語",
    "😀",
    "\u202e",
    "\x1b[31m",
    "\x00",
    "\t",
    "\n",
    "é",
    "ǅ",
    "İ",
    "ß",
]
queries = st.lists(st.sampled_from(TOKENS) | st.text(max_size=8), max_size=20).map(
    lambda parts: " ".join(parts)
) | st.text(max_size=80)


@settings(
    max_examples=EXAMPLES,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(queries, st.booleans())
def test_search_never_raises(seed_engine, query, partial):
    marks = Marks(frozenset({seed_engine.papers[0].id}), frozenset({seed_engine.papers[1].id}))
    with hang_guard():
        result = seed_engine.search(SearchRequest(query, limit=20, partial=partial, marks=marks))
    assert result.total >= len(result.hits)
    assert len({hit.paper_id for hit in result.hits}) == len(result.hits)
    assert all(hit.paper_id in seed_engine.by_id for hit in result.hits)


@settings(
    max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture]
)
@given(st.lists(st.sampled_from(TOKENS), min_size=50, max_size=300).map(" ".join))
def test_long_queries_finish(seed_engine, query):
    with hang_guard():
        result = seed_engine.search(SearchRequest(query, limit=20))
    assert result.total >= len(result.hits)
