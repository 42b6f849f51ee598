"""User data: bookmarks, notes, tags, read marks and saved searches in SQLite (the only writer of
user data), and their export and import.

Imports search.models, search.paths and search.text; never the index or queries.
"""
