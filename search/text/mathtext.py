"""Unicode forms for math: sub/superscripts, script and double-struck letters, accents."""

from __future__ import annotations

import re
import unicodedata

_SUPERSCRIPTS = dict(
    zip(
        "0123456789+-−=()abcdefghijklmnoprstuvwxyzABDEGHIJKLMNOPRTUVWβγδθφχαεϵι*′'†⊤∗",
        "⁰¹²³⁴⁵⁶⁷⁸⁹⁺⁻⁻⁼⁽⁾ᵃᵇᶜᵈᵉᶠᵍʰⁱʲᵏˡᵐⁿᵒᵖʳˢᵗᵘᵛʷˣʸᶻᴬᴮᴰᴱᴳᴴᴵᴶᴷᴸᴹᴺᴼᴾᴿᵀᵁⱽᵂᵝᵞᵟᶿᵠᵡᵅᵋᵋᶥ*′′†ᵀ*",
    )
)
_SUBSCRIPTS = dict(
    zip(
        "0123456789+-−=()aehijklmnoprstuvxβγρφχ",
        "₀₁₂₃₄₅₆₇₈₉₊₋₋₌₍₎ₐₑₕᵢⱼₖₗₘₙₒₚᵣₛₜᵤᵥₓᵦᵧᵨᵩᵪ",
    )
)

ACCENTS = {
    "tilde": "\u0303",
    "widetilde": "\u0303",
    "hat": "\u0302",
    "widehat": "\u0302",
    "bar": "\u0304",
    "overline": "\u0305",
    "vec": "\u20d7",
    "dot": "\u0307",
    "ddot": "\u0308",
    "check": "\u030c",
    "breve": "\u0306",
    "acute": "\u0301",
    "grave": "\u0300",
}

ACCENT_MARKS = "".join(sorted(set(ACCENTS.values())))
"""The combining marks of ACCENTS, as one string (for `str.rstrip`)."""

_ALPHABET_NAMES = {
    "mathcal": ("MATHEMATICAL SCRIPT", "SCRIPT"),
    "mathscr": ("MATHEMATICAL SCRIPT", "SCRIPT"),
    "mathbb": ("MATHEMATICAL DOUBLE-STRUCK", "DOUBLE-STRUCK"),
    "mathfrak": ("MATHEMATICAL FRAKTUR", "BLACK-LETTER"),
}


def script(text: str, superscript: bool) -> str:
    """x^{10} -> x¹⁰ when every character has a Unicode form, else a readable x^(10) / d_(eff)."""
    table = _SUPERSCRIPTS if superscript else _SUBSCRIPTS
    mark = "^" if superscript else "_"
    compact = text.replace(" ", "")
    if compact and all(ch in table for ch in compact):
        return "".join(table[ch] for ch in compact)
    if len(compact) <= 1:
        return mark + compact
    return f"{mark}({' '.join(text.split())})"  # spaces kept: ^(-1/(d log 2+1)), not ^(-1/(dlog2+1))


def math_alphabet(style: str, text: str) -> str:
    """\\mathcal{X} -> 𝒳, \\mathbb{R} -> ℝ; characters without such a form stay as they are."""
    return "".join(_styled_letter(style, ch) for ch in text)


def _styled_letter(style: str, ch: str) -> str:
    if not ch.isascii() or not ch.isalnum():
        return ch
    kind = "CAPITAL" if ch.isupper() else "SMALL"
    if ch.isdigit():
        kind = "DIGIT"
        ch = unicodedata.name(ch).split()[-1]
    for prefix in _ALPHABET_NAMES[style]:
        try:
            return unicodedata.lookup(f"{prefix} {kind} {ch.upper()}")
        except KeyError:
            continue
    return ch


_SCRIPT_TO_ASCII: dict[int, str] = {}
for _table in (_SUBSCRIPTS, _SUPERSCRIPTS):
    for _plain, _script in _table.items():
        if _plain != _script:
            _SCRIPT_TO_ASCII.setdefault(ord(_script), _plain)
_SCRIPT_RUN = re.compile("[" + re.escape("".join(chr(c) for c in _SCRIPT_TO_ASCII)) + "]+")


def has_script(text: str) -> bool:
    """Whether text holds a sub- or superscript character (`ℰₑₓₜ`)."""
    return _SCRIPT_RUN.search(text) is not None


def searchable(text: str) -> str:
    """Scripts back to plain letters, set apart: `λₘᵢₙ` is indexed as `λ min`, so `min` finds it."""
    if text.isascii():  # no script (most abstracts): the check is C-fast, the pattern's scan is not
        return text
    return _SCRIPT_RUN.sub(lambda m: " " + m.group().translate(_SCRIPT_TO_ASCII) + " ", text)
