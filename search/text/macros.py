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
    "pmb": "bold",
    "mathrel": None,
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
    "tiny": None,
    "scriptsize": None,
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
    "allowbreak": "",
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
    "bigm",
    "Bigm",
    "Bigl",
    "Bigr",
    "biggl",
    "biggr",
    "displaystyle",
    "textstyle",
    "scriptstyle",
    "limits",
    "nolimits",
    "mleft",
    "mright",
    "!",
}
PROSE_INFIX = {"over": "/", "choose": " choose "}
"""TeX's infix fractions outside math (its dollars lost upstream): `1\\over 2`, `[d] \\choose 2`."""
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
    "ne": "≠",
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
    "tOmega": "Ω̃",
    "Omegat": "Ω̃",
    "tildeOmega": "Ω̃",
    "tTheta": "Θ̃",
    "Thetat": "Θ̃",
    "tildeTheta": "Θ̃",
    "tildeO": "Õ",
    "Otil": "Õ",
    "Otilde": "Õ",
    "otil": "Õ",
    "bigOtil": "Õ",
    "softO": "Õ",
    "otilde": "Õ",
    "bigO": "O",
    "bigo": "O",
    "bigomega": "Ω",
    "bigtheta": "Θ",
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
            "supp",
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
    # \cA, \calH, \mcO, \Xcal -> mathcal; \scO -> mathscr; \bx, \bfX, \vct x -> the letter (bold in the paper).
    (re.compile(r"(?:c|cal|mc|mcal)([A-Z])|(?:cal|mc|mcal)([a-z])|([A-Z])cal"), "mathcal"),
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


MATH_IN_PROSE = {
    "frac",
    "dfrac",
    "tfrac",
    "nicefrac",
    "sqrt",
    "binom",
    "stackrel",
    "overset",
    "underset",
    "xrightarrow",
    "pmod",
}
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
            macrospec.MacroSpec("nicefrac", "{{"),
            macrospec.MacroSpec("sfrac", "{{"),
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


# -- macros glued to what follows -------------------------------------------------------------------
# Lists that stripped an abstract's braces glue a macro to its argument or to the next word: `\sqrtT`,
# `\mathcalO(n)`, `\emphsquared`, `\beginitemize`, `\lnδ`, `\citeProc:Li_KDD07`. TeX itself would end a
# name at `δ`; pylatexenc reads every letter into it. Such a name, unknown as a whole, is read as the
# standard macro it starts with when what follows it can only be that macro's argument or the next token.

STANDARD_NAMES = frozenset(
    {spec.macroname for db in (L2T_DB, CONTEXT_DB) for spec in db.iter_macro_specs()}
    | {*STYLE_WITH_ARGUMENT, *STYLE_DECLARATIONS, *TEXT_SYMBOLS, *INVISIBLE_IN_MATH, *MATH_SYMBOLS}
    | {*MATH_DECLARATIONS, *MATH_ALPHABETS, *MATH_IN_PROSE, *CITATIONS, "begin", "end", "over", "choose"}
)
"""The names of LaTeX and its common packages the converter renders (pylatexenc's tables and ours)."""
KNOWN_NAMES = STANDARD_NAMES | {*AUTHOR_MACROS, *AUTHOR_DELIMITERS, *AUTHOR_ACCENTS}
ENVIRONMENT_NAMES = frozenset(
    {spec.environmentname for spec in CONTEXT_DB.iter_environment_specs()} | MATH_ENVIRONMENTS
)
_GLUED_WORD = frozenset(
    {*STYLE_WITH_ARGUMENT, "sqrt", "operatorname", "textsubscript", "textsuperscript", "enquote", "footnote"}
)
"""Macros whose whole glued tail is their argument: `\\emphsquared` is `\\emph{squared}`, `\\sqrtKT` `\\sqrt{KT}`."""
_GLUED_DECLARATIONS = {
    "em": "emph",
    "it": "textit",
    "sl": "textsl",
    "bf": "textbf",
    "tt": "texttt",
    "sc": "textsc",
    "rm": "textrm",
    "sf": "textsf",
}
"""`{\\em k}-SIIRV` stripped to `\\emk-SIIRV`: one glued letter was the group the declaration styled."""
_GLUED_FIRST = frozenset({*ACCENTS, *AUTHOR_ACCENTS})
"""Accents take one letter, as TeX reads them: `\\tildeΘ(n)` is `\\tilde{Θ}(n)`, `\\hatB` `\\hat{B}`."""
_FRACTIONS = frozenset({"frac", "dfrac", "tfrac", "nicefrac"})
_SYMBOL_HEADS = STANDARD_NAMES - _GLUED_WORD - set(_GLUED_DECLARATIONS) - CITATIONS - {"begin", "end"}
"""Heads a second standard name may be glued to (`\\vectheta`, `\\hatbeta`): not those whose argument is prose."""
_CITE_KEY = re.compile(r"[\w:,.\-/+]*")
_NAME_START = re.compile(r"[A-Za-z]+")
_NON_ASCII = re.compile(r"[^\x00-\x7f]+")


