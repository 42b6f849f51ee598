"""Parsing the query language: ranked words, "phrases", prefix*, fuzzy~, field:term, AND/OR/NOT.

Malformed syntax never raises: it is read as plain words, with a hint saying what was not understood.
Before the parser's query is normalised each word is a subquery of its own; `parse_words` tells
which parts of the normalised query came from which word, which is how the papers with every word
are counted (`match:all`).
Every multi-term part (prefix, wildcard, range, fuzzy term) is bounded: its edit distance, the words
it expands to (its most frequent ones), how many such parts a query has, and the time spent
expanding them (see budget.py); each bound that cuts something says so in a hint.
"""

from __future__ import annotations

import fnmatch
import re
from collections import OrderedDict
from collections.abc import Iterator

from whoosh import qparser
from whoosh import query as wq
from whoosh.spelling import ListCorrector

from search.index.analysis import stems
from search.query.budget import (
    CHECK_EVERY,
    MAX_EXPANSIONS,
    MAX_FUZZY_DISTANCE,
    MAX_FUZZY_LENGTH,
    SCANNED_EXPANSIONS,
    Budget,
    SearchStopped,
)

SEARCH_FIELDS = ("name", "title", "abstract", "keywords", "authors")
FIELD_ALIASES = {"authors": ["author", "by"], "keywords": ["keyword", "kw"], "abstract": ["text"]}
_FIELD_OF = {alias: field for field, aliases in FIELD_ALIASES.items() for alias in aliases} | {
    field: field for field in SEARCH_FIELDS
}
_FIELD_PREFIX = re.compile(r"(?<![^\s(])-?(\w+):", re.I)
_PHRASE = re.compile(r'"[^"]*"')
MAX_PREFIX_EXPANSIONS = MAX_EXPANSIONS
"""A short prefix like `ge*` expands to thousands of terms; only the most frequent are searched."""
MAX_MULTI_TERMS = 4
"""Prefixes, wildcards, ranges and fuzzy terms expanded per query (each in every field); the rest
are left out, with a hint."""
CACHED_NEAR_WORDS = 64
"""Fuzzy terms' vocabulary look-ups kept: the same one comes back on every keystroke after it."""
CACHED_EXPANSIONS = 256
"""Prefix, wildcard and range expansions kept (one per field: five per part typed)."""
OPERATORS = {"AND", "OR", "NOT", "ANDNOT", "ANDMAYBE"}
WORD = re.compile(r"[^\W_][\w'-]*")
_FUZZY_TOKEN = re.compile(r"[^\s()\"]*[^\s()\"~]~(\d)(?:/\d+)?")
"""A fuzzy term as typed (`transformer~7`, `title:graf~3/2`), for hints; not a phrase's slop."""


