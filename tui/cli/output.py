"""Everything the CLI prints for scripts: every `--json` shape, and the JSON and Rich printers.

Shapes are built here and nowhere else, so a script's contract with `iclr-reader` reads in one place.
Rich is imported only when styled text is printed, keeping the plain commands' start-up light.
"""

from __future__ import annotations

import contextlib
import json
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from search import (
    Bookmark,
    Conference,
    Hit,
    ListOrigin,
    Paper,
    Recommendations,
    Rendered,
    SearchEngine,
    SearchResult,
    Stats,
    bookmark_record,
    export,
    link_records,
    primary_link,
)

if TYPE_CHECKING:
    from rich.text import Text

    from tui.cli.library import ListSummary

JsonObject = dict[str, Any]


PAPER_KEYS = (
    *("id", "name", "headline", "title", "authors", "venue", "year", "status", "track", "links"),
    *("rating_avg", "rating_std", "ratings", "confidences", "confidence_avg", "citations", "cited_by"),
    *("institutions", "countries", "people", "tldr", "area", "session", "keywords", "bibtex"),
)
"""The one paper object every command prints (`show --json`, `list --json`, `search --json` and
`related --json` hits, `bookmarks --json`), in this order."""


def paper_object(engine: SearchEngine, paper_id: str) -> JsonObject:
    """The paper every JSON output shares: what the list says, null where it says nothing (never
    an empty stand-in). `links` start with the one `y` copies; `people` are the authors with what
    the list knows of each (OpenReview id, institution, country, position, homepage, dblp, Google
    Scholar, ORCID); `institutions` and `countries` are the authors' without repeats."""
    description = engine.describe(paper_id)
    paper = description.paper
    facts = paper.facts
    primary = primary_link(description.links) if description.links else None
    links = [primary, *(link for link in description.links if link is not primary)] if primary else []
    return {
        "id": paper.id,
        "name": description.name,
        "headline": description.headline,
        "title": paper.title,
        "authors": list(paper.authors) or None,
        "venue": paper.venue,
        "year": paper.year,
        "status": paper.status,
        "track": paper.track,
        "links": link_records(links),
        "rating_avg": paper.rating,
        "rating_std": facts.rating_std,
        "ratings": list(facts.ratings) or None,
        "confidences": list(facts.confidences) or None,
        "confidence_avg": facts.confidence_avg,
        "citations": paper.citations,
        "cited_by": facts.cited_by,
        "institutions": _unique(facts.institutions),
        "countries": _unique(facts.countries),
        "people": _people(paper) if any(getattr(facts, field) for _, field in _PERSON) else None,
        "tldr": facts.tldr,
        "area": facts.area,
        "session": facts.session,
        "keywords": list(paper.keywords) or None,
        "bibtex": facts.bibtex,
    }


_PERSON = (
    ("id", "author_ids"),
    ("affiliation", "affiliations"),
    ("institution", "institutions"),
    ("country", "countries"),
    ("position", "positions"),
    ("homepage", "homepages"),
    ("dblp", "dblp"),
    ("google_scholar", "scholar"),
    ("orcid", "orcid"),
)


def _people(paper: Paper) -> list[JsonObject]:
    facts = paper.facts
    people = []
    for at, name in enumerate(paper.authors):
        person: JsonObject = {"name": name}
        for key, field in _PERSON:
            values = getattr(facts, field)
            person[key] = (values[at] if at < len(values) else "") or None
        people.append(person)
    return people


def _unique(per_author: Sequence[str]) -> list[str] | None:
    """Each author's values (some "A + B"), without repeats, in order; None when there are none."""
    found = dict.fromkeys(part for value in per_author for part in value.split(" + ") if part)
    return list(found) or None


def paper_json(engine: SearchEngine, paper: Paper) -> JsonObject:
    """One entry of `list --json`: the paper object and its source abstract."""
    return {**paper_object(engine, paper.id), "abstract": paper.abstract}


def papers_json(engine: SearchEngine) -> JsonObject:
    """`list --json`: every loaded paper with its source abstract."""
    return {"papers": [paper_json(engine, paper) for paper in engine.papers]}


def search_json(engine: SearchEngine, result: SearchResult) -> JsonObject:
    """`search --json`: the query, its spelling correction searched instead (or null), the one
    offered ("did you mean", or null), the rare words also searched as a common spelling, the
    match count and the ranked hits (each hit's score null when no words were searched: filters
    alone score nothing)."""
    scored = any(hit.score for hit in result.hits)
    hits = [hit_json(engine, hit, scored) for hit in result.hits]
    return {
        "query": result.query,
        "corrected": result.corrected,
        "suggestion": result.suggestion,
        "also_searched": [{"typed": typed, "also": also} for typed, also in result.also_searched],
        "total": result.total,
        "hits": hits,
    }


def related_json(engine: SearchEngine, paper_id: str, hits: Sequence[Hit]) -> JsonObject:
    """`related --json`: the paper's id and its most similar papers, best first, each in the shape
    `search --json` gives its hits, so one script reads both."""
    return {"id": paper_id, "hits": [hit_json(engine, hit) for hit in hits]}


