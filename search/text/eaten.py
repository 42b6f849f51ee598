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
from collections.abc import Callable

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
# Names no author writes as a word in math (`$j\\in{1,cdots,c}$`): read as macros even in math with backslashes.
_NEVER_WORDS = frozenset(
    [
        "cdots",
        "ldots",
        "infty",
        "epsilon",
        "varepsilon",
        "vartheta",
        "varphi",
        "lambda",
        "sigma",
        "omega",
        "kappa",
        "alpha",
        "gamma",
        "delta",
        "theta",
        "mathcal",
        "mathbb",
        "mathbf",
        "sqrt",
        "frac",
        "nabla",
        "partial",
        "rightarrow",
        "leftarrow",
        "mapsto",
        "subseteq",
        "emptyset",
        "forall",
        "exists",
        "propto",
        "approx",
        "simeq",
        "equiv",
        "notin",
        "langle",
        "rangle",
        "lfloor",
        "rfloor",
        "lceil",
        "rceil",
        "widetilde",
        "widehat",
        "overline",
        "boldsymbol",
        "operatorname",
        "leq",
        "geq",
        "neq",
        *("log", "ln", "exp", "min", "max", "sup", "inf", "lim", "det", "arg"),  # they print as they read
    ]
)
# Names that are also words an author writes in math as words.
_WORDLIKE = frozenset(
    {"top", "to", "int", "sim", "cap", "cup", "mid", "star", "ast", "circ", "perp", "left", "right", "text"}
)

_GLUED_NAMES = {name[1:]: name for name in ("footnote", "emph", "enquote", "boldsymbol")}
_GLUED = re.compile(r"(?<=[A-Za-z])(" + "|".join(_GLUED_NAMES) + r")(?=\{)")


def _candidates(names: frozenset[str]) -> str:
    """The words that may be these macros eaten: each name, and each name missing its first letter
    where an escape could have taken it. One alternation, so the regex engine, not a Python call per
    word, skips the words that cannot be."""
    tails = {name[1:] for name in names if name[0] in _SPACE_ESCAPES + _GONE_ESCAPES and len(name) > 2}
    return "|".join(sorted(names | tails | {"o"}, key=len, reverse=True))


# Names missing their first letter that are no words: `imes`, `ightarrow`, `heta`, `extit`...
_TAILS = frozenset(
    name[1:]
    for name in MATH_MACROS
    if name[0] in _SPACE_ESCAPES + _GONE_ESCAPES and len(name) > 4 and name[1:] not in MATH_MACROS
) - {"angle", "floor", "ceil", "ight", "eft"}
_LETTERS = re.compile(r"[A-Za-z]+")
# The argument of a macro whose argument is text, not math: its words are never macros.
_TEXT_ARGUMENT = re.compile(
    r"\\(?:text|textrm|textit|textbf|textsf|texttt|mathrm|mathit|mathbf|mathsf|mathtt|operatorname|mbox)\*?\s*\{([^{}]*)\}"
)
_DOUBLED = re.compile(r"\\(\\([A-Za-z]+))")
_MATH_CANDIDATES = frozenset(_candidates(MATH_MACROS).split("|"))
_RUN = re.compile(r"\\?[A-Za-z]+")
_MATH_CANDIDATE = re.compile(r"(?<![A-Za-z\\])(" + _candidates(MATH_MACROS) + r")(?![A-Za-z])")
_ASCII_LETTERS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ")


def restore_in_math(math: str, eaten: Callable[[], bool] = lambda: False) -> str:
    """A math segment with its eaten backslashes put back (`$ell_infty$` -> `$\\ell_\\infty$`), and
    its doubled ones undone (`$\\\\hat I$`, escaped twice upstream, is `$\\hat I$`).

    A whole name (`ell`) is read as a macro only in math without a single backslash, or anywhere in
    an abstract that shows eaten escapes (`eaten()`, asked only then: `shows_eaten_escapes`): `$\\mathrm{KL}(\\pi \\|
    \\pi_{ref})$` keeps its `ref`. Words in a text argument (`\\text{int8}`, `\\mathrm{sim}`) stay words."""
    if "\\\\" in math:
        math = _DOUBLED.sub(lambda m: m.group(1) if m.group(2) in MATH_MACROS else m.group(), math)
        math = math.replace("\\\\|", "\\|")  # `\\\\| W \\\\|_F`: a norm, escaped twice
    if not any(word in _MATH_CANDIDATES for word in _RUN.findall(math)):  # (`\\alpha` is never one)
        return math  # (a scan and a set look-up: most math has no bare macro names)
    whole = "\\" not in math or eaten()
    text_spans = [m.span(1) for m in _TEXT_ARGUMENT.finditer(math)] if "\\" in math else []
    return _MATH_CANDIDATE.sub(lambda m: _restored(m, math, whole, text_spans, eaten), math)


def shows_eaten_escapes(text: str) -> bool:
    """The abstract's source lost escapes somewhere: a macro name missing its first letter (`imes`,
    `extit{`, `ightarrow`) that no English word is."""
    return any(tail in _TAILS for tail in _LETTERS.findall(text))


def has_eaten_macro(text: str) -> bool:
    """True when a word is a math macro missing the letter an escape took (`imes`, `ightarrow`):
    four letters or more and no English word, so `5$ imes$` is math, where `$5 to $10` and
    `$300 on the 1st stage and $50` stay amounts."""
    return any(word in _TAILS for word in _MATH_CANDIDATE.findall(text))


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
    Asked only for names the converter does not know (and not for long ones: no two names are)."""
    if len(name) > 24:
        return None
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
    name = _GLUED_NAMES[match.group(1)]
    if text[start - 1 : start] == "\\" or text[start : match.end()] == name:
        return match.group()  # `\\emph{`, or `emph{` written whole (the brace pass restores that)
    return "\\" + name


def _restored(
    match: re.Match[str], math: str, whole: bool, text_spans: list[tuple[int, int]], eaten: Callable[[], bool]
) -> str:
    """A candidate word in math, as the macro it was or as itself."""
    word = match.group(1)
    start = match.start()
    if any(begin <= start < end for begin, end in text_spans):
        return word
    before = math[start - 1 : start]
    if len(word) == 1:
        # Only `\\to` leaves one letter worth reading (` o`), and not as little-o (` o(\\sqrt{k})`);
        # other single letters are variables (`$x + u$`).
        arrow = word == "o" and before.isspace() and math[match.end() : match.end() + 1] != "("
        return "\\to" if arrow else word
    in_script = before in ("_", "^") or math[max(0, start - 2) : start] in ("_{", "^{")
    if in_script and (len(word) < _SCRIPT_SAFE_LENGTH or word in _NOT_IN_SCRIPTS):
        return word
    if word in MATH_MACROS and not whole and word not in _NEVER_WORDS:
        return word
    if word in _WORDLIKE and not eaten():
        return word  # `$top$-$k$`: a word, unless the abstract lost its escapes (`$sim 9 imes$`)
    return _as_macro(word, MATH_MACROS)


def _as_macro(word: str, names: frozenset[str]) -> str:
    """The macro a word of two letters or more was, with its backslash (and eaten letter) back."""
    if word in names:
        return "\\" + word
    for letter in _SPACE_ESCAPES + _GONE_ESCAPES:
        if letter + word in names:
            return "\\" + letter + word
    return word
