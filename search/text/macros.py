"""The LaTeX macros the converter knows: style macros and declarations, text symbols, macros that
vanish in math, citations, TeX specials, math environments, and pylatexenc's parsing context with
our own placeholder macros. Plus small helpers to read a parsed macro node."""

from __future__ import annotations

import re
from functools import lru_cache

from pylatexenc import latex2text, latexwalker, macrospec

from search.text.mathtext import ACCENTS, math_alphabet

STYLE_WITH_ARGUMENT = {
    "textbf": "bold",
    "mathbf": "bold",
    "boldsymbol": "bold",
    "bm": "bold",
    "vct": "bold",
    "vect": "bold",
    "mat": "bold",
    "mathop": None,
    "textit": "italic",
    "emph": "italic",
    "textsl": "italic",
    "mathit": "italic",
    "underline": "underline",
    "uline": "underline",
    "texttt": "code",
    "mathtt": "code",
    "verb": "code",
    "textsc": None,
    "textrm": None,
    "textsf": None,
    "textnormal": None,
    "textup": None,
    "textmd": None,
    "mbox": None,
    "hbox": None,
    "smash": None,
    "text": None,
    "mathrm": None,
    "mathsf": None,
}
TEXT_STYLE_MACROS = {"textbf", "textit", "emph", "textsl", "underline", "uline", "texttt", "textsc", "text", "textrm"}
STYLE_DECLARATIONS = {
    "bf": "bold",
    "bfseries": "bold",
    "it": "italic",
    "itshape": "italic",
    "em": "italic",
    "sl": "italic",
    "slshape": "italic",
    "tt": "code",
    "ttfamily": "code",
    "sc": None,
    "scshape": None,
    "rm": None,
    "rmfamily": None,
    "sf": None,
    "sffamily": None,
    "normalfont": None,
    "upshape": None,
    "mdseries": None,
    "small": None,
    "footnotesize": None,
    "large": None,
    "Large": None,
    "huge": None,
    "normalsize": None,
}
TEXT_SYMBOLS = {
    "%": "%",
    "&": "&",
    "#": "#",
    "$": "$",
    "_": "_",
    "{": "{",
    "}": "}",
    " ": " ",
    ",": " ",
    ";": " ",
    ":": " ",
    "!": "",
    "/": "",
    "\\": " ",
    "newline": " ",
    "par": "\n\n",
    "quad": " ",
    "qquad": " ",
    "noindent": "",
    "-": "",
    "ldots": "…",
    "dots": "…",
    "textbackslash": "\\",
    "|": "‖",
    "LaTeX": "LaTeX",
    "TeX": "TeX",
    "xspace": "",
    "ie": "i.e.",
    "eg": "e.g.",
    "left": "",
    "right": "",
    # siunitx's units, as \\SI{105}{\\micro\\metre} writes them
    **{"metre": "m", "meter": "m", "gram": "g", "second": "s", "hertz": "Hz", "watt": "W", "volt": "V"},
    **{"kilo": "k", "centi": "c", "milli": "m", "micro": "µ", "nano": "n", "percent": "%", "degree": "°"},
}
INVISIBLE_IN_MATH = {
    "left",
    "right",
    "middle",
    "big",
    "Big",
    "bigg",
    "Bigg",
    "bigl",
    "bigr",
    "Bigl",
    "Bigr",
    "biggl",
    "biggr",
    "displaystyle",
    "textstyle",
    "scriptstyle",
    "limits",
    "nolimits",
    "!",
}
MATH_SYMBOLS = {
    # Standard LaTeX that pylatexenc's tables lack.
    "arg": "arg",
    "Pr": "Pr",
    "det": "det",
    "deg": "deg",
    "dim": "dim",
    "ker": "ker",
    "hom": "hom",
    "gcd": "gcd",
    "lg": "lg",
    "cot": "cot",
    "sec": "sec",
    "csc": "csc",
    "Re": "ℜ",
    "Im": "ℑ",
    "land": "∧",
    "lor": "∨",
    "iff": "⟺",
    "implies": "⟹",
    "coloneqq": "≔",
    "eqqcolon": "≕",
    "bot": "⊥",
    "models": "⊨",
    "ddagger": "‡",
    "colon": ":",
    "mod": " mod ",
    "bmod": " mod ",
}
MATH_DECLARATIONS = {
    # {\cal X}: a declaration styles the rest of its group (None: upright or bold, shown plain).
    "cal": "mathcal",
    "bb": "mathbb",
    "frak": "mathfrak",
    "scr": "mathscr",
    "bf": None,
    "rm": None,
    "it": None,
    "mit": None,
    "sf": None,
    "tt": None,
}
MATH_ALPHABETS = {
    "mathcal": "mathcal",
    "mathscr": "mathscr",
    "mathbb": "mathbb",
    "mathfrak": "mathfrak",
    "mathds": "mathbb",
    "mathbbm": "mathbb",
    "Bbb": "mathbb",
    "mc": "mathcal",
    "mcal": "mathcal",
}
_SETS = {"R": "ℝ", "N": "ℕ", "Z": "ℤ", "Q": "ℚ", "C": "ℂ", "E": "𝔼"}
AUTHOR_MACROS = {
    # Shorthand authors define in their preambles, with the meaning it has in nearly every paper.
    **{name: symbol for letter, symbol in _SETS.items() for name in (letter * 2, "bb" + letter, "mathbb" + letter)},
    "R": "ℝ",
    "N": "ℕ",
    "Z": "ℤ",
    "Q": "ℚ",
    "E": "𝔼",
    "Real": "ℝ",
    "Reals": "ℝ",
    "real": "ℝ",
    "reals": "ℝ",
    "eps": "ε",
    "veps": "ε",
    "vareps": "ε",
    "eqdef": "≕",
    "defeq": "≔",
    "iid": "i.i.d.",
    "etal": "et al.",
    "wrt": "w.r.t.",
    "cf": "cf.",
    "aka": "a.k.a.",
    "tO": "Õ",
    "tildeO": "Õ",
    "Otil": "Õ",
    "bigOtil": "Õ",
    "softO": "Õ",
    "otilde": "Õ",
    "bigO": "O",
    "tlO": "Õ",
    "Ot": "Õ",
    "PP": "ℙ",
    "independent": "⫫",
    "indep": "⫫",
    "Lojasiewicz": "Łojasiewicz",
    "trace": "tr",
    "lp": "(",
    "rp": ")",
    **{name: name for name in ("SO", "SE", "SU", "GL")},
    **{
        name: name
        for name in [
            "poly",
            "polylog",
            "opt",
            "OPT",
            "rank",
            "diag",
            "argmax",
            "argmin",
            "sgn",
            "sign",
            "tr",
            "Tr",
            "Var",
            "Cov",
            "KL",
            "softmax",
            "ReLU",
        ]
    },
}
AUTHOR_DELIMITERS = {
    # \\norm{x} -> ‖x‖ and friends: one argument between two delimiters.
    "norm": ("‖", "‖"),
    "abs": ("|", "|"),
    "set": ("{", "}"),
    "paren": ("(", ")"),
    "ceil": ("⌈", "⌉"),
    "floor": ("⌊", "⌋"),
    "inner": ("⟨", "⟩"),
    "ip": ("⟨", "⟩"),
}
AUTHOR_ACCENTS = {"Tilde": "tilde", "wt": "widetilde", "wh": "widehat", "wb": "bar"}
_AUTHOR_ALPHABETS = (
    # \cA, \calH, \mcO -> mathcal; \scO -> mathscr; \bx, \bfX, \vct x -> the letter (bold in the paper).
    (re.compile(r"(?:c|cal|mc|mcal)([A-Z])|(?:cal|mc|mcal)([a-z])"), "mathcal"),
    (re.compile(r"(?:sc|scr)([A-Z])"), "mathscr"),
    (re.compile(r"(?:b|bf|bm|bs|mb|mbf|vct|vec|mat)([A-Za-z])|([A-Za-z])(?:b|bf|bm|vec)"), None),
)


