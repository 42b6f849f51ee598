"""Abstract source (LaTeX + Markdown) -> plain text, style spans and links.

pylatexenc's `latex_to_text` loses prose on real abstracts (an unescaped `%` starts a comment,
`$5 and $2` becomes math, unknown macros vanish), so this module uses only its tolerant node
parser, after a pre-pass that decides what is really markup, and walks the nodes itself.
Any failure falls back to the sanitised source text: conversion never raises and never drops prose.
"""

from __future__ import annotations

import re
from functools import cache, lru_cache

from pylatexenc import latexwalker

from search.models import Link, Rendered, Span
from search.text.eaten import restore_in_math, restore_in_prose, shows_eaten_escapes
from search.text.links import safe_link
from search.text.macros import (
    AUTHOR_ACCENTS,
    AUTHOR_DELIMITERS,
    CITATIONS,
    CONTEXT_DB,
    INVISIBLE_IN_MATH,
    L2T_DB,
    MATH_ALPHABETS,
    MATH_ENVIRONMENTS,
    MATH_IN_PROSE,
    MATH_SYMBOLS,
    PROSE_INFIX,
    STYLE_DECLARATIONS,
    STYLE_WITH_ARGUMENT,
    TEXT_STYLE_MACROS,
    TEXT_SYMBOLS,
    args_of,
    author_macro,
    chars_of,
    known_macro_text,
    last,
)
from search.text.mathrender import ENDS_IN_WORD, OPERATOR_WORD, MathText
from search.text.mathtext import ACCENT_MARKS, ACCENTS, script
from search.text.prepass import (
    MD_CODE,
    TEX_SINGLE_QUOTE,
    balance_braces,
    balance_math,
    escape_literals,
    markdown_bold,
    markdown_italic_around_math,
    math_quotes,
    prose_to_latex,
    split_math,
    text_letters_in_math,
    unglue_macros,
    wrap_macro_arguments,
)
from search.text.sanitize import sanitize
from search.text.typography import clean_characters, prose_typography, tex_ties

MAX_MARKUP_CHARS = 200_000
"""Longer abstracts are shown as written (sanitised), without looking for markup at all."""
MAX_PARSED_CHARS = 10_000
"""At most this much goes to the LaTeX parser (markup, once plain prose is set aside); with more,
the abstract is shown as written. pylatexenc costs up to ~50 µs a character (and rereads the rest
of the text at each \\begin or \\end), so this bounds a conversion to a fraction of a second. The
real abstracts' longest markup is 664 characters."""

# Characters that can start markup; text without any of them needs no parsing at all.
_NEEDS_PARSING = re.compile(r"[\\$*_`{}^~\[]")

