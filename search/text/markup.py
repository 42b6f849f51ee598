"""Abstract source (LaTeX + Markdown) -> plain text, style spans and links.

pylatexenc's `latex_to_text` loses prose on real abstracts (an unescaped `%` starts a comment,
`$5 and $2` becomes math, unknown macros vanish), so this module uses only its tolerant node
parser, after a pre-pass that decides what is really markup, and walks the nodes itself.
Any failure falls back to the sanitised source text: conversion never raises and never drops prose.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

from pylatexenc import latex2text, latexwalker, macrospec

from search.models import Link, Rendered, Span
from search.text.links import safe_link
from search.text.mathtext import ACCENTS, math_alphabet, script
from search.text.prepass import MD_CODE, TEX_SINGLE_QUOTE, balance_braces, escape_literals, prose_to_latex, split_math
from search.text.sanitize import sanitize

MAX_MARKUP_CHARS = 200_000

# Characters that can start markup; text without any of them needs no parsing at all.
_NEEDS_PARSING = re.compile(r"[\\$*_`{}^~\[]")

_URL = re.compile(
    r"(?:https?://|www\.)(?:[^\s<>\"'{}\[\]\\^`|]|\\[_%#&~])+",
    re.IGNORECASE,
)
_MD_LINK = re.compile(r"\[([^\[\]\n]{1,300})\]\(\s*((?:https?://|www\.)[^\s()]*(?:\([^\s()]*\)[^\s()]*)*)\s*\)")
_HREF = re.compile(r"\\href\s*\{([^{}]*)\}")
_URL_MACRO = re.compile(r"\\url\s*\{([^{}]*)\}")
_MARKUP_CHARS = "\\{}$%&#^_~[]"
_PROSE_TOKEN = re.compile(r"\\(?:[A-Za-z@]+\*?|.)|[{}$%&#^_~\[\]]|[^\\{}$%&#^_~\[\]]+", re.DOTALL)
_RUN_BASE = 0xF0000  # Supplementary Private Use Area-A: removed from input by sanitize()
_RUN_LIMIT = 0xFFFD
_RUN_MARK = re.compile("[\U000f0000-\U000ffffd]")
_SPACES = re.compile(r"[^\S\n]{2,}|[^\S \n]")  # single spaces, most of them, are left alone
_NEWLINE_RUN = re.compile(r" ?\n[ \n]*")  # after _SPACES: a whitespace run that holds a newline

_STYLE_WITH_ARGUMENT = {
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
_TEXT_STYLE_MACROS = {"textbf", "textit", "emph", "textsl", "underline", "uline", "texttt", "textsc", "text", "textrm"}
_STYLE_DECLARATIONS = {
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
_TEXT_SYMBOLS = {
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
_INVISIBLE_IN_MATH = {
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
_CITATIONS = {"cite", "citep", "citet", "citealp", "citeauthor", "ref", "eqref", "autoref", "cref", "Cref"}
_SPECIALS = {"~": "~", "--": "–", "---": "—", "``": "“", "''": "”", "!`": "¡", "?`": "¿"}
_MATH_ENVIRONMENTS = {"equation", "equation*", "align", "align*", "math", "displaymath", "eqnarray", "gather"}


def _context_db() -> macrospec.LatexContextDb:
    db = latexwalker.get_default_latex_context_db()
    db.add_context_category(
        "iclr-reader",
        prepend=True,
        macros=[
            macrospec.MacroSpec("iclrurl", "{"),
            macrospec.MacroSpec("iclrhref", "{{"),
            macrospec.MacroSpec("iclrcode", "{"),
            *(macrospec.MacroSpec(name, "{") for name in _STYLE_WITH_ARGUMENT),
            *(macrospec.MacroSpec(name, "{") for name in ACCENTS),
            *(macrospec.MacroSpec(name, "*[{") for name in _CITATIONS),
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


_DB = _context_db()
_L2T = latex2text.LatexNodes2Text(math_mode="text", strict_latex_spaces=True)
_L2T_DB = latex2text.get_default_latex_context_db()


def convert(source: str) -> Rendered:
    """Convert abstract source to plain text with style spans and links. Never raises."""
    return _convert_cached(source or "")


@lru_cache(maxsize=4096)
def _convert_cached(source: str) -> Rendered:
    clean = sanitize(source)
    if len(clean) > MAX_MARKUP_CHARS or not _NEEDS_PARSING.search(clean):
        return _plain(clean)
    try:
        return _Converter(clean).run()
    except Exception:  # noqa: BLE001 - any parser failure means: show the text as written
        return _plain(clean)


def _plain(text: str) -> Rendered:
    """Sanitised text with whitespace folded and bare URLs as links: the fallback rendering."""
    text = _fold_whitespace(text).strip()
    spans: list[Span] = []
    links: list[Link] = []
    for match in _URL.finditer(text):
        url, end = _trim_url(match.group(), match.start())
        link = safe_link(url, url)
        if link is None:
            continue
        spans.append(Span(match.start(), end, "link", len(links)))
        links.append(link)
    return Rendered(text, tuple(spans), tuple(links))


def _fold_whitespace(text: str) -> str:
    # Two linear passes; only runs with a newline (a few per abstract) need a Python call.
    text = _SPACES.sub(" ", text)
    return _NEWLINE_RUN.sub(lambda m: "\n\n" if m.group().count("\n") >= 2 else " ", text)


def _trim_url(url: str, start: int) -> tuple[str, int]:
    """Drop trailing punctuation that ends the sentence rather than the URL."""
    while url and url[-1] in ".,;:!?'\"*)$":
        if url[-1] == ")" and url.count("(") >= url.count(")"):
            break
        url = url[:-1]
    return url, start + len(url)


class _Converter:
    """One conversion: pre-pass (set URLs aside, find real math, escape literals), parse, walk."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.links: list[Link | None] = []
        self.literals: list[str] = []
        self.runs: list[str] = []
        self.pieces: list[tuple[str, frozenset[str], int | None]] = []

    def run(self) -> Rendered:
        prepared = self._prepare(self.text)
        nodes, _, _ = latexwalker.LatexWalker(prepared, latex_context=_DB, tolerant_parsing=True).get_latex_nodes()
        self._walk(nodes, frozenset(), None)
        return self._assemble()

    # -- pre-pass -----------------------------------------------------------------------------

    def _prepare(self, text: str) -> str:
        # TeX quotes first, so ``quoted'' and `quoted' are not mistaken for Markdown `code`.
        text = text.replace("``", "\u201c").replace("''", "\u201d")
        text = TEX_SINGLE_QUOTE.sub("\u2018\\1\u2019", text)
        text = MD_CODE.sub(lambda m: self._literal(m.group(1)), text)
        text = _MD_LINK.sub(lambda m: self._link_macro(m.group(2), m.group(1)) + "{" + m.group(1) + "}", text)
        text = _HREF.sub(lambda m: self._link_macro(m.group(1), None), text)
        text = _URL_MACRO.sub(lambda m: self._url_macro(m.group(1), m.start()), text)
        text = _URL.sub(lambda m: self._url_macro(m.group(), m.start(), bare=True), text)
        out = []
        for is_math, segment in split_math(text):
            if is_math:
                out.append(escape_literals(segment))
            else:
                out.append(self._set_prose_aside(prose_to_latex(segment)))
        return balance_braces("".join(out))

    def _set_prose_aside(self, latex: str) -> str:
        """Replace long runs of plain prose with one private-use character each.

        pylatexenc reads text one character at a time (about 1 ms per 100 characters); runs
        without markup need no parsing, so the parser only sees markup and a marker per run.
        The first character after a macro stays, as it may be the macro's argument (\\'e)."""
        out: list[str] = []
        after_macro = False
        for token in _PROSE_TOKEN.findall(latex):
            if token[0] in _MARKUP_CHARS:
                out.append(token)
                after_macro = token[0] == "\\"
                continue
            if after_macro:
                stripped = token.lstrip()
                keep = len(token) - len(stripped) + 1
                out.append(token[:keep])
                token = token[keep:]
                after_macro = False
            if len(token) >= 4 and len(self.runs) < _RUN_LIMIT:
                out.append(chr(_RUN_BASE + len(self.runs)))
                self.runs.append(token)
            else:
                out.append(token)
        return "".join(out)

    def _literal(self, raw: str) -> str:
        self.literals.append(raw)
        return f"\\iclrcode{{{len(self.literals) - 1}}}"

    def _link_macro(self, url: str, label: str | None) -> str:
        self.links.append(safe_link(label or url, url))
        return f"\\iclrhref{{{len(self.links) - 1}}}"

    def _url_macro(self, url: str, start: int, bare: bool = False) -> str:
        tail = ""
        if bare:
            trimmed, _ = _trim_url(url, start)
            url, tail = trimmed, url[len(trimmed) :]
        shown = re.sub(r"\\([_%#&~])", r"\1", url)
        self.links.append(safe_link(shown, shown))
        self.literals.append(shown)
        return f"\\iclrurl{{{len(self.links) - 1}:{len(self.literals) - 1}}}" + tail

    # -- walk ---------------------------------------------------------------------------------

    def _emit(self, text: str, styles: frozenset[str], link: int | None) -> None:
        if text:
            self.pieces.append((self._expand(text), styles, link))

    def _expand(self, text: str) -> str:
        """Put back the prose runs that were set aside for the parser (see _set_prose_aside)."""
        if not self.runs or not _RUN_MARK.search(text):
            return text
        return _RUN_MARK.sub(lambda m: self.runs[ord(m.group()) - _RUN_BASE], text)

    def _walk(self, nodes, styles: frozenset[str], link: int | None) -> None:
        for node in nodes or ():
            if node is None:
                continue
            if node.isNodeType(latexwalker.LatexCharsNode):
                self._emit(node.chars, styles, link)
            elif node.isNodeType(latexwalker.LatexGroupNode):
                self._walk(node.nodelist, styles, link)
            elif node.isNodeType(latexwalker.LatexMathNode):
                if _is_styled_text(node.nodelist):
                    # $\textbf{BitStack}$ is emphasis written in math mode, not math.
                    self._walk(node.nodelist, styles, link)
                else:
                    self._emit(_MathText(self).render(node.nodelist), styles | {"math"}, link)
            elif node.isNodeType(latexwalker.LatexSpecialsNode):
                self._emit(_SPECIALS.get(node.specials_chars, node.specials_chars), styles, link)
            elif node.isNodeType(latexwalker.LatexCommentNode):
                self._emit("%" + node.comment, styles, link)
            elif node.isNodeType(latexwalker.LatexEnvironmentNode):
                if node.environmentname in _MATH_ENVIRONMENTS:
                    self._emit(_MathText(self).render(node.nodelist), styles | {"math"}, link)
                else:
                    self._walk(node.nodelist, styles, link)
            elif node.isNodeType(latexwalker.LatexMacroNode):
                name = node.macroname
                if name in _STYLE_DECLARATIONS:
                    # {\em ...} styles the rest of its group, like TeX.
                    style = _STYLE_DECLARATIONS[name]
                    styles = styles | {style} if style else styles
                    continue
                self._macro(node, styles, link)

    def _macro(self, node, styles: frozenset[str], link: int | None) -> None:
        name = node.macroname
        args = _args(node)
        if name == "iclrurl":
            link_index, literal = (int(x) for x in self._expand(_chars(args[0])).split(":"))
            url_text = self.literals[literal]
            self._emit(url_text, styles | {"link"} if self.links[link_index] else styles, link_index)
        elif name == "iclrhref":
            link_index = int(self._expand(_chars(args[0])))
            if len(args) > 1 and args[1] is not None:
                self._label_link(link_index, args[1])
                self._walk([args[1]], styles | {"link"} if self.links[link_index] else styles, link_index)
        elif name == "iclrcode":
            self._emit(self.literals[int(self._expand(_chars(args[0])))], styles | {"code"}, link)
        elif name in _STYLE_WITH_ARGUMENT:
            style = _STYLE_WITH_ARGUMENT[name]
            self._walk(args[-1:], styles | {style} if style else styles, link)
        elif name == "textcolor":
            self._walk(args[-1:], styles, link)
        elif name == "footnote":
            self._emit(" (", styles, link)
            self._walk(args[-1:], styles, link)
            self._emit(")", styles, link)
        elif name in _CITATIONS:
            self._emit("[" + self._expand(_chars(_last(args))).strip() + "]", styles, link)
        elif name in ("item",):
            self._emit(" • ", styles, link)
        elif name in _TEXT_SYMBOLS:
            self._emit(_TEXT_SYMBOLS[name], styles, link)
        elif name in ACCENTS or name in ("frac", "dfrac", "tfrac", "sqrt", "mathcal", "mathbb", "mathscr", "mathfrak"):
            self._emit(_MathText(self).macro(node), styles | {"math"}, link)
        elif _L2T_DB.get_macro_spec(name) is None:
            # An author's own macro: keep it visible, and its arguments' text with it.
            self._emit("\\" + name, styles, link)
            for arg in args:
                self._emit(" ", styles, link)
                self._walk([arg], styles, link)
        else:
            self._emit(_known_macro_text(node), styles, link)
            if node.macro_post_space and not args:
                self._emit(" ", styles, link)

    def _label_link(self, index: int, label_node) -> None:
        link = self.links[index]
        label = " ".join(self.plain_of([label_node]).split())
        if link is not None and label and link.label == link.url:
            self.links[index] = Link(label, link.url, link.kind)

    def plain_of(self, nodes) -> str:
        """Text of nodes walked in text mode (for \\text{} inside math)."""
        sub = _Converter("")
        sub.links, sub.literals, sub.runs = self.links, self.literals, self.runs
        sub._walk(nodes, frozenset(), None)
        return "".join(piece for piece, _, _ in sub.pieces)

    # -- assemble -----------------------------------------------------------------------------

    def _assemble(self) -> Rendered:
        out: list[str] = []
        length = 0
        raw_spans: list[tuple[int, int, str, int | None]] = []
        for text, styles, link in self.pieces:
            text = _fold_whitespace(text)
            if (not out or out[-1][-1:].isspace()) and text[:1].isspace():
                text = text.lstrip()
            if not text:
                continue
            start, length = length, length + len(text)
            out.append(text)
            for style in styles:
                raw_spans.append((start, length, style, link if style == "link" else None))
        joined = "".join(out)
        stripped = joined.rstrip()
        renumber: dict[int, int] = {}
        links: list[Link] = []
        spans: list[Span] = []
        for start, end, style, link in sorted(raw_spans, key=lambda s: (s[0], s[1])):
            end = min(end, len(stripped))
            if start >= end:
                continue
            if style == "link":
                if link is None or self.links[link] is None:
                    continue
                if link not in renumber:
                    renumber[link] = len(links)
                    links.append(self.links[link])
                link = renumber[link]
            spans.append(Span(start, end, style, link))
        return Rendered(stripped, tuple(_merge(spans)), tuple(links))


