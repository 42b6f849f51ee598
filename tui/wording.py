"""What the header and the status line say, as pure functions of plain values (no widgets, no engine),
so the exact wording a user reads is tested without running the app.

Names and text that came from outside (list and file names, queries, error messages) go through
`shown` here: a control character in them is shown as a visible escape, never sent to the terminal."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

from rich.text import Text

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


MIN_QUERY_CHARS = 4
"""A query cut shorter than this (its ellipsis included) says nothing: the header leaves it out."""


@dataclass(frozen=True)
class Title:
    """The header's line in parts, so that a narrow terminal cuts what matters least first (the
    query, then the lists) and never the count: "iclr2025 · 12 matches for “kv cache”"."""

    lists: str
    count: str
    """How many papers the list holds, in words: "12 matches", "38 papers"."""
    query: str | None = None
    """The query (or a related paper's headline), shown in quotes; None for every paper."""
    form: str = "for"
    """How the query joins the count: "for" (“12 matches for “q””), "colon" (“q”: count), "related"."""
    short_count: str | None = None
    """The count in fewer words, for a terminal too narrow for `count` alone."""
    marked: str = ""
    """How many papers are marked (" · 3 marked"), said last and kept as the count is."""

    def text(self, query_chars: int | None = None, with_lists: bool = True) -> str:
        """The line, its query cut to `query_chars` characters (an ellipsis included; 0: no query)."""
        query = self.query
        if query is not None and query_chars is not None and len(query) > query_chars:
            query = query[: query_chars - 1] + "…" if query_chars > 0 else None
        if query is None:
            what = self.count
        elif self.form == "colon":
            what = f"“{query}”: {self.count}"
        elif self.form == "related":
            what = f"{self.count} related to “{query}”"
        else:
            what = f"{self.count} for “{query}”"
        return (f"{self.lists} · {what}" if with_lists and self.lists else what) + self.marked

    def __str__(self) -> str:
        return self.text()

    def fitted(self, width: int, measure: Callable[[str], int] = len) -> str:
        """The fullest line that fits `width` cells: the whole of it; else the query cut; else without
        the lists; else the count alone (cut only if not even that fits)."""
        for with_lists in (True, False):
            if measure(line := self.text(with_lists=with_lists)) <= width:
                return line
            if self.query:
                for chars in range(len(self.query) - 1, MIN_QUERY_CHARS - 1, -1):
                    if measure(line := self.text(chars, with_lists)) <= width:
                        return line
        short = self.short_count or self.count
        for count in (self.count + self.marked, short + self.marked, self.count, short):
            if measure(count) <= width:
                return count
        return count[: width - 1] + "…" if width > 0 else ""


def with_marked(title: Title, marked: int) -> Title:
    """The title saying how many papers are marked, last ("12 matches for “q” · 3 marked"), kept
    whatever the width, as the count is."""
    if not marked:
        return title
    return replace(title, marked=f" · {marked:,} marked")


def all_papers_title(lists: Sequence[str], count: int) -> Title:
    """The header over every paper in corpus order: "iclr2025 · 38 papers"."""
    return Title(lists_label(lists), counted(count, "paper"))


def related_paper(result: SearchResult) -> str | None:
    """The paper id a `related:` query asks about, if it is one (its headline goes in the header)."""
    return split_facets(result.corrected or result.query)[1].related


def result_title(lists: Sequence[str], result: SearchResult, related_headline: str | None = None) -> Title:
    """The header over search results: "iclr2025 · 12 matches for “kv cache”"; for words that not
    every match has, "iclr2018 · “graph neural network”: 4,863 matches · 312 with all words (a)"
    (`a` shows only those; with match:all, "312 with all words (of 4,863 with any)"); for a `related:` query
    whose paper is loaded (`related_headline`), "iclr2025 · 40 papers related to “…”"."""
    label = lists_label(lists)
    if related_headline is not None:
        return Title(label, counted(result.total, "paper"), shown(related_headline), "related")
    query = shown(result.corrected or result.query)
    if result.all_words is not None and result.any_words is not None and result.any_words > result.all_words:
        if result.match == "all":
            count = f"{result.all_words:,} with all words (of {result.any_words:,} with any)"
            short = f"{result.all_words:,} of {result.any_words:,}"
        else:
            count = f"{counted(result.any_words, 'match')} · {result.all_words:,} with all words (a)"
            short = f"{counted(result.any_words, 'match')} · {result.all_words:,} with all"
        return Title(label, count, query, "colon", short)
    return Title(label, counted(result.total, "match"), query)


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
    “graph neural networks”?" when it is only offered, "Also searched “transformer” for “transfomer”"
    when a rare word was searched as its common spelling too; else None."""
    if result.corrected:
        words = [f"“{shown(word)}”" for word in misspelt_words(result.query, result.corrected) or [result.query]]
        missing = f"{', '.join(words[:-1])} or {words[-1]}" if len(words) > 1 else words[0]
        return f"No papers contain {missing}; showing results for “{shown(result.corrected)}”"
    if result.suggestion:
        return f"Did you mean “{shown(result.suggestion)}”?"
    if result.also_searched:
        return "Also searched " + ", ".join(
            f"“{shown(also)}” for “{shown(typed)}”" for typed, also in result.also_searched
        )
    return None


def result_status(result: SearchResult) -> str:
    """The status line under the search box for a result: a correction searched instead (and the key
    that searches the query as typed), an empty result's advice (the engine's own reason first: a
    list not loaded, a field no list has, a value no paper has), a spelling offered (and the key
    that searches it), a syntax hint, or nothing."""
    query = shown(result.query)
    notice = f" {shown(result.notice)}." if result.notice else ""
    spelling = spelling_note(result)
    if result.corrected or result.also_searched:
        return f"{spelling}. {SPELLING_KEY}: search “{query}” as typed.{notice}"
    offer = f"{spelling} {SPELLING_KEY}: search that." if spelling else None
    if not result.hits:
        if offer:
            return f"Nothing matches “{query}”. {offer}{notice}"
        if result.notice and shown(result.notice).startswith(query.strip()):  # sort:date: the notice says it
            return f"Nothing matches:{notice}"
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


NO_BOOKMARKS_TO_RECOMMEND = (
    "No bookmarks yet: recommendations are papers like your bookmarks. Press b on a paper to keep it."
)


def none_loaded(bookmarks: int) -> str:
    """Why there is nothing to recommend when every bookmark's paper is in lists not loaded."""
    if bookmarks == 1:
        return "Your bookmark is in no loaded list: nothing to compare with."
    return f"None of your {bookmarks:,} bookmarks is in the loaded lists: nothing to compare with."


