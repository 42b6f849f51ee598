"""Corpora: reading list files in any supported format (formats/), merging them into one corpus, and
the user's library of lists in the data dir.

Imports search.models, search.paths and search.text; never the index or queries.
"""
