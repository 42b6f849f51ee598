"""Every key binding and the query language, described once: the help screen shows both, and the
README key table is built from KEYS."""

from __future__ import annotations

SPELLING_KEY = "ctrl+z"
"""Searches the query as typed when the status line shows a spelling correction searched instead,
and takes the spelling the status line offers ("did you mean"). ctrl+e, the obvious choice, is the
search box's end-of-line key; ctrl+z undoes a correction, as in a word processor."""

KEYS: list[tuple[str, str, str]] = [
    ("Anywhere", "/  ctrl+f", "Focus the search box"),
    ("Anywhere", "?  f1", "Show this help: the keys and the query language"),
    ("Anywhere", "ctrl+p", "Command palette (search, open, theme, help, quit, ...)"),
    ("Anywhere", "tab  shift+tab", "Next / previous pane"),
    ("Anywhere", "q", "Quit (not while typing in the search box)"),
    ("Anywhere", "ctrl+q", "Quit"),
    ("Search box", "enter", "Go to the results"),
    (
        "Search box",
        "up  down",
        "Recall this session's queries (those you paused on or left the box with); down past the newest goes to the results",
    ),
    ("Search box", "esc", "Clear the query"),
    (
        "Search box",
        "ctrl+b  ctrl+y  ctrl+r",
        "Bookmark, copy the link of, or find papers related to the highlighted result",
    ),
    ("Search box", "ctrl+o  ctrl+n", "Open the highlighted result's link, edit its note"),
    ("Results", "j  k  up  down", "Move the selection"),
    ("Results", "g  G  home  end", "First / last result"),
    ("Results", "pageup  pagedown", "Move a page"),
    ("Results", "enter  l", "Open the paper in the reader"),
    ("Results", "esc", "Back to the search box"),
    ("Results", "a", "Only the papers with every word of the query (match:all), or all matches again"),
    ("Results", "space", "Mark the paper (✓) and move down; b, t, y, Y, o then act on every marked paper"),
    ("Results", "*", "Mark every match (asks first past 100); esc clears the marks"),
    ("Results", "[  ]", "Narrow / widen the list (or drag the bar between the panes); remembered"),
    ("Results", "z", "The list alone across the whole width, or beside the reader again; remembered"),
    ("Reader", "j  k  up  down", "Scroll"),
    ("Reader", "space  shift+space", "Page down / up"),
    ("Reader", "pageup  pagedown", "Page up / down"),
    ("Reader", "g  G  home  end", "Top / bottom"),
    ("Reader", "esc  h", "Back to the results"),
    ("Paper", "b", "Bookmark / unbookmark the selected paper (list or reader); with papers marked, bookmark them"),
    ("Paper", "u", "Undo the last bookmark removal: it comes back with its note and tags (even after a restart)"),
    ("Paper", "n", "Edit the paper's note; ctrl+s saves (and bookmarks the paper)"),
    (
        "Paper",
        "t",
        "Edit the paper's tags, comma-separated; enter saves (and bookmarks the paper); with papers marked, "
        "add tags to them all",
    ),
    (
        "Paper",
        "y",
        "Copy the main link: the paper's page (OpenReview, else arXiv), else its PDF, else code, else a search "
        "(with papers marked: theirs, one per line)",
    ),
    ("Paper", "Y", "Pick which link to copy (1-9); with papers marked, copy them as a Markdown list"),
    ("Paper", "o", "Open the main link in a browser (with papers marked: theirs, up to 10)"),
    ("Paper", "O", "Pick which link to open (1-9)"),
    ("Paper", "r", "Related papers: the ones most like the selected paper (query related:ID)"),
    ("Anywhere", "ctrl+l", "Pick the list to search: all lists or one (query list:NAME)"),
    (
        "Anywhere",
        "ctrl+t",
        "Filters and sort: has:code, is:bookmarked, is:unread, the statuses the lists use, match:all, sort:...",
    ),
    ("Anywhere", "ctrl+s", "Save the current search with a name"),
    ("Anywhere", "S", "Saved searches: 1-9 or enter runs one, d deletes (not while typing)"),
    ("Anywhere", "B", "Bookmarks: filter, open, remove"),
    (
        "Paper",
        "p",
        "People: the paper's authors (with institution, country) and institutions; one picked lists its papers "
        "in every list (author:, inst:) and their count per venue",
    ),
    (
        "Paper",
        "R",
        "Reviews: each review (reviewer, rating, confidence, text), the meta-review and the decision, for lists "
        "fetched with get openreview:VENUE --reviews; esc goes back",
    ),
    (
        "Anywhere",
        "s",
        "Statistics of the query's papers (or all): ratings by decision, institutions, countries, keywords, citations",
    ),
    ("Anywhere", "ctrl+g", "Get a list: pick a conference and year (or openreview:VENUE, arxiv:QUERY) to download"),
    (
        "Anywhere",
        SPELLING_KEY,
        "Spelling: search the query as typed instead of its correction, or search the spelling offered "
        "(the status line says which)",
    ),
    ("Bookmarks", "/", "Filter the bookmarks"),
    ("Bookmarks", "enter  l", "Open the paper (or its saved copy)"),
    ("Bookmarks", "d  delete", "Remove the bookmark (u brings it back, with its note and tags)"),
    ("Bookmarks", "j  k  up  down", "Move the selection"),
    ("Bookmarks", "g  G  home  end", "First / last bookmark"),
    (
        "Bookmarks",
        "r",
        "Recommended: papers like your bookmarks, each with the one it is closest to (also in the palette)",
    ),
    ("Bookmarks", "esc  B", "Back to the papers"),
    ("Recommended", "enter  l", "Open the paper in the reader"),
    ("Recommended", "b", "Bookmark the paper: it leaves the list (u undoes a removal as anywhere)"),
    ("Recommended", "j  k  up  down  g  G  home  end", "Move the selection"),
    ("Recommended", "esc", "Back"),
    ("Statistics", "esc  s  q", "Back to the papers"),
    ("Statistics", "j  k  up  down  pageup  pagedown  space  g  G  home  end", "Scroll"),
    ("Library", "enter", "Search only that list (the palette's Library shows every loaded list)"),
    ("Library", "r", "Update the list: downloaded again only if it changed on the server"),
    ("Library", "d  delete", "Remove the list from your library (u brings it back)"),
    ("Library", "u", "Bring back the list removed last"),
    ("Library", "esc", "Close"),
    ("Help", "up  down  pageup  pagedown", "Scroll the help (type to filter it, esc closes it)"),
    ("Dialogs", "ctrl+s  enter  esc", "Save the note / save tags / cancel (with unsaved changes: esc twice)"),
    ("Dialogs", "1  2  3  4  5  6  7  8  9", "Choose a link in the link picker"),
    ("Mouse", "click  wheel", "Select a result, scroll any pane"),
]