_URL = re.compile(
    r"(?:https?://|www\.)(?:[^\s<>\"'{}\[\]\\^`|]|\\[_%#&~])+",
    re.IGNORECASE,
)
_MD_LINK = re.compile(r"\[([^\[\]\n]{1,300})\]\(\s*((?:https?://|www\.)[^\s()]*(?:\([^\s()]*\)[^\s()]*)*)\s*\)")
_HREF = re.compile(r"\\href\s*\{([^{}]*)\}")
_URL_MACRO = re.compile(r"\\url\s*\{([^{}]*)\}")
_BRACELESS_URL_MACRO = re.compile(r"\\(?:url|href)\s*(?=https?://|www\.)", re.IGNORECASE)
_HYPERLINK = re.compile(r"\\hyperlink\s*\{([^{}]*)\}")
_ROMAN = re.compile(r"\\romannumeral\s*(\d{1,4})")
_BROKEN_URL = re.compile(
    r"\b(?=https?://|www\.)(?:"  # (one look-ahead first: most places in a text are no URL)
    r"((?:https?://|www\.)[\w-]+(?:\.[\w-]+)*\.) ((?:com|org|net|edu|gov|io|ai|co|info|dev|app|me|uk|de|fr|cn|jp)/)"
    r"|((?:https?://|www\.)[\w-]+(?:\.[\w-]+)+/)[ \n]([\w.-]+(?:/[\w.-]+){2,})"  # `google.com/ view/rss-22/home`
    r"|((?:https?://|www\.)(?:www\.)?(?:github\.com|gitlab\.com|bitbucket\.org|huggingface\.co)/)[ \n]([\w.-]+/[\w-])"
    r")"
)
_TRAILING = ".,;:!?'\"*)$"
_MARKUP_CHARS = "\\{}$%&#^_~[]"
_PROSE_TOKEN = re.compile(r"\\(?:[A-Za-z@]+\*?|.)|[{}$%&#^_~\[\]]|[^\\{}$%&#^_~\[\]]+", re.DOTALL)
_ARGUMENT_CHARS = re.compile(r"\s*\S?\s*\S?")
"""What stays after a macro when the prose after it is set aside: the characters it may take as its
arguments without braces."""
_RUN_BASE = 0xF0000  # Supplementary Private Use Area-A: removed from input by sanitize()
_RUN_LIMIT = 0xFFFD
_RUN_MARK = re.compile("[\U000f0000-\U000ffffd]")
_SPACES = re.compile(r"[^\S\n]{2,}|[^\S \n]")  # single spaces, most of them, are left alone
_NEWLINE_RUN = re.compile(r" ?\n[ \n]*")  # after _SPACES: a whitespace run that holds a newline
# A Markdown list item: a line that starts with `-`, `*`, `+`, `•` or `1.`/`1)` and a space.
_LIST_ITEM = re.compile(r"(?:^|\n[ \t\n]*)[ \t]*(?:([-*+•])|(\d{1,2}[.)]))[ \t]+(?=\S)")


def convert(source: str) -> Rendered:
    """Convert abstract source to plain text with style spans and links. Never raises."""
    return _convert_cached(source or "")


@lru_cache(maxsize=4096)
def _convert_cached(source: str) -> Rendered:
    clean = clean_characters(sanitize(source))
    if "\n" in clean and len(clean) <= MAX_MARKUP_CHARS:
        items = list(_LIST_ITEM.finditer(clean))
        if len(items) >= 2:
            return _list(clean, items)
    return _convert_clean(clean)


def _convert_clean(clean: str) -> Rendered:
    if len(clean) > MAX_MARKUP_CHARS or not _NEEDS_PARSING.search(clean):
        return _plain(clean)
    try:
        return _Converter(clean).run()
    except Exception:  # noqa: BLE001 - any parser failure means: show the text as written
        return _plain(clean)


def _list(text: str, items: list[re.Match[str]]) -> Rendered:
    """A Markdown list (`ones:\\n- We design…\\n- We design…`): each item on a line of its own, after
    the text that leads to it; a blank line ends the last item. Each block is converted on its own."""
    parts: list[tuple[str, Rendered]] = [("", _convert_clean(text[: items[0].start()]))]
    for number, item in enumerate(items):
        end = items[number + 1].start() if number + 1 < len(items) else len(text)
        body = text[item.end() : end]
        after = body.find("\n\n") if number + 1 == len(items) else -1
        if after != -1:
            body, rest = body[:after], body[after:]
        bullet = (item.group(1) and "•") or item.group(2)
        paragraph = "\n\n" if item.group().count("\n") > 1 else "\n"
        parts.append((paragraph + bullet + " ", _convert_clean(body)))
        if after != -1:
            parts.append(("\n\n", _convert_clean(rest)))
    return _joined(parts)


def _joined(parts: list[tuple[str, Rendered]]) -> Rendered:
    """Rendered pieces one after another, each after its separator, spans and links renumbered."""
    text: list[str] = []
    spans: list[Span] = []
    links: list[Link] = []
    length = 0
    for separator, rendered in parts:
        if not rendered.text:
            continue
        if text:
            text.append(separator)
            length += len(separator)
        elif separator.strip():
            text.append(separator.lstrip())
            length += len(separator.lstrip())
        for span in rendered.spans:
            link = None if span.link is None else span.link + len(links)
            spans.append(Span(span.start + length, span.end + length, span.style, link))
        links += rendered.links
        text.append(rendered.text)
        length += len(rendered.text)
    return Rendered("".join(text), tuple(spans), tuple(links))


