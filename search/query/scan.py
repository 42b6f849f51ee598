"""Searching before the index is open: a plain scan of the papers' text, so a cold start (or a
list just added) finds papers while the index builds.

A query's words (two characters or more, lower-cased; AND/OR/NOT, the words NOT or `-` exclude and
`field:` names left out, the rest of the syntax read as plain words) are looked up at word starts in
each paper's title and abstract source. A paper ranks by how many of the words it has, a word in
the title counting twice; ties keep the corpus order. It is a stand-in for a few seconds: no
stemming, no spelling, no phrase; the index's ranking replaces it as soon as the index is open.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Sequence
from dataclasses import dataclass

from search.corpus.kept import abstracts
from search.models import Paper

_WORD = re.compile(r"[^\W_]{2,}")
_SYNTAX = re.compile(r"\b(?:AND|OR)\b|[^\W\d_]+:")  # operators and `field:` / `facet:` names
_EXCLUDED = re.compile(r"\bNOT\s+\S+|(?<!\S)-\S+")  # words the query excludes: not looked for
CHECK_EVERY = 2048
"""Papers scanned between two looks at the cancel flag."""


@dataclass(frozen=True)
class Scanned:
    """The papers that have any of the words, best first, and the words looked for."""

    ranked: list[tuple[str, float]]
    words: tuple[str, ...]


def scan(papers: Sequence[Paper], text: str, cancel: threading.Event | None = None) -> Scanned:
    """The papers with any of the query's words. Nothing is kept between queries (the index takes
    over in seconds; a copy of every abstract would cost as much memory as the papers)."""
    plain = _SYNTAX.sub(" ", _EXCLUDED.sub(" ", text))
    words = tuple(dict.fromkeys(word.lower() for word in _WORD.findall(plain)))
    if not words:
        return Scanned([], ())
    starts = [re.compile(r"(?<![^\W_])" + re.escape(word)) for word in words]  # `gan`, not `organ`
    ranked: list[tuple[int, float]] = []
    for at, (paper, text) in enumerate(zip(papers, abstracts(papers))):  # (kept ones read a run at a time)
        if cancel is not None and at % CHECK_EVERY == 0 and cancel.is_set():
            break
        title, abstract = (paper.title or "").lower(), text.lower()
        score = 0.0
        for word, start in zip(words, starts):
            # `in` first (C-fast, most papers fail it), then the word-start check
            if word in title and start.search(title):
                score += 2.0
            elif word in abstract and start.search(abstract):
                score += 1.0
        if score:
            ranked.append((at, score))
    ranked.sort(key=lambda item: -item[1])  # stable: ties keep the corpus order
    return Scanned([(papers[at].id, score) for at, score in ranked], words)