QUERY_SYNTAX: list[tuple[str, str, str]] = [
    (
        "Words",
        "kv cache",
        "Papers with any of the words, those with more of them first (compressing finds compression)",
    ),
    (
        "Words",
        "wasserstien",
        "A lower-case word of 5+ letters no paper has is taken as a typo: the results for wasserstein, and a "
        f"note saying so ({SPELLING_KEY} searches it as typed); in a query of 5+ words, only offered",
    ),
    (
        "Words",
        "casual inference",
        "A lower-case word in only a few papers whose close spelling is in 20 times as many is searched as "
        f"both: causal too, with a note saying so ({SPELLING_KEY} searches it as typed)",
    ),
    ("Words", '"exact phrase"', "The words together, in this order"),
    ("Words", '"kv cache"~3', "The words at most 3 positions apart"),
    ("Words", "compress*", "Words starting with compress (its most frequent ones)"),
    ("Words", "gr?ph", "? is any one letter, * any number of letters"),
    ("Words", "transformr~", "Fuzzy: words one edit away; ~2 allows two edits (the most)"),
    ("Words", "[graph TO graz]", "Words in that alphabetical range"),
    ("Words", "match:all", "Only papers with every word (match:any: any of them, ranked)"),
    ("Fields", "title:graph", "The word in the title only; also name: (the method's name), abstract: (or text:)"),
    (
        "Fields",
        "by:zhang",
        "A word of an author's name (also authors:); keywords: (or keyword:, kw:) the list's keywords",
    ),
    ("Fields", "foo:bar", "A name: the language does not know is searched as words, with a hint listing the fields"),
    ("Fields", 'title:"kv cache"', "A phrase in one field"),
    ("Logic", "graph AND neural", "Both words (AND, OR, NOT in capitals)"),
    ("Logic", "gan OR vae", "Either word (what plain words mean)"),
    ("Logic", "graph NOT neural", "The first word without the second (-neural is not a negation: use NOT)"),
    ("Logic", "(gan OR vae) AND image", "Parentheses group"),
    ("Filters", "list:NAME", "Papers from that list (ctrl+l picks one); list:a list:b: from either"),
    ("Filters", "venue:WORD", "Papers whose venue contains the word (venue:neurips, venue:2018)"),
    ("Filters", "status:oral", "Papers with that status, when the list says (spotlight, poster, reject, ...)"),
    ("Filters", "has:code", "Papers with a code link"),
    ("Filters", "is:bookmarked", "Your bookmarks; is:unread and is:read: papers you have not opened, or have"),
    ("Filters", "-has:code", "A leading - negates a filter (-list:NAME, -status:poster, -is:bookmarked)"),
    (
        "Filters",
        "inst:mit OR inst:stanford",
        "Filters joined by OR, AND, NOT and parentheses: NOT rating:>=7, diffusion (year:2018 OR status:oral)",
    ),
    ("Filters", 'list:"my papers"', 'A value with spaces goes in double quotes (\\" and \\\\ inside)'),
    ("Reviews", "rating:>=6", "Mean review rating at least 6 (also >, <, <=); rating:6: from 6 up to 7"),
    ("Reviews", "rating:5..7", "Mean rating from 5 to 7, both included (5.. and ..7 leave an end open)"),
    ("Reviews", "confidence:>=4", "Mean reviewer confidence, as rating: reads it"),
    ("Reviews", "citations:>100", "Google Scholar citations (citations:10..50, citations:0)"),
    ("Reviews", "year:2019", "Papers of 2019; year:2017..2019 a span, year:>=2020"),
    (
        "People",
        'author:"Max Welling"',
        "That person's papers: by OpenReview id where the list has one (author:~Max_Welling1), else by name; author:welling: any author with that name",
    ),
    (
        "People",
        "inst:upenn",
        'An author\'s institution: its name (inst:"University of Pennsylvania"), its words (inst:cambridge) or its abbreviation',
    ),
    ("People", 'country:"United States"', "An author's country (country:usa, country:uk)"),
    ("People", "area:WORD", "The primary area the authors chose contains the word"),
    ("Yours", "tag:TAG", "Your bookmarks with that tag"),
    ("Yours", "note:WORD", "Your bookmarks whose note has the word"),
    ("Order", "sort:name", "By name or title; sort:order: corpus order; sort:relevance: the default"),
    (
        "Order",
        "sort:rating",
        "Highest mean rating first; sort:citations, sort:year (newest first); papers without one last",
    ),
    ("Order", "related:ID", "The papers most like that one, instead of a word search (r writes it)"),
]
"""The query language, as the help screen lists it: (group, what to type, what it finds). The truth
is search/query/parse.py (words, fields, logic) and search/query/facets.py (filters)."""


def markdown_table() -> str:
    """The key table as Markdown, for README.md (a test keeps the two identical)."""
    lines = ["| where | keys | action |", "|---|---|---|"]
    for where, keys, action in KEYS:
        lines.append(f"| {where} | {' '.join(f'`{key}`' for key in keys.split())} | {action} |")
    return "\n".join(lines)
