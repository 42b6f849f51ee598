"""English stemming: Whoosh's Porter stemmer with step 1b fixed.

whoosh-reloaded's `porter.stem` tests two suffix patterns of step 1b with `re.match`, which anchors
them at the start of the word, where Porter's algorithm means the end: "generated" becomes
"generat" while "generate" becomes "gener", so "generated", "generation" and "generate" never
meet, nor do "optimized" and "optimization". Here the same function runs with those two patterns
searched, not matched; nothing else changes.
"""

from __future__ import annotations

import re
from types import FunctionType, SimpleNamespace

from whoosh.lang import porter


def _searched(pattern: re.Pattern[str]) -> SimpleNamespace:
    """An object whose `match` is the pattern's `search`: what step 1b calls on it."""
    return SimpleNamespace(match=pattern.search)


# The stemmer's own code, run over a copy of its module's globals with the two patterns replaced
# (the module itself, which Whoosh's default analyzers use, is left as it is).
_fixed = FunctionType(
    porter.stem.__code__,
    {
        **vars(porter),
        "_at_bl_iz": _searched(porter._at_bl_iz),
        "_step1b": _searched(porter._step1b),
    },
)


def stem(word: str) -> str:
    """The Porter stem of a lower-case word ("generated", "generation" -> "gener")."""
    return _fixed(word)