class QueryParser:
    """Turns query text into a Whoosh query over the searched fields, bounded for this index."""

    def __init__(self, schema, reader, corrector: ListCorrector) -> None:
        """`reader` gives the prefix expansions and their frequencies; `corrector` the fuzzy forms."""
        self._reader = reader
        self._corrector = corrector
        group = qparser.OrGroup  # words are alternatives; scoring.py favours papers with more of them
        self._parser = qparser.MultifieldParser(list(SEARCH_FIELDS), schema, group=group)
        self._parser.add_plugin(qparser.FuzzyTermPlugin())
        self._parser.add_plugin(qparser.FieldAliasPlugin(FIELD_ALIASES))
        self._plain_parser = qparser.MultifieldParser(list(SEARCH_FIELDS), schema, group=group, plugins=[])
        self._near_words: OrderedDict[tuple[str, int, int], tuple[str, ...]] = OrderedDict()
        self._expanded: OrderedDict[tuple[str, str, str], tuple[tuple[bytes, ...], bool]] = OrderedDict()
        """Multi-term parts' expansions (and whether they were cut), kept across queries: typing more
        words after `*former*` must not walk the lexicon again on every keystroke."""

    def parse(self, text: str, budget: Budget | None = None) -> tuple[wq.Query, str | None]:
        """The query, and a hint when its syntax was malformed and it was read as plain words.
        Bounds applied go into `budget`'s hints; SearchStopped when it runs out."""
        query, notice, _ = self.parse_words(text, budget, words=False)
        return query, notice

    def parse_words(
        self, text: str, budget: Budget | None = None, words: bool = True
    ) -> tuple[wq.Query, str | None, Clauses | None]:
        """As `parse`, and (with `words`) the query's words when it has two or more: for each word
        (a term, a "phrase", a prefix*, a field:term, a group), the positions of the top-level
        subqueries that came from it (stop words, which only the authors field keeps, left out)."""
        budget = budget or Budget(None)
        split = _with_clauses if words else _without_clauses
        problem = syntax_problem(text)
        if problem is None:
            try:
                query, clauses = split(self._parser.parse(text, normalize=False))
                if query is not wq.NullQuery and not _matches_everything(query):
                    bounded = self._bounded(query, text, budget)
                    return bounded, None, clauses if clauses and _same_parts(bounded, query) else None
            except SearchStopped:
                raise
            except Exception:  # noqa: BLE001 - whoosh's parser on odd input: read as plain words
                pass
            problem = "query syntax not understood"
        plain = text.replace("*", " ").replace("~", " ")
        query, clauses = split(self._plain_parser.parse(" ".join(WORD.findall(plain)), normalize=False))
        return query, f"{problem}; searched for the words only", clauses

    def _bounded(self, query: wq.Query, text: str, budget: Budget) -> wq.Query:
        """Bound every multi-term part, and make `a NOT b` exclude b (an OR group would not)."""
        expanded: set[tuple] = set()  # the query's multi-term parts, each counted once over its fields
        capped_fuzzy = False

        def admitted(key: tuple) -> bool:
            if key not in expanded and len(expanded) >= MAX_MULTI_TERMS:
                budget.hint(f"more than {MAX_MULTI_TERMS} wildcards, fuzzy terms or ranges; the rest were left out")
                return False
            expanded.add(key)
            budget.expanding = True
            return True

        def bound(node: wq.Query) -> wq.Query:
            nonlocal capped_fuzzy
            if isinstance(node, wq.FuzzyTerm):
                maxdist = min(node.maxdist, MAX_FUZZY_DISTANCE)
                capped_fuzzy = capped_fuzzy or maxdist < node.maxdist
                if len(node.text) > MAX_FUZZY_LENGTH:
                    budget.hint("{items}: too long for fuzzy matching, searched as typed", f"{node.text[:20]}…~")
                    return wq.Term(node.fieldname, node.text, boost=node.boost)
                if not admitted(("fuzzy", node.text, maxdist, node.prefixlength)):
                    return wq.NullQuery
                forms = self._near(node.text, maxdist, min(node.prefixlength, len(node.text)), budget)
                return wq.Or([wq.Term(node.fieldname, form, boost=node.boost) for form in forms])
            if isinstance(node, wq.MultiTerm):
                shown = _shown(node)
                if not admitted(("multi", shown)):
                    return wq.NullQuery
                terms = self._expansions(node, shown, budget)
                return (
                    wq.Or([wq.Term(node.fieldname, term, boost=node.boost) for term in terms])
                    if terms
                    else wq.NullQuery
                )
            node = node.apply(bound)
            if isinstance(node, wq.Or):
                negated = [child.query for child in node.subqueries if isinstance(child, wq.Not)]
                wanted = [child for child in node.subqueries if not isinstance(child, wq.Not)]
                if negated and wanted:
                    return wq.AndNot(_either(wanted), _either(negated))
            return node

        bounded = bound(query)
        if capped_fuzzy:
            typed = [match.group() for match in _FUZZY_TOKEN.finditer(text) if int(match.group(1)) > MAX_FUZZY_DISTANCE]
            for token in typed or ["fuzzy term"]:
                budget.hint(f"{{items}}: fuzzy distance capped at {MAX_FUZZY_DISTANCE}", token)
        return bounded

    def _near(self, text: str, maxdist: int, prefix: int, budget: Budget) -> tuple[str, ...]:
        """The vocabulary's words within maxdist edits of text, and their stems (Whoosh would walk the
        whole term dictionary for a fuzzy term; the vocabulary is faster); cached across queries."""
        key = (text, maxdist, prefix)
        forms = self._near_words.get(key)
        if forms is not None:
            self._near_words.move_to_end(key)
            return forms
        budget.check()
        words = self._corrector.suggest(text, limit=MAX_EXPANSIONS, maxdist=maxdist, prefix=prefix)
        forms = tuple(dict.fromkeys(form for word in (text, *words) for form in (word, *stems(word))))
        self._near_words[key] = forms
        if len(self._near_words) > CACHED_NEAR_WORDS:
            self._near_words.popitem(last=False)
        return forms

    def _expansions(self, node: wq.MultiTerm, shown: str, budget: Budget) -> tuple[bytes, ...]:
        """A prefix's, wildcard's or range's most frequent terms (of the first SCANNED_EXPANSIONS)."""
        key = (type(node).__name__, node.fieldname, shown)
        cached = self._expanded.get(key)
        if cached is None:
            reader = self._reader
            found: list[bytes] = []
            for term in _candidates(node, reader, budget):
                found.append(term)
                if len(found) >= SCANNED_EXPANSIONS:
                    break
            if len(found) > MAX_EXPANSIONS:
                found.sort(key=lambda term: -reader.doc_frequency(node.fieldname, term))
            cached = self._expanded[key] = (tuple(found[:MAX_EXPANSIONS]), len(found) > MAX_EXPANSIONS)
            if len(self._expanded) > CACHED_EXPANSIONS:
                self._expanded.popitem(last=False)
        else:
            self._expanded.move_to_end(key)
        terms, cut = cached
        if cut and isinstance(node, wq.TermRange):
            budget.hint("{items} match{s} too many words; narrow the range", shown)
        elif cut:
            budget.hint(f"{{items}} match{{s}} too many words; searched the {MAX_EXPANSIONS} most frequent", shown)
        return terms


