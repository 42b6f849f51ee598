"""BibTeX files (bibtexparser): entries with an abstract; titles and names have their LaTeX converted."""

from __future__ import annotations

import re
from pathlib import Path

from search.corpus.formats import common, facts
from search.corpus.formats.common import CorpusError
from search.models import Paper
from search.untrusted import shown

_ENTRY = re.compile(r"^[^\S\n]*@[A-Za-z]+\s*[{(]", re.M)
"""An entry's start, at a line's start (a pattern whose leading spaces could cross lines was quadratic in blank lines)."""
_AND = re.compile(r"\s+and\s+", re.I)


def looks_like_bibtex(text: str) -> bool:
    return _ENTRY.search(text[:20000]) is not None


def parse_bibtex(path: Path, text: str) -> tuple[list[Paper], int, str | None]:
    import bibtexparser  # only paid for when a BibTeX file is loaded

    if text.count("@") > common.MAX_LIST_PAPERS:  # every entry starts with one: count them before parsing
        common.check_count(path, sum(1 for _ in _ENTRY.finditer(text)), "BibTeX entries")
    try:
        library = bibtexparser.parse_string(text)
    except Exception as error:  # noqa: BLE001 - the parser's errors vary; the user needs one line
        raise CorpusError(f"{shown(path)}: unreadable BibTeX ({type(error).__name__})") from None
    venue_default = common.venue_from_filename(path)
    candidates = (
        _paper(entry.key, _fields(entry), path, venue_default, getattr(entry, "raw", None)) for entry in library.entries
    )
    return common.collect(path, candidates, "BibTeX entries", venue_default, skipped=len(library.failed_blocks))


def _fields(entry) -> dict[str, str]:
    return {name.lower(): field.value for name, field in entry.fields_dict.items() if isinstance(field.value, str)}


def _paper(
    key: str, fields: dict[str, str], path: Path, venue_default: str | None, raw: str | None = None
) -> Paper | None:
    abstract = common.abstract(fields.get("abstract"))
    if abstract is None or facts.is_placeholder(fields.get):
        return None
    venue = common.from_latex(fields.get("booktitle") or fields.get("journal") or fields.get("venue")) or venue_default
    paper_year = common.year(fields.get("year")) or common.year_of(venue)
    doi, eprint, url = common.text(fields.get("doi")), common.text(fields.get("eprint")), common.text(fields.get("url"))
    site = url or (f"https://doi.org/{doi}" if doi else None) or (f"https://arxiv.org/abs/{eprint}" if eprint else None)
    authors = tuple(name for name in (_person(part) for part in _AND.split(fields.get("author", ""))) if name)
    # The entry itself is the list's BibTeX for the paper (an export gives it back with its key).
    rating, citations, known = facts.read(lambda name: raw if name == "bibtex" else fields.get(name), len(authors))
    return Paper(
        id=common.text(key) or common.stable_id(abstract),
        abstract=abstract,
        venue=common.venue_with_year(venue, paper_year),
        title=common.from_latex(fields.get("title")),
        authors=authors,
        keywords=common.names(common.from_latex(fields.get("keywords")) or "", ";,"),
        year=paper_year,
        site=site,
        pdf=common.text(fields.get("pdf")),
        github=common.addresses(fields.get("github") or fields.get("code")),
        arxiv=_arxiv(fields, site),
        source=str(path),
        rating=rating,
        citations=citations,
        facts=known,
    )


def _arxiv(fields: dict[str, str], site: str | None) -> str | None:
    """An eprint (unless archivePrefix names another archive), else an arxiv.org url."""
    prefix = fields.get("archiveprefix", "arxiv").strip().lower()
    eprint = common.arxiv_id(fields.get("eprint")) if prefix == "arxiv" else None
    return eprint or common.arxiv_id(site)


def _person(name: str) -> str | None:
    """`Last, First` -> `First Last`, with LaTeX accents converted."""
    plain = common.from_latex(name)
    if plain and plain.count(",") == 1:
        last, first = (part.strip() for part in plain.split(","))
        plain = f"{first} {last}".strip()
    return plain
