"""The render audit: each detector on hand-written (source, shown) pairs from issue 17's table, the
script's output on a small list, and the audit over the real lists held to its regression threshold."""

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from search import Link, Rendered, Span
from tests.conftest import PAPERLISTS, skip_unless_ci
from tests.quality import render_audit

AUDIT = Path(__file__).with_name("render_audit.py")
FIGURES = {
    "abstracts",
    "lists",
    "defective",
    "defective_share",
    "kinds",
    "noted",
    "convert_p50_ms",
    "convert_p99_ms",
    "threshold_share",
}


def sample(
    source: str,
    shown: str,
    *,
    math: tuple[str, ...] = (),
    links: tuple[str, ...] = (),
    code: tuple[str, ...] = (),
    italic: tuple[str, ...] = (),
):
    """A source and what the reader shows, with math, link (the URL is the text), code and italic spans."""
    spans: list[Span] = []
    found: list[Link] = []
    for piece in italic:
        at = shown.index(piece)
        spans.append(Span(at, at + len(piece), "italic"))
    for piece in math:
        at = shown.index(piece)
        spans.append(Span(at, at + len(piece), "math"))
    for url in links:
        at = shown.index(url)
        spans.append(Span(at, at + len(url), "link", len(found)))
        found.append(Link(url, url))
    for piece in code:
        at = shown.index(piece)
        spans.append(Span(at, at + len(piece), "code"))
    spans.sort(key=lambda span: (span.start, span.end))
    return render_audit.Sample(source, Rendered(shown, tuple(spans), tuple(found)))


