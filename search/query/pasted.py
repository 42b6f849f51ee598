"""Pasted text read as words: punctuation and capitals that Whoosh's parser would take for syntax.

A pasted title is not query syntax. `words_meant` rewrites query text before it is parsed so that a
title reads as its words, while syntax typed on purpose keeps working. It only ever replaces a
character with a space or lowercases an operator, so the result has the same length and the same
words in the same order; anything inside double quotes is left as it is (quotes pair left to
right, as the parser pairs them). It never raises and takes linear time.

Punctuation:
- `?` (and the other question marks Whoosh takes for a one-letter wildcard) and `!`, in a run of
  them that is not followed by a letter or digit: spaces. `What Makes a Good Planner?`, `Yes!`,
  `Explain?:`, a lone `???`. A `?` followed by a letter stays a wildcard: `gr?ph`, `?raph`; so does
  one before `*`, `~` or `^`. A word-final `?` is punctuation even after a wildcard (`gr?ph?` is
  searched as `gr?ph`).
- `:`: a space unless the word right before it is a name the parser or the facets know (`title:`,
  `abstract:`, `text:`, `authors:`, `author:`, `by:`, `keywords:`, `keyword:`, `kw:`, `name:`, `id:`,
  and the facets `list:`, `venue:`, `status:`, `has:`, `is:`, `sort:`, `match:`, `related:`), in any
  case, or a `*` (`*:`, which the parser reads too); those are left alone. `Models: A Survey`,
  `MLDemon:Deployment`, `12:30` lose the colon.

Operators: Whoosh takes AND, OR, NOT, ANDNOT, ANDMAYBE and REQUIRE in capitals as operators. Each
one outside quotes stays an operator unless the text around it reads as words, that is when
1. the query is in capitals: it has words with letters outside quotes and every one of them is
   in capitals (`TO BE OR NOT TO BE`, a pasted all-capitals title; also `GAN OR VAE`: type acronyms
   in lowercase to combine them, `gan OR vae`, since the words are lowercased when searched anyway);
2. or the operator follows a word in capitals of two or more letters (`LLMs DO NOT Know`,
   `why models DO NOT generalise`): a title's emphasis (an acronym after it is what the operator
   works on: `detection NOT YOLO`, `diffusion AND GAN` keep theirs);
3. or the query looks like a pasted title: at least three words besides the operators, more than
   half of them starting with a capital (`Knowing What LLMs DO NOT Know`, and `Vision AND Language:
   A Survey?`, which is read as the title it looks like; `Vision AND Language`, two words, keeps
   its AND).
Words are the whitespace-separated tokens outside quotes that have a cased letter, except the
operators in lowercase; a field prefix (`title:`) and parentheses are not part of the word. An
operator read as words is lowercased: `and`, `or` and `not` are stop words the analyzer drops,
which is what a pasted title wants (`andnot`, `andmaybe`, `require` are searched as words). So
`(gan OR vae) AND image`, `graph NOT neural`, `attention OR transformer`, `Attention OR
Transformer`, `title:memory AND cache` and `"a phrase" OR word` keep their operators.

Everything else the parser reads is left alone: `"phrases"`, `"phrase"~3`, `field:term`, `word*`,
`word~`, `word~2`, `word^2`, parentheses, `[a TO b]` ranges, 'single quotes'.
"""

from __future__ import annotations

import re

from whoosh.qparser.plugins import WildcardPlugin

from search.query.facets import FACET_NAMES
from search.query.parse import FIELD_ALIASES, OPERATORS, SEARCH_FIELDS

KNOWN_PREFIXES = frozenset(
    {*SEARCH_FIELDS, *(alias for aliases in FIELD_ALIASES.values() for alias in aliases), "id", *FACET_NAMES}
)
"""Names whose `name:` is syntax (compared in lowercase): the fields, `id` (the schema's id field,
which the parser reads too) and the facets (the engine takes them out before a query is parsed,
but a `list:` is left alone wherever it is)."""
PARSER_OPERATORS = frozenset({*OPERATORS, "REQUIRE"})
"""The operators Whoosh's parser takes in capitals (OperatorsPlugin, REQUIRE included)."""
_ENDINGS = re.escape(WildcardPlugin.qmarks + "!")
_ENDING_RUN = re.compile(f"[{_ENDINGS}]+")
"""A run of question marks (the wildcard characters Whoosh knows) and exclamation marks."""
_KEPT_AFTER_RUN = re.compile(r"[\w*~^]")
"""What after such a run makes it syntax: a letter or digit (`gr?ph`), or more syntax (`gr?*`)."""
_PHRASE = re.compile(r'"[^"]*"')
_TOKEN = re.compile(r'(?:"[^"]*"|[^\s"])+|"')
"""Whitespace-separated tokens, a quoted phrase (spaces and all) inside one token; an unpaired
quote is a token of its own."""
_FIELD_PREFIX = re.compile(r"[-+(]*(\w+):")
_LONGEST_PREFIX = max(map(len, KNOWN_PREFIXES))
MIN_TITLE_WORDS = 3
"""Rule 3: a query of this many words or more, most of them capitalised, reads as a title."""


