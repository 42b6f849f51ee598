"""The Whoosh schema. Bump SCHEMA_VERSION whenever fields or analysis change: indexes rebuild."""

from __future__ import annotations

from whoosh.analysis import StandardAnalyzer, StemmingAnalyzer
from whoosh.fields import ID, STORED, TEXT, Schema

SCHEMA_VERSION = 2

ANALYZER = StemmingAnalyzer()
"""Shared by indexing, querying and highlighting so all three agree on what a term is."""


def build_schema() -> Schema:
    # Only ids and what the result list shows are stored; abstracts are served from memory.
    return Schema(
        id=ID(stored=True, unique=True),
        name=TEXT(analyzer=ANALYZER, stored=True, field_boost=3.0),
        title=TEXT(analyzer=ANALYZER, field_boost=2.0),
        abstract=TEXT(analyzer=ANALYZER, spelling=True),
        authors=TEXT(analyzer=StandardAnalyzer(stoplist=None), field_boost=1.5),
        keywords=TEXT(analyzer=ANALYZER, field_boost=1.5),
        venue=TEXT(analyzer=StandardAnalyzer(stoplist=None)),
        headline=STORED(),
        has_code=STORED(),
    )
