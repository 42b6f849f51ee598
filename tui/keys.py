"""Every key binding, described once: the help screen and the README key table are built from this."""

from __future__ import annotations

KEYS: list[tuple[str, str, str]] = [
    ("Anywhere", "/  ctrl+f", "Focus the search box"),
    ("Anywhere", "?  f1", "Show this help"),
    ("Anywhere", "ctrl+p", "Command palette (search, open, theme, help, quit, ...)"),
    ("Anywhere", "tab  shift+tab", "Next / previous pane"),
    ("Anywhere", "q", "Quit (not while typing in the search box)"),
    ("Anywhere", "ctrl+q", "Quit"),
    ("Search box", "enter", "Go to the results"),
    ("Search box", "up  down", "Recall earlier queries of this session; down past the newest goes to the results"),
    ("Search box", "esc", "Clear the query"),
    ("Results", "j  k  up  down", "Move the selection"),
    ("Results", "g  G  home  end", "First / last result"),
    ("Results", "pageup  pagedown", "Move a page"),
    ("Results", "enter  l", "Open the paper in the reader"),
    ("Results", "esc", "Back to the search box"),
    ("Reader", "j  k  up  down", "Scroll"),
    ("Reader", "space  shift+space", "Page down / up"),
    ("Reader", "pageup  pagedown", "Page up / down"),
    ("Reader", "g  G  home  end", "Top / bottom"),
    ("Reader", "esc  h", "Back to the results"),
    ("Paper", "b", "Bookmark / unbookmark the selected paper (list or reader)"),
    ("Paper", "u", "Undo the last bookmark removal: it comes back with its note and tags (even after a restart)"),
    ("Paper", "n", "Edit the paper's note; ctrl+s saves (and bookmarks the paper)"),
    ("Paper", "t", "Edit the paper's tags, comma-separated; enter saves (and bookmarks the paper)"),
    (
        "Paper",
        "y",
        "Copy the main link: the paper's page (OpenReview, else arXiv), else its PDF, else code, else a search",
    ),
    ("Paper", "Y", "Pick which link to copy (1-9)"),
    ("Paper", "o", "Open the main link in a browser"),
    ("Paper", "O", "Pick which link to open (1-9)"),
    ("Paper", "r", "Related papers: the ones most like the selected paper (query related:ID)"),
    ("Anywhere", "ctrl+l", "Pick the list to search: all lists or one (query list:NAME)"),
    (
        "Anywhere",
        "ctrl+t",
        "Filters and sort: has:code, is:bookmarked, is:unread, status:oral/spotlight/poster, sort:...",
    ),
    ("Anywhere", "ctrl+s", "Save the current search with a name"),
    ("Anywhere", "S", "Saved searches: 1-9 or enter runs one, d deletes (not while typing)"),
    ("Anywhere", "B", "Bookmarks: filter, open, remove"),
    ("Anywhere", "ctrl+g", "Get a list: pick a conference and year (or openreview:VENUE, arxiv:QUERY) to download"),
    ("Bookmarks", "/", "Filter the bookmarks"),
    ("Bookmarks", "enter  l", "Open the paper (or its saved copy)"),
    ("Bookmarks", "d  delete", "Remove the bookmark (u brings it back, with its note and tags)"),
    ("Bookmarks", "j  k", "Move the selection"),
    ("Bookmarks", "esc  B", "Back to the papers"),
    ("Dialogs", "ctrl+s  enter  esc", "Save the note / save tags / cancel (with unsaved changes: esc twice)"),
    ("Dialogs", "1  2  3  4  5  6  7  8  9", "Choose a link in the link picker"),
    ("Mouse", "click  wheel", "Select a result, scroll any pane"),
]


def markdown_table() -> str:
    """The key table as Markdown, for README.md (a test keeps the two identical)."""
    lines = ["| where | keys | action |", "|---|---|---|"]
    for where, keys, action in KEYS:
        lines.append(f"| {where} | {' '.join(f'`{key}`' for key in keys.split())} | {action} |")
    return "\n".join(lines)