def recommended_json(engine: SearchEngine, result: Recommendations | None) -> JsonObject:
    """`recommend --json`: how many bookmarks were compared with (`bookmarks_used`; `left_out`:
    older ones past the 50 most recent; `not_loaded`: in no loaded list) and the papers most like
    them, best first, each the paper object with its `score` and `closest_bookmark` (`id`,
    `headline`). No bookmarks (None): zeros and no hits."""
    if result is None:
        return {"bookmarks_used": 0, "left_out": 0, "not_loaded": 0, "hits": []}
    hits = [
        {
            **paper_object(engine, hit.paper_id),
            "score": round(hit.score, 6),
            "closest_bookmark": {"id": hit.closest, "headline": engine.row(hit.closest).headline},
        }
        for hit in result.hits
    ]
    return {
        "bookmarks_used": len(result.used),
        "left_out": result.left_out,
        "not_loaded": result.not_loaded,
        "hits": hits,
    }


def hit_json(engine: SearchEngine, hit: Hit, scored: bool = True) -> JsonObject:
    """One hit of `search --json` or `related --json`: the paper object, its score (null when
    nothing was scored) and the terms that matched."""
    score = round(hit.score, 4) if scored else None
    return {**paper_object(engine, hit.paper_id), "score": score, "terms": list(hit.terms)}


def stats_json(stats: Stats, query: str) -> JsonObject:
    """`stats --json`: the query (null for every loaded paper) and the numbers the stats screen
    draws: papers, rated, decisions, ratings (each bucket's low end, papers, accepted, share
    accepted, papers by decision), institutions and countries by papers and by accepted papers,
    keywords, areas, citations by decision (papers, median, mean)."""
    return {"query": query.strip() or None, **stats.as_json()}


def rendered_json(rendered: Rendered) -> JsonObject:
    """`render --json`: plain text, style spans (with the link index on link spans) and links."""
    return {
        "text": rendered.text,
        "spans": [
            {
                "start": span.start,
                "end": span.end,
                "style": span.style,
                **({"link": span.link} if span.link is not None else {}),
            }
            for span in rendered.spans
        ],
        "links": link_records(rendered.links, kinds=False),
    }


def lists_json(summaries: Sequence[ListSummary]) -> JsonObject:
    """`lists --json`: each list's name, paper count, first venues, file, load error (or null) and
    where it was downloaded from (null for the bundled list and lists added from a file)."""
    return {
        "lists": [
            {
                "name": summary.name,
                "papers": summary.papers,
                "venues": list(summary.venues),
                "file": summary.file,
                "error": summary.error,
                "source": origin_json(summary.origin) if summary.origin else None,
            }
            for summary in summaries
        ]
    }


def origin_json(origin: ListOrigin) -> JsonObject:
    """A downloaded list's origin in `lists --json`: the source kind (paperlists, openreview, arxiv), what
    was asked (a name, a venue id, a query), the URL, when it was fetched and last checked (ISO 8601
    UTC), the server's validators, and the OpenReview / arXiv options."""
    return {
        "kind": origin.kind,
        "source": origin.source,
        "url": origin.url,
        "fetched_at": origin.fetched_at,
        "checked_at": origin.checked_at,
        "etag": origin.etag,
        "last_modified": origin.last_modified,
        "all_submissions": origin.all_submissions,
        "reviews": origin.reviews,
        "max_results": origin.max_results,
    }


def available_json(conferences: Sequence[Conference]) -> JsonObject:
    """`get --available --json`: each paperlists conference's folder name, display name, years, and
    the years whose lists have no abstracts (nothing to search)."""
    return {
        "paperlists": [
            {
                "name": conference.name,
                "label": conference.label,
                "years": list(conference.years),
                "without_abstracts": list(conference.without_abstracts),
            }
            for conference in conferences
        ]
    }


def print_bookmarks_json(bookmarks: Sequence[Bookmark], engine: SearchEngine | None = None) -> None:
    """`bookmarks --json`: the same document as `bookmarks export --format json`, so it re-imports,
    each bookmark with the paper object's other keys too (from the loaded paper; null when its list
    is not loaded)."""
    document = json.loads(export(bookmarks, "json"))
    for record in document["bookmarks"]:
        paper = None
        if engine is not None:
            with contextlib.suppress(KeyError):
                paper = paper_object(engine, engine.paper(record["id"]).id)
        for key in PAPER_KEYS:
            if key not in record:
                record[key] = paper[key] if paper else None
    print_json(document)


def removed_json(bookmarks: Sequence[Bookmark]) -> JsonObject:
    """`bookmarks removed --json`: the removed bookmarks, newest first, each as the JSON export writes
    one (with its note and tags), so `bookmarks restore ID` can be scripted from it."""
    return {"removed": [bookmark_record(bookmark) for bookmark in bookmarks]}


def restored_json(bookmark: Bookmark) -> JsonObject:
    """`bookmarks restore --json`: the bookmark brought back, as the JSON export writes one."""
    return {"restored": bookmark_record(bookmark)}


def print_json(value: JsonObject) -> None:
    json.dump(value, sys.stdout, ensure_ascii=False, indent=2)
    sys.stdout.write("\n")


def print_styled(text: Text) -> None:
    """Print Rich Text to a terminal; never parses markup, so corpus text stays inert."""
    from rich.console import Console

    Console(highlight=False, markup=False, emoji=False).print(text)
