"""Engine spans -> Rich Text. Corpus text is only ever placed in Text objects, never parsed as markup."""

from __future__ import annotations

from collections.abc import Iterable

from rich.style import Style
from rich.text import Text

from search import Bookmark, Description, Link, Paper, Rendered, shown, term_ranges
from tui.wording import counted

SPAN_STYLES = {
    "bold": Style(bold=True),
    "italic": Style(italic=True),
    "underline": Style(underline=True),
    "code": Style(color="cyan"),
    "math": Style(color="magenta", italic=True),
    "link": Style(color="bright_blue", underline=True),
}
HIGHLIGHT = Style(bold=True, color="black", bgcolor="yellow")
NAME_STYLE = Style(bold=True, color="green")
LINK_NUMBER = Style(color="bright_blue", bold=True)


def link_number(links: tuple[Link, ...], url: str) -> int:
    """1-based number of a URL in the paper's link list (what the reader shows as [n])."""
    for number, link in enumerate(links, 1):
        if link.url == url:
            return number
    return 0


def styled(rendered: Rendered) -> Text:
    """The engine's plain text with its style spans applied."""
    text = Text(rendered.text)
    for span in rendered.spans:
        text.stylize(SPAN_STYLES.get(span.style, ""), span.start, span.end)
    return text


def abstract_text(description: Description, terms: Iterable[str] = ()) -> Text:
    """The rendered abstract: styles from the engine's spans, [n] after each link, terms highlighted."""
    rendered = description.rendered
    text = styled(rendered)
    for start, end in term_ranges(rendered.text, terms):
        text.stylize(HIGHLIGHT, start, end)
    # [n] after each link: the text is cut once at every link's end (one cut per link would copy
    # the whole text per link, quadratic in the number of links), markers in between.
    numbers: dict[str, int] = {}
    for number, link in enumerate(description.links, 1):
        numbers.setdefault(link.url, number)
    markers: list[tuple[int, int, int]] = []  # (where, -order, number): at one place, the later link first
    for order, span in enumerate(rendered.spans):
        if span.style == "link" and span.link is not None:
            number = numbers.get(rendered.links[span.link].url, 0)
            if number:
                markers.append((span.end, -order, number))
    if not markers:
        return text
    markers.sort()
    pieces = text.divide(end for end, _, _ in markers)
    parts = [pieces[0]]
    for piece, (_, _, number) in zip(pieces[1:], markers, strict=True):
        parts.append(Text(f"[{number}]", style=LINK_NUMBER))
        parts.append(piece)
    return Text.assemble(*parts)


def headline_text(name: str | None, headline: str, terms: Iterable[str] = (), name_style: Style = NAME_STYLE) -> Text:
    """A result-list headline with the method name highlighted."""
    text = Text(headline, no_wrap=True, overflow="ellipsis")
    if name and headline.startswith(name):
        text.stylize(name_style, 0, len(name))
    for start, end in term_ranges(headline, terms):
        text.stylize(Style(underline=True, bold=True), start, end)
    return text


def metadata_lines(description: Description) -> list[tuple[str, str]]:
    """(label, value) pairs for whatever metadata the corpus has."""
    return _metadata(description.paper, description.name)


_QUOTES = "\"'“”‘’«»`"


def _shown_name(name: str | None, title: str | None) -> str | None:
    """The method's name as a metadata line, without quotes ("Double-DIP" -> Double-DIP), and only
    when the title does not start with it: under "SCBench: A KV Cache-..." it says nothing new."""
    bare = (name or "").strip(_QUOTES)
    if not bare or (title and title.lstrip(_QUOTES).casefold().startswith(bare.casefold())):
        return None
    return bare


def _metadata(paper: Paper, name: str | None) -> list[tuple[str, str]]:
    rows = [
        ("Title", paper.title),
        ("Name", _shown_name(name, paper.title)),
        ("Venue", paper.venue),
        ("Status", paper.status),
        ("Track", None if (paper.track or "").strip().casefold() == "main" else paper.track),  # nearly every paper's
        ("Authors", ", ".join(paper.authors)),
        ("Keywords", ", ".join(paper.keywords)),
        ("arXiv", paper.arxiv),
        ("Id", paper.id),
    ]
    return [(label, value) for label, value in rows if value]


def links_text(links: tuple[Link, ...], limit: int | None = None) -> Text:
    """The numbered link list; with `limit` (see paper_text), at most `limit // 500` links, each
    label and address cut at `limit // 20` characters, and how many more links there are."""
    most = None if limit is None else limit // 500
    width = None if limit is None else limit // 20
    text = Text()
    for number, link in enumerate(links[:most], 1):
        text.append(f"[{number}] ", style=LINK_NUMBER)
        text.append(_clip(link.label, width))
        if link.label != link.url:
            text.append("  ")
            text.append(_clip(link.url, width), style="dim")
        text.append("\n")
    if most is not None and len(links) > most:
        text.append(f"… and {len(links) - most:,} more links", style="dim")
    text.rstrip()
    return text


