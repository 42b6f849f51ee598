"""The Whoosh schema. Bump SCHEMA_VERSION whenever fields or analysis change: indexes rebuild."""

from __future__ import annotations

from whoosh.fields import ID, Schema

from search.index.analysis import FastText

SCHEMA_VERSION = 12
"""12: the abstracts' text is converted with the render gaps closed (TeX dashes, quotes and ties,
author macros, eaten backslashes, ligatures and invisible characters), so their terms change.
11: terms fold accents and ligatures, keep single letters joined by a hyphen ("k-means"), stem with
step 1b of Porter fixed; field boosts moved from the index to the scoring. 10: the stored rows' names and has_code changed (a titled paper is named from its title; a list's
code links in any form count). 9: the codec and analysis moved into search.index, and Whoosh
pickles their module paths."""


def build_schema() -> Schema:
    # Only ids are stored: result-list rows and the spelling vocabulary are side files (shard.py),
    # abstracts are served from memory.
    return Schema(
        id=ID(stored=True, unique=True, sortable=True),
        name=FastText(),
        title=FastText(),
        abstract=FastText(),
        authors=FastText(stemmed=False),
        keywords=FastText(),
    )  # the fields' weights are the ranking's (search/query/scoring.py), not stored in the index.
    # venue: is a filter over the loaded papers (search/query/filters.py), not a searched field
