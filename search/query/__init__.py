"""Queries: parsing the query language, spelling correction, facets (filters and sort), ranking
from cached per-term scores, related papers and highlighting, each search within a budget
(bounded expansions, a time limit, cancellation: budget.py).

Imports search.models, search.index (analysis) and Whoosh; never user data or the interface.
"""