class TooMuchMarkup(Exception):
    """More markup than MAX_PARSED_CHARS: the abstract is shown as written."""


def _plain(text: str) -> Rendered:
    """Sanitised text with whitespace folded, TeX dashes and quotes as characters and bare URLs
    as links: an abstract without markup, and the fallback rendering."""
    text = _fold_whitespace(_typography_outside_urls(rejoin_broken_urls(text))).strip()
    spans: list[Span] = []
    links: list[Link] = []
    if "://" not in text and "www." not in text.lower():  # no URL (the pattern's scan costs more)
        return Rendered(text, (), ())
    for match in _URL.finditer(text):
        url, end = _trim_url(match.group(), match.start())
        link = safe_link(url, url)
        if link is None:
            continue
        spans.append(Span(match.start(), end, "link", len(links)))
        links.append(link)
    return Rendered(text, tuple(spans), tuple(links))


def _typography_outside_urls(text: str) -> str:
    if "--" not in text and "''" not in text and "``" not in text:
        return text
    pieces, done = [], 0
    for match in _URL.finditer(text):
        pieces += [prose_typography(text[done : match.start()]), match.group()]
        done = match.end()
    pieces.append(prose_typography(text[done:]))
    return "".join(pieces)


def _fold_whitespace(text: str) -> str:
    # Two linear passes; only runs with a newline (a few per abstract) need a Python call.
    if "  " not in text and text.isascii() and "\n" not in text and "\t" not in text:
        return text  # single spaces only: most pieces of an abstract (the check is C-fast)
    text = _SPACES.sub(" ", text)
    return _NEWLINE_RUN.sub(lambda m: "\n\n" if m.group().count("\n") >= 2 else " ", text)


def _trim_url(url: str, start: int, wrapper: str = "") -> tuple[str, int]:
    """Drop trailing punctuation that ends the sentence rather than the URL (and the `_` or `*`
    that closes Markdown emphasis opened right before the URL).

    A `)` stays when the URL opens as many `(` as it closes: counted once, not per character."""
    opened, closed = url.count("("), url.count(")")
    end = len(url)
    trailing = _TRAILING + wrapper
    while end and url[end - 1] in trailing:
        if url[end - 1] == ")":
            if opened >= closed:
                break
            closed -= 1
        end -= 1
    return url[:end], start + end


def rejoin_broken_urls(text: str) -> str:
    """`https://sites.google. com/view/x`, `https://sites.google.com/ view/a/b`,
    `https://github.com/\\nowner/repo`: a space after a host's dot or a known host's slash came from
    a line break in the source; the URL is put back together."""
    if "://" not in text and "www." not in text:
        return text
    return _BROKEN_URL.sub(lambda m: "".join(part for part in m.groups() if part), text)


