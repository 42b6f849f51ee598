"""The reviews screen (R on a paper): the official reviews, meta-reviews and decision OpenReview holds
for it, as `get openreview:VENUE --reviews` kept them beside its list. Scrollable; esc (or R, q) goes
back."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.widgets import Static

from search import ForumReviews, Reply
from tui.screens.page import TextPage
from tui.widgets.in_turn_scroll import InTurnScroll

KIND_NAMES = {"review": "Review", "meta-review": "Meta-review", "decision": "Decision"}
_NUMBERED = {"Rating": "rating", "Confidence": "confidence"}
"""Sections the heading already gives as a number (left out of the body when it does)."""


def number(value: float) -> str:
    return f"{value:g}"


def reviews_text(found: ForumReviews) -> Text:
    """Every reply as text: a summary line (decision, ratings), then each review with its reviewer's
    number, rating and confidence, its sections, then the meta-reviews and the decision."""
    text = Text()
    if found.decision:
        text.append("Decision: ", style="bold")
        text.append(f"{found.decision}\n")
    if found.ratings:
        mean = sum(found.ratings) / len(found.ratings)
        text.append("Ratings: ", style="bold")
        text.append(" · ".join(number(rating) for rating in found.ratings))
        text.append(f"  (mean {mean:.2f})")
        if found.confidences:
            text.append("  confidences: ", style="bold")
            text.append(" · ".join(number(confidence) for confidence in found.confidences))
        text.append("\n")
    counts = [(len([r for r in found.replies if r.kind == kind]), KIND_NAMES[kind].lower()) for kind in KIND_NAMES]
    text.append(", ".join(f"{count} {name}{'' if count == 1 else 's'}" for count, name in counts if count), style="dim")
    text.append("\n")
    reviewer = 0
    for reply in found.replies:
        reviewer += reply.kind == "review"
        text.append("\n")
        text.append_text(_heading(reply, reviewer if reply.kind == "review" else None))
        for label, body in reply.sections:
            if _NUMBERED.get(label) and getattr(reply, _NUMBERED[label]) is not None:
                continue
            text.append(f"\n{label}\n", style="bold underline")
            text.append(f"{body}\n")
    return text


def _heading(reply: Reply, reviewer: int | None) -> Text:
    heading = Text(style="bold reverse")
    heading.append(f" Reviewer {reviewer}" if reviewer is not None else f" {KIND_NAMES[reply.kind]}")
    if reply.by:
        heading.append(f" · {reply.by}")
    if reply.rating is not None:
        heading.append(f" · rating {number(reply.rating)}")
    if reply.confidence is not None:
        heading.append(f" · confidence {number(reply.confidence)}")
    heading.append(" \n")
    return heading


class ReviewsScreen(TextPage):
    """One paper's reviews; esc (or R, q) goes back."""

    BINDINGS = [Binding("escape,R,q", "close", "Back")]

    def __init__(self, title: str, found: ForumReviews) -> None:
        super().__init__()
        self.paper_title = title
        self.found = found

    def compose(self) -> ComposeResult:
        yield Static(
            Text(f"Reviews · {self.paper_title} · esc: back", no_wrap=True, overflow="ellipsis"),
            id="reviews-title",
            classes="page-title",
        )
        with InTurnScroll(id="reviews-scroll"):
            yield Static(reviews_text(self.found), id="reviews-body", classes="page-body")