_PREFIX_ACCENTS = {"t": "tilde", "wt": "widetilde", "h": "hat", "wh": "widehat"}
_AUTHOR_ACCENTED = re.compile(r"(wt|wh|t|h)([A-Za-z])")


def author_macro(name: str, in_math: bool) -> str | None:
    """What an author's own macro most likely shows, or None when there is no telling (`\\toolname`)."""
    if name in AUTHOR_MACROS:
        return AUTHOR_MACROS[name]
    for pattern, alphabet in _AUTHOR_ALPHABETS:
        if found := pattern.fullmatch(name):
            letter = next(group for group in found.groups() if group)
            return math_alphabet(alphabet, letter) if alphabet else letter
    if not in_math:
        return None
    if len(name) == 1 and name.isalpha():
        return name  # \X, \K, \S in math: the author's styled letter
    if len(name) == 2 and name[0] == name[1] and name[0].isupper():
        return math_alphabet("mathbb", name[0])  # \PP, \SS, like \RR and \EE
    if found := _AUTHOR_ACCENTED.fullmatch(name):
        return found.group(2) + ACCENTS[_PREFIX_ACCENTS[found.group(1)]]  # \tf -> f̃, \hx -> x̂
    return None


MATH_IN_PROSE = {"frac", "dfrac", "tfrac", "sqrt", "binom", "stackrel", "overset", "underset", "xrightarrow", "pmod"}
"""Math macros written outside math (`tilde{O}(sqrt{n})` once its backslashes are back): rendered as math."""
CITATIONS = {"cite", "citep", "citet", "citealp", "citeauthor", "ref", "eqref", "autoref", "cref", "Cref"}
MATH_ENVIRONMENTS = {"equation", "equation*", "align", "align*", "math", "displaymath", "eqnarray", "gather"}