def words_meant(text: str) -> str:
    """The query text with the punctuation and capitals that are not meant as syntax made plain
    (see the module's docstring for the rule)."""
    out = list(text)
    start = 0
    for phrase in _PHRASE.finditer(text):
        _plain_punctuation(text, start, phrase.start(), out)
        start = phrase.end()
    _plain_punctuation(text, start, len(text), out)
    return _plain_operators("".join(out))


def _plain_punctuation(text: str, start: int, end: int, out: list[str]) -> None:
    """Blank the `?`, `!` and `:` of text[start:end] (outside quotes) that are punctuation."""
    segment = text[start:end]
    for run in _ENDING_RUN.finditer(segment):
        after = start + run.end()
        if after < len(text) and _KEPT_AFTER_RUN.match(text, after):
            continue
        for at in range(start + run.start(), after):
            out[at] = " "
    at = segment.find(":")
    while at >= 0:
        if not _known_prefix_before(segment, at):
            out[start + at] = " "
        at = segment.find(":", at + 1)


def _known_prefix_before(segment: str, at: int) -> bool:
    """The word right before segment[at] is a known name (looked at no further back than the
    longest name, so each colon costs a bounded time), or a `*` (the parser's `*:`, which also
    keeps `Q*: Improving` from searching the prefix `q*`)."""
    if at and segment[at - 1] == "*":
        return True
    begin = at
    while begin > 0 and at - begin <= _LONGEST_PREFIX and _word_char(segment[begin - 1]):
        begin -= 1
    return at - begin <= _LONGEST_PREFIX and segment[begin:at].lower() in KNOWN_PREFIXES


def _word_char(char: str) -> bool:
    """A character of a word as the parser's `\\w` sees it."""
    return char.isalnum() or char == "_"


def _plain_operators(text: str) -> str:
    """The text with the operators in capitals that the rule reads as words lowercased."""
    tokens = [(match.start(), match.group()) for match in _TOKEN.finditer(text)]
    operators = [index for index, (_, token) in enumerate(tokens) if _operator(token)]
    if not operators:
        return text
    shapes = [None if _operator(token) or _lowered_operator(token) else _shape(token) for _, token in tokens]
    words = [shape for shape in shapes if shape is not None]
    shouting = bool(words) and all(capitals for capitals, _, _ in words)
    capitalised = sum(1 for _, initial, _ in words if initial)
    title = len(words) >= MIN_TITLE_WORDS and 2 * capitalised > len(words)
    out = list(text)
    for index in operators:
        if shouting or title or _emphasis(shapes, index - 1):
            at, token = tokens[index]
            out[at : at + len(token)] = token.lower()
    return "".join(out)


def _operator(token: str) -> bool:
    """A token Whoosh takes for an operator: one standing alone, or NOT right after a parenthesis."""
    return token in PARSER_OPERATORS or token.lstrip("()") == "NOT"


def _lowered_operator(token: str) -> bool:
    """An operator in lowercase (`and`, `(not`): not a word for the rule either, or the rule would
    read its own output differently (`AND AA AND Aa` lowercases the second AND; counted as a word,
    that `and` would make the text a title the next time)."""
    return token.islower() and _operator(token.upper())


def _shape(token: str) -> tuple[bool, bool, int] | None:
    """For a word (outside quotes, with a cased letter): whether it is in capitals, whether its
    first cased letter is a capital, and how many letters it has; None for anything else."""
    if '"' in token:
        return None
    prefix = _FIELD_PREFIX.match(token)
    if prefix and prefix.group(1).lower() in KNOWN_PREFIXES:
        token = token[prefix.end() :]
    cased = [char for char in token if char.isupper() or char.islower()]
    if not cased:
        return None
    letters = sum(1 for char in token if char.isalpha())
    return not any(char.islower() for char in cased), cased[0].isupper(), letters


def _emphasis(shapes: list[tuple[bool, bool, int] | None], index: int) -> bool:
    """The token at index is a word in capitals of two letters or more (`DO` of `DO NOT`)."""
    if not 0 <= index < len(shapes):
        return False
    shape = shapes[index]
    return shape is not None and shape[0] and shape[2] >= 2


def explicit_syntax(text: str) -> bool:
    """True when the query says itself how its words combine (AND, OR, NOT, parentheses): then
    "papers with every word" does not apply. Capitals a pasted title has (`LLMs DO NOT Know`) are
    its words, not operators (`words_meant`)."""
    return "(" in text or ")" in text or any(token in OPERATORS for token in words_meant(text).split())