def unglued(name: str, following: str) -> tuple[str, int] | None:
    """The LaTeX a glued name stands for and how many characters of `following` it takes (the rest of
    a citation key), or None when the name is known or an author's own (`\\toolname`, `\\numact`).

    Unambiguous splits only: the head is a standard name of two letters or more; an argument-taking
    head takes the tail as its argument; a symbol (`\\lnδ`, `\\logT`) is split from a non-ASCII
    letter, or from one letter after a head of three; a tail that is itself a standard name is that
    macro (`\\vectheta`). A name followed by `{` is an author's macro with an argument (`\\emc{margin}`)."""
    if name in KNOWN_NAMES or following[:1] == "{" or author_macro(name, in_math=True) is not None:
        return None
    ascii_part = _NAME_START.match(name)
    if ascii_part is None:
        return None
    longest = ascii_part.end() if ascii_part.end() < len(name) else len(name) - 1
    for cut in range(longest, 1, -1):
        head, tail = name[:cut], name[cut:]
        if head in _SYMBOL_HEADS and len(tail) > 2 and tail in STANDARD_NAMES:
            return f"\\{head}\\{tail}", 0  # `\\vectheta`: a second backslash lost
    for cut in range(longest, 1, -1):
        head, tail = name[:cut], name[cut:]
        if head in STANDARD_NAMES and (found := _split(head, tail, following)) is not None:
            return found
    return None


def _argument(text: str) -> str:
    """A macro's argument as written after its name: one letter after a space (`\\emph A_D`: no
    brace before the `_`, which Markdown would read as emphasis), more in braces."""
    return " " + text if len(text) == 1 else "{" + text + "}"


def _split(head: str, tail: str, following: str) -> tuple[str, int] | None:
    if head in ("begin", "end"):
        return (f"\\{head}{{{tail}}}", 0) if tail.rstrip("*") in ENVIRONMENT_NAMES else None
    if head in CITATIONS:
        key = _CITE_KEY.match(following)
        rest = key.group().rstrip(".,") if key else ""
        return f"\\{head}{{{tail}{rest}}}", len(rest)
    if head in _GLUED_DECLARATIONS and (len(tail) == 1 or not tail[0].isascii()):
        return f"\\{_GLUED_DECLARATIONS[head]}{_argument(tail)}", 0  # (`\\slope` is an author's own)
    if head in _FRACTIONS or head in _GLUED_FIRST:
        return f"\\{head} {tail}", 0  # TeX's reading: one letter each (`\\fracU ε`, `\\tildeΘ(n)`)
    if head in MATH_ALPHABETS:
        capitals = len(tail) - len(tail.lstrip("ABCDEFGHIJKLMNOPQRSTUVWXYZ")) or 1
        return f"\\{head}{_argument(tail[:capitals])}{tail[capitals:]}", 0
    if head in _GLUED_WORD:
        return f"\\{head}{_argument(tail)}", 0
    if not tail[0].isascii():
        # `\\lnδ`, `\\leγfrom`: TeX's own reading, and the Latin word after the symbol set apart.
        run = _NON_ASCII.match(tail)
        symbols = run.end() if run else 0
        rest = tail[symbols:]
        return f"\\{head} {tail[:symbols]}" + (f" {rest}" if rest else ""), 0
    if len(head) > 2 and len(tail) == 1:
        return f"\\{head} {tail}", 0  # `\\logT`, `\\timesn`
    return None


@lru_cache(maxsize=2048)
def argument_spec(name: str) -> str:
    """The arguments the parser reads after a macro (`frac`: `{{`, `sqrt`: `[{`), `` for none."""
    spec = CONTEXT_DB.get_macro_spec(name)
    parser = getattr(spec, "args_parser", None)
    return getattr(parser, "argspec", "") or "" if spec is not None and spec.macroname == name else ""
