"""The paperlists catalogue shipped with the app: each conference folder of Paper Copilot's paperlists
repository and the years it had at the last snapshot seen (`get --available` prints it). New years
appear over time, so a name outside it is still tried."""

from __future__ import annotations

import re
from dataclasses import dataclass

from search.corpus.formats.common import venue_label


def _years(first: int, last: int) -> tuple[int, ...]:
    return tuple(range(first, last + 1))


CONFERENCES: dict[str, tuple[int, ...]] = {
    "3dv": (2025,),
    "aaai": _years(2021, 2025),
    "acl": _years(2021, 2025),
    "acml": _years(2010, 2024),
    "acmmm": (2024,),
    "ai4x": (2025,),
    "aistats": tuple(year for year in _years(1995, 2025) if year >= 2010 or year % 2),
    "alt": (2025,),
    "automl": _years(2022, 2024),
    "coling": (2020, 2022, 2024, 2025),
    "colm": (2024, 2025),
    "colt": _years(2011, 2024),
    "corl": _years(2021, 2025),
    "cvpr": _years(2013, 2025),
    "eccv": (2018, 2020, 2022, 2024),
    "emnlp": _years(2021, 2024),
    "iccv": tuple(year for year in _years(2013, 2025) if year % 2),
    "iclr": (2013, 2014, *_years(2017, 2026)),
    "icml": _years(2013, 2025),
    "icra": _years(2000, 2024),
    "ijcai": _years(2020, 2024),
    "iros": _years(2000, 2024),
    "kdd": (2023, 2024),
    "naacl": (2021, 2022, 2024, 2025),
    "nips": _years(1987, 2025),
    "rss": _years(2005, 2025),
    "siggraph": _years(2010, 2025),
    "siggraphasia": _years(2018, 2024),
    "uai": _years(2019, 2024),
    "wacv": _years(2020, 2025),
    "www": (2024, 2025),
}
"""Conference folder (also the file prefix) -> years."""

WITHOUT_ABSTRACTS: dict[str, tuple[int, ...]] = {
    "siggraph": CONFERENCES["siggraph"],
    "siggraphasia": CONFERENCES["siggraphasia"],
    "kdd": (2023, 2024),
    "acmmm": (2024,),
    "ai4x": (2025,),
    "rss": _years(2005, 2008),
    "aistats": (2005,),
    "www": (2024,),
}
"""The lists whose records carry no abstract at all (measured on the mirror of 2026-02-23: see
../shared/notes/paperlists-fields.md): nothing in them can be searched, so `get --available`
marks them and `get` says so before it downloads one."""

ALIASES = {"neurips": "nips"}
"""Names people type for a folder that is named otherwise."""

_NAME = re.compile(r"^([a-z0-9]+?)((?:19|20)\d\d)$")


@dataclass(frozen=True)
class Conference:
    """One folder of paperlists: `name` + a year is what `get` takes (iclr2025)."""

    name: str
    label: str
    years: tuple[int, ...]
    without_abstracts: tuple[int, ...] = ()
    """The years whose list has no abstracts (nothing to search)."""

    @property
    def ranges(self) -> str:
        return ranges(self.years)

    @property
    def searchable(self) -> str:
        """The years whose lists have abstracts, as `ranges` writes them ("" for none)."""
        return ranges(tuple(year for year in self.years if year not in self.without_abstracts))

    @property
    def unsearchable(self) -> str:
        """The years whose lists have no abstracts, as `ranges` writes them."""
        return ranges(self.without_abstracts)


def available() -> list[Conference]:
    """The catalogue, by folder name."""
    return [
        Conference(name, label(name), years, WITHOUT_ABSTRACTS.get(name, ()))
        for name, years in sorted(CONFERENCES.items())
    ]


def without_abstracts(name: str) -> bool:
    """Whether the catalogue knows the list (iclr2025, kdd2024) as one without abstracts."""
    parts = split(name)
    return parts is not None and parts[1] in WITHOUT_ABSTRACTS.get(parts[0], ())


def split(name: str) -> tuple[str, int] | None:
    """("iclr", 2025) from "iclr2025" (an alias like neurips2024 gives nips); None if it is not conference+year."""
    match = _NAME.match(name.lower())
    if match is None:
        return None
    conference = ALIASES.get(match.group(1), match.group(1))
    return conference, int(match.group(2))


def known(name: str) -> bool:
    parts = split(name)
    return parts is not None and parts[1] in CONFERENCES.get(parts[0], ())


def label(conference: str) -> str:
    """NeurIPS, CoRL, ICLR: as the venue writes its name (the corpus formats' table, so a list's papers
    and its catalogue line say the same)."""
    return venue_label(conference)


def ranges(years: tuple[int, ...]) -> str:
    """1995 1997 2010-2025 from the years (runs of three or more consecutive years as a span)."""
    runs: list[list[int]] = []
    for year in sorted(years):
        if runs and year == runs[-1][-1] + 1:
            runs[-1].append(year)
        else:
            runs.append([year])
    parts = []
    for run in runs:
        parts.append(f"{run[0]}-{run[-1]}" if len(run) >= 3 else " ".join(map(str, run)))
    return " ".join(parts)


__all__ = [
    *("ALIASES", "CONFERENCES", "WITHOUT_ABSTRACTS", "Conference", "available", "known", "label"),
    *("ranges", "split", "without_abstracts"),
]