Clauses = tuple[tuple[int, ...], ...]
"""Per word of a query, the positions of the top-level subqueries that came from it."""


def _with_clauses(parsed: wq.Query) -> tuple[wq.Query, Clauses | None]:
    """The query Whoosh's parser made, normalised (its words merged into one Or), and which of its
    top-level subqueries came from which word: None for fewer than two words. `parsed` is the
    parser's output before normalising, where each word is still a subquery of its own."""
    if type(parsed) is not wq.Or:
        return _normalized(parsed), None
    # Or.normalize normalises each word, then merges a word's own Or into itself: the words are
    # normalised here once, first (normalising them again is cheap and changes nothing).
    words = [_normalized(word) for word in parsed.subqueries]
    query = _normalized(wq.Or(words, boost=parsed.boost))
    if type(query) is not wq.Or:
        return query, None
    position = {part: at for at, part in enumerate(query.subqueries)}
    clauses = []
    for word in words:
        parts = _parts(word)
        found = tuple(position[part] for part in parts if part in position)
        if found and not _stop_word(parts):
            clauses.append(found)
    unique = tuple(dict.fromkeys(clauses))
    return query, unique if len(unique) > 1 else None


def _parts(word: wq.Query) -> list[wq.Query]:
    """A normalised word's parts as the Or it joins holds them (its own Or's children, boosted)."""
    if type(word) is not wq.Or:
        return [word]
    if word.boost == 1.0:
        return list(word.subqueries)  # (with_boost copies a query deeply: slow, and the same here)
    return [part.with_boost(part.boost * word.boost) for part in word.subqueries]


def _same_parts(bounded: wq.Query, query: wq.Query) -> bool:
    """The bounded query's top-level parts are the query's (a NOT makes an AndNot of them)."""
    return type(bounded) is wq.Or and type(query) is wq.Or and len(bounded.subqueries) == len(query.subqueries)


def _without_clauses(parsed: wq.Query) -> tuple[wq.Query, None]:
    return _normalized(parsed), None