def _merge(spans: list[Span]) -> list[Span]:
    """Join touching spans of the same style (and link) into one."""
    merged: list[Span] = []
    open_by_key: dict[tuple[str, int | None], int] = {}
    for span in spans:
        key = (span.style, span.link)
        index = open_by_key.get(key)
        if index is not None and merged[index].end >= span.start:
            previous = merged[index]
            merged[index] = Span(previous.start, max(previous.end, span.end), span.style, span.link)
            continue
        open_by_key[key] = len(merged)
        merged.append(span)
    return sorted(merged, key=lambda s: (s.start, s.end))


class _MathText:
    """Renders math nodes to a readable Unicode string: symbols, scripts, fractions, accents."""

    def __init__(self, converter: _Converter) -> None:
        self.converter = converter

    def render(self, nodes) -> str:
        tokens: list = []
        for node in nodes or ():
            if node is None:
                continue
            if node.isNodeType(latexwalker.LatexCharsNode):
                tokens.extend(node.chars)
            else:
                tokens.append(node)
        out: list[str] = []
        i = 0
        while i < len(tokens):
            token = tokens[i]
            i += 1
            if isinstance(token, str) and token in ("^", "_"):
                while i < len(tokens) and isinstance(tokens[i], str) and tokens[i] == " ":
                    i += 1
                if i >= len(tokens):
                    out.append(token)
                    break
                argument = self.token(tokens[i])
                i += 1
                out.append(script(argument.strip(), superscript=token == "^"))
            else:
                out.append(self.token(token))
        return unicodedata.normalize("NFC", " ".join("".join(out).split()))

    def token(self, token) -> str:
        if isinstance(token, str):
            return token
        if token.isNodeType(latexwalker.LatexGroupNode):
            return self.render(token.nodelist)
        if token.isNodeType(latexwalker.LatexMacroNode):
            text = self.macro(token)
            if token.macro_post_space and not _args(token) and text:
                text += " "
            return text
        if token.isNodeType(latexwalker.LatexSpecialsNode):
            return " " if token.specials_chars == "~" else token.specials_chars
        if token.isNodeType(latexwalker.LatexMathNode) or token.isNodeType(latexwalker.LatexEnvironmentNode):
            return self.render(token.nodelist)
        if token.isNodeType(latexwalker.LatexCommentNode):
            return ""
        return token.latex_verbatim()

    def macro(self, node) -> str:
        name = node.macroname
        args = _args(node)
        if name in ("frac", "dfrac", "tfrac", "cfrac") and len(args) == 2:
            return _operand(self.arg(args[0])) + "/" + _operand(self.arg(args[1]))
        if name == "sqrt":
            index = self.arg(args[0]) if len(args) > 1 else ""
            root = (script(index, superscript=True) if index else "") + "√"
            return root + _operand(self.arg(_last(args)))
        if name in ("mathcal", "mathscr", "mathbb", "mathfrak"):
            return math_alphabet(name, self.arg(_last(args)))
        if name in ACCENTS:
            mark = ACCENTS[name]
            body = self.arg(_last(args))
            return "".join(ch + mark if not ch.isspace() else ch for ch in body)
        if name in _STYLE_WITH_ARGUMENT or name == "operatorname":
            return self.converter.plain_of([_last(args)])
        if name in _INVISIBLE_IN_MATH:
            return ""
        if name in ("iclrurl", "iclrhref", "iclrcode"):
            return self.converter.plain_of([node])
        if name in _TEXT_SYMBOLS:
            return _TEXT_SYMBOLS[name]
        return _known_macro_text(node)

    def arg(self, node) -> str:
        if node is None:
            return ""
        return self.token(node)


