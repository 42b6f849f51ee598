"""URL hygiene: only http(s) links, with no whitespace or control characters, ever leave the engine."""

from __future__ import annotations

import re

from search.models import Link
from search.text.sanitize import sanitize

_HTTP = re.compile(r"https?://[^/\s?#]+", re.IGNORECASE)
_CODE_HOSTS = re.compile(r"https?://(?:www\.)?(?:github\.com|gitlab\.com|bitbucket\.org)/", re.IGNORECASE)


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


def link_kind(url: str) -> str:
    return "code" if _CODE_HOSTS.match(url) else "project"


def safe_link(label: str, url: str | None, kind: str | None = None) -> Link | None:
    url = safe_url(url)
    if url is None:
        return None
    return Link(" ".join(sanitize(label).split()) or url, url, kind or link_kind(url))
