"""OpenReview reviews, on request (`get openreview:VENUE --reviews`): each forum's replies, read from
API v2 (`GET /notes?forum=<id>`), as the official reviews, meta-reviews and decision they hold.

Politely: one request at a time, PAUSE seconds apart, 429 and 5xx retried as http.Client does (with
Retry-After). Resumably: each forum's replies, once read, are kept in the cache folder
(`<cache>/openreview-replies/<host>/<forum>.json`) until the list is in the library, so a run that
was stopped asks only for the forums it had not read yet.

What the replies give goes two ways. The numbers (each reviewer's rating and confidence) and the
decision are written into the list's notes as content fields (`rating`, `confidence`, `decision`),
which the importer reads through the facts model like any list's. The reviews' text goes into a side
file beside the list, REVIEWS_FILE, one JSON line per forum, read only when the reader asks for one
paper's reviews (`reviews_of`).

Replies are untrusted: a note, a section and the count of each are bounded, text is sanitised, a
rating is the leading number of "8: accept, good paper" or an integer, and anything else is left out
(absent stays absent)."""

from __future__ import annotations

import contextlib
import json
import mmap
import os
import re
import time
import urllib.parse
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from search import paths
from search.corpus.formats.facts import numbers
from search.corpus.library import REVIEWS_FILE
from search.errors import SourceError
from search.sources.http import Client, HTTPStatusError
from search.text.sanitize import sanitize, sanitize_line
from search.untrusted import MalformedJSON, load_json

PAUSE = 0.5
"""Seconds between two forums' requests (tests lower it)."""
FORUM_BYTES = 8 * 1024 * 1024
"""The most one forum's answer may hold (a real one holds a few dozen kB)."""
MAX_REPLIES = 64
"""Reviews, meta-reviews and decisions kept per forum, each kind."""
MAX_SECTIONS = 32
SECTION_CHARS = 20_000
"""The most one section of a review keeps (a long one holds a few thousand characters)."""
CACHE_SECONDS = 2 * 24 * 3600
"""A stopped run's forums are used by the next run for this long; older ones are asked for again (reviews
change while a venue's discussion is open)."""
MAX_LINE = 16 * 1024 * 1024
"""The most one forum's line of the side file may hold when it is read back."""
_FORUM = re.compile(r"[A-Za-z0-9_-]{1,64}")
_KINDS = (("/-/Official_Review", "review"), ("/-/Meta_Review", "meta-review"), ("/-/Decision", "decision"))
_NUMBERS = frozenset({"rating", "confidence"})
_LEFT_OUT = frozenset({"title", "code_of_conduct", "first_time_reviewer"})
_LABELS = {"metareview": "Meta-review", "summary_of_the_paper": "Summary of the paper"}
_ORDER = (
    "summary",
    "soundness",
    "presentation",
    "contribution",
    "strengths",
    "weaknesses",
    "questions",
    "limitations",
    "metareview",
    "recommendation",
    "decision",
)
"""Sections in this order first (as OpenReview shows them), then the rest as the reply gives them."""


@dataclass(frozen=True)
class Reply:
    """One official review, meta-review or decision."""

    kind: str
    """review, meta-review or decision."""
    by: str
    """Who signed it, as OpenReview names them (Reviewer_x7Ab, Area_Chair_Q1, Program_Chairs), or ""."""
    rating: float | None = None
    confidence: float | None = None
    sections: tuple[tuple[str, str], ...] = ()
    """(label, text): "Summary", "Strengths", ... and, for a decision, "Decision"."""


@dataclass(frozen=True)
class ForumReviews:
    """What OpenReview's replies to one paper hold, as kept."""

    forum: str
    replies: tuple[Reply, ...]
    decision: str | None = None

    @property
    def reviews(self) -> tuple[Reply, ...]:
        return tuple(reply for reply in self.replies if reply.kind == "review")

    @property
    def ratings(self) -> tuple[float, ...]:
        return tuple(reply.rating for reply in self.reviews if reply.rating is not None)

    @property
    def confidences(self) -> tuple[float, ...]:
        """Each rated review's confidence; () unless every rated review gives one (so the two stay aligned)."""
        rated = [reply for reply in self.reviews if reply.rating is not None]
        found = tuple(reply.confidence for reply in rated if reply.confidence is not None)
        return found if len(found) == len(rated) else ()

    def to_json(self) -> dict[str, Any]:
        return {
            "forum": self.forum,
            "decision": self.decision,
            "replies": [
                {
                    "kind": reply.kind,
                    "by": reply.by,
                    "rating": reply.rating,
                    "confidence": reply.confidence,
                    "sections": [list(section) for section in reply.sections],
                }
                for reply in self.replies
            ],
        }

    @classmethod
    def from_json(cls, data: Any) -> ForumReviews | None:
        """Read back what to_json wrote (from a file that could have been edited: checked again)."""
        if not isinstance(data, dict) or not isinstance(data.get("forum"), str):
            return None
        replies = []
        listed = data.get("replies")
        for item in listed[: 3 * MAX_REPLIES] if isinstance(listed, list) else []:
            if not isinstance(item, dict) or item.get("kind") not in ("review", "meta-review", "decision"):
                continue
            sections = tuple(
                (sanitize_line(section[0]), _text(section[1]))
                for section in (item["sections"] if isinstance(item.get("sections"), list) else [])[:MAX_SECTIONS]
                if isinstance(section, list) and len(section) == 2 and all(isinstance(s, str) for s in section)
            )
            replies.append(
                Reply(
                    item["kind"],
                    sanitize_line(item["by"]) if isinstance(item.get("by"), str) else "",
                    _score(item.get("rating")),
                    _score(item.get("confidence")),
                    sections,
                )
            )
        decision = data.get("decision")
        return cls(
            data["forum"], tuple(replies), sanitize_line(decision)[:200] or None if isinstance(decision, str) else None
        )


