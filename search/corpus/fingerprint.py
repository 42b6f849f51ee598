"""What a corpus file's papers hold, as one digest: the key its index shard is found by.

A file's shard indexes the papers kept from it once the lists are merged (merge.py: a paper also in
an earlier list is kept there, and a merged paper may take a field from another list), so the digest
is of those papers, not of the file's bytes. It is computed once, when the lists are read and merged,
and saved with the merged corpus (snapshot.py): a start whose files are unchanged reads it back
instead of reading every abstract again (at 100,000 papers that was 0.3 s of CPU at each index open).
"""

from __future__ import annotations

import hashlib
import threading
from collections.abc import Callable, Iterator, Mapping, Sequence

from search.corpus.kept import abstracts
from search.models import Paper, tldr_of

GIVE_WAY_EVERY = 1024
"""Papers hashed between two calls of a `give_way`."""


def fingerprint(papers: Sequence[Paper], give_way: Callable[[], None] | None = None) -> str:
    """The digest of the papers' indexed content: what the index stores and the result list shows
    (id, abstract, title, venue, authors, keywords, the TL;DR, the code link that decides has_code, whether the
    title is an added fact), in order. `give_way` is called every GIVE_WAY_EVERY papers (it may
    wait: for work that should come first)."""
    content = hashlib.sha256()
    for at, (paper, abstract) in enumerate(zip(papers, abstracts(papers))):  # (kept ones read a run at a time)
        if give_way is not None and at % GIVE_WAY_EVERY == 0:
            give_way()
        # Each value ended by a NUL, one update per paper (one per value took a second at 100,000 papers).
        values = [paper.id, abstract, paper.title or "", paper.venue or "", *paper.authors, "\1", *paper.keywords]
        if paper.github:  # decides has_code in the stored rows (a merged paper may take it from another list)
            values.append("\2" + paper.github)
        if paper.title_added:  # decides the name the result list shows
            values.append("\3")
        tldr = tldr_of(paper)  # searched with the abstract
        if tldr:
            values.append("\4" + tldr)
        values.append("")
        content.update("\0".join(values).encode("utf-8", "surrogatepass"))
    return content.hexdigest()


class BySource(Mapping[str, str]):
    """Each corpus file's fingerprint (by_source), computed when first asked for: not before the
    app's first frame (at 100,000 papers hashing every abstract takes a few tenths of a second),
    but by the index's opening or the saving of the corpus, whichever comes first, once."""

    def __init__(self, papers: Sequence[Paper]) -> None:
        self._papers: Sequence[Paper] | None = papers
        self._found: dict[str, str] = {}
        self._lock = threading.Lock()
        self.give_way: Callable[[], None] | None = None
        """Called while computing, every GIVE_WAY_EVERY papers (see fingerprint)."""

    def _computed(self) -> dict[str, str]:
        with self._lock:
            if self._papers is not None:
                self._found, self._papers = by_source(self._papers, self.give_way), None
            return self._found

    def __getitem__(self, source: str) -> str:
        return self._computed()[source]

    def __iter__(self) -> Iterator[str]:
        return iter(self._computed())

    def __len__(self) -> int:
        return len(self._computed())


def by_source(papers: Sequence[Paper], give_way: Callable[[], None] | None = None) -> dict[str, str]:
    """Each corpus file's fingerprint, of its papers in corpus order."""
    groups: dict[str, list[Paper]] = {}
    for paper in papers:
        groups.setdefault(paper.source, []).append(paper)
    return {source: fingerprint(group, give_way) for source, group in groups.items()}
