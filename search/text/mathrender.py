"""Math to readable Unicode: walks pylatexenc's math nodes and renders symbols, sub/superscripts,
fractions, roots, accents and math alphabets (the Unicode tables are in mathtext.py)."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable

from pylatexenc import latexwalker

from search.text.macros import INVISIBLE_IN_MATH, STYLE_WITH_ARGUMENT, TEXT_SYMBOLS, args_of, known_macro_text, last
from search.text.mathtext import ACCENTS, math_alphabet, script


class MathText:
    """Renders math nodes to a readable Unicode string: symbols, scripts, fractions, accents."""

    def __init__(self, plain_of: Callable[[list], str]) -> None:
        """`plain_of(nodes)`: the converter's plain text of text-mode nodes (\\text{...} in math)."""
        self.plain_of = plain_of

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
            if token.macro_post_space and not args_of(token) and text:
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
        args = args_of(node)
        if name in ("frac", "dfrac", "tfrac", "cfrac") and len(args) == 2:
            return operand(self.arg(args[0])) + "/" + operand(self.arg(args[1]))
        if name == "sqrt":
            index = self.arg(args[0]) if len(args) > 1 else ""
            root = (script(index, superscript=True) if index else "") + "√"
            return root + operand(self.arg(last(args)))
        if name in ("mathcal", "mathscr", "mathbb", "mathfrak"):
            return math_alphabet(name, self.arg(last(args)))
        if name in ACCENTS:
            mark = ACCENTS[name]
            body = self.arg(last(args))
            return "".join(ch + mark if not ch.isspace() else ch for ch in body)
        if name in STYLE_WITH_ARGUMENT or name == "operatorname":
            return self.plain_of([last(args)])
        if name in INVISIBLE_IN_MATH:
            return ""
        if name in ("iclrurl", "iclrhref", "iclrcode"):
            return self.plain_of([node])
        if name in TEXT_SYMBOLS:
            return TEXT_SYMBOLS[name]
        return known_macro_text(node)

    def arg(self, node) -> str:
        if node is None:
            return ""
        return self.token(node)


def operand(text: str) -> str:
    """Parenthesise a compound fraction or root operand: (a+b)/c, but 1/2 and x/n stay bare."""
    text = text.strip()
    if len(text) <= 1 or re.fullmatch(r"[\w.]+", text) or (text.startswith("(") and text.endswith(")")):
        return text
    return "(" + text + ")"