def read_replies(forum: str, notes: Any) -> ForumReviews:
    """The official reviews, meta-reviews and decision among a forum's notes (API v2 or v1 shapes)."""
    replies: list[Reply] = []
    decision: str | None = None
    counts = {"review": 0, "meta-review": 0, "decision": 0}
    for note in notes if isinstance(notes, list) else []:
        if not isinstance(note, dict) or not isinstance(note.get("content"), dict):
            continue
        kind = _kind(note)
        if kind is None or counts[kind] >= MAX_REPLIES:
            continue
        counts[kind] += 1
        content = note["content"]
        reply = Reply(
            kind,
            _signer(note),
            _score(_value(content.get("rating"))) if kind == "review" else None,
            _score(_value(content.get("confidence"))) if kind == "review" else None,
            _sections(content),
        )
        replies.append(reply)
        if kind == "decision":
            said = _value(content.get("decision"))
            if isinstance(said, str) and sanitize_line(said).strip():
                decision = sanitize_line(said).strip()[:200]
    order = {"review": 0, "meta-review": 1, "decision": 2}
    replies.sort(key=lambda reply: order[reply.kind])  # stable: reviews in the order OpenReview gives them
    return ForumReviews(forum, tuple(replies), decision)


def fetch_reviews(
    notes: list[dict[str, Any]],
    base: str,
    host: str,
    client: Client,
    side_file: Path,
    private: dict[str, str] | None,
    on_progress: Callable[[int, int | None, str], None] | None,
    explain: Callable[[HTTPStatusError], SourceError],
) -> tuple[int, int, list[Path]]:
    """Each note's forum replies (from the cache, else asked for), written to `side_file` one line a
    forum, their numbers and decision put into the note's content. Returns the requests made, how many
    papers have at least one review, and the cache files used (removed by the caller once the list is
    in the library)."""
    cache = cache_folder(host)
    forums = [(note, forum) for note in notes if (forum := _forum_of(note))]
    requests = reviewed = 0
    used: list[Path] = []
    client.min_interval = PAUSE
    with side_file.open("w", encoding="utf-8") as out:
        for done, (note, forum) in enumerate(forums, 1):
            cached = cache / f"{forum}.json"
            found = _cached(cached)
            if found is None:
                url = f"{base}?{urllib.parse.urlencode({'forum': forum})}"
                try:
                    body = client.get(
                        url, headers={"Accept": "application/json"}, private_headers=private, max_bytes=FORUM_BYTES
                    )
                except HTTPStatusError as error:
                    raise explain(error) from None
                requests += 1
                found = read_replies(forum, _notes_of(body, host, forum))
                _write_cache(cached, found)
            used.append(cached)
            out.write(json.dumps(found.to_json(), ensure_ascii=False) + "\n")
            _fill(note, found)
            reviewed += bool(found.reviews)
            if on_progress is not None:
                on_progress(done, len(forums), "forums")
    return requests, reviewed, used


def cache_folder(host: str) -> Path:
    safe = re.sub(r"[^A-Za-z0-9_.-]+", "_", host) or "host"
    return paths.cache_dir() / "openreview-replies" / safe


def forget_cached(files: list[Path]) -> None:
    """The cache files of a run whose list is now in the library: no longer needed to resume."""
    for file in files:
        with contextlib.suppress(OSError):
            file.unlink()


def reviews_of(list_file: str | Path, forum: str) -> ForumReviews | None:
    """The kept reviews of one paper: its forum's line in the side file beside its list; None when the
    list was not fetched with --reviews (no side file) or the forum has no line (or an unreadable one)."""
    if not list_file or not _FORUM.fullmatch(forum):
        return None
    side = Path(list_file).parent / REVIEWS_FILE
    line = _find_line(side, f'{{"forum": "{forum}",'.encode())
    if line is None:
        return None
    try:
        return ForumReviews.from_json(load_json(line.decode("utf-8", "replace")))
    except MalformedJSON:
        return None


def has_reviews(list_file: str | Path) -> bool:
    """Whether the list was fetched with its reviews (its side file is there); False for a paper read
    from no file (source "")."""
    return bool(list_file) and (Path(list_file).parent / REVIEWS_FILE).is_file()


# -- reading replies -----------------------------------------------------------------------------


