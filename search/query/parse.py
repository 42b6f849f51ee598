"""Parsing the query language: ranked words, "phrases", prefix*, fuzzy~, field:term, AND/OR/NOT.

Malformed syntax never raises: it is read as plain words, with a hint saying what was not understood.
Prefixes and fuzzy terms are bounded to their most frequent expansions.
"""

from __future__ import annotations

import re
from itertools import islice

from whoosh import qparser
from whoosh import query as wq
from whoosh.spelling import ListCorrector

from search.index.analysis import stems

SEARCH_FIELDS = ("name", "title", "abstract", "keywords", "authors")
FIELD_ALIASES = {"authors": ["author", "by"], "keywords": ["keyword", "kw"], "abstract": ["text"]}
MAX_PREFIX_EXPANSIONS = 24
"""A short prefix like `ge*` expands to thousands of terms; only the most frequent are searched."""
OPERATORS = {"AND", "OR", "NOT", "ANDNOT", "ANDMAYBE"}
WORD = re.compile(r"[^\W_][\w'-]*")


class QueryParser:
    """Turns query text into a Whoosh query over the searched fields, bounded for this index."""

    def __init__(self, schema, reader, corrector: ListCorrector) -> None:
        """`reader` gives the prefix expansions and their frequencies; `corrector` the fuzzy forms."""
        self._reader = reader
        self._corrector = corrector
        self._parser = qparser.MultifieldParser(list(SEARCH_FIELDS), schema, group=qparser.OrGroup.factory(0.9))
        self._parser.add_plugin(qparser.FuzzyTermPlugin())
        self._parser.add_plugin(qparser.FieldAliasPlugin(FIELD_ALIASES))
        self._plain_parser = qparser.MultifieldParser(
            list(SEARCH_FIELDS), schema, group=qparser.OrGroup.factory(0.9), plugins=[]
        )

    def parse(self, text: str) -> tuple[wq.Query, str | None]:
        """The query, and a hint when its syntax was malformed and it was read as plain words."""
        problem = syntax_problem(text)
        if problem is None:
            try:
                query = self._parser.parse(text)
                if query is not wq.NullQuery and not _matches_everything(query):
                    return self._bounded(query), None
            except Exception:  # noqa: BLE001 - whoosh's parser on odd input: read as plain words
                pass
            problem = "query syntax not understood"
        words = " ".join(WORD.findall(text.replace("*", " ").replace("~", " ")))
        return self._plain_parser.parse(words), f"{problem}; searched for the words only"

    def _bounded(self, query: wq.Query) -> wq.Query:
        """Bound prefix/wildcard expansion, and make `a NOT b` exclude b (an OR group would not)."""
        reader = self._reader
        near_words: dict[tuple[str, int, int], dict[str, None]] = {}  # one fuzzy term spans five fields

        def near(text: str, maxdist: int, prefix: int) -> dict[str, None]:
            key = (text, maxdist, prefix)
            if key not in near_words:
                # Whoosh walks the whole term dictionary for a fuzzy term; the vocabulary is faster.
                words = self._corrector.suggest(text, limit=MAX_PREFIX_EXPANSIONS, maxdist=maxdist, prefix=prefix)
                near_words[key] = dict.fromkeys(form for word in (text, *words) for form in (word, *stems(word)))
            return near_words[key]

        def bound(node: wq.Query) -> wq.Query:
            if isinstance(node, wq.FuzzyTerm):
                forms = near(node.text, node.maxdist, node.prefixlength)
                return wq.Or([wq.Term(node.fieldname, form, boost=node.boost) for form in forms])
            if isinstance(node, wq.PatternQuery):
                expansions = list(islice(node._btexts(reader), 4 * MAX_PREFIX_EXPANSIONS))
                expansions.sort(key=lambda term: -reader.doc_frequency(node.fieldname, term))
                terms = [wq.Term(node.fieldname, term, boost=node.boost) for term in expansions[:MAX_PREFIX_EXPANSIONS]]
                return wq.Or(terms) if terms else wq.NullQuery
            node = node.apply(bound)
            if isinstance(node, wq.Or):
                negated = [child.query for child in node.subqueries if isinstance(child, wq.Not)]
                wanted = [child for child in node.subqueries if not isinstance(child, wq.Not)]
                if negated and wanted:
                    return wq.AndNot(_either(wanted), _either(negated))
            return node

        return bound(query)


def _either(queries: list[wq.Query]) -> wq.Query:
    return queries[0] if len(queries) == 1 else wq.Or(queries)


def _matches_everything(query: wq.Query) -> bool:
    return isinstance(query, wq.Every) or any(isinstance(q, wq.Every) for q in query.children())


def syntax_problem(text: str) -> str | None:
    """A short description of malformed syntax, or None when the query is well formed."""
    if text.count('"') % 2:
        return "unbalanced quote"
    depth = 0
    for ch in text:
        depth += (ch == "(") - (ch == ")")
        if depth < 0:
            return "unbalanced parenthesis"
    if depth:
        return "unbalanced parenthesis"
    tokens = text.split()
    if tokens[0].upper() in OPERATORS - {"NOT"} or tokens[-1].upper() in OPERATORS:
        return f"'{tokens[-1] if tokens[-1].upper() in OPERATORS else tokens[0]}' needs a word on both sides"
    if re.search(r"(?:^|\s)[*?~]+(?:\s|$)", text):
        return "a lone wildcard"
    return None
