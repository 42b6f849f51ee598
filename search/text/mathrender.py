"""Math to readable Unicode: walks pylatexenc's math nodes and renders symbols, sub/superscripts,
fractions, roots, accents and math alphabets (the Unicode tables are in mathtext.py)."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable

from pylatexenc import latexwalker

from search.text.eaten import split_glued
from search.text.macros import (
    AUTHOR_ACCENTS,
    AUTHOR_DELIMITERS,
    INVISIBLE_IN_MATH,
    L2T_DB,
    MATH_ALPHABETS,
    MATH_DECLARATIONS,
    MATH_SYMBOLS,
    STYLE_WITH_ARGUMENT,
    TEXT_SYMBOLS,
    args_of,
    author_macro,
    known_macro_text,
    last,
    symbol_of,
)
from search.text.mathtext import ACCENT_MARKS, ACCENTS, has_script, math_alphabet, script


class MathText:
    """Renders math nodes to a readable Unicode string: symbols, scripts, fractions, accents."""

    def __init__(self, plain_of: Callable[[list], str]) -> None:
        """`plain_of(nodes)`: the converter's plain text of text-mode nodes (\\text{...} in math)."""
        self.plain_of = plain_of

    def render(self, nodes) -> str:
        nodes = [node for node in nodes or () if node is not None]
        for at, node in enumerate(nodes):
            if isinstance(node, latexwalker.LatexMacroNode) and node.macroname in _INFIX:
                # {a \over b}, {n \choose k}: the macro splits its group in two.
                above, below = self.render(nodes[:at]), self.render(nodes[at + 1 :])
                return _INFIX[node.macroname](operand(above), operand(below))
        tokens: list = []
        for node in nodes:
            if isinstance(node, str):  # the rest of a group after a declaration, already in tokens
                tokens.append(node)
            elif isinstance(node, latexwalker.LatexCharsNode):
                # Characters in runs, cut at each ^ and _ (a script takes the one character after it).
                # (`~` in math is TeX's unbreakable space.)
                tokens.extend(piece for piece in _SCRIPT_MARK.split(node.chars.replace("~", " ")) if piece)
            else:
                tokens.append(node)
        out: list[str] = []
        after_operator = after_fraction = False
        i, n = 0, len(tokens)
        while i < n:
            token = tokens[i]
            i += 1
            is_text = isinstance(token, str)
            if is_text and token in ("^", "_"):
                while i < n and isinstance(tokens[i], str) and not tokens[i].strip():
                    i += 1
                if i >= n:
                    out.append(token)
                    break
                following = tokens[i]
                if isinstance(following, str):  # `x^2n`: the script is `2`, `n` follows it
                    following = following.lstrip()
                    argument, rest = following[0], following[1:]
                    if rest:
                        tokens[i] = rest
                    else:
                        i += 1
                elif _macro_name(following) in MATH_DECLARATIONS and i + 1 < n and isinstance(tokens[i + 1], str):
                    # `d_\rm TV`: the declaration's word is the script (`d_{\rm TV}` with its braces lost).
                    word = _SCRIPT_WORD.match(tokens[i + 1])
                    argument = word.group().strip() if word else ""
                    tokens[i + 1] = tokens[i + 1][word.end() :] if word else tokens[i + 1]
                    i += 1
                else:
                    argument = self.token(following).strip()
                    i += 1
                    if _macro_name(following) and following.macro_post_space:
                        argument += " "  # `V^\top - A` keeps its space: `Vᵀ - A`
                shown = (
                    "°"
                    if token == "^" and argument.strip() == "∘"
                    else script(argument.strip(), superscript=token == "^")
                )
                out.append(shown + " " if argument.endswith(" ") else shown)
                after_operator = after_fraction = False
                continue
            macro = None if is_text else _macro_name(token)
            if macro == "bb" and not _capital_next(tokens, i):
                out.append("b " if token.macro_post_space else "b")  # \ba, \bb: bold letters; `\bb R` is ℝ
                continue
            if macro in MATH_DECLARATIONS:
                # {\cal X}: the declaration styles what follows it in its group.
                alphabet = MATH_DECLARATIONS[macro]
                rest = self.render(tokens[i:])
                rest = math_alphabet(alphabet, rest) if alphabet else rest
                out.append(" " + rest if out and out[-1][-1:].isalnum() and rest[:1].isalnum() else rest)
                break
            text = token if is_text else self.token(token)
            if not text and macro != "!":  # (`\mathrm{poly}\!\log`: glued on purpose)
                continue  # `\log{}T`: an empty group keeps `log` apart from `T`
            if after_operator or after_fraction or macro is not None:
                # An operator, or an author's macro shown as written: apart from what follows.
                operator = macro is not None and (ENDS_IN_WORD.search(text.rstrip()) is not None or text[:1] == "\\")
                if (operator or after_operator) and out and _ends_alnum(out[-1]) and text[:1].isalnum():
                    text = " " + text  # `d\log n` reads `d log n`, `\ln\ln T` `ln ln T`, `\log{T}` `log T`
                if after_fraction and text[:1].isalnum():
                    out[-1] = "(" + out[-1] + ")"  # \frac{1}{\delta}H^4 reads (1/δ)H⁴, not 1/δH⁴
                after_operator = operator
                after_fraction = macro in _FRACTIONS and "/" in text
            out.append(text)
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
        if token.isNodeType(latexwalker.LatexMathNode) or token.isNodeType(latexwalker.LatexEnvironmentNode):
            return self.render(token.nodelist)
        if token.isNodeType(latexwalker.LatexCommentNode):
            return ""
        return token.latex_verbatim()

    def macro(self, node) -> str:
        name = node.macroname
        args = args_of(node)
        if name in _FRACTIONS and len(args) == 2:
            return operand(self.arg(args[0])) + "/" + operand(self.arg(args[1]))
        if name in ("binom", "dbinom", "tbinom") and len(args) == 2:
            return _INFIX["choose"](self.arg(args[0]), self.arg(args[1]))
        if name in ("stackrel", "overset", "underset") and len(args) == 2:
            return self.arg(args[1]) + script(self.arg(args[0]).strip(), superscript=name != "underset")
        if name in ("xrightarrow", "xleftarrow"):
            label = self.arg(last(args)).strip()
            return ("→" if name == "xrightarrow" else "←") + (script(label, superscript=True) if label else "")
        if name == "pmod":
            return " (mod " + self.arg(last(args)).strip() + ")"
        if name == "sqrt":
            index = self.arg(args[0]) if len(args) > 1 else ""
            root = (script(index, superscript=True) if index else "") + "√"
            return root + operand(self.arg(last(args)))
        if name in MATH_ALPHABETS:
            return math_alphabet(MATH_ALPHABETS[name], self.arg(last(args)))
        if name in ACCENTS or name in AUTHOR_ACCENTS:
            return accented(self.arg(last(args)), ACCENTS[AUTHOR_ACCENTS.get(name, name)])
        if name in ("textcolor", "colorbox"):
            return self.arg(last(args))  # `$\\textcolor{red}{x}$`: the colour is no content
        if name == "color":
            return ""
        if name in STYLE_WITH_ARGUMENT or name == "operatorname":
            return self.plain_of([last(args)])
        if name in INVISIBLE_IN_MATH:
            return ""
        if name in ("iclrurl", "iclrhref", "iclrcode"):
            return self.plain_of([node])
        if name in AUTHOR_DELIMITERS:
            opening, closing = AUTHOR_DELIMITERS[name]
            return opening + self.arg(last(args)).strip() + closing
        if name in TEXT_SYMBOLS:
            return TEXT_SYMBOLS[name]
        if name in MATH_SYMBOLS:
            return MATH_SYMBOLS[name]
        if L2T_DB.get_macro_spec(name) is None:
            if (shown := author_macro(name, in_math=True)) is not None:
                return shown
            if glued := split_glued(name):
                return "".join(symbol_of(part) for part in glued)
        return known_macro_text(node)

    def arg(self, node) -> str:
        if node is None:
            return ""
        return self.token(node)