# (kind, source, shown, spans, defect): each defect from issue 17's table beside the right rendering
# of the same source (or a nearby one that must not count). Spans: math and code are the pieces of
# the shown text in that style, links the URLs shown as links.
BAD, GOOD = True, False
CASES = [
    ("raw_macro", r"samples of size $n$ in $\R^d$", r"samples of size n in \Rᵈ", {}, BAD),
    ("raw_macro", r"samples of size $n$ in $\mathbb{R}^d$", "samples of size n in ℝᵈ", {}, GOOD),
    ("raw_macro", r"$1/2-\eps$-approximation and ${\cal X}$", r"(1/2-\eps)-approximation and \cal X", {}, BAD),
    ("raw_macro", r"$1/2-\epsilon$-approximation", "(1/2−ϵ)-approximation", {}, GOOD),
    ("raw_macro", r"call `print(\n)` now", r"call print(\n) now", {"code": (r"print(\n)",)}, GOOD),
    # issue 37: standard macros glued to their argument once braces were stripped upstream
    ("glued_macro", r"attains O(\sqrtT) regret", r"attains O(\sqrtT) regret", {}, BAD),
    ("glued_macro", r"attains O(\sqrtT) regret", "attains O(√T) regret", {"math": ("√T",)}, GOOD),
    ("glued_macro", r"the \emphsquared response", r"the \emphsquared response", {}, BAD),
    ("glued_macro", r"of order \lnδ^-1 and", r"of order \lnδ^-1 and", {}, BAD),
    ("glued_macro", r"results: \beginitemize \item one", r"results: \beginitemize • one", {}, BAD),
    ("glued_macro", r"the \toolname method and \numact arms", r"the \toolname method and \numact arms", {}, GOOD),
    ("glued_macro", r"the notion of \emc{margin} and \slope", r"the notion of \emc margin and \slope", {}, GOOD),
    ("lost_words", r"macros or \cite commands. Classical", "macros or [c]ommands. Classical", {}, BAD),
    ("lost_words", r"macros or \cite commands. Classical", "macros or commands. Classical", {}, GOOD),
    ("lost_words", r"available at: \urlhttps://github.com/J/CoPaNet.", "available at: <>0:0.", {}, BAD),
    ("lost_words", r"than $2\\%$ language. Further, MDT is", "than 2", {}, BAD),
    ("lost_words", r"the \emphsquared response", "the response", {}, BAD),
    ("lost_words", r"the \emphsquared response", "the squared response", {}, GOOD),
    (
        "lost_words",
        r"$x$ \textcolor{red}{new} \cite{key} \begin{itemize}[leftmargin=3pc] \item a [b](https://b.org) \end{itemize}",
        "x new [key] • a b",
        {},
        GOOD,
    ),
    ("lost_words", "publicly availableootnote{at extcolor{magenta}{site}}", "publicly available (at site)", {}, GOOD),
    ("lost_words", "the signiﬁcant Fr ́echet distance", "the significant Fréchet distance", {}, GOOD),
    (
        "runaway_style",
        r"the \it training and \it prediction time of Nyström method, which is widely used for large-scale problems in kernel learning today.",
        "the training and prediction time of Nyström method, which is widely used for large-scale problems in kernel learning today.",
        {
            "italic": (
                "training and prediction time of Nyström method, which is widely used for large-scale problems in kernel learning today.",
            )
        },
        BAD,
    ),
    (
        "runaway_style",
        r"the \it training and \it prediction time of Nyström method, which is widely used for large-scale problems in kernel learning today.",
        "the training and prediction time of Nyström method, which is widely used for large-scale problems in kernel learning today.",
        {"italic": ("training and prediction time of Nyström method",)},
        GOOD,
    ),
    ("runaway_style", r"\emph{All} of it.", "All of it.", {"italic": ("All of it.",)}, GOOD),  # (too short to tell)
    ("stray_dollar", "GTA5 $ o$ Cityscapes", "GTA5 $ o$ Cityscapes", {}, BAD),
    ("stray_dollar", "where $ d $ are the", "where $ d $ are the", {}, BAD),
    ("stray_dollar", r"GTA5 $\to$ Cityscapes, where $d$ are", "GTA5 → Cityscapes, where d are", {}, GOOD),
    ("stray_dollar", "costs $5 million, US$ 3 or $2,000 USD", "costs $5 million, US$ 3 or $2,000 USD", {}, GOOD),
    ("tex_script", r"$x^{\alpha+1}$ and $y_{ij}$", "x^{α+1} and y_{ij}", {}, BAD),
    ("tex_script", r"$x^{\alpha+1}$ and $y_{ij}$", "x^(α+1) and y_(ij)", {}, GOOD),
    ("tex_script", r"$90^\circ$ views", "90^∘ views", {}, BAD),
    ("tex_script", r"$90^\circ$ views, $x^{10}$", "90° views, x¹⁰", {}, GOOD),
    ("glued_words", r"\toolname improves edit", r"\toolnameimproves edit", {}, BAD),
    ("glued_words", r"\toolname improves edit", r"\toolname improves edit", {}, GOOD),
    ("glued_words", r"runtime $O(d\log n)$ per", "runtime O(dlog n) per", {}, BAD),
    ("glued_words", r"runtime $O(d\log n)$ per", "runtime O(d log n) per", {}, GOOD),
    ("glued_words", r"intentions, \ie the problem", "intentions, i.e.the problem", {}, BAD),
    ("glued_words", r"intentions, \ie the problem", "intentions, i.e. the problem", {}, GOOD),
    ("glued_words", r"tasks, \ldots and more", "tasks, …and more", {}, BAD),
    ("glued_words", r"tasks, \ldots and more", "tasks, … and more", {}, GOOD),
    ("glued_words", r"rate $O(\sqrt{\kappa}\ln\frac{1}{\epsilon})$", "rate O(√κln1/ϵ)", {}, BAD),
    ("glued_words", r"rate $O(\sqrt{\kappa}\ln\frac{1}{\epsilon})$", "rate O(√κ ln 1/ϵ)", {}, GOOD),
    ("glued_words", "tasks, extit{e.g.}, YTF", "tasks, extite.g., YTF", {}, BAD),  # \\t eaten upstream
    (
        "glued_words",
        "at url{https://github.com/a/b}.",
        "at urlhttps://github.com/a/b.",
        {"links": ("https://github.com/a/b",)},
        BAD,
    ),
    (
        "glued_words",
        "at url{https://github.com/a/b}.",
        "at https://github.com/a/b.",
        {"links": ("https://github.com/a/b",)},
        GOOD,
    ),
    ("glued_words", r"the Schr\"odinger bridge", "the Schrödinger bridge", {}, GOOD),
    ("glued_words", "{T}ransformer, Cand{\\`e}s, Poincar{é}-ball", "Transformer, Candès, Poincaré-ball", {}, GOOD),
    ("glued_words", r"learn\-ing a $k$NN graph", "learning a kNN graph", {}, GOOD),
    ("glued_words", r"$\mathrm{poly}\!\log n$ time, $\min_x f(x)$", "polylog n time, minₓ f(x)", {}, GOOD),
    ("raw_markdown", "we propose **E$^{2}$-RAG**, the", "we propose **E²-RAG, the", {}, BAD),
    ("raw_markdown", "we propose **E$^{2}$-RAG**, the", "we propose E²-RAG, the", {}, GOOD),
    ("raw_markdown", "__Bold__ claim", "__Bold__ claim", {}, BAD),
    (
        "raw_markdown",
        "_TTMM is $100\\times$ faster than TTT_ at",
        "_TTMM is 100× faster than TTT_ at",
        {"math": ("100×",)},
        BAD,
    ),
    (
        "raw_markdown",
        "_TTMM is $100\\times$ faster than TTT_ at",
        "TTMM is 100× faster than TTT at",
        {"math": ("100×",)},
        GOOD,
    ),
    (
        "raw_markdown",
        "at _https://github.com/x/TrojFSP_.",
        "at _https://github.com/x/TrojFSP_.",
        {"links": ("https://github.com/x/TrojFSP",)},
        BAD,
    ),
    (
        "raw_markdown",
        "at _https://github.com/x/TrojFSP_.",
        "at https://github.com/x/TrojFSP.",
        {"links": ("https://github.com/x/TrojFSP",)},
        GOOD,
    ),
    (
        "raw_markdown",
        r"$\|x\|_F \le \|y\|_F$ and snake_case",
        "‖x‖_F ≤ ‖y‖_F and snake_case",
        {"math": ("‖x‖_F ≤ ‖y‖_F",)},
        GOOD,
    ),
    ("tex_quotes_dashes", "sound --- it is", "sound --- it is", {}, BAD),
    ("tex_quotes_dashes", "sound --- it is", "sound — it is", {}, GOOD),
    ("tex_quotes_dashes", "the ''deep'' aspect", "the ''deep'' aspect", {}, BAD),
    ("tex_quotes_dashes", "``deep'' aspect", "``deep” aspect", {}, BAD),
    ("tex_quotes_dashes", "``deep'' aspect", "“deep” aspect", {}, GOOD),
    ("tex_quotes_dashes", "pages 1--10", "pages 1--10", {}, BAD),
    ("tex_quotes_dashes", "pages 1--10, run --flag, x --> y", "pages 1–10, run --flag, x --> y", {}, GOOD),
    ("tex_quotes_dashes", "$f''(x)$ is", "f”(x) is", {"math": ("f”(x)",)}, BAD),
    ("tex_quotes_dashes", "$f''(x)$ is", "f''(x) is", {"math": ("f''(x)",)}, GOOD),
    ("tie", "i.i.d.~samples", "i.i.d.~samples", {}, BAD),
    ("tie", "i.i.d.~samples", "i.i.d. samples", {}, GOOD),
    ("tie", "learning~(RL) and Table~1", "learning~(RL) and Table~1", {}, BAD),
    ("tie", "about ~5% (~10 runs), 6~8 frames", "about ~5% (~10 runs), 6~8 frames", {}, GOOD),
    ("tie", "see cs.wisc.edu/~user and O~(n)", "see cs.wisc.edu/~user and O~(n)", {}, GOOD),
    ("tie", "see https://x.org/~a", "see https://x.org/~a", {"links": ("https://x.org/~a",)}, GOOD),
    ("braces", "both}accurately", "both}accurately", {}, BAD),
    ("braces", "both}accurately", "both accurately", {}, GOOD),
    ("braces", r"$\widetilde{O(m/\epsilon^2)$", "{̃O(m/ϵ²)", {}, BAD),
    ("braces", r"$\widetilde{O(m/\epsilon^2)$", "Õ(m/ϵ²)", {}, GOOD),
    ("braces", r"$\{1, \ldots, n\}$ and ResNet-{18, 34}", "{1, …, n} and ResNet-{18, 34}", {}, GOOD),
    ("ligature_invisible", "signiﬁcantly", "signiﬁcantly", {}, BAD),
    ("ligature_invisible", "signiﬁcantly", "significantly", {}, GOOD),
    ("ligature_invisible", "\u200b\u200bPost-training", "\u200b\u200bPost-training", {}, BAD),
    ("ligature_invisible", "\u200b\u200bPost-training", "Post-training", {}, GOOD),
    ("ligature_invisible", "a 5 \u2126 resistor", "a 5 \u2126 resistor", {}, BAD),
    ("ligature_invisible", "a 5 \u2126 resistor", "a 5 \u03a9 resistor", {}, GOOD),
    ("ligature_invisible", "opti\u00admal", "opti\u00admal", {}, BAD),
    ("ligature_invisible", "nai\u0308ve", "nai\u0308ve", {}, BAD),
    ("ligature_invisible", "nai\u0308ve", "na\u00efve", {}, GOOD),
    (
        "broken_link",
        "at _https://github.com/x/TrojFSP_.",
        "at https://github.com/x/TrojFSP_.",
        {"links": ("https://github.com/x/TrojFSP_",)},
        BAD,
    ),
    (
        "broken_link",
        "at _https://github.com/x/TrojFSP_.",
        "at https://github.com/x/TrojFSP.",
        {"links": ("https://github.com/x/TrojFSP",)},
        GOOD,
    ),
    (
        "broken_link",
        "at url{https://github.com/a/b}.",
        "at urlhttps://github.com/a/b.",
        {"links": ("https://github.com/a/b",)},
        BAD,
    ),
    (
        "broken_link",
        "Visit https://sites.google. com/view/upn",
        "Visit https://sites.google. com/view/upn",
        {"links": ("https://sites.google",)},
        BAD,
    ),
    (
        "broken_link",
        "Visit https://sites.google. com/view/upn",
        "Visit https://sites.google.com/view/upn",
        {"links": ("https://sites.google.com/view/upn",)},
        GOOD,
    ),
    (
        "broken_link",
        "at https://github.com/ BaoWang/DNN.",
        "at https://github.com/ BaoWang/DNN.",
        {"links": ("https://github.com/",)},
        BAD,
    ),
    (
        "broken_link",
        "a page https://x.org/a_(b)).",
        "a page https://x.org/a_(b)).",
        {"links": ("https://x.org/a_(b))",)},
        BAD,
    ),
    (
        "broken_link",
        "a (https://x.org/a_(b)). Code:http://g.com/c",
        "a (https://x.org/a_(b)). Code:http://g.com/c",
        {"links": ("https://x.org/a_(b)", "http://g.com/c")},
        GOOD,
    ),
    ("broken_link", "community.https://g.com/e", "community.https://g.com/e", {"links": ("https://g.com/e",)}, GOOD),
    ("broken_link", "code at https://x.org/y", "code at https://x.org/y", {}, BAD),
    ("environment", r"that \begin{itemize} \item fast \end{itemize}", r"that \beginitemize • fast", {}, BAD),
    ("environment", r"that \begin{itemize} \item fast \end{itemize}", "that • fast", {}, GOOD),
    ("environment", r"then \begin{equation*}x=1\end{equation*}", "then beginequation*x=1", {"math": ("x=1",)}, BAD),
    ("environment", r"then \begin{equation*}x=1\end{equation*}", "then x=1", {"math": ("x=1",)}, GOOD),
    ("environment", "We begin by studying the end", "We begin by studying the end", {}, GOOD),
    ("lost_backslash", "2 to 5$ imes$ faster", "2 to 5$ imes$ faster", {}, BAD),
    ("lost_backslash", r"2 to 5$\times$ faster", "2 to 5× faster", {}, GOOD),
    ("lost_backslash", "the $ell_infty$ metric", "the ellᵢnfty metric", {"math": ("ellᵢnfty",)}, BAD),
    ("lost_backslash", r"the $\ell_\infty$ metric", "the ℓ_∞ metric", {"math": ("ℓ_∞",)}, GOOD),
    ("lost_backslash", "do extbf{not} belong", "do extbfnot belong", {}, BAD),
    ("lost_backslash", "$N geq 7$ points", "N geq 7 points", {"math": ("N geq 7",)}, BAD),
    (
        "lost_backslash",
        "$alpha$-divergence, an ablation at times",
        "alpha-divergence, an ablation at times",
        {"math": ("alpha",)},
        GOOD,
    ),
    ("stray_accent", r"the $\tilde{\cal O}$ bound", "the \\̃c̃ãl̃ Õ bound", {}, BAD),
    ("stray_accent", "the c\u0303a\u0303l\u0303 bound", "the c\u0303a\u0303l\u0303 bound", {}, BAD),
    ("stray_accent", r"the $\tilde{\mathcal O}$ bound", "the 𝒪̃ bound", {}, GOOD),
    ("stray_accent", "the Fr ́echet distance", "the Fr ́echet distance", {}, BAD),
    ("stray_accent", r"the Fr\'echet distance", "the Fréchet distance", {}, GOOD),
    ("stray_accent", r"$\tilde{(O}(n)$", "(̃O(n)", {}, BAD),
    ("stray_accent", r"$\hat{x}$ and $\tilde{O}(n)$", "x̂ and Õ(n)", {}, GOOD),
]