def _context_db() -> macrospec.LatexContextDb:
    db = latexwalker.get_default_latex_context_db()
    db.add_context_category(
        "iclr-reader",
        prepend=True,
        macros=[
            macrospec.MacroSpec("iclrurl", "{"),
            macrospec.MacroSpec("iclrhref", "{{"),
            macrospec.MacroSpec("iclrcode", "{"),
            *(macrospec.MacroSpec(name, "{") for name in STYLE_WITH_ARGUMENT),
            *(macrospec.MacroSpec(name, "{") for name in ACCENTS),
            *(macrospec.MacroSpec(name, "*[{") for name in CITATIONS),
            macrospec.MacroSpec("operatorname", "*{"),
            macrospec.MacroSpec("frac", "{{"),
            macrospec.MacroSpec("dfrac", "{{"),
            macrospec.MacroSpec("tfrac", "{{"),
            macrospec.MacroSpec("cfrac", "{{"),
            macrospec.MacroSpec("sqrt", "[{"),
            macrospec.MacroSpec("footnote", "{"),
            *(
                macrospec.MacroSpec(name, "{{")
                for name in ("binom", "dbinom", "tbinom", "stackrel", "overset", "underset")
            ),
            *(macrospec.MacroSpec(name, "[{") for name in ("xrightarrow", "xleftarrow")),
            *(
                macrospec.MacroSpec(name, "{")
                for name in (*MATH_ALPHABETS, *AUTHOR_ACCENTS, *AUTHOR_DELIMITERS, "pmod")
            ),
            *(macrospec.MacroSpec(name, "{") for name in ("textsubscript", "textsuperscript", "enquote", "keywords")),
            macrospec.MacroSpec("SI", "[{[{"),
            macrospec.MacroSpec("si", "[{"),
            macrospec.MacroSpec("num", "[{"),
            macrospec.MacroSpec("textcolor", "{{"),
        ],
    )
    # No specials (`~`, `--`, `''`, ...): the pre-pass has turned the ones prose uses into characters
    # and math reads them as characters, and pylatexenc tests every position against each of them.
    return db.filter_context(keep_which=["macros", "environments"])


CONTEXT_DB = _context_db()
"""pylatexenc's default macros and environments plus ours, for parsing abstracts."""
L2T = latex2text.LatexNodes2Text(math_mode="text", strict_latex_spaces=True)
L2T_DB = latex2text.get_default_latex_context_db()


_SYMBOLS: dict[str, str] = {}
"""Argument-less macros' text by name (pylatexenc's answer, asked once a name)."""


def known_macro_text(node) -> str:
    """Symbols and accents via pylatexenc's tables; unknown macros stay visible as `\\name`."""
    name = node.macroname
    if name in _SYMBOLS and not args_of(node):
        return _SYMBOLS[name]  # a symbol's text depends on its name alone: asked once
    if L2T_DB.get_macro_spec(name) is None:
        return "\\" + name
    try:
        text = L2T.node_to_text(node)
    except Exception:  # noqa: BLE001 - a table entry that cannot handle odd arguments
        return "\\" + name
    if len(_SYMBOLS) < 4096 and not args_of(node):
        _SYMBOLS[name] = text
    return text


@lru_cache(maxsize=1024)  # (pylatexenc builds a parsing context per call: half a millisecond)
def symbol_of(name: str) -> str:
    """A macro's text from its name alone (`alpha` -> α), for names read out of a longer one."""
    if L2T_DB.get_macro_spec(name) is None:
        return "\\" + name
    try:
        return L2T.latex_to_text("\\" + name).strip()
    except Exception:  # noqa: BLE001 - as known_macro_text
        return "\\" + name


def args_of(node) -> list:
    parsed = getattr(node, "nodeargd", None)
    return list(parsed.argnlist) if parsed is not None and parsed.argnlist else []


def last(args: list):
    return args[-1] if args else None


def chars_of(node) -> str:
    if node is None:
        return ""
    if node.isNodeType(latexwalker.LatexGroupNode):
        return "".join(chars_of(child) for child in node.nodelist)
    if node.isNodeType(latexwalker.LatexCharsNode):
        return node.chars
    return node.latex_verbatim()
