"""Put back the backslashes that a list's producer ate: ` extit{e.g.}`, `$ell_infty$`, `tilde{O}(sqrt{n})`.

Some lists were written through a JSON or string layer that read `\\t`, `\\b`, `\\f`, `\\n`, `\\r`
as escapes (`\\textit` became a tab and `extit`, `\\boldsymbol` a backspace and `oldsymbol`) and
dropped the backslash of every other macro (`\\ell` became `ell`). 114 of 13,497 real abstracts
(most of them ECCV's) read `extite.g.` and `ellᵢnfty` without this.

A word is read as an eaten macro only where plain words cannot be: in math, or in prose right
before a `{` (`extit{`, `url{`, `sqrt{`). What it may be is a fixed list of common macro names,
written whole or missing the letter the escape took (`extit` is `\\textit` without its `\\t`). Linear: one
scan of a math segment, one look per brace in prose.
"""

from __future__ import annotations

import re

# Macros that take an argument: in prose, `name{` is one of these with its backslash eaten.
ARGUMENT_MACROS = frozenset(
    [
        "textit",
        "textbf",
        "textsl",
        "textcolor",
        "ref",
        "eqref",
        "enquote",
        "texttt",
        "textsc",
        "textrm",
        "textsf",
        "emph",
        "underline",
        "text",
        "mathcal",
        "mathbb",
        "mathbf",
        "mathrm",
        "mathit",
        "mathsf",
        "mathscr",
        "mathfrak",
        "boldsymbol",
        "sqrt",
        "frac",
        "dfrac",
        "tfrac",
        "tilde",
        "widetilde",
        "hat",
        "widehat",
        "bar",
        "overline",
        "vec",
        "url",
        "href",
        "cite",
        "citep",
        "citet",
        "footnote",
        "operatorname",
    ]
)
# Math symbols and operators: in math, a bare letter run with one of these names is the macro.
_MATH_NAMES = frozenset(
    [
        "alpha",
        "beta",
        "gamma",
        "delta",
        "epsilon",
        "varepsilon",
        "zeta",
        "eta",
        "theta",
        "vartheta",
        "iota",
        "kappa",
        "lambda",
        "mu",
        "nu",
        "xi",
        "pi",
        "varpi",
        "rho",
        "varrho",
        "sigma",
        "varsigma",
        "tau",
        "upsilon",
        "phi",
        "varphi",
        "chi",
        "psi",
        "omega",
        "Gamma",
        "Delta",
        "Theta",
        "Lambda",
        "Xi",
        "Pi",
        "Sigma",
        "Upsilon",
        "Phi",
        "Psi",
        "Omega",
        "infty",
        "ell",
        "partial",
        "nabla",
        "cdot",
        "cdots",
        "ldots",
        "times",
        "leq",
        "geq",
        "neq",
        "approx",
        "sim",
        "simeq",
        "propto",
        "equiv",
        "notin",
        "subset",
        "subseteq",
        "supset",
        "cup",
        "cap",
        "forall",
        "exists",
        "emptyset",
        "to",
        "rightarrow",
        "leftarrow",
        "mapsto",
        "Rightarrow",
        "pm",
        "mp",
        "circ",
        "star",
        "ast",
        "dagger",
        "top",
        "perp",
        "mid",
        "langle",
        "rangle",
        "lfloor",
        "rfloor",
        "lceil",
        "rceil",
        "log",
        "ln",
        "exp",
        "min",
        "max",
        "sup",
        "inf",
        "lim",
        "sum",
        "prod",
        "int",
        "det",
        "arg",
        "left",
        "right",
    ]
)
MATH_MACROS = _MATH_NAMES | ARGUMENT_MACROS
# The escapes a string layer knows: tab, newline and carriage return leave white space where the
# letter was; backspace, form feed, escape, bell and vertical tab leave nothing once sanitised. The
# word left is the macro's name without its first letter (`\\emph` -> `mph`, `\\footnote` -> `ootnote`).
_SPACE_ESCAPES = "tnr"
_GONE_ESCAPES = "bfeav"
# In a sub- or superscript, short names are more often words (`x_{in}`, `W_{top}`, `d_{max}`).
_SCRIPT_SAFE_LENGTH = 4
_NOT_IN_SCRIPTS = frozenset({"left", "right", "star", "text"})

_GLUED_NAMES = {name[1:]: name for name in ("footnote", "emph", "enquote", "boldsymbol")}
_GLUED = re.compile(r"(?<=[A-Za-z])(" + "|".join(_GLUED_NAMES) + r")(?=\{)")


def _candidates(names: frozenset[str]) -> str:
    """The words that may be these macros eaten: each name, and each name missing its first letter
    where an escape could have taken it. One alternation, so the regex engine, not a Python call per
    word, skips the words that cannot be."""
    tails = {name[1:] for name in names if name[0] in _SPACE_ESCAPES + _GONE_ESCAPES and len(name) > 2}
    return "|".join(sorted(names | tails | {"o"}, key=len, reverse=True))