def test_every_kind_has_a_defect_and_a_right_rendering():
    assert {(case[0], case[4]) for case in CASES} == {(kind, bad) for kind in render_audit.KINDS for bad in (BAD, GOOD)}


@pytest.mark.parametrize(
    "kind, source, shown, spans, defect",
    CASES,
    ids=[f"{kind}-{'bad' if bad else 'good'}-{shown[:20]}" for kind, _, shown, _, bad in CASES],
)
def test_each_detector_flags_its_defect_and_not_the_right_rendering(kind, source, shown, spans, defect):
    hit = render_audit.KINDS[kind][0](sample(source, shown, **spans))
    if defect:
        assert hit is not None, (kind, shown)
        assert 0 <= hit.at < hit.end <= len(shown)
    else:
        assert hit is None, (kind, shown, shown[hit.at : hit.end] if hit else None)


def test_code_and_link_text_are_shown_as_written():
    code = sample(r"call `print(\n)` with $5", r"call print(\n) with $5", code=(r"print(\n)",))
    assert render_audit.raw_macro(code) is None
    link = sample("see https://x.org/~a/$b", "see https://x.org/~a/$b", links=("https://x.org/~a/$b",))
    assert render_audit.tie(link) is None
    assert render_audit.stray_dollar(link) is None