def paper_text(description: Description, terms: Iterable[str] = (), limit: int | None = None) -> Text:
    """Everything the reader and `iclr-reader show` display for one paper.

    With `limit` (the reader's: Textual lays the whole text out on the interface's thread, in time
    proportional to its length), at most `limit` characters of the abstract, `limit // 10` of each
    metadata line and `limit // 500` links are shown, saying what is left out; the whole is then
    at most about 4 * limit characters."""
    out = _heading(description.paper, description.name, None if limit is None else limit // 10, description.links)
    abstract = abstract_text(description, terms)
    if limit is not None and len(abstract) > limit:
        cut = abstract.plain.rfind(" ", limit - 100, limit)
        cut = cut if cut > 0 else limit
        left = len(abstract) - cut
        abstract = abstract[:cut]
        abstract.append(f" … ({left:,} more characters: iclr-reader show prints them all)", style="dim")
    out.append(abstract)
    people = people_text(description.paper, None if limit is None else limit // 10)
    if people.plain:
        out.append("\n\nAuthors\n", style="bold")
        out.append(people)
    out.append("\n\nLinks\n", style="bold")
    out.append(links_text(description.links, limit))
    return out


def converting_text(paper: Paper, limit: int | None = None) -> Text:
    """What the reader shows while a long abstract is converted: the paper's metadata and a note."""
    out = _heading(paper, None, None if limit is None else limit // 10)
    out.append(f"Converting the abstract ({len(paper.abstract):,} characters)…", style="dim italic")
    return out


def facts_lines(paper: Paper, links: tuple[Link, ...] = ()) -> list[tuple[str, str]]:
    """(label, value) pairs for what the list says about the paper's reviews, citations and
    summary: the mean rating ± its spread with each reviewer's score/confidence, the citations
    (with the number of the cited-by link among `links`), the primary area, the session, the
    TL;DR. Absent facts give no line."""
    facts = paper.facts
    rows: list[tuple[str, str]] = []
    if paper.rating is not None:
        value = f"{paper.rating:.2f}"
        if facts.rating_std is not None:
            value += f" ± {facts.rating_std:.2f}"
        if facts.ratings:
            scores = [_number(score) for score in facts.ratings]
            if len(facts.confidences) == len(scores):
                pairs = ", ".join(
                    f"{score}/{_number(sure)}" for score, sure in zip(scores, facts.confidences, strict=True)
                )
                value += f" · {counted(len(scores), 'review')}, score/confidence: {pairs}"
            else:
                value += f" · {counted(len(scores), 'review')}: {', '.join(scores)}"
        rows.append(("Rating", value))
    if paper.citations is not None:
        value = f"{paper.citations:,} (Google Scholar)"
        number = link_number(links, facts.cited_by) if facts.cited_by else 0
        if number:
            value += f", cited by: [{number}]"
        rows.append(("Citations", value))
    rows += [("Area", facts.area or ""), ("Session", facts.session or ""), ("TL;DR", facts.tldr or "")]
    return [(label, value) for label, value in rows if value]


def _number(value: float) -> str:
    return str(int(value)) if value == int(value) else f"{value:g}"


def people_text(paper: Paper, limit: int | None = None) -> Text:
    """One line per author with what the list says of them: institution (as normalised), country,
    position; empty when it says nothing of anyone."""
    facts = paper.facts
    columns = (facts.institutions or facts.affiliations, facts.countries, facts.positions)
    out = Text()
    if not any(columns):
        return out
    for at, name in enumerate(paper.authors):
        known = [values[at] for values in columns if at < len(values) and values[at]]
        out.append(_clip(name, limit))
        if known:
            out.append(" — ", style="dim")
            out.append(_clip(" · ".join(known), limit), style="dim")
        out.append("\n")
    out.rstrip()
    return out


def _heading(paper: Paper, name: str | None, limit: int | None, links: tuple[Link, ...] = ()) -> Text:
    """The title (or the method name) and the metadata lines (each cut at `limit`), then a blank line."""
    out = Text()
    heading = paper.title or name
    if heading:
        out.append(Text(_clip(heading, limit), style="bold"))
        out.append("\n")
    for label, value in _metadata(paper, name):
        if label == "Title" or (label == "Name" and not paper.title):  # the name is the heading
            continue
        out.append(f"{label}: ", style="dim")
        out.append(Text(_clip(value, limit), style=NAME_STYLE if label == "Name" else ""))
        out.append("\n")
    for label, value in facts_lines(paper, links):
        out.append(f"{label}: ", style="dim")
        out.append(Text(_clip(value, limit)))
        out.append("\n")
    out.append("\n")
    return out


def _clip(value: str, limit: int | None) -> str:
    return value if limit is None or len(value) <= limit else value[: limit - 1] + "…"


STAR = Style(color="yellow")
"""The bookmark star on a dark theme (the reader is given the theme's)."""
NOTE_LINES = 6
"""The reader shows this many lines of a note (n opens all of it)."""


def bookmark_state_text(bookmark: Bookmark, star: Style = STAR) -> Text:
    """The reader's lines over a bookmarked paper: "★ Bookmarked · tags: a, b", the note's first
    lines, and the keys that edit them; `star`: the theme's colour for the star."""
    out = Text()
    out.append("★ Bookmarked", style=star + Style(bold=True))
    if bookmark.tags:
        out.append("  ·  tags: ", style="dim")
        out.append(", ".join(map(shown, bookmark.tags)), style="bold")
    if bookmark.note:
        lines = [shown(line) for line in bookmark.note.splitlines()] or [""]
        out.append("\nNote: ", style="dim")
        out.append("\n      ".join(lines[:NOTE_LINES]))
        if len(lines) > NOTE_LINES:
            out.append(f"\n      … {len(lines) - NOTE_LINES} more lines (n shows the whole note)", style="dim")
    out.append("\nn edits the note, t the tags, b removes the bookmark (in the list or here)", style="dim")
    return out