def _normalized(query: wq.Query) -> wq.Query:
    """query.normalize(), but an Or merges the parts of an Or inside it at boost 1.0 as they are:
    Whoosh's copies each deeply to give it the boost it already has (the word being typed's
    completions over five fields: a fifth of a keystroke's parse)."""
    if type(query) is not wq.Or:
        return query.normalize()
    parts: list[wq.Query] = []
    for child in query.subqueries:
        child = _normalized(child)
        if type(child) is wq.Or and child.boost == 1.0:
            parts.extend(child.subqueries)
        else:
            parts.append(child)
    return wq.Or(parts, boost=query.boost).normalize()


def _stop_word(parts: list[wq.Query]) -> bool:
    """A word only the authors field keeps (`of`, `a`): the text fields' analyzer drops it."""
    return all(
        type(part) is wq.Term and part.fieldname == "authors" and isinstance(part.text, str) for part in parts
    ) and not any(stems(part.text) for part in parts)


def named_fields(text: str) -> list[tuple[str, str]]:
    """The fields a query names (`title:memory`, `by:smith`), as (typed, field searched), outside
    phrases."""
    found = (match.group(1) for match in _FIELD_PREFIX.finditer(_PHRASE.sub(" ", text)))
    return list(dict.fromkeys((typed, _FIELD_OF[typed.lower()]) for typed in found if typed.lower() in _FIELD_OF))


_URL_AFTER = re.compile(r"//")


def unknown_fields(text: str) -> list[str]:
    """The `name:` prefixes a query has that name no field the language knows (`foo:bar`), outside
    phrases and addresses (`https://`), for a hint: the query is searched as words."""
    plain = _PHRASE.sub(" ", text)
    found = (
        match.group(1)
        for match in _FIELD_PREFIX.finditer(plain)
        if plain[match.end() : match.end() + 1].strip()  # a value right after: "Know: A" is punctuation
        and not _URL_AFTER.match(plain, match.end())
        and not match.group(1).isdigit()
    )
    return list(dict.fromkeys(name for name in found if name.lower() not in _FIELD_OF))


def _candidates(node: wq.MultiTerm, reader, budget: Budget) -> Iterator[bytes]:
    """The terms a multi-term query matches, in lexicon order, checking the budget while it scans
    (a leading wildcard reads the whole lexicon)."""
    field = node.fieldname
    budget.check()
    if isinstance(node, wq.Wildcard):
        pattern = re.compile(fnmatch.translate(node.text))
        literal = re.split(r"[*?\[]", node.text, maxsplit=1)[0]
        terms = reader.expand_prefix(field, literal) if literal else reader.lexicon(field)
        from_bytes = reader.schema[field].from_bytes
        for count, term in enumerate(terms, 1):
            if count % CHECK_EVERY == 0:
                budget.check()
            if pattern.match(from_bytes(term)):
                yield term
        return
    # A prefix's terms, a range's (and any other multi-term query's): Whoosh's own expansion.
    terms = reader.expand_prefix(field, node.text) if isinstance(node, wq.Prefix) else node._btexts(reader)
    for count, term in enumerate(terms, 1):
        if count % CHECK_EVERY == 0:
            budget.check()
        yield term


def _either(queries: list[wq.Query]) -> wq.Query:
    return queries[0] if len(queries) == 1 else wq.Or(queries)


def _shown(node: wq.MultiTerm) -> str:
    """A multi-term query as the user would type it, for hints."""
    if isinstance(node, wq.TermRange):
        inside = " ".join(part for part in (node.start, "TO", node.end) if part)
        return f"{'{' if node.startexcl else '['}{inside}{'}' if node.endexcl else ']'}"
    if isinstance(node, wq.Prefix):
        return f"{node.text}*"
    return str(getattr(node, "text", node))


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
    # Only capitals are operators (Whoosh's): `To Prune Or Not` ends with a word, not a stray NOT.
    if tokens and (tokens[0] in OPERATORS - {"NOT"} or tokens[-1] in OPERATORS):
        return f"'{tokens[-1] if tokens[-1] in OPERATORS else tokens[0]}' needs a word on both sides"
    if re.search(r"(?:^|\s)[*?~]+(?:\s|$)", text):
        return "a lone wildcard"
    return None
