"""The Whoosh schema. Bump SCHEMA_VERSION whenever fields or analysis change: indexes rebuild."""

from __future__ import annotations

from whoosh.analysis import StandardAnalyzer, StemmingAnalyzer
from whoosh.fields import ID, TEXT, Schema

SCHEMA_VERSION = 7

ANALYZER = StemmingAnalyzer()
"""Shared by indexing, querying and highlighting so all three agree on what a term is."""


def build_schema() -> Schema:
    # Only ids are stored: result-list rows and the spelling vocabulary are side files (index.py),
    # abstracts are served from memory.
    return Schema(
        id=ID(stored=True, unique=True, sortable=True),
        name=TEXT(analyzer=ANALYZER, field_boost=3.0),
        title=TEXT(analyzer=ANALYZER, field_boost=2.0),
        abstract=TEXT(analyzer=ANALYZER),
        authors=TEXT(analyzer=StandardAnalyzer(stoplist=None), field_boost=1.5),
        keywords=TEXT(analyzer=ANALYZER, field_boost=1.5),
    )  # venue: is a filter over the loaded papers (search/facets.py), not a searched field
