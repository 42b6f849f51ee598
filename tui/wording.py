"""What the header and the status line say, as pure functions of plain values (no widgets, no engine),
so the exact wording a user reads is tested without running the app.

Names and text that came from outside (list and file names, queries, error messages) go through
`shown` here: a control character in them is shown as a visible escape, never sent to the terminal."""

from __future__ import annotations

import re
from collections.abc import Sequence

from search import SearchResult, shown, split_facets
from tui.keys import SPELLING_KEY

INDEXING = "Indexing…"
WAITING_FOR_INDEX = "Indexing… quick matches by word until the index is ready, then ranked results"
MAX_NAMED_LISTS = 3
"""The header names this many lists at most; beyond that it counts them (ctrl+l names them all)."""


_PLURALS = {"match": "matches"}
"""Words whose plural is not the word plus "s"."""


def counted(count: int, noun: str) -> str:
    """ "1 paper", "10,750 papers", "2 matches": the count with thousands separators and the word in
    the number it needs (the app and the command line both say it so)."""
    return f"{count:,} {noun if count == 1 else _PLURALS.get(noun, noun + 's')}"


def lists_label(names: Sequence[str]) -> str:
    """Which lists are loaded: "iclr2024, nips2023", or "5 lists" when there are more than three."""
    return ", ".join(map(shown, names)) if len(names) <= MAX_NAMED_LISTS else f"{len(names)} lists"


def all_papers_title(lists: Sequence[str], count: int) -> str:
    """The header over every paper in corpus order: "iclr2025 · 38 papers"."""
    return f"{lists_label(lists)} · {counted(count, 'paper')}"


def related_paper(result: SearchResult) -> str | None:
    """The paper id a `related:` query asks about, if it is one (its headline goes in the header)."""
    return split_facets(result.corrected or result.query)[1].related


def result_title(lists: Sequence[str], result: SearchResult, related_headline: str | None = None) -> str:
    """The header over search results: "iclr2025 · 12 matches for “kv cache”"; for words that not
    every match has, "iclr2018 · “graph neural network”: 312 with all words (match:all) · 4,863
    with any" (with
    match:all, "312 with all words (of 4,863 with any)"); for a `related:` query whose paper is
    loaded (`related_headline`), "iclr2025 · 40 papers related to “…”"."""
    if related_headline is not None:
        what = f"{counted(result.total, 'paper')} related to “{shown(related_headline)}”"
    elif result.all_words is not None and result.any_words is not None and result.any_words > result.all_words:
        query = shown(result.corrected or result.query)
        if result.match == "all":
            what = f"“{query}”: {result.all_words:,} with all words (of {result.any_words:,} with any)"
        else:
            what = f"“{query}”: {result.all_words:,} with all words (match:all) · {result.any_words:,} with any"
    else:
        noun = "match" if result.total == 1 else "matches"
        what = f"{result.total:,} {noun} for “{shown(result.corrected or result.query)}”"
    return f"{lists_label(lists)} · {what}"


_LETTERS = re.compile(r"[^\W\d_]+")


def misspelt_words(query: str, corrected: str) -> list[str]:
    """The words of a query that its spelling correction replaced, in order, each once."""
    kept = _LETTERS.findall(corrected)
    replaced = []
    for word in _LETTERS.findall(query):
        if word in kept:
            kept.remove(word)
        else:
            replaced.append(word)
    return list(dict.fromkeys(replaced))


def spelling_note(result: SearchResult) -> str | None:
    """What spelling did to a query, the same in the app and on the command line: "No papers contain
    “grpah”; showing results for “graph”" when the correction was searched instead, "Did you mean
    “graph neural networks”?" when it is only offered; else None."""
    if result.corrected:
        words = [f"“{shown(word)}”" for word in misspelt_words(result.query, result.corrected) or [result.query]]
        missing = f"{', '.join(words[:-1])} or {words[-1]}" if len(words) > 1 else words[0]
        return f"No papers contain {missing}; showing results for “{shown(result.corrected)}”"
    if result.suggestion:
        return f"Did you mean “{shown(result.suggestion)}”?"
    return None


def result_status(result: SearchResult) -> str:
    """The status line under the search box for a result: a correction searched instead (and the key
    that searches the query as typed), an empty result's advice (the engine's own reason first: a
    list not loaded, a field no list has, a value no paper has), a spelling offered (and the key
    that searches it), a syntax hint, or nothing."""
    query = shown(result.query)
    notice = f" {shown(result.notice)}." if result.notice else ""
    spelling = spelling_note(result)
    if result.corrected:
        return f"{spelling}. {SPELLING_KEY}: search “{query}” as typed.{notice}"
    offer = f"{spelling} {SPELLING_KEY}: search that." if spelling else None
    if not result.hits:
        if offer:
            return f"Nothing matches “{query}”. {offer}{notice}"
        if result.notice:
            return f"Nothing matches “{query}”:{notice}"
        return f"Nothing matches “{query}”. Try fewer or other words, a prefix like graph*, or fuzzy~."
    hint = f"Hint: {shown(result.notice)}." if result.notice else ""
    return " ".join(filter(None, [offer, hint]))


def indexing_status(done: int, total: int, query_waiting: bool = False) -> str:
    """ "Indexing 1,200 of 10,750 papers (11%)…", and with a query typed meanwhile, that the list
    shows quick matches by word until indexing finishes and ranked results then."""
    percent = f" ({100 * done // total}%)" if total else ""
    status = f"Indexing {done:,} of {total:,} papers{percent}…"
    return f"{status} quick matches by word; ranked results when it finishes" if query_waiting else status


def index_failed_status(error: str) -> str:
    return f"Search unavailable: {shown(error)}"


def bookmarks_title(total: int, shown: int, filtered: bool) -> str:
    """The bookmarks screen's header: "3 bookmarks", or "3 bookmarks, 1 shown" while a filter is typed."""
    return counted(total, "bookmark") + (f", {shown} shown" if filtered else "")


def download_status(spec: str, done: int, total: int | None, unit: str) -> str:
    """ "Getting iclr2025: 3.2 of 12.5 MB…", "Getting arxiv:cat:cs.LG: 400 of 1,000 papers…"."""
    if unit == "bytes":
        amount = f"{done / 1e6:.1f} of {total / 1e6:.1f} MB" if total else f"{done / 1e6:.1f} MB"
    else:
        amount = f"{done:,} of {total:,} papers" if total else f"{done:,} papers"
    return f"Getting {shown(spec)}: {amount}…"


def list_downloaded(name: str, papers: int) -> str:
    """ "iclr2025: 11,672 papers, now searchable (list:iclr2025)"; indexing follows."""
    name = shown(name)
    return f"{name}: {counted(papers, 'paper')}, searchable as list:{name} once indexed"
