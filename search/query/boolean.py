"""Filters joined by the query's own AND, OR, NOT and parentheses: `inst:cambridge OR inst:oxford`,
`NOT rating:>=7`, `diffusion (inst:mit OR inst:stanford)`, `graph AND year:2018`.

Facets written side by side keep their plain meaning (facets.py: values of one facet are
alternatives, different facets must all hold, `-` negates), and are taken out of the text before
its words are searched. When a facet is an operand of AND, OR or NOT, or inside parentheses, the
query is read here instead: each part made only of facets is a set of papers (OR the union, AND
the intersection, NOT every other loaded paper), every such part must hold, and what is left is
searched as words. Whoosh's own precedence is kept: NOT binds tightest, then AND, then OR, then
words side by side.

An OR between a filter and words (`inst:mit OR diffusion`) or a NOT over both cannot be a filter
and words searched within it: the query says so in a problem and reads the OR as AND.
sort:, match: and related: say how to list, not which papers: they are left out of expressions.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from search.query.facets import FACET, OPERATORS

_NOT_FILTERS = ("sort", "match", "related")
_PHRASE = re.compile(r'"(?:[^"\\]|\\.)*"?')
_WORD = re.compile(r'[^\s()"]+')


@dataclass(frozen=True)
class Node:
    """A part of the query: "facet" or "word" (a leaf, its text), "group" (parentheses or the whole
    query: its parts side by side), "not", "and", "or"."""

    kind: str
    text: str = ""
    parts: tuple[Node, ...] = ()

    @property
    def facets(self) -> bool:
        """Whether any facet is inside it."""
        return self.kind == "facet" or any(part.facets for part in self.parts)

    @property
    def pure(self) -> bool:
        """Made of facets only: a set of papers."""
        if self.kind in ("facet", "word"):
            return self.kind == "facet"
        return bool(self.parts) and all(part.pure for part in self.parts)

    def written(self) -> str:
        """The part as the query language reads it back."""
        if self.kind in ("facet", "word"):
            return self.text
        if self.kind == "not":
            return f"NOT {self.parts[0].written()}"
        if self.kind in ("and", "or"):
            return f" {self.kind.upper()} ".join(part.written() for part in self.parts)
        return f"({' '.join(part.written() for part in self.parts)})"


@dataclass(frozen=True)
class FilterExpression:
    """A query whose filters are combined by its operators: the filters, every one of which must
    hold (plain facets side by side, as typed, in `plain`), the words left to search, and what
    could not be read as asked."""

    plain: str
    filters: tuple[Node, ...]
    words: str
    problems: tuple[str, ...] = ()


def filter_expression(text: str) -> FilterExpression | None:
    """The query's filters and words when a facet is an operand of AND, OR, NOT or inside
    parentheses; None when the facets are plain (facets.py reads them) or the parentheses do not
    pair."""
    tokens = _tokens(text)
    if tokens is None:
        return None
    parser = _Parser(tokens)
    top = parser.group()
    if parser.at < len(tokens):  # a ")" with no "(": not an expression
        return None
    if not any(part.facets for part in top.parts if part.kind != "facet"):
        return None
    plain: list[str] = []
    filters: list[Node] = []
    words: list[str] = []
    problems: list[str] = []
    _conjunction(top.parts, plain, filters, words, problems)
    rest = " ".join(words)
    if rest and text[-1:].isspace():
        rest += " "  # the last word is finished (see facets.split_facets)
    return FilterExpression(" ".join(plain), tuple(filters), rest, tuple(problems))


def evaluate(node: Node, plain: Callable[[str], frozenset[str] | None], everything: frozenset[str]) -> frozenset[str]:
    """The papers a part made of facets lets through: `plain(text)` those that facets written side
    by side let through (None: every paper)."""
    if node.kind == "facet":
        found = plain(node.text)
        return everything if found is None else found
    if node.kind == "not":
        return everything - evaluate(node.parts[0], plain, everything)
    if node.kind == "or":
        union: set[str] = set()
        for part in node.parts:
            union.update(evaluate(part, plain, everything))
        return frozenset(union)
    if node.kind == "and":  # each operand holds on its own: `inst:mit AND inst:stanford` is both
        result = everything
        for part in node.parts:
            result = result & evaluate(part, plain, everything)
        return result
    side_by_side = " ".join(part.text for part in node.parts if part.kind == "facet")
    found = plain(side_by_side) if side_by_side else None
    result = everything if found is None else found
    for part in node.parts:
        if part.kind != "facet":
            result = result & evaluate(part, plain, everything)
    return result


def _conjunction(parts, plain: list[str], filters: list[Node], words: list[str], problems: list[str]) -> None:
    """Parts that must all hold (the query's own, or a group's, or AND's operands)."""
    for part in parts:
        if part.kind == "facet":
            plain.append(part.text)
        elif part.pure:
            filters.append(part)
        elif not part.facets:
            words.append(part.written())
        elif part.kind == "and":  # its facets each hold on their own (not side by side: either value)
            for operand in part.parts:
                if operand.kind == "facet":
                    filters.append(operand)
                else:
                    _conjunction((operand,), plain, filters, words, problems)
        elif part.kind == "group":
            inner: list[str] = []
            _conjunction(part.parts, plain, filters, inner, problems)
            if inner:
                words.append(inner[0] if len(inner) == 1 else f"({' '.join(inner)})")
        else:  # an OR of words and filters, or NOT over both: read as AND, and said
            kind = "OR" if part.kind == "or" else "NOT"
            problems.append(
                f"{part.written()}: {kind} joins filters with filters or words with words; "
                f"{'read as AND' if kind == 'OR' else 'the NOT was left out'}"
            )
            _conjunction(part.parts if kind == "OR" else part.parts[0:1], plain, filters, words, problems)


class _Parser:
    """Whoosh's precedence: NOT, then AND, then OR, then parts side by side."""

    def __init__(self, tokens: list[tuple[str, str]]) -> None:
        self.tokens = tokens
        self.at = 0

    def _peek(self) -> tuple[str, str] | None:
        return self.tokens[self.at] if self.at < len(self.tokens) else None

    def group(self) -> Node:
        parts = []
        while (token := self._peek()) is not None and token[0] != ")":
            parts.append(self._or())
        return Node("group", parts=tuple(parts))

    def _or(self) -> Node:
        parts = [self._and()]
        while self._operator("OR") and self._operand():
            parts.append(self._and())
        return parts[0] if len(parts) == 1 else Node("or", parts=tuple(parts))

    def _and(self) -> Node:
        parts = [self._unary()]
        while (self._operator("AND") or self._operator("ANDNOT")) and self._operand():
            negated = self.tokens[self.at - 1][1] == "ANDNOT"
            part = self._unary()
            parts.append(Node("not", parts=(part,)) if negated else part)
        return parts[0] if len(parts) == 1 else Node("and", parts=tuple(parts))

    def _unary(self) -> Node:
        token = self._peek()
        assert token is not None
        if token == ("op", "NOT") and self.at + 1 < len(self.tokens) and self.tokens[self.at + 1][0] != ")":
            self.at += 1
            return Node("not", parts=(self._unary(),))
        self.at += 1
        if token[0] == "(":
            inner = self.group()
            self.at += 1  # its ")" (the tokens pair: see _tokens)
            return inner
        return Node("facet" if token[0] == "facet" else "word", token[1])

    def _operator(self, name: str) -> bool:
        """The next token is this operator (taken), with something after it to join."""
        if self._peek() == ("op", name) and self.at + 1 < len(self.tokens) and self.tokens[self.at + 1][0] != ")":
            self.at += 1
            return True
        return False

    def _operand(self) -> bool:
        return self._peek() is not None


def _tokens(text: str) -> list[tuple[str, str]] | None:
    """The query's parentheses, operators, facets, "phrases" and words, as (kind, text); None when
    its parentheses do not pair. sort:, match: and related: are left out."""
    tokens: list[tuple[str, str]] = []
    depth = 0
    at = 0
    while at < len(text):
        char = text[at]
        if char.isspace():
            at += 1
            continue
        if char in "()":
            depth += 1 if char == "(" else -1
            if depth < 0:
                return None
            tokens.append((char, char))
            at += 1
            continue
        facet = FACET.match(text, at)
        if facet:
            if facet.group(2).lower() not in _NOT_FILTERS:
                tokens.append(("facet", facet.group(0)))
            at = facet.end()
            continue
        found = (_PHRASE if char == '"' else _WORD).match(text, at)
        assert found is not None
        word = found.group(0)
        tokens.append(("op", word) if word in OPERATORS else ("word", word))
        at = found.end()
    return tokens if depth == 0 else None
