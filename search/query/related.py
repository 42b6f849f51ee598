"""Related papers ("more like this"): the query made of a paper's most distinctive words."""

from __future__ import annotations

from collections import Counter
from heapq import nlargest
from math import log

from whoosh import query as wq

from search.index.analysis import stems

SIMILAR_TERMS = 25
"""A paper's most distinctive words that a related-papers search looks for."""
MAX_SHARE = 0.2
"""Words in more than this share of the papers say nothing about likeness."""
MAX_TEXT = 20_000
"""Characters of a paper read for its distinctive words: a huge abstract's beginning says enough
(abstracts run 1-2,000 characters; a malformed record can hold a whole paper)."""


def similar_query(reader, text: str) -> wq.Query | None:
    """Titles and abstracts that share the text's most distinctive words, each weighted by how
    distinctive it is (frequent in the text, rare in the corpus); None when no word qualifies.
    Words in one paper only or in over a fifth of all say nothing about likeness."""
    total = reader.doc_count_all()
    weighted = []
    for term, count in Counter(stems(text[:MAX_TEXT])).items():
        papers = reader.doc_frequency("abstract", term)
        if 1 < papers <= max(2, total * MAX_SHARE) and papers < total:  # in every paper: weighs nothing
            weighted.append(((1 + log(count)) * log(total / papers), term))
    best = nlargest(SIMILAR_TERMS, weighted)
    if not best or best[0][0] <= 0:  # in every paper of a tiny list: no word says anything
        return None
    return wq.Or(
        [wq.Term(field, term, boost=weight / best[0][0]) for weight, term in best for field in ("abstract", "title")]
    )
