"""The bundled ICLR 2025 list: its paragraph files in assets/, and the facts that give them titles.

The seed files hold abstracts only. assets/iclr2025-facts.json holds, for each of them, its title,
authors, OpenReview forum id, presentation, keywords and arXiv id, matched by the abstract's opening
(`abstract_starts`, whitespace folded) within the file named by the fact. Facts only fill fields:
the abstract, and so the paper's id (a hash of it), are the seed file's, unchanged. Only the bundled
files get facts; a user's own paragraph list is read as it is.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Any

from search.corpus.formats import common
from search.models import Paper

FACTS_FILE = "iclr2025-facts.json"
FORUM = "https://openreview.net/forum?id="
OPENREVIEW_PDF = "https://openreview.net/pdf?id="


@dataclass(frozen=True, slots=True)
class Fact:
    """What is known about one bundled abstract; None or () when not known."""

    file: str
    opening: str
    """The abstract's first characters, whitespace folded."""
    title: str | None
    authors: tuple[str, ...]
    forum: str | None
    status: str | None
    keywords: tuple[str, ...]
    arxiv: str | None


def bundled_paths() -> list[Path]:
    """The ICLR 2025 list files shipped in assets/."""
    folder = resources.files("assets")
    return sorted(Path(str(entry)) for entry in folder.iterdir() if entry.name.endswith(".txt"))


def facts_path() -> Path:
    return Path(str(resources.files("assets").joinpath(FACTS_FILE)))


def is_bundled(path: Path, bundled: Sequence[Path] | None = None) -> bool:
    resolved = path.resolve()
    return any(resolved == candidate.resolve() for candidate in bundled or bundled_paths())


@lru_cache(maxsize=1)
def facts() -> tuple[Fact, ...]:
    """The facts shipped in assets/ (read once)."""
    data = json.loads(facts_path().read_text(encoding="utf-8"))
    return tuple(_fact(record) for record in data["papers"])


def _fact(record: dict[str, Any]) -> Fact:
    return Fact(
        file=record["file"],
        opening=_folded(record["abstract_starts"]),
        title=common.title(record.get("title")),
        authors=common.names(record.get("authors") or []),
        forum=common.text(record.get("openreview_forum")),
        status=common.text(record.get("status")),
        keywords=common.names(record.get("keywords") or []),
        arxiv=common.arxiv_id(record.get("arxiv")),
    )


def with_facts(papers: Sequence[Paper]) -> list[Paper]:
    """The bundled file's papers with their facts applied; a paper without a matching fact is kept as it is."""
    known = facts()
    return [_applied(paper, _match(paper, known)) for paper in papers]


def _match(paper: Paper, known: Sequence[Fact]) -> Fact | None:
    name = Path(paper.source).name
    opening = _folded(paper.abstract)
    return next((fact for fact in known if fact.file == name and opening.startswith(fact.opening)), None)


def _applied(paper: Paper, fact: Fact | None) -> Paper:
    if fact is None:
        return paper
    return paper._replace(
        title=fact.title or paper.title,
        title_added=bool(fact.title) and not paper.title,
        authors=fact.authors or paper.authors,
        keywords=fact.keywords or paper.keywords,
        status=fact.status or paper.status,
        site=FORUM + fact.forum if fact.forum else paper.site,
        pdf=OPENREVIEW_PDF + fact.forum if fact.forum else paper.pdf,
        arxiv=fact.arxiv or paper.arxiv,
    )


def _folded(text: str) -> str:
    return " ".join(text.split())
