"""Searching before the index is open: a plain scan of the papers' text, so a cold start (or a
list just added) finds papers while the index builds.

A query's words (two characters or more, lower-cased; AND/OR/NOT, the words NOT or `-` exclude and
`field:` names left out, the rest of the syntax read as plain words) are looked up at word starts in
each paper's title and abstract source. A paper ranks by how many of the words it has, a word in
the title counting twice; ties keep the corpus order. It is a stand-in for a few seconds: no
stemming, no spelling, no phrase; the index's ranking replaces it as soon as the index is open.

The papers are scanned CHUNK at a time: their titles, and their abstracts, lower-cased and joined,
each word found in the joined text by str.find and each hit told to its paper, so the Python work
grows with the hits rather than with the papers and the words (at 100,000 papers, "graph neural
network" 0.81 -> 0.52 s of CPU, a typed "di" 1.2 -> 0.4 s; a single word costs what lower-casing
and reading every text does, 0.27 s). Larger chunks gained nothing and left the allocator holding
megabytes.
"""

from __future__ import annotations

import re
import threading
from bisect import bisect_right
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import accumulate

from search.corpus.kept import abstract_chunks
from search.models import Paper

_WORD = re.compile(r"[^\W_]{2,}")
_SYNTAX = re.compile(r"\b(?:AND|OR)\b|[^\W\d_]+:")  # operators and `field:` / `facet:` names
_EXCLUDED = re.compile(r"\bNOT\s+\S+|(?<!\S)-\S+")  # words the query excludes: not looked for
CHUNK = 128
"""Papers scanned at a time; the cancel flag is looked at before each chunk."""


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
    scores: dict[int, float] = {}
    offset = 0
    for texts in abstract_chunks(papers, CHUNK):  # (kept abstracts read a run at a time)
        if cancel is not None and cancel.is_set():
            break
        titles = _Joined([paper.title or "" for paper in papers[offset : offset + len(texts)]])
        abstracts = _Joined(texts)
        for word in words:
            in_title = titles.papers_with(word)
            for at in in_title:
                scores[offset + at] = scores.get(offset + at, 0.0) + 2.0
            for at in abstracts.papers_with(word) - in_title:
                scores[offset + at] = scores.get(offset + at, 0.0) + 1.0
        offset += len(texts)
    ranked = sorted(scores.items())  # corpus order ...
    ranked.sort(key=lambda item: -item[1])  # ... kept among ties (a stable sort)
    return Scanned([(papers[at].id, score) for at, score in ranked], words)


class _Joined:
    """Some texts lower-cased and joined by a newline, and where each one starts."""

    __slots__ = ("_starts", "_text")

    def __init__(self, texts: list[str]) -> None:
        lowered = [text.lower() for text in texts]
        self._text = "\n".join(lowered)
        self._starts = [0, *accumulate(len(text) + 1 for text in lowered)]
        """_starts[i]: where text i begins in _text (the last: one past its end)."""

    def papers_with(self, word: str) -> set[int]:
        """The texts in which `word` begins a word: `gan` in "a gan's loss", not in "organ"
        (what `(?<![^\\W_])gan` finds; that pattern would be searched a position at a time)."""
        text, starts, find = self._text, self._starts, self._text.find
        found: set[int] = set()
        at = find(word)
        while at >= 0:
            if at and text[at - 1].isalnum():  # inside a word (a newline between texts is none)
                at = find(word, at + 1)
                continue
            which = bisect_right(starts, at) - 1
            found.add(which)
            at = find(word, starts[which + 1])  # the next text
        return found