class _Converter:
    """One conversion: pre-pass (set URLs aside, find real math, escape literals), parse, walk."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.links: list[Link | None] = []
        self.literals: list[str] = []
        self.runs: list[str] = []
        self.pieces: list[tuple[str, frozenset[str], int | None]] = []
        self.clause: frozenset[str] = frozenset()
        """Styles of a declaration that lost its group: they end with the clause (see _walk)."""
        self.after_word = False
        """What was emitted last ends in a word a macro printed: a letter after it is kept apart."""
        self.apart = False
        """What was emitted last stands apart from a word after it (displayed math, `\\vec\\theta and`)."""
        self.taken: set[int] = set()
        """Groups of the top level already walked as a declaration's argument (`\\em{i.e.}`)."""

    def run(self) -> Rendered:
        prepared = self._prepare(self.text)
        if len(prepared) > MAX_PARSED_CHARS:
            raise TooMuchMarkup
        nodes, _, _ = latexwalker.LatexWalker(
            prepared, latex_context=CONTEXT_DB, tolerant_parsing=True
        ).get_latex_nodes()
        self._walk(nodes, frozenset(), None, top=True)
        return self._assemble()

    # -- pre-pass -----------------------------------------------------------------------------

    def _prepare(self, text: str) -> str:
        # TeX's opening quotes first, so ``quoted'' is not mistaken for Markdown `code`.
        text = text.replace("``", "\u201c")
        text = TEX_SINGLE_QUOTE.sub("\u2018\\1\u2019", text)
        text = MD_CODE.sub(lambda m: self._literal(m.group(1)), text)
        text = restore_in_prose(rejoin_broken_urls(text))
        text = _MD_LINK.sub(lambda m: self._link_macro(m.group(2), m.group(1)) + "{" + m.group(1) + "}", text)
        text = _HREF.sub(lambda m: self._link_macro(m.group(1), None), text)
        if "\\hyperlink" in text:
            text = _HYPERLINK.sub(self._hyperlink, text)
        text = _URL_MACRO.sub(lambda m: self._url_macro(m.group(1), m.start()), text)
        if "\\url" in text or "\\href" in text:
            text = _BRACELESS_URL_MACRO.sub("", text)  # `\urlhttps://…`: the URL alone, made a link below
        text = _URL.sub(lambda m: self._url_macro(m.group(), m.start(), bare=True, text=text), text)
        text = wrap_macro_arguments(unglue_macros(text))
        text = markdown_bold(text)  # before math is found: bold may hold inline math (**E$^2$-RAG**)
        if "$" in text and ("*" in text or "_" in text):
            text = markdown_italic_around_math(text)
        eaten = cache(lambda: shows_eaten_escapes(text))
        if "\\romannumeral" in text:
            text = _ROMAN.sub(_roman, text)
        text = tex_ties(text)  # (a tie before math: `matrix~$K$`)
        out = []
        for is_math, segment in split_math(text):
            if is_math:
                if "'" in segment or "\u201d" in segment:
                    segment = math_quotes(segment)
                out.append(balance_math(text_letters_in_math(restore_in_math(escape_literals(segment), eaten))))
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
            if out[-2:] in (["\\begin", "{"], ["\\end", "{"]):
                out.append(token)  # an environment's name is for the parser to read
                continue
            if after_macro:
                # (two: `\frac m-2 2` takes `m` and `-`; with one kept, the rest of the prose was its `-`)
                kept = _ARGUMENT_CHARS.match(token)  # (it matches any token)
                keep = kept.end() if kept else 1
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

    def _hyperlink(self, match: re.Match[str]) -> str:
        """hyperref's \\hyperlink{target}{text}: a link when the target is a URL, else the text alone."""
        target = match.group(1).strip()
        return self._link_macro(target, None) if _URL.fullmatch(target) else ""

    def _url_macro(self, url: str, start: int, bare: bool = False, text: str = "") -> str:
        tail = ""
        if bare:
            # `_https://host/x_.`: Markdown italics around a URL are not part of it.
            wrapped = text[start - 1 : start] if start else ""
            trimmed, _ = _trim_url(url, start, wrapped if wrapped in "_*" else "")
            url, tail = trimmed, url[len(trimmed) :]
        shown = re.sub(r"\\([_%#&~])", r"\1", url)
        self.links.append(safe_link(shown, shown))
        self.literals.append(shown)
        return f"\\iclrurl{{{len(self.links) - 1}:{len(self.literals) - 1}}}" + tail

    # -- walk ---------------------------------------------------------------------------------

    def _emit(self, text: str, styles: frozenset[str], link: int | None) -> None:
        if not text:
            return
        text = self._expand(text)
        if self.after_word or self.apart:
            if text[:1].isalnum() and (self.apart or self._after_alnum()):
                text = " " + text
            self.after_word = self.apart = False
        if self.clause:
            if styles & _UNBROKEN:
                self.pieces.append((text, styles | self.clause, link))  # math, code, links: whole
                return
            end = _CLAUSE_END.search(text)
            if end is None:
                self.pieces.append((text, styles | self.clause, link))
                return
            self.pieces.append((text[: end.start()], styles | self.clause, link))
            self.clause = frozenset()
            text = text[end.start() :]
        self.pieces.append((text, styles, link))

    def _expand(self, text: str) -> str:
        """Put back the prose runs that were set aside for the parser (see _set_prose_aside)."""
        if not self.runs or not _RUN_MARK.search(text):
            return text
        return _RUN_MARK.sub(lambda m: self.runs[ord(m.group()) - _RUN_BASE], text)

    def _walk(self, nodes, styles: frozenset[str], link: int | None, top: bool = False) -> None:
        """Walk nodes into pieces. `top`: the abstract's own level (and its environments'), where a
        style declaration has no group to end it."""
        nodes = nodes or ()
        for at, node in enumerate(nodes):
            if node is None:
                continue
            if node.isNodeType(latexwalker.LatexCharsNode):
                self._emit(node.chars, styles, link)
            elif node.isNodeType(latexwalker.LatexGroupNode):
                if at not in self.taken:
                    if self.pieces and self._apart_from_group(node):
                        self._emit(" ", styles, link)  # `arg min{N_t, M_t}`: a phrase, not the word's end
                    self._walk(node.nodelist, styles, link)
            elif node.isNodeType(latexwalker.LatexMathNode):
                if _is_styled_text(node.nodelist):
                    # $\textbf{BitStack}$ is emphasis written in math mode, not math.
                    self._walk(node.nodelist, styles, link)
                elif node.displaytype == "display":
                    # `\\] {in} high`: displayed math stands apart from the words around it.
                    self._display(node.nodelist, styles, link)
                else:
                    self._emit(MathText(self.plain_of).render(node.nodelist), styles | {"math"}, link)
            elif node.isNodeType(latexwalker.LatexCommentNode):
                self._emit("%" + node.comment, styles, link)
            elif node.isNodeType(latexwalker.LatexEnvironmentNode):
                if node.environmentname in MATH_ENVIRONMENTS:
                    self._display(node.nodelist, styles, link)
                else:
                    self._walk(node.nodelist, styles, link, top)
            elif node.isNodeType(latexwalker.LatexMacroNode):
                name = node.macroname
                if name in STYLE_DECLARATIONS:
                    style = STYLE_DECLARATIONS[name]
                    if not top:
                        styles = styles | {style} if style else styles  # {\em ...}: the rest of its group, like TeX
                    elif _group_right_after(nodes, at):
                        # `\em{i.e.}`: the group after it is what it styles.
                        self.taken.add(at + 1)
                        self._walk(nodes[at + 1].nodelist, styles | {style} if style else styles, link)
                    elif style:
                        # No group: its closing brace was lost upstream (`{\bf B_0^D(1), then`, `\em term`).
                        # It styles the clause it starts, not the rest of the abstract.
                        self.clause = self.clause | {style}
                    continue
                self._macro(node, styles, link)
        if top:
            self.taken.clear()

    def _after_alnum(self) -> bool:
        """Whether what was emitted last ends in a letter or digit, an accent over it counted (`k̄`)."""
        last = self.pieces[-1][0].rstrip(ACCENT_MARKS) if self.pieces else ""
        return last[-1:].isalnum()

    def _apart_from_group(self, group) -> bool:
        """Whether a group glued to what was emitted last stands apart from it: a phrase (a space or a
        comma in it) that starts with a letter after a word (`arg min{N_t, M_t}`), where `Cand{\\`e}s`
        and `Ł{ojasiewicz}` are one word; an operator's argument (`polylog{n}`); or a word after math
        (`\\({T} \\){and}`)."""
        last_text, last_styles, _ = self.pieces[-1]
        if not last_text[-1:].isalnum():
            return False
        content = self._expand(group.latex_verbatim()[1:-1])
        if "math" in last_styles:
            return _BRACED_WORD.match(content) is not None
        if _OPERATOR_END.search(last_text, max(0, len(last_text) - 12)) and content[:1].isalnum():
            return True  # `polylog{n}`, `log{T}` in prose: an operator's argument (its backslash lost)
        return last_text[-1:].isalpha() and content[:1].isalpha() and (" " in content or "," in content)

    def _display(self, nodes, styles: frozenset[str], link: int | None) -> None:
        """Displayed math, apart from the words around it (`\\] {in} high` reads `S in high`)."""
        self._emit(" ", styles, link)
        self._emit(MathText(self.plain_of).render(nodes), styles | {"math"}, link)
        self.apart = True

    def _macro(self, node, styles: frozenset[str], link: int | None) -> None:
        name = node.macroname
        args = args_of(node)
        if name == "iclrurl":
            link_index, literal = (int(x) for x in self._expand(chars_of(args[0])).split(":"))
            url_text = self.literals[literal]
            self._emit(url_text, styles | {"link"} if self.links[link_index] else styles, link_index)
        elif name == "iclrhref":
            link_index = int(self._expand(chars_of(args[0])))
            if len(args) > 1 and args[1] is not None:
                self._label_link(link_index, args[1])
                self._walk([args[1]], styles | {"link"} if self.links[link_index] else styles, link_index)
        elif name == "iclrcode":
            self._emit(self.literals[int(self._expand(chars_of(args[0])))], styles | {"code"}, link)
        elif name in STYLE_WITH_ARGUMENT:
            style = STYLE_WITH_ARGUMENT[name]
            self._walk(args[-1:], styles | {style} if style else styles, link)
        elif name == "textcolor":
            self._walk(args[-1:], styles, link)
        elif name == "footnote":
            self._around(" (", args, ")", styles, link)
        elif name in CITATIONS:
            key = last(args)
            if key is not None and key.isNodeType(latexwalker.LatexGroupNode):
                self._emit("[" + self._expand(chars_of(key)).strip() + "]", styles, link)
            else:
                # No braces: what the parser took for the key is the next word's first letter
                # (`\cite commands`); the word stays whole.
                self._walk([key], styles, link)
        elif name == "item":
            label = args[0] if args else None
            shown = " ".join(self.plain_of([label]).split()) if label is not None else ""
            self._emit(f" {shown} " if shown else " • ", styles, link)
        elif name in INVISIBLE_IN_MATH:
            pass  # `\big(`, `\left(`, `\displaystyle` outside math (its dollars lost upstream)
        elif name in PROSE_INFIX:
            self._emit(PROSE_INFIX[name], styles, link)
        elif name in TEXT_SYMBOLS:
            self._emit(TEXT_SYMBOLS[name], styles, link)
            self._post_space(node, args, styles, link)
        elif name in MATH_IN_PROSE or name in ACCENTS or name in MATH_ALPHABETS or name in AUTHOR_ACCENTS:
            shown = MathText(self.plain_of).macro(node)
            self._emit(shown, styles | {"math"}, link)
            # `\sqrt\log n` outside math reads `√log n`, `\vec\theta and` reads `θ⃗ and`
            self.after_word = ENDS_IN_WORD.search(shown) is not None
            self.apart = _spaced_argument(args)
        elif name in ("textsubscript", "textsuperscript"):
            self._emit(script(self.plain_of(args[-1:]).strip(), superscript=name == "textsuperscript"), styles, link)
        elif name == "enquote":
            self._around("\u201c", args, "\u201d", styles, link)
        elif name in ("SI", "si", "num"):
            # siunitx: \\SI{105}{\\micro\\metre} -> 105 µm
            quantity = [arg for arg in args if arg is not None and getattr(arg, "delimiters", ("",))[0] == "{"]
            self._emit(" ".join(self.plain_of([arg]).strip() for arg in quantity[-2:]), styles, link)
        elif name == "keywords":
            self._emit(" Keywords: ", styles, link)
            self._walk(args[-1:], styles, link)
        elif name in MATH_SYMBOLS:
            self._emit(MATH_SYMBOLS[name], styles | {"math"}, link)
        elif name in AUTHOR_DELIMITERS:
            opening, closing = AUTHOR_DELIMITERS[name]
            self._around(opening, args, closing, styles | {"math"}, link)
        elif L2T_DB.get_macro_spec(name) is None:
            self._unknown_macro(node, args, styles, link)
        else:
            text = known_macro_text(node)
            operator = OPERATOR_WORD.fullmatch(text) is not None
            if operator and self._after_alnum():
                text = " " + text  # `O(d\log n)` outside math reads `O(d log n)` too
            self._emit(text, styles, link)
            self._post_space(node, args, styles, link)
            self.after_word = operator  # `arg min{N_t, M_t}` reads `arg min N_t, M_t`

    def _unknown_macro(self, node, args: list, styles: frozenset[str], link: int | None) -> None:
        """A macro pylatexenc does not know: an author's shorthand we do (`\\R`), an escaped
        character (`\\–`), or an author's own macro, kept visible with its arguments' text."""
        name = node.macroname
        shown = author_macro(name, in_math=len(name) <= 3)  # (`\\X`, `\\hx`: an author's letter)
        if shown is not None:
            # (in math whose dollars were lost upstream: `\\X is the state space`)
            self._emit(shown, styles, link)
            self._post_space(node, args, styles, link)
        elif not name.isalpha():
            self._emit(name, styles, link)
        else:
            self._emit("\\" + name, styles, link)
            self._post_space(node, args, styles, link)
            for arg in args:
                self._emit(" ", styles, link)
                self._walk([arg], styles, link)
            self.after_word = True  # `\emc{margin}` reads `\emc margin`

    def _around(self, opening: str, args: list, closing: str, styles: frozenset[str], link: int | None) -> None:
        """The last argument's text between two delimiters: `\\footnote{x}` -> ` (x)`."""
        self._emit(opening, styles, link)
        self._walk(args[-1:], styles, link)
        self._emit(closing, styles, link)

    def _post_space(self, node, args: list, styles: frozenset[str], link: int | None) -> None:
        """The space TeX eats after a control word is a space the author meant: `\\ie the`,
        `\\toolname improves` (their macros end in \\xspace, or a `{}` was lost)."""
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
            for style in sorted(styles):  # one order in every process (sets follow the hash seed)
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
                target = None if link is None else self.links[link]
                if link is None or target is None:
                    continue
                if link not in renumber:
                    renumber[link] = len(links)
                    links.append(target)
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


