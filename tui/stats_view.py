"""Statistics as terminal charts: the one drawing the stats screen shows and `iclr-reader stats`
prints, from the engine's numbers (search/query/stats.py), so both say what `stats --json` says.
Bars are made of the terminal's block characters, eighths of a cell, and fit the width given."""

from __future__ import annotations

from rich.style import Style
from rich.text import Text

from search import Stats
from tui.wording import counted

EIGHTHS = " ▏▎▍▌▋▊▉"
FULL = "█"
ACCEPTED_BLOCK, REJECTED_BLOCK, OTHER_BLOCK = "█", "▒", "░"
"""A rating bucket's bar: accepted papers, rejected ones, the rest (withdrawn, no decision)."""
REJECTED = frozenset({"reject", "rejected", "desk-reject"})
LABEL_WIDTH = 28
ACCEPTED_STYLE = Style(color="green")
REJECTED_STYLE = Style(color="red")
OTHER_STYLE = Style(dim=True)
HEADING = Style(bold=True)


def bar(value: float, maximum: float, width: int) -> str:
    """`value` of `maximum` as a bar at most `width` cells long, to an eighth of a cell."""
    if maximum <= 0 or width <= 0 or value <= 0:
        return ""
    eighths = max(1, round(value / maximum * width * 8))
    return FULL * (eighths // 8) + (EIGHTHS[eighths % 8] if eighths % 8 else "")


def stats_text(stats: Stats, width: int = 80, scope: str = "") -> Text:
    """The charts, `width` cells wide at most; `scope` says what was counted ("every loaded paper",
    a query)."""
    out = Text()
    room = max(8, width - LABEL_WIDTH - 14)
    out.append(counted(stats.papers, "paper"), style=HEADING)
    out.append(f" · {stats.rated:,} with review ratings" + (f" · {scope}" if scope else "") + "\n")
    if not stats.papers:  # headings over nothing would read as a drawing that failed
        out.append("Nothing to count: no paper matches." if scope.startswith("query") else "No paper is loaded.")
        return out
    if stats.decisions:
        _pairs(out, "Decisions", stats.decisions, room)
    else:
        out.append("The lists give these papers no decisions.\n", style="dim")
    if stats.ratings:
        _heading(
            out,
            "Mean rating, by decision",
            f"  ({ACCEPTED_BLOCK} accepted {REJECTED_BLOCK} rejected {OTHER_BLOCK} other)",
            f"  ({ACCEPTED_BLOCK} acc. {REJECTED_BLOCK} rej. {OTHER_BLOCK} other)",
            width,
        )
        most = max(bucket.papers for bucket in stats.ratings)
        for bucket in stats.ratings:
            accepted = bucket.accepted
            rejected = sum(count for decision, count in bucket.by_decision.items() if decision in REJECTED)
            other = bucket.papers - accepted - rejected
            share = bucket.accepted_share
            out.append(f"  {bucket.low:>2}-{bucket.low + 1:<3}")
            cells = bar(bucket.papers, most, max(10, width - 30))
            parts = _split(len(cells), (accepted, rejected, other))
            for count, block, style in zip(
                parts, (ACCEPTED_BLOCK, REJECTED_BLOCK, OTHER_BLOCK), (ACCEPTED_STYLE, REJECTED_STYLE, OTHER_STYLE)
            ):
                out.append(block * count, style=style)
            out.append(f" {bucket.papers:,}")
            if share is not None:
                out.append(f"  {share:.0%} accepted", style="dim")
            out.append("\n")
    for title, pairs in (
        ("Institutions, by papers", stats.institutions),
        ("Institutions, by accepted papers", stats.accepted_institutions),
        ("Countries, by papers", stats.countries),
        ("Countries, by accepted papers", stats.accepted_countries),
        ("Keywords", stats.keywords),
        ("Primary areas", stats.areas),
    ):
        if pairs:
            out.append("\n")
            _pairs(out, title, pairs, room)
    if stats.citations:
        _heading(out, "Citations by decision", "  (papers with a count: median, mean)", "  (median, mean)", width)
        most_cited = max(entry.median for entry in stats.citations)
        # The figures after each bar decide its room: a median of 12,345 and a mean of 23,456.7
        # take a third of an 80-column line; the decisions' names are short.
        label = min(LABEL_WIDTH - 2, max(len(entry.decision) for entry in stats.citations))
        figures = [
            f" {entry.median:,.0f}  ({counted(entry.papers, 'paper')}, mean {entry.mean:,.1f})"
            for entry in stats.citations
        ]
        cited_room = min(room, width - 2 - label - 1 - max(map(len, figures)))
        for entry, said in zip(stats.citations, figures, strict=True):
            out.append(f"  {_cut(entry.decision, label):<{label}} ")
            out.append(bar(entry.median, most_cited, cited_room), style=ACCEPTED_STYLE)
            out.append(f"{said}\n")
    out.rstrip()
    return out


def _heading(out: Text, title: str, note: str, short: str, width: int) -> None:
    """A section's heading after a blank line, its note shortened where the whole would wrap."""
    out.append(f"\n{title}", style=HEADING)
    out.append(f"{note if len(title + note) <= width else short}\n", style="dim")


def _pairs(out: Text, title: str, pairs: list[tuple[str, int]], room: int) -> None:
    out.append(f"{title}\n", style=HEADING)
    most = max((count for _, count in pairs), default=0)
    for name, count in pairs:
        out.append(f"  {_cut(name, LABEL_WIDTH - 2):<{LABEL_WIDTH - 2}} ")
        out.append(bar(count, most, room), style=ACCEPTED_STYLE)
        out.append(f" {count:,}\n")


def _split(cells: int, counts: tuple[int, ...]) -> list[int]:
    """`cells` whole cells shared among the counts in proportion (largest remainders), each count
    above zero keeping at least one cell where there is room."""
    total = sum(counts)
    if not total or not cells:
        return [0] * len(counts)
    shares = [count * cells / total for count in counts]
    parts = [int(share) for share in shares]
    for at in sorted(range(len(counts)), key=lambda at: -(shares[at] - parts[at]))[: cells - sum(parts)]:
        parts[at] += 1
    return parts


def _cut(text: str, width: int) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"
