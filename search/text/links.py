"""URL hygiene: only http(s) links, with no whitespace or control characters, ever leave the engine."""

from __future__ import annotations

import re
from collections.abc import Iterator

from search.models import Link
from search.text.sanitize import sanitize

_HTTP = re.compile(r"https?://[^/\s?#]+", re.IGNORECASE)
_CODE_HOSTS = re.compile(r"https?://(?:www\.)?(?:github\.com|gitlab\.com|bitbucket\.org)/", re.IGNORECASE)
_START = re.compile(r"https?://|www\.", re.IGNORECASE)
# A host written without its scheme ("github.com/owner/repo", "keypointnet.github.io").
_BARE_HOST = re.compile(r"(?:[a-z0-9](?:[a-z0-9-]*[a-z0-9])?\.)+[a-z]{2,24}(?=[/?#]|$)", re.IGNORECASE)
_PAGES_HOSTS = (".github.io", ".gitlab.io")
# A Markdown link's target: "[label](target)", one level of parentheses inside it ("...%20(MRNN)").
_MARKDOWN_LINK = re.compile(r"!?\[[^\[\]]*\]\([^()\s]*\)")
"""One Markdown link or image with nothing nested in it."""
_MARKDOWN_TARGET = re.compile(r"\]\(\s*([^\s()]*(?:\([^\s()]*\)[^\s()]*)*)\s*\)")
_SEPARATORS = re.compile(r"\s*[;,]\s+|\s+\+\s+|\s+")
MAX_FIELD_URLS = 20
"""A record field names a few addresses; more than this is noise, not links."""


def safe_url(url: str | None) -> str | None:
    """The URL if it is a usable http(s) address (LaTeX escapes undone), else None."""
    if not url:
        return None
    for escaped in ("_", "%", "#", "&", "~"):
        url = url.replace("\\" + escaped, escaped)
    url = "".join(sanitize(url).split())
    if url.lower().startswith("www."):
        url = "https://" + url
    return url if _HTTP.match(url) else None


def field_urls(value: str | None) -> tuple[str, ...]:
    """The addresses in a record's link field (github, code, project), in order, each once.

    Lists write these fields in several ways: a URL, several separated by ";" or "+", a URL
    without its scheme ("github.com/owner/repo"), or Markdown links (iclr2018's
    `[![github](/images/github_icon.svg) owner/repo](https://github.com/owner/repo) + [...](...)`,
    whose icons' relative targets are not addresses). Text that is no address gives nothing."""
    if not value:
        return ()
    pieces: list[str] = list(_joined_pieces(value))
    if "](" in value:  # Markdown links' targets, then the plain addresses written beside them
        pieces = [match.group(1) for match in _MARKDOWN_TARGET.finditer(value)]
        pieces += _joined_pieces(_without_markdown_links(value))
    found: list[str] = []
    for piece in pieces:
        url = safe_url(_with_scheme(piece.strip("<>").rstrip(".,;:")))
        if url and url not in found:
            found.append(url)
            if len(found) == MAX_FIELD_URLS:
                break
    return tuple(found)


def _without_markdown_links(value: str) -> str:
    """The field with every Markdown link (and image, nested inside one) taken out, innermost first;
    at most MAX_FIELD_URLS rounds, so any input stays linear."""
    for _ in range(MAX_FIELD_URLS):
        value, count = _MARKDOWN_LINK.subn(" ", value)
        if not count:
            break
    return value


def _joined_pieces(value: str) -> Iterator[str]:
    """A plain field split at its separators; a piece that starts no address belongs to the one
    before it ("https://github.com/a/BerV AE" is one address, its space a typo, as safe_url reads it)."""
    current: list[str] = []
    for part in _SEPARATORS.split(value.strip()):
        if current and _with_scheme(part):
            yield "".join(current)
            current = []
        if part:
            current.append(part)
    if current:
        yield "".join(current)


def _with_scheme(piece: str) -> str | None:
    """The piece as an address: as written when it has a scheme (or starts with www.), with https://
    when it is a host with a path or a project-pages host; else None ("this URL", "arXiv:2006.06850")."""
    if _START.match(piece):
        return piece
    host = _BARE_HOST.match(piece)
    if host is None:
        return None
    has_path = host.end() < len(piece)
    return "https://" + piece if has_path or host.group().lower().endswith(_PAGES_HOSTS) else None


def link_kind(url: str) -> str:
    return "code" if _CODE_HOSTS.match(url) else "project"


def safe_link(label: str, url: str | None, kind: str | None = None) -> Link | None:
    url = safe_url(url)
    if url is None:
        return None
    return Link(" ".join(sanitize(label).split()) or url, url, kind or link_kind(url))
