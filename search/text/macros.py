"""The LaTeX macros the converter knows: style macros and declarations, text symbols, macros that
vanish in math, citations, TeX specials, math environments, and pylatexenc's parsing context with
our own placeholder macros. Plus small helpers to read a parsed macro node."""

from __future__ import annotations

from pylatexenc import latex2text, latexwalker, macrospec

from search.text.mathtext import ACCENTS

STYLE_WITH_ARGUMENT = {
    "textbf": "bold",
    "mathbf": "bold",
    "boldsymbol": "bold",
    "bm": "bold",
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
CITATIONS = {"cite", "citep", "citet", "citealp", "citeauthor", "ref", "eqref", "autoref", "cref", "Cref"}
SPECIALS = {"~": "~", "--": "–", "---": "—", "``": "“", "''": "”", "!`": "¡", "?`": "¿"}
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
            macrospec.MacroSpec("mathcal", "{"),
            macrospec.MacroSpec("mathscr", "{"),
            macrospec.MacroSpec("mathbb", "{"),
            macrospec.MacroSpec("mathfrak", "{"),
            macrospec.MacroSpec("operatorname", "*{"),
            macrospec.MacroSpec("frac", "{{"),
            macrospec.MacroSpec("dfrac", "{{"),
            macrospec.MacroSpec("tfrac", "{{"),
            macrospec.MacroSpec("cfrac", "{{"),
            macrospec.MacroSpec("sqrt", "[{"),
            macrospec.MacroSpec("footnote", "{"),
            macrospec.MacroSpec("textcolor", "{{"),
        ],
    )
    return db


CONTEXT_DB = _context_db()
"""pylatexenc's default macros plus ours, for parsing abstracts."""
L2T = latex2text.LatexNodes2Text(math_mode="text", strict_latex_spaces=True)
L2T_DB = latex2text.get_default_latex_context_db()


def known_macro_text(node) -> str:
    """Symbols and accents via pylatexenc's tables; unknown macros stay visible as `\\name`."""
    if L2T_DB.get_macro_spec(node.macroname) is None:
        return "\\" + node.macroname
    try:
        return L2T.node_to_text(node)
    except Exception:  # noqa: BLE001 - a table entry that cannot handle odd arguments
        return "\\" + node.macroname


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
