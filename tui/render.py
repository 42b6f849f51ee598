"""Engine spans -> Rich Text. Corpus text is only ever placed in Text objects, never parsed as markup."""

from __future__ import annotations

from collections.abc import Iterable

from rich.style import Style
from rich.text import Text

from search import Description, Link, Rendered, term_ranges

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
    # Insert link numbers from the end so earlier offsets stay valid.
    link_spans = sorted((s for s in rendered.spans if s.style == "link"), key=lambda s: -s.end)
    for span in link_spans:
        if span.link is None:
            continue
        number = link_number(description.links, rendered.links[span.link].url)
        if number:
            marker = Text(f"[{number}]", style=LINK_NUMBER)
            text = Text.assemble(text[: span.end], marker, text[span.end :])
    return text


def headline_text(name: str | None, headline: str, terms: Iterable[str] = ()) -> Text:
    """A result-list headline with the method name highlighted."""
    text = Text(headline, no_wrap=True, overflow="ellipsis")
    if name and headline.startswith(name):
        text.stylize(NAME_STYLE, 0, len(name))
    for start, end in term_ranges(headline, terms):
        text.stylize(Style(underline=True, bold=True), start, end)
    return text


def metadata_lines(description: Description) -> list[tuple[str, str]]:
    """(label, value) pairs for whatever metadata the corpus has."""
    paper = description.paper
    rows = [
        ("Title", paper.title),
        ("Name", description.name),
        ("Venue", paper.venue),
        ("Status", paper.status),
        ("Track", paper.track),
        ("Authors", ", ".join(paper.authors)),
        ("Keywords", ", ".join(paper.keywords)),
        ("arXiv", paper.arxiv),
        ("Id", paper.id),
    ]
    return [(label, value) for label, value in rows if value]


def links_text(links: tuple[Link, ...]) -> Text:
    text = Text()
    for number, link in enumerate(links, 1):
        text.append(f"[{number}] ", style=LINK_NUMBER)
        text.append(link.label)
        if link.label != link.url:
            text.append("  ")
            text.append(link.url, style="dim")
        text.append("\n")
    text.rstrip()
    return text


def paper_text(description: Description, terms: Iterable[str] = ()) -> Text:
    """Everything the reader and `iclr-reader show` display for one paper."""
    out = Text()
    heading = description.paper.title or description.name
    if heading:
        out.append(Text(heading, style="bold"))
        out.append("\n")
    for label, value in metadata_lines(description):
        if label == "Title" or (label == "Name" and heading == description.name):
            continue
        out.append(f"{label}: ", style="dim")
        out.append(Text(value, style=NAME_STYLE if label == "Name" else ""))
        out.append("\n")
    out.append("\n")
    out.append(abstract_text(description, terms))
    out.append("\n\nLinks\n", style="bold")
    out.append(links_text(description.links))
    return out