def _kind(note: dict[str, Any]) -> str | None:
    invitations = note.get("invitations")
    names = invitations if isinstance(invitations, list) else [note.get("invitation")]
    for name in names:
        if isinstance(name, str):
            for suffix, kind in _KINDS:
                if name.endswith(suffix):
                    return kind
    return None


def _signer(note: dict[str, Any]) -> str:
    signatures = note.get("signatures")
    if isinstance(signatures, list) and signatures and isinstance(signatures[0], str):
        return sanitize_line(signatures[0].rsplit("/", 1)[-1])[:80]
    return ""


def _value(field: Any) -> Any:
    return field.get("value") if isinstance(field, dict) else field


def _score(value: Any) -> float | None:
    found = numbers(value) if isinstance(value, (int, float, str)) else ()
    return found[0] if found else None


def _sections(content: dict[str, Any]) -> tuple[tuple[str, str], ...]:
    keys = [key for key in _ORDER if key in content] + [key for key in content if key not in _ORDER]
    found = []
    for key in keys:
        if not isinstance(key, str) or key.startswith("_") or key in _LEFT_OUT:
            continue
        value = _value(content[key])
        if isinstance(value, list):
            value = ", ".join(str(item) for item in value[:20] if isinstance(item, (str, int, float)))
        elif isinstance(value, (int, float)) and not isinstance(value, bool):
            value = str(value)
        if not isinstance(value, str) or not value.strip():
            continue
        if key in _NUMBERS:
            value = value.strip()
        found.append((_label(key), _text(value)))
        if len(found) >= MAX_SECTIONS:
            break
    return tuple(found)


def _label(key: str) -> str:
    return _LABELS.get(key) or sanitize_line(key.replace("_", " ")).strip()[:60].capitalize()


def _text(value: str) -> str:
    text = sanitize(value[: SECTION_CHARS + 1]).strip()
    return text if len(text) <= SECTION_CHARS else text[:SECTION_CHARS].rstrip() + " …"


def _forum_of(note: Any) -> str | None:
    if not isinstance(note, dict):
        return None
    forum = note.get("forum") or note.get("id")
    return forum if isinstance(forum, str) and _FORUM.fullmatch(forum) else None


def _notes_of(body: bytes, host: str, forum: str) -> Any:
    try:
        data = load_json(body.decode("utf-8", "replace"))
    except MalformedJSON as error:
        raise SourceError(f"{host}: the replies to {forum} are not OpenReview notes ({error.reason})") from None
    if not isinstance(data, dict) or not isinstance(data.get("notes"), list):
        raise SourceError(f'{host}: the replies to {forum} are not OpenReview notes (no "notes" list in them)')
    return data["notes"]


def _fill(note: dict[str, Any], found: ForumReviews) -> None:
    """The replies' numbers and decision, as content fields the importer reads (facts.read)."""
    content = note.setdefault("content", {})
    if found.ratings:
        content["rating"] = {"value": list(found.ratings)}
        if found.confidences:
            content["confidence"] = {"value": list(found.confidences)}
    if found.decision and not _value(content.get("decision")):
        content["decision"] = {"value": found.decision}


# -- the cache and the side file -----------------------------------------------------------------


def _cached(path: Path) -> ForumReviews | None:
    """A forum read by a run that stopped, unless it is older than CACHE_SECONDS (or unreadable)."""
    try:
        status = path.stat()
        if status.st_size > MAX_LINE or time.time() - status.st_mtime > CACHE_SECONDS:
            return None
        return ForumReviews.from_json(load_json(path.read_text(encoding="utf-8", errors="replace")))
    except (OSError, MalformedJSON):
        return None


def _write_cache(path: Path, found: ForumReviews) -> None:
    """Written whole or not at all (a run stopped while writing leaves no half file to resume from)."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        temporary = path.with_name(f".{path.name}.{os.getpid()}")
        temporary.write_text(json.dumps(found.to_json(), ensure_ascii=False), encoding="utf-8")
        os.replace(temporary, path)
    except OSError:
        pass  # no cache: a stopped run asks again, nothing else is lost


def _find_line(path: Path, start: bytes) -> bytes | None:
    """The line of `path` that starts with `start`, found in the file mapped into memory (the operating
    system pages it in; it is never read whole into Python): 0.1 s for the last of 11,600 forums in a
    142 MB side file."""
    try:
        with path.open("rb") as file:
            if os.fstat(file.fileno()).st_size == 0:
                return None
            with mmap.mmap(file.fileno(), 0, access=mmap.ACCESS_READ) as mapped:
                at = 0 if mapped[: len(start)] == start else mapped.find(b"\n" + start)
                if at < 0:
                    return None
                begin = at if at == 0 else at + 1
                end = mapped.find(b"\n", begin)
                end = len(mapped) if end < 0 else end
                return mapped[begin:end] if end - begin <= MAX_LINE else None
    except (OSError, ValueError):
        return None


__all__ = ["PAUSE", "ForumReviews", "Reply", "fetch_reviews", "has_reviews", "read_replies", "reviews_of"]
