import re

import pytest

from search.corpus.loader import load_corpus
from search.text.markup import convert


def styled(source):
    rendered = convert(source)
    return rendered.text, {(rendered.text[s.start : s.end], s.style) for s in rendered.spans}


@pytest.mark.parametrize(
    "source, text, spans",
    [
        (
            r"two problems \textbf{(P1)} and \textit{it} \emph{em}",
            "two problems (P1) and it em",
            {("(P1)", "bold"), ("it", "italic"), ("em", "italic")},
        ),
        (
            r"\underline{under} \texttt{Llama3-8B} \textsc{Caps}",
            "under Llama3-8B Caps",
            {("under", "underline"), ("Llama3-8B", "code")},
        ),
        (
            r"a {\em group emphasis} b {\bf bold group} c",
            "a group emphasis b bold group c",
            {("group emphasis", "italic"), ("bold group", "bold")},
        ),
        (
            r"shift from $\textit{capability}$ to $\textit{availability}$",
            "shift from capability to availability",
            {("capability", "italic"), ("availability", "italic")},
        ),
        (
            "**bold** and *italic* and _also_ and `co_de`",
            "bold and italic and also and co_de",
            {("bold", "bold"), ("italic", "italic"), ("also", "italic"), ("co_de", "code")},
        ),
    ],
)
def test_styles(source, text, spans):
    assert styled(source) == (text, spans)


@pytest.mark.parametrize(
    "math, expected",
    [
        (r"$X_1$", "X₁"),
        (r"$\tilde{X}_2$", "X̃₂"),
        (r"$n^2$", "n²"),
        (r"$\lambda_{\min}$", "λₘᵢₙ"),
        (r"$d_{eff}$", "d_(eff)"),
        (r"$x^{10}$", "x¹⁰"),
        (r"$\alpha_i^2$", "αᵢ²"),
        (r"$\frac{a+b}{c}$", "(a+b)/c"),
        (r"$\frac{1}{2}$", "1/2"),
        (r"$\sqrt{n+1}$", "√(n+1)"),
        (r"$\mathcal{O}(n \log n)$", "𝒪(n log n)"),
        (r"$\mathbb{R}^d$", "ℝᵈ"),
        (r"$\widetilde{O}(\sqrt{T})$", "\u00d5(√T)"),
        (r"$\hat{y}$ and $\bar{x}$", "\u0177 and x\u0304"),
        (r"$a \leq b \cdot c$", "a ≤ b · c"),
        (r"$\epsilon$-greedy", "ϵ-greedy"),
        (r"\(x^2\)", "x²"),
    ],
)
def test_math_is_readable_unicode(math, expected):
    rendered = convert(math)
    assert rendered.text == expected
    assert "\\" not in rendered.text


def test_math_is_styled_as_math():
    assert ("X₁", "math") in styled("if $X_1$ holds")[1]


@pytest.mark.parametrize(
    "source, text",
    [
        (
            "using only 10% of the original dataset, we match 90% accuracy",
            "using only 10% of the original dataset, we match 90% accuracy",
        ),
        ("the MT&MS benchmark & more", "the MT&MS benchmark & more"),
        ("issue #42 at ~30 fps", "issue #42 at ~30 fps"),
        (r"escaped \% \& \_ \$ \# signs", "escaped % & _ $ # signs"),
        ("it costs $5 million and $2 per query", "it costs $5 million and $2 per query"),
        ("a lone $ sign and more words", "a lone $ sign and more words"),
        ("an unbalanced { brace and more", "an unbalanced brace and more"),
        ("a stray } brace {grouped} here", "a stray brace grouped here"),
        ("unclosed $x + y and the rest of the text", "unclosed $x + y and the rest of the text"),
        (r"we propose \manifoldmixup{}, a method", r"we propose \manifoldmixup, a method"),
        ("sub-O(n^2) time with snake_case names", "sub-O(n^2) time with snake_case names"),
        (
            "a ``strong reference'' and `\\emph{Rank-Breaking}' then `code`",
            "a “strong reference” and ‘Rank-Breaking’ then code",
        ),
    ],
)
def test_prose_characters_keep_their_plain_meaning(source, text):
    assert convert(source).text == text


def test_links_markdown_href_and_bare_urls_without_trailing_punctuation():
    rendered = convert(
        r"See [our code](https://github.com/a/b), \href{https://x.org/p_q}{the site} and https://example.com/x_y. "
        r"Also (https://foo.org/bar), \url{https://u.org/v\_w}."
    )
    assert (
        rendered.text
        == "See our code, the site and https://example.com/x_y. Also (https://foo.org/bar), https://u.org/v_w."
    )
    assert [(link.label, link.url, link.kind) for link in rendered.links] == [
        ("our code", "https://github.com/a/b", "code"),
        ("the site", "https://x.org/p_q", "project"),
        ("https://example.com/x_y", "https://example.com/x_y", "project"),
        ("https://foo.org/bar", "https://foo.org/bar", "project"),
        ("https://u.org/v_w", "https://u.org/v_w", "project"),
    ]
    linked = [(rendered.text[s.start : s.end], s.link) for s in rendered.spans if s.style == "link"]
    assert linked == [
        ("our code", 0),
        ("the site", 1),
        ("https://example.com/x_y", 2),
        ("https://foo.org/bar", 3),
        ("https://u.org/v_w", 4),
    ]


@pytest.mark.parametrize(
    "hostile",
    [
        "red \x1b[31mtext\x1b[0m end",
        "clip \x1b]52;c;ZXZpbA==\x07 end",
        "title \x1b]0;pwned\x1b\\ end",
        "c1 \x9b31m csi \x9d0;x\x9c end",
        "bidi \u202eevil\u202c and \u2066iso\u2069 end",
        "nul\x00 bell\x07 del\x7f end",
    ],
)
def test_escape_sequences_and_controls_never_reach_the_output(hostile):
    for source in (hostile, r"\textbf{" + hostile + "} $x$ https://e.com/\x1b[2Jpath"):
        rendered = convert(source)
        assert not re.search(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]", rendered.text)
        for link in rendered.links:
            assert not re.search(r"[\x00-\x1f\x7f-\x9f]", link.url)
        assert "end" in rendered.text


def test_deep_nesting_and_many_unbalanced_markers_do_not_raise():
    deep = r"\textbf{" * 300 + "core" + "}" * 300
    assert "core" in convert(deep).text
    braces = "{" * 10_000 + " words"
    assert "words" in convert(braces).text
    dollars = "$ " * 10_000 + "tail"
    assert convert(dollars).text.endswith("tail")


def test_newlines_fold_into_spaces_and_blank_lines_into_paragraphs():
    assert convert("one\ntwo   three\n\nnext *para*").text == "one two three\n\nnext para"


def _words(text):
    return set(re.findall(r"[A-Za-z]{3,}", text))


def test_every_seed_abstract_converts_without_losing_prose():
    for paper in load_corpus().papers:
        rendered = convert(paper.abstract)
        assert "\\textbf" not in rendered.text and "$" not in rendered.text
        prose = re.sub(r"\(https?://[^)]*\)|https?://\S+", " ", paper.abstract)
        source_words = _words(re.sub(r"\\[A-Za-z]+", " ", prose))
        missing = {word for word in source_words if word not in rendered.text}
        assert not missing, (paper.id, missing)
