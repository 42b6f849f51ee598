"""Finding what to read next on the main screen: related papers, the list picker, filter toggles and
saved searches. Each one edits the query in the search box, so the query language stays the single
way of saying what is shown (and every view can be typed, saved and recalled)."""

from __future__ import annotations

from abc import abstractmethod
from collections import Counter

from rich.text import Text
from textual import work
from textual.binding import Binding
from textual.screen import Screen

from search import (
    SearchEngine,
    SearchRequest,
    facet_tokens,
    has_reviews,
    quoted,
    reviews_of,
    split_facets,
    toggle,
    without_facet,
)
from tui.preferences import Preferences
from tui.screens.choosers import Chooser, NameDialog, SavedSearches
from tui.store_access import StoreAccess
from tui.widgets.search_box import SearchBox
from tui.wording import counted

DISCOVERY_BINDINGS = [
    Binding("r", "related", "Related"),
    Binding("a", "toggle_all_words", "All words", show=False),
    Binding("ctrl+l", "pick_list", "Lists", show=False),
    Binding("ctrl+t", "filters", "Filters", show=False),
    Binding("ctrl+s", "save_search", "Save search", show=False),
    Binding("S", "saved_searches", "Saved", show=False),
    Binding("p", "people", "People", show=False),
    Binding("R", "reviews", "Reviews", show=False),
]
MOST_VENUES = 4
"""Venues a person's or institution's count names, most papers first."""

MARK_FILTERS = [
    ("is:bookmarked", "bookmarked papers"),
    ("is:unread", "papers not opened yet"),
]
ORDERS = [
    ("match:all", "only papers with every word of the query"),
    ("sort:relevance", "sort by relevance (default)"),
    ("sort:order", "sort in corpus order"),
    ("sort:name", "sort by name"),
]


def filter_choices(engine: SearchEngine) -> list[tuple[str, str]]:
    """(token, meaning) for the filter menu: only what the loaded papers can find (has:code when some
    paper has a code link), marks, match and orders, then each status the lists use, with its count
    (last: there may be many, and the orders must show in a small terminal)."""
    available = engine.available_filters()
    choices = []
    if available.with_code:
        choices.append(("has:code", f"papers with a code link · {available.with_code:,}"))
    choices += MARK_FILTERS + ORDERS
    if any(paper.rating is not None for paper in engine.papers):
        choices.append(("sort:rating", "highest mean review rating first"))
    if any(paper.citations is not None for paper in engine.papers):
        choices.append(("sort:citations", "most cited first"))
    return choices + [
        (f"status:{quoted(status)}", f"{counted(count, 'paper')}") for status, count in available.statuses
    ]