def accented(body: str, mark: str) -> str:
    """\\tilde{x} -> x̃; over a letter or a word, every letter; over a formula (`\\widetilde{O(m/ε²)}`),
    its first character only, as the paper prints one wide accent over it."""
    body = body.strip()
    if body[:1] == "\\":
        return body + mark  # over an author's macro shown as written (`\\action`): after its name
    if len(body) > 1 and (not body.isalnum() or has_script(body)):
        return unicodedata.normalize("NFC", body[0] + mark + body[1:])
    return unicodedata.normalize("NFC", "".join(ch + mark if not ch.isspace() else ch for ch in body))


_INFIX = {
    "over": lambda above, below: above + "/" + below,
    "choose": lambda above, below: f"C({above.strip('()')},{below.strip('()')})",
}
_SCRIPT_MARK = re.compile(r"([\^_])")
_FRACTIONS = frozenset({"frac", "dfrac", "tfrac", "cfrac", "nicefrac", "sfrac"})
_SCRIPT_WORD = re.compile(r"\s*[A-Za-z0-9]+")
OPERATOR_WORD = re.compile(r"[A-Za-z]{2,}")
"""What a named operator prints (`log`, `max`): a word kept apart from its neighbours."""
ENDS_IN_WORD = re.compile(r"(?<![A-Za-z])[A-Za-z]{2,}$")
"""What a macro printed ends in such a word (`√log` for `\\sqrt\\log`): the next letter is kept apart."""


def _ends_alnum(text: str) -> bool:
    """Whether text ends in a letter or digit, an accent over it counted (`k̄` before `\\log`)."""
    return text.rstrip(ACCENT_MARKS)[-1:].isalnum()


def _capital_next(tokens: list, at: int) -> bool:
    """Whether a capital letter (or a group) follows, past white space: `\\bb R`, `\\bb{R}`."""
    for token in tokens[at:]:
        if not isinstance(token, str):
            return isinstance(token, latexwalker.LatexGroupNode)
        if token.strip():
            return token.lstrip()[0].isupper()
    return False


def _macro_name(node) -> str | None:
    """The node's macro name, or None for any other node (a check per token: kept cheap)."""
    return node.macroname if isinstance(node, latexwalker.LatexMacroNode) else None


def operand(text: str) -> str:
    """Parenthesise a compound fraction or root operand: (a+b)/c, but 1/2 and x/n stay bare."""
    text = text.strip()
    if len(text) <= 1 or re.fullmatch(r"[\w.]+", text) or (text.startswith("(") and text.endswith(")")):
        return text
    return "(" + text + ")"