def recommended_from(used: int, left_out: int, not_loaded: int) -> str:
    """Which bookmarks recommendations are like, counted among all the user's: "like your 8 bookmarks",
    "like your 50 most recent bookmarks (12 older left out)", "like 1 of your 2 bookmarks (1 not in
    the loaded lists)" (not "like your bookmark", which says there is one)."""
    total = used + left_out + not_loaded
    if left_out:
        said = f"like your {used:,} most recent bookmarks"
    elif used == total:
        said = "like your bookmark" if used == 1 else f"like your {used:,} bookmarks"
    else:
        said = f"like {used:,} of your {total:,} bookmarks"
    why = [f"{left_out:,} older left out"] if left_out else []
    if not_loaded:
        why.append(f"{not_loaded:,} not in the loaded lists")
    return f"{said} ({', '.join(why)})" if why else said


def download_status(spec: str, done: int, total: int | None, unit: str) -> str:
    """ "Getting iclr2025: 3.2 of 12.5 MB…", "Getting arxiv:cat:cs.LG: 400 of 1,000 papers…"."""
    if unit == "bytes":
        amount = f"{done / 1e6:.1f} of {total / 1e6:.1f} MB" if total else f"{done / 1e6:.1f} MB"
    elif unit == "forums":
        amount = f"reviews of {done:,} of {total:,} papers" if total else f"reviews of {counted(done, 'paper')}"
    else:
        amount = f"{done:,} of {total:,} papers" if total else counted(done, "paper")
    return f"Getting {shown(spec)}: {amount}…"


def first_run_guide(papers: int) -> Text:
    """The panel a first start shows (until esc hides it for good): what to type, the keys that
    matter, how to get more papers, and where the rest is."""
    guide = Text()
    guide.append("Welcome! ", style="bold")
    guide.append(f'Type to search {counted(papers, "paper")}: words, "a phrase", prefix*.\n')
    keys = (("enter", "read"), ("b", "bookmark"), ("y", "copy link"), ("r", "related"), ("/", "search"))
    for number, (key, what) in enumerate(keys):
        guide.append(" · " if number else "")
        guide.append(key, style="bold")
        guide.append(f" {what}")
    guide.append("\n")
    guide.append("ctrl+g", style="bold")
    guide.append(" gets more lists (`iclr-reader get iclr2025`: all of ICLR 2025)\n")
    guide.append("f1", style="bold")
    guide.append(" every key · ")
    guide.append("esc", style="bold")
    guide.append(" hides this for good")
    return guide


def list_updated(name: str, papers: int) -> str:
    """ "iclr2025: updated, 11,672 papers"; indexing follows."""
    return f"{shown(name)}: updated, {counted(papers, 'paper')} (indexed now)"


def list_downloaded(name: str, papers: int) -> str:
    """ "iclr2025: 11,672 papers, now searchable (list:iclr2025)"; indexing follows."""
    name = shown(name)
    return f"{name}: {counted(papers, 'paper')}, searchable as list:{name} once indexed"