def test_a_defect_is_found_in_the_source_for_its_example():
    found = sample(r"that \toolname improves edit efficacy", r"that \toolnameimproves edit efficacy")
    hit = render_audit.glued_words(found)
    assert hit is not None
    source, shown = render_audit.example(found, hit, 40)
    assert "\\toolname improves" in source and "\\toolnameimproves" in shown
    tie = sample("using either i.i.d.~samples or backward KL", "using either i.i.d.~samples or backward KL")
    hit = render_audit.tie(tie)
    assert hit is not None
    source, shown = render_audit.example(tie, hit, 30)
    assert len(source) <= 30 and len(shown) <= 30
    assert "i.i.d.~samples" in source and "i.i.d.~samples" in shown


@pytest.mark.parametrize(
    ("source", "shown", "kind"),
    [
        (r"in $\R^d$", r"in \Rᵈ", "raw_macro"),  # conventional shorthand: the converter can know it
        (r"$\binom{N}{2}$ pairs", r"\binom N 2 pairs", "raw_macro"),  # standard LaTeX
        (r"$x-\alphaabla f$", r"x-\alphaabla f", "raw_macro"),  # \alpha\nabla with an escape eaten
        (r"O(\sqrtT) and \mathcalO(n)", r"O(\sqrtT) and \mathcalO(n)", "glued_macro"),  # braces stripped upstream
        (r"the \numact arms", r"the \numact arms", "author_macro"),  # `\nu` and `mact`? nobody can tell
        (r"the \dotp{u}{v} product", r"the \dotp u v product", "author_macro"),  # an author's, with arguments
        (r"that \toolname improves", r"that \toolname improves", "author_macro"),  # nobody can know it
        (r"the \datasetName benchmark", r"the \datasetName benchmark", "author_macro"),
    ],
)
def test_an_authors_own_macro_is_noted_apart_from_the_defects(source, shown, kind):
    found = sample(source, shown)
    assert getattr(render_audit, kind)(found) is not None
    for other in {"raw_macro", "glued_macro", "author_macro"} - {kind}:
        assert getattr(render_audit, other)(found) is None, other
    assert (kind in render_audit.defects(found)) == (kind != "author_macro")