def _is_styled_text(nodes) -> bool:
    """True for math that only wraps text in style macros, like $\\textit{capability}$."""
    found = False
    for node in nodes or ():
        if node is None or (node.isNodeType(latexwalker.LatexCharsNode) and not node.chars.strip()):
            continue
        if not node.isNodeType(latexwalker.LatexMacroNode) or node.macroname not in _TEXT_STYLE_MACROS:
            return False
        found = True
    return found


def _operand(text: str) -> str:
    """Parenthesise a compound fraction or root operand: (a+b)/c, but 1/2 and x/n stay bare."""
    text = text.strip()
    if len(text) <= 1 or re.fullmatch(r"[\w.]+", text) or (text.startswith("(") and text.endswith(")")):
        return text
    return "(" + text + ")"


def _known_macro_text(node) -> str:
    """Symbols and accents via pylatexenc's tables; unknown macros stay visible as `\\name`."""
    if _L2T_DB.get_macro_spec(node.macroname) is None:
        return "\\" + node.macroname
    try:
        return _L2T.node_to_text(node)
    except Exception:  # noqa: BLE001 - a table entry that cannot handle odd arguments
        return "\\" + node.macroname


def _args(node) -> list:
    parsed = getattr(node, "nodeargd", None)
    return list(parsed.argnlist) if parsed is not None and parsed.argnlist else []


def _last(args: list):
    return args[-1] if args else None


def _chars(node) -> str:
    if node is None:
        return ""
    if node.isNodeType(latexwalker.LatexGroupNode):
        return "".join(_chars(child) for child in node.nodelist)
    if node.isNodeType(latexwalker.LatexCharsNode):
        return node.chars
    return node.latex_verbatim()