_DOUBLED = re.compile(r"\\(\\([A-Za-z]+))")
_MATH_CANDIDATES = frozenset(_candidates(MATH_MACROS).split("|"))
_RUN = re.compile(r"\\?[A-Za-z]+")
_MATH_CANDIDATE = re.compile(r"(?<![A-Za-z\\])(" + _candidates(MATH_MACROS) + r")(?![A-Za-z])")
_ASCII_LETTERS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ")


def restore_in_math(math: str) -> str:
    """A math segment with its eaten backslashes put back (`$ell_infty$` -> `$\\ell_\\infty$`), and
    its doubled ones undone (`$\\\\hat I$`, escaped twice upstream, is `$\\hat I$`)."""
    if "\\\\" in math:
        math = _DOUBLED.sub(lambda m: m.group(1) if m.group(2) in MATH_MACROS else m.group(), math)
        math = math.replace("\\\\|", "\\|")  # `\\\\| W \\\\|_F`: a norm, escaped twice
    if not any(word in _MATH_CANDIDATES for word in _RUN.findall(math)):  # (`\\alpha` is never one)
        return math  # (a scan and a set look-up: most math has no bare macro names)
    return _MATH_CANDIDATE.sub(lambda m: _restored(m, math), math)


def has_eaten_macro(text: str) -> bool:
    """True when a word is a math macro missing the letter an escape took (`imes`, `ightarrow`):
    no English word, so `5$ imes$` is math, where `$5 to $10` stays two amounts."""
    return any(
        word not in MATH_MACROS and any(letter + word in MATH_MACROS for letter in _SPACE_ESCAPES + _GONE_ESCAPES)
        for word in _MATH_CANDIDATE.findall(text)
        if len(word) > 1
    )


def restore_in_prose(prose: str) -> str:
    """Prose with `extit{`, `url{`, `sqrt{` read as the macros they were (and `availableootnote{`:
    an escape that leaves nothing glues the rest of the name to the word before)."""
    if "{" not in prose:
        return prose
    if any(tail + "{" in prose for tail in _GLUED_NAMES):
        prose = _GLUED.sub(lambda m: _unglued(m, prose), prose)
    # Brace by brace (str.find), the word before each read back: a regex with a look-behind at
    # every position cost more than the rest of the pre-pass.
    pieces, done = [], 0
    brace = prose.find("{")
    while brace != -1:
        start = brace
        while start and prose[start - 1] in _ASCII_LETTERS:
            start -= 1
        if start < brace and prose[start - 1 : start] != "\\":
            word = prose[start:brace]
            restored = _as_macro(word, ARGUMENT_MACROS)
            if restored != word:
                pieces += [prose[done:start], restored]
                done = brace
        brace = prose.find("{", brace + 1)
    return "".join([*pieces, prose[done:]]) if pieces else prose


def split_glued(name: str) -> tuple[str, str] | None:
    """`alphaabla` -> (`alpha`, `nabla`): a math macro with the next one's eaten escape glued on.
    Asked only for names the converter does not know."""
    for cut in range(2, len(name) - 1):
        head, tail = name[:cut], name[cut:]
        if head in MATH_MACROS and tail not in MATH_MACROS:
            for letter in _SPACE_ESCAPES + _GONE_ESCAPES:
                if letter + tail in MATH_MACROS:
                    return head, letter + tail
    return None


def _unglued(match: re.Match[str], text: str) -> str:
    """`availableootnote{` -> `available\\footnote{`, but `\\emph{` is a macro already."""
    start = match.start()
    while start and text[start - 1].isalpha():
        start -= 1
    if text[start - 1 : start] == "\\":
        return match.group()
    return "\\" + _GLUED_NAMES[match.group(1)]


def _restored(match: re.Match[str], math: str) -> str:
    """A candidate word in math, as the macro it was or as itself."""
    word = match.group(1)
    start = match.start()
    before = math[start - 1 : start]
    if len(word) == 1:
        # Only `\to` leaves one letter worth reading (` o`); others are variables (`$x + u$`).
        return "\\to" if word == "o" and before.isspace() else word
    in_script = before in ("_", "^") or math[max(0, start - 2) : start] in ("_{", "^{")
    if in_script and (len(word) < _SCRIPT_SAFE_LENGTH or word in _NOT_IN_SCRIPTS):
        return word
    return _as_macro(word, MATH_MACROS)


def _as_macro(word: str, names: frozenset[str]) -> str:
    """The macro a word of two letters or more was, with its backslash (and eaten letter) back."""
    if word in names:
        return "\\" + word
    for letter in _SPACE_ESCAPES + _GONE_ESCAPES:
        if letter + word in names:
            return "\\" + letter + word
    return word