def test_the_prose_words_are_the_sources_words_outside_math_and_markup():
    source = r"We show $x_{abc}$ and \emphsquared, see \cite{key}, \begin{itemize}[left=1em] \item the case."
    assert [word for word, _ in render_audit.prose_words(source)] == ["show", "and", "squared", "see", "the", "case"]


def test_the_script_prints_examples_a_table_and_the_json_line(tmp_path, monkeypatch, capsys):
    records = [
        {
            "id": "a",
            "title": "A",
            "abstract": r"Our method \toolname improves accuracy by 5\% at a cost of $5 million.",
        },
        {"id": "b", "title": "B", "abstract": "A plain abstract with nothing to convert at all, just words."},
        {"id": "c", "title": "C", "abstract": r"The bound is $O(d\log n)$ \emph{per} query, i.e.~fast."},
    ]
    lists = tmp_path / "paperlists"
    lists.mkdir()
    (lists / "tiny2025.json").write_text(json.dumps(records), encoding="utf-8")
    monkeypatch.setattr(render_audit, "PAPERLISTS", lists)
    monkeypatch.setattr(render_audit, "bundled_paths", list)
    assert render_audit.main(["--examples", "2", "--kind", "raw_macro"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "iclr-reader render audit: 3 abstracts from 1 lists"
    assert any(re.fullmatch(r"raw_macro: \d+ abstracts \(.+\)", line) for line in lines)
    assert not any(line.startswith("tie: ") for line in lines)  # --kind: the examples of one kind
    _check_table(lines)
    figures = json.loads(lines[-1])
    assert figures["abstracts"] == 3 and figures["lists"] == 1
    assert render_audit.main(["--json-only"]) == 0
    only = capsys.readouterr().out.splitlines()
    assert len(only) == 1 and json.loads(only[0]).keys() == FIGURES


def test_the_script_audits_the_list_files_and_folders_it_is_given(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(render_audit, "PAPERLISTS", tmp_path / "missing")  # (not read when lists are given)
    folder = tmp_path / "older"
    folder.mkdir()
    records = [{"id": "a", "title": "A", "abstract": r"It attains O(\sqrtT) regret, see \urlhttps://x.org/a."}]
    (folder / "colt2013.json").write_text(json.dumps(records), encoding="utf-8")
    (folder / "empty2013.json").write_text(json.dumps([{"id": "b", "title": "B"}]), encoding="utf-8")
    other = tmp_path / "uai2019.json"
    other.write_text(json.dumps([{"id": "c", "title": "C", "abstract": "Plain words only."}]), encoding="utf-8")
    assert render_audit.main(["--json-only", str(folder), str(other)]) == 0
    out, err = capsys.readouterr()
    figures = json.loads(out)
    assert figures["abstracts"] == 2 and figures["lists"] == 2  # the list without abstracts is said and skipped
    assert "empty2013" in err
    assert render_audit.main([str(tmp_path / "nothing.json")]) == 2
    assert "nothing.json" in capsys.readouterr().err


def test_missing_corpora_exit_2_with_one_line(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(render_audit, "PAPERLISTS", tmp_path / "missing")
    assert render_audit.main([]) == 2
    out, err = capsys.readouterr()
    assert out == "" and len(err.strip().splitlines()) == 1 and "missing" in err


@pytest.mark.slow
def test_the_real_abstracts_stay_under_the_regression_threshold():
    if not sorted(PAPERLISTS.glob("*.json")):
        skip_unless_ci(f"needs the shared corpora at {PAPERLISTS} (not part of a fresh clone)")
    result = subprocess.run([sys.executable, str(AUDIT)], capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr[-2000:]
    lines = result.stdout.strip().splitlines()
    n_lists = len(sorted(PAPERLISTS.glob("*.json"))) + 1  # and the bundled ICLR 2025 list
    header = re.fullmatch(r"iclr-reader render audit: ([\d,]+) abstracts from (\d+) lists", lines[0])
    assert header and int(header.group(2)) == n_lists, lines[0]
    _check_table(lines)
    figures = json.loads(lines[-1])
    assert figures.keys() == FIGURES
    assert figures["lists"] == n_lists and figures["abstracts"] == int(header.group(1).replace(",", ""))
    assert figures["kinds"].keys() == render_audit.KINDS.keys()
    assert figures["noted"].keys() == render_audit.NOTED.keys()
    assert max(figures["kinds"].values()) <= figures["defective"] <= sum(figures["kinds"].values())
    assert figures["defective"] <= figures["abstracts"]
    assert 0 < figures["convert_p50_ms"] <= figures["convert_p99_ms"]
    assert figures["threshold_share"] == render_audit.THRESHOLD_SHARE
    # The CI regression threshold (issue 17): no more abstracts with a visible defect than this.
    assert figures["defective_share"] <= render_audit.THRESHOLD_SHARE, {
        kind: count for kind, count in figures["kinds"].items() if count
    }


def _check_table(lines: list[str]) -> None:
    heading = next(i for i, line in enumerate(lines) if line.split()[:3] == ["kind", "abstracts", "share"])
    rows = lines[heading + 1 : heading + 1 + len(render_audit.KINDS)]
    for kind, row in zip(render_audit.KINDS, rows):
        cells = row.split()
        assert cells[0] == kind and cells[1].replace(",", "").isdigit() and cells[2].endswith("%"), row
    after = heading + 1 + len(render_audit.KINDS)
    assert lines[after].startswith("any defect")
    assert lines[after + 1].startswith("not counted")
    for kind, row in zip(render_audit.NOTED, lines[after + 2 : after + 2 + len(render_audit.NOTED)]):
        assert row.split()[0] == kind, row
    assert all(len(line) <= render_audit.WIDTH for line in lines[heading:-1])
    assert re.fullmatch(r"convert time per abstract \(uncached\): p50 [\d.]+ ms, p99 [\d.]+ ms", lines[-2])