class DiscoveryActions(Screen[None]):
    """The main screen's discovery actions. The screen sets `engine` and `store_access` in its
    constructor, has a SearchBox, and implements `current_paper_id` and `action_focus_results`."""

    engine: SearchEngine
    store_access: StoreAccess
    preferences: Preferences

    @abstractmethod
    def current_paper_id(self) -> str | None:
        """The highlighted paper, if any."""

    @abstractmethod
    def action_focus_results(self) -> None:
        """Move the focus to the result list."""

    def _set_query(self, text: str) -> None:
        text = " ".join(text.split())
        text = f"{text} " if text else ""  # ready for the next word, not glued to the last one
        box = self.query_one(SearchBox)
        box.value = text
        box.cursor_position = len(text)
        box.remember()

    def action_related(self) -> None:
        paper_id = self.current_paper_id()
        if paper_id is None:
            self.notify("Select a paper first", severity="warning")
            return
        self._set_query(f"related:{quoted(paper_id)}")  # ids may hold spaces, quotes, parentheses
        self.action_focus_results()

    def action_reviews(self) -> None:
        """R: the paper's reviews, meta-reviews and decision, when its list was fetched with
        `get openreview:VENUE --reviews`; else one line saying why there are none to show."""
        paper_id = self.current_paper_id()
        if paper_id is None:
            self.notify("Select a paper first", severity="warning")
            return
        paper = self.engine.paper(paper_id)
        sources = [source for source in (paper.source, *paper.also_in) if has_reviews(source)]
        if not sources:
            self.notify(
                "No reviews kept for this paper: `iclr-reader get openreview:VENUE --reviews` fetches a venue's reviews",
                severity="warning",
            )
            return
        # The same paper in two lists is one paper: its forum is its id, or the one its OpenReview page names.
        site = paper.site or ""
        forums = dict.fromkeys([paper.id, site.split("forum?id=", 1)[1]] if "forum?id=" in site else [paper.id])
        found = next(
            (kept for source in sources for forum in forums if (kept := reviews_of(source, forum)) is not None), None
        )
        if found is None or not found.replies:
            self.notify("OpenReview has no public reviews, meta-review or decision for this paper")
            return
        from tui.screens.reviews import ReviewsScreen  # loaded when first opened, not before the first frame

        self.app.push_screen(ReviewsScreen(paper.title or paper.id, found))

    def action_people(self) -> None:
        """p: the selected paper's authors (with their institution and country) and institutions;
        picking one searches author:... or inst:... across every loaded list, and says how many
        papers that is, per venue."""
        paper_id = self.current_paper_id()
        if paper_id is None:
            self.notify("Select a paper first", severity="warning")
            return
        paper = self.engine.paper(paper_id)
        facts = paper.facts
        choices: list[tuple[Text | str, str]] = []
        where: dict[str, str] = {}  # a person's token -> their institution on this paper
        for at, name in enumerate(paper.authors):
            person = facts.author_ids[at] if at < len(facts.author_ids) and facts.author_ids[at] else name
            label = Text(name)
            known = [values[at] for values in (facts.institutions, facts.countries) if at < len(values) and values[at]]
            if known:
                label.append(f"  {' · '.join(known)}", style="dim")
            choices.append((label, f"author:{quoted(person)}"))
            if at < len(facts.institutions) and facts.institutions[at]:
                where[f"author:{quoted(person)}"] = facts.institutions[at]
        institutions = dict.fromkeys(part for value in facts.institutions for part in value.split(" + ") if part)
        for institution in institutions:
            label = Text(institution)
            label.append("  institution", style="dim")
            choices.append((label, f"inst:{quoted(institution)}"))
        if not choices:
            self.notify("The list names no authors for this paper", severity="warning")
            return

        def chosen(token: str | None) -> None:
            if token is None:
                return
            self._set_query(token)
            self.action_focus_results()
            self._say_count(token, where.get(token, ""))

        self.app.push_screen(Chooser("Whose papers? (every loaded list)", choices), chosen)

    @work(thread=True, group="people", exclusive=True, exit_on_error=False)
    def _say_count(self, token: str, institution: str = "") -> None:
        """How many papers the person (at `institution`) or institution has, per venue, as a
        notification."""
        result = self.engine.search(SearchRequest(token, limit=max(1, len(self.engine.papers)), budget=None))
        venues = Counter(self.engine.paper(hit.paper_id).venue or "no venue" for hit in result.hits)
        shown = ", ".join(f"{venue} {count}" for venue, count in venues.most_common(MOST_VENUES))
        more = f", {len(venues) - MOST_VENUES} more venues" if len(venues) > MOST_VENUES else ""
        at = f" ({institution})" if institution else ""
        said = f"{token}{at}: {counted(result.total, 'paper')}" + (f" · {shown}{more}" if shown else "")
        self.app.call_from_thread(self.notify, said, markup=False, timeout=8)

    def action_toggle_all_words(self) -> None:
        """a: only the papers with every word of the query (match:all), or all the ranked matches again."""
        query = self.query_one(SearchBox).value
        if not query.strip():
            self.notify("Type some words first: a then lists only the papers with all of them", severity="warning")
            return
        in_effect = split_facets(query)[1].match or self.preferences.match  # the query's, else the default
        self._set_query(toggle(query, "match:any" if in_effect == "all" else "match:all"))

    def action_pick_list(self) -> None:
        counts = self.engine.list_counts()  # a paper in two lists counts in both, and once in all
        choices: list[tuple[Text | str, str]] = [(f"All lists · {counted(len(self.engine.papers), 'paper')}", "")]
        choices += [(f"{name} · {counted(count, 'paper')}", name) for name, count in counts.items()]

        def chosen(name: str | None) -> None:
            if name is None:
                return
            rest = without_facet(self.query_one(SearchBox).value, "list")
            self._set_query(f"{rest} list:{quoted(name)}" if name else rest)

        self.app.push_screen(Chooser("Search which list?", choices), chosen)

    def action_filters(self) -> None:
        query = self.query_one(SearchBox).value
        active = {token.lower() for token in query.split()}
        said = any(token.lower().lstrip("-").startswith("sort:") for token in facet_tokens(query))
        sort = split_facets(query)[1].sort if said else self.preferences.sort  # the order in effect
        choices: list[tuple[Text | str, str]] = []
        for token, meaning in filter_choices(self.engine):
            on = token.lower() in active or (token == f"sort:{sort}")
            label = Text("● " if on else "○ ", style="bold" if on else "dim")
            label.append(token)
            label.append(f"  {meaning}", style="dim")
            choices.append((label, token))

        def chosen(token: str | None) -> None:
            if token is not None:
                self._set_query(toggle(self.query_one(SearchBox).value, token))

        self.app.push_screen(Chooser("Filter or sort (choose again to turn off)", choices), chosen)

    def action_save_search(self) -> None:
        query = " ".join(self.query_one(SearchBox).value.split())
        if not query:
            self.notify("Type a query first, then ctrl+s saves it", severity="warning")
            return
        if self.store_access.require(self) is None:
            return

        def named(name: str | None) -> None:
            if name is None:
                return
            ok, _ = self.store_access.call(self, lambda store: store.save_search(name, query))
            if ok:
                self.notify(f"Saved “{query}” as “{name}” (S or the command palette recalls it)", markup=False)

        self.app.push_screen(NameDialog(query), named)

    def action_saved_searches(self) -> None:
        ok, chooser = self.store_access.call(self, lambda store: SavedSearches(store, store.saved_searches()))
        if not ok or chooser is None:
            return

        def chosen(query: str | None) -> None:
            if query is not None:
                self.run_saved_search(query)

        self.app.push_screen(chooser, chosen)

    def run_saved_search(self, query: str) -> None:
        self._set_query(query)