def _roman(match: re.Match[str]) -> str:
    """`\\romannumeral2` -> `ii`."""
    number, out = int(match.group(1)), []
    for value, letters in (
        (1000, "m"),
        (900, "cm"),
        (500, "d"),
        (400, "cd"),
        (100, "c"),
        (90, "xc"),
        (50, "l"),
        (40, "xl"),
        (10, "x"),
        (9, "ix"),
        (5, "v"),
        (4, "iv"),
        (1, "i"),
    ):
        count, number = divmod(number, value)
        out.append(letters * count)
    return "".join(out)


_BRACED_WORD = re.compile(r"(?!(?:th|st|nd|rd)\b)[A-Za-z]{2,}(?![^\W\d_])")
"""A word in braces after math: `\\({T} \\){and}` reads `T and` (but `$n${th}` is `nth`)."""
_OPERATOR_END = re.compile(r"(?<![A-Za-z])(?:poly)?(?:log|ln|exp|min|max|sup|inf|det)$")
_UNBROKEN = frozenset({"math", "code", "link"})
_CLAUSE_END = re.compile(r"[,;:!?\n]|\.(?=\s|$)")
"""Where a clause ends, for a declaration whose group was lost: `\\em hidden hubs model: the`."""


def _spaced_argument(args: list) -> bool:
    """Whether a macro's last argument is a macro the space after which the parser took (`\\sqrt\\log n`)."""
    last_arg = args[-1] if args else None
    return bool(last_arg is not None and last_arg.isNodeType(latexwalker.LatexMacroNode) and last_arg.macro_post_space)


def _group_right_after(nodes, at: int) -> bool:
    """Whether a group follows the node at `at` with nothing between them (`\\em{i.e.}`)."""
    if at + 1 >= len(nodes):
        return False
    node, after = nodes[at], nodes[at + 1]
    return (
        after is not None
        and after.isNodeType(latexwalker.LatexGroupNode)
        and after.pos == node.pos + node.len
        and not node.macro_post_space
    )


def _is_styled_text(nodes) -> bool:
    """True for math that only wraps text in style macros, like $\\textit{capability}$."""
    found = False
    for node in nodes or ():
        if node is None or (node.isNodeType(latexwalker.LatexCharsNode) and not node.chars.strip()):
            continue
        if not node.isNodeType(latexwalker.LatexMacroNode) or node.macroname not in TEXT_STYLE_MACROS:
            return False
        found = True
    return found
