"""What TeX and word processors leave in prose that a reader should not see: TeX dashes, quotes and
ties, typographic ligatures, invisible characters and text that is not in Unicode's composed form.

The same rules serve the fast path (an abstract without markup) and the parsed path, so an abstract
reads the same whichever path it takes. Each step is one regex pass or one translate: linear.
"""

from __future__ import annotations

import re
import unicodedata

# Ligatures split words for search ("signiﬁcantly" is not "significantly"); the letters read the same.
_LIGATURES = str.maketrans(
    {"\ufb00": "ff", "\ufb01": "fi", "\ufb02": "fl", "\ufb03": "ffi", "\ufb04": "ffl", "\ufb05": "st", "\ufb06": "st"}
)
# Zero-width space, word joiner, BOM, soft hyphen: invisible, yet they split or glue words.
# (Zero-width joiners stay: emoji sequences and some scripts need them.)
_INVISIBLE = re.compile("[\u200b\u2060\ufeff\u00ad]")
_ODD_CHARACTER = re.compile("[\ufb00-\ufb06\u200b\u2060\ufeff\u00ad\u0300-\u036f]")

# `---` and `--` between words or numbers; arrows (`-->`, `<--`) and longer rules are left alone.
_DASHES = re.compile(r"(?<![-<!])(-{2,3})(?![->])")
_DASH_FOR = {"---": "\u2014", "--": "\u2013"}
# TeX quotes: ``...'' and, as many abstracts write it, ''...''. A `''` that opens a word is an
# opening quote, any other a closing one.
_OPEN_QUOTES = re.compile(r"``|(?<![\w.,;:!?)\]}'\u2019])''(?=\w)")
_CLOSE_QUOTES = re.compile(r"''")
# A TeX tie, `i.i.d.~samples` or `learning~(RL)`: a `~` glued to a word on both sides is a space.
# One after a space or an opening bracket means "about" (`~30 fps`, `(~2x)`) and stays.
_TIE = re.compile(r"(?<=[\w.,;:)\]}\"\u201d\u2019'-])~(?=[\w(\[\\$-])(?![A-Z]\()")
_RANGE = re.compile(r"(?:(?<=\d)|(?<=\d%))~(?=\d)")  # `6~8 frames`, `1.5%~1.9%`: a range
# A combining accent written after a space (`Fr ́echet`, `Nystro ̈m`) belongs to a letter beside it:
# the vowel after it (TeX writes the accent first), else the letter before.
_LOOSE_ACCENT = re.compile(r"(\w?)[ \u00a0]{1,2}([\u0300-\u036f])(\w)")
_TRAILING_ACCENT = re.compile(r"(\w)[ \u00a0]{1,2}([\u0300-\u036f])(?!\w)")  # `Birge ́ (1983)`: no letter after it
_UNDERLINE = "\u0332"  # `DUCK (rumour ̲detection with ̲user`: the letter after it underlined, the space kept
_VOWELS = frozenset("aeiouyAEIOUY")
_ON_THE_NEXT = frozenset("\u0303\u030c")  # tilde, caron: `Pe ̃na`, `Dvo ̌rák`
_CEDILLA = "\u0327"


def clean_characters(text: str) -> str:
    """Ligatures spelt out, invisible characters removed, and the text composed (NFC)."""
    if text.isascii():
        return text
    if _ODD_CHARACTER.search(text):  # one scan; most texts have none of these
        text = _INVISIBLE.sub("", text.translate(_LIGATURES))
        text = _LOOSE_ACCENT.sub(_attach_accent, text)
        text = _TRAILING_ACCENT.sub(r"\1\2", text)
    return text if unicodedata.is_normalized("NFC", text) else unicodedata.normalize("NFC", text)


def _attach_accent(match: re.Match[str]) -> str:
    before, accent, after = match.groups()
    if accent == _UNDERLINE:
        return f"{before} {after}{accent}" if before else after + accent
    if accent == _CEDILLA and before.isalpha():
        return before + accent + after  # `Franc ̧ois`: a cedilla sits under the consonant before it
    if after in _VOWELS or accent in _ON_THE_NEXT or not before.isalpha():
        return before + after + accent
    return before + accent + after


def tex_ties(text: str) -> str:
    """`i.i.d.~samples` -> `i.i.d. samples`; `6~8` -> `6–8`; `~30 fps` and `x~N(0, I)` keep their `~`."""
    return _TIE.sub(" ", _RANGE.sub("\u2013", text)) if "~" in text else text


def prose_typography(text: str) -> str:
    """TeX dashes and quotes in prose as the characters they stand for (ties: `tex_ties`, which the
    converter runs before it finds math)."""
    if "--" in text:
        text = _DASHES.sub(lambda m: _DASH_FOR[m.group(1)], text)
    if "''" in text or "``" in text:
        text = _CLOSE_QUOTES.sub("\u201d", _OPEN_QUOTES.sub("\u201c", text))
    return text
