"""Every query has a budget, a search stops when cancelled, builds die with the app, and the odd
corpora and ids that used to break searching.

Issue 14, items 13 (budgets, cancellation), 14 (child builds die with their parent), 15 (an
unknown word over a vocabulary with no word of 3+ letters) and 16 (`r` on ids with spaces,
parentheses, quotes). No test here asserts a speed: budgets are asserted by what they bound (edit
distance, expansions, words), cancellation by the search ending at all (a generous hang guard).
"""

from __future__ import annotations

import contextlib
import os
import re
import signal
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import pytest

from search import quoted, split_facets
from search.corpus.loader import Corpus, load_corpus
from search.engine import SearchEngine
from search.index import child, children
from search.models import SearchRequest
from search.query import budget as budget_module
from search.query import related as related_module
from search.query import spelling as spelling_module
from search.query.budget import MAX_EXPANSIONS, MAX_FUZZY_DISTANCE, MAX_QUERY_WORDS, Budget, SearchStopped
from search.query.runner import QueryRunner
from search.query.spelling import VocabularyCorrector
from search.user.store import UserStore
from tests.tui.conftest import settle
from tui.cli import main as cli_main

HANG_GUARD = 45.0
"""Seconds a cancelled search or a killed parent's child may take to end before the test fails:
far beyond what any of them needs, so only a search or child that never ends fails."""
ROOT = Path(__file__).resolve().parents[2]


def wait_until(condition, timeout: float = HANG_GUARD) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.05)
    return condition()


# -- budgets ----------------------------------------------------------------------------------


@pytest.fixture
def automata(monkeypatch):
    """The edit distances of every Levenshtein automaton built for spelling and fuzzy terms."""
    built: list[int] = []
    real = spelling_module.levenshtein_automaton

    def recording(text, distance, prefix=0):
        built.append(distance)
        return real(text, distance, prefix)

    monkeypatch.setattr(spelling_module, "levenshtein_automaton", recording)
    return built


@pytest.mark.parametrize("query", ["transformer~7", "graphneuralnetworks~9", "title:wasserstien~5/1"])
def test_fuzzy_distance_is_capped_with_a_hint_never_a_syntax_error(seed_engine, automata, query):
    result = seed_engine.search(query)
    typed = query.split(":")[-1] if query.startswith("title:") else query
    assert f"fuzzy distance capped at {MAX_FUZZY_DISTANCE}" in result.notice
    assert typed.split("~")[0] in result.notice
    assert "not understood" not in result.notice
    assert automata and max(automata) <= MAX_FUZZY_DISTANCE
    capped = re.sub(r"~\d", f"~{MAX_FUZZY_DISTANCE}", query)
    assert [hit.paper_id for hit in result.hits] == [hit.paper_id for hit in seed_engine.search(capped).hits]


def test_a_fuzzy_term_within_the_cap_has_no_hint(seed_engine):
    result = seed_engine.search("wasserstien~2")
    assert result.notice is None and result.total >= 1


def test_a_wide_range_is_searched_with_its_most_frequent_words_and_a_hint(seed_engine):
    result = seed_engine.search("[a TO z]")
    assert result.total > 0
    assert result.notice == "[a TO z] matches too many words; narrow the range"
    query, _ = seed_engine.runner._parser.parse("[a TO z]", budget := Budget(None))
    per_field: dict[str, int] = {}
    for field, _term in query.iter_all_terms():
        per_field[field] = per_field.get(field, 0) + 1
    assert per_field and max(per_field.values()) <= MAX_EXPANSIONS
    assert budget.hints == ["[a TO z] matches too many words; narrow the range"]


def test_short_prefixes_and_leading_wildcards_say_they_were_cut(seed_engine):
    assert "a* matches too many words" in seed_engine.search("a*").notice
    assert "*e* matches too many words" in seed_engine.search("*e*").notice
    assert seed_engine.search("bitsta*").notice is None  # a prefix with few words is searched whole


def test_past_four_multi_term_parts_the_rest_are_left_out(seed_engine):
    result = seed_engine.search("a* b* c* d* e* zebra~1")
    assert "a*, b*, c*, d* match too many words" in result.notice
    assert "the rest were left out" in result.notice
    assert result.total > 0


def test_a_long_query_searches_its_first_words(seed_engine):
    words = " ".join(["memory", "compression"] * 400)
    result = seed_engine.search(words)
    assert result.total > 0 and f"searched its first {MAX_QUERY_WORDS} words" in result.notice
    many_ors = " OR ".join(["memory"] * 300)
    assert f"first {MAX_QUERY_WORDS} words" in seed_engine.search(many_ors).notice


@pytest.mark.parametrize("query", ["x" * 100_000, "(" * 5000 + "graph" + ")" * 5000, ("abcdefghij" * 100 + " ") * 64])
def test_a_huge_query_is_cut_to_its_first_characters(seed_engine, automata, query):
    for partial in (False, True):
        result = seed_engine.search(SearchRequest(query, partial=partial))
        assert f"searched its first {budget_module.MAX_QUERY_CHARS:,} characters" in result.notice
    assert all(distance <= MAX_FUZZY_DISTANCE for distance in automata)


def test_many_facet_values_are_one_notice_each(seed_engine):
    query = " ".join(["list:nope"] * 100 + [f"venue:v{i}" for i in range(60)] + ["graph"])
    result = seed_engine.search(query)
    assert result.total == 0 and result.notice.count("no list named 'nope'") == 1


def test_only_a_few_unknown_words_are_spelling_corrected(seed_engine, automata):
    gibberish = " ".join(f"zq{chr(97 + i % 26)}{chr(97 + i // 26)}xv" for i in range(60))
    result = seed_engine.search(gibberish)
    assert result.total == 0
    # each corrected word builds one automaton per distance; words of 5 letters are tried at 1
    assert len(automata) <= 2 * spelling_module.MAX_CORRECTIONS


class SteppingClock:
    """time.monotonic for budget.py that moves one second on every call: the budget runs out
    after a known number of checks, on any machine."""

    def __init__(self) -> None:
        self.now = 1000.0

    def monotonic(self) -> float:
        self.now += 1.0
        return self.now


def test_past_its_time_a_search_stops_with_a_hint_and_what_it_had(seed_engine, monkeypatch):
    monkeypatch.setattr(budget_module, "time", SteppingClock())
    result = seed_engine.search("graph* neural* network* memory")
    assert result.notice and "search stopped after 2 s; try fewer wildcards" in result.notice
    assert result.total == 0
    words = seed_engine.search("graph neural network memory compression")
    assert "search stopped after 2 s; try fewer words" in words.notice


def test_a_cancelled_search_stops_at_once(seed_engine):
    cancelled = threading.Event()
    cancelled.set()
    for query in ("graph", '"graph neural"~3', "related:" + seed_engine.papers[0].id, "a* sort:name"):
        result = seed_engine.search(query, cancel=cancelled)
        assert result.total == 0 and "search cancelled" in result.notice, query
    assert seed_engine.related(seed_engine.papers[0].id, cancel=cancelled) == []


def test_the_whoosh_path_checks_the_budget_between_matches(seed_engine):
    runner = seed_engine.runner
    query, _ = runner._parser.parse('"graph neural"~3')
    cancelled = threading.Event()
    cancelled.set()
    with pytest.raises(SearchStopped):
        runner._execute(query, 10, True, None, Budget(None, cancelled))
    assert runner._execute(query, 10, True, None, Budget(None))[1] > 0


def test_the_cli_search_honours_the_budget(capsys):
    code = cli_main(["search", "transformer~7"])
    err = capsys.readouterr().err
    assert code == 0 and "note: transformer~7: fuzzy distance capped at 2" in err


def test_related_reads_only_the_beginning_of_a_huge_abstract(engine_over, monkeypatch):
    huge = " ".join(f"word{i} stripes zebra" for i in range(1500))  # 30,000 characters
    engine = engine_over(
        {
            "big.json": [
                {"id": "huge", "title": "Zebra stripes", "abstract": huge},
                {"id": "small", "title": "Zebra stripes too", "abstract": "Zebra stripes of horses."},
                {"id": "other", "title": "Apple trees", "abstract": "Orchards of apple trees."},
            ]
        }
    )
    lengths: list[int] = []
    real = related_module.stems
    monkeypatch.setattr(related_module, "stems", lambda text: lengths.append(len(text)) or real(text))
    hits = engine.related("huge")
    assert [hit.paper_id for hit in hits][:1] == ["small"]
    assert lengths and max(lengths) <= related_module.MAX_TEXT


# -- odd corpora ------------------------------------------------------------------------------

ODD_QUERIES = [
    "zebra",
    "zzzzz",
    "qwerty~2",
    "qwerty~9",
    "ab*",
    "*",
    "the",
    "the of and",
    "...",
    "!!!",
    "a",
    "[a TO z]",
    "sort:name",
    "graph AND",
    "é",
    "∑∫",
    "'",
    '"',
    "(",
    "(" * 2000 + "graph" + ")" * 2000,
    "x" * 5000,
    "x" * 5000 + "~2",
    " ".join(["word"] * 2000),
]


@pytest.fixture
def engine_for(tmp_path):
    """An engine over a small corpus written from the given abstracts."""

    def factory(*abstracts):
        path = tmp_path / f"corpus{len(list(tmp_path.glob('corpus*')))}.txt"
        path.write_text("TEST 2024 list\n\n" + "\n\n".join(abstracts) + "\n", encoding="utf-8")
        return SearchEngine(load_corpus([path]), cache_dir=tmp_path / "cache")

    return factory


def odd_engines(engine_for):
    return {
        "no word of 3+ letters": engine_for("ab cd 12.", "xy zz."),
        "only digits": engine_for("12 34 56"),
        "one paper": engine_for("Graph neural networks for zebra stripes."),
        "no papers": SearchEngine(Corpus("empty", (), ())),
    }


def test_odd_corpora_answer_every_query_without_raising(engine_for):
    for name, engine in odd_engines(engine_for).items():
        engine.ensure_index()
        queries = [*ODD_QUERIES, *(f"related:{quoted(paper.id)}" for paper in engine.papers[:1])]
        for query in queries:
            for partial in (False, True):
                result = engine.search(SearchRequest(query, partial=partial))
                assert result.total >= 0, (name, query)
                assert "search stopped" not in (result.notice or ""), (name, query)
        if engine.papers:
            assert engine.related(engine.papers[0].id) == []  # nothing to be like


def test_an_unknown_word_over_a_vocabulary_without_3_letter_words(engine_for):
    engine = engine_for("ab cd 12.", "xy zz.")
    result = engine.search("zebra")
    assert result.total == 0 and result.corrected is None


def test_stop_words_alone_say_so(seed_engine):
    assert seed_engine.search("the of").notice == "the, of: too common or too short to search"
    assert seed_engine.search(SearchRequest("the o", partial=True)).notice is None  # still typing


def test_the_vocabulary_corrector_sees_every_word_and_never_overruns():
    assert VocabularyCorrector([]).suggest("zebra", maxdist=2) == []
    assert VocabularyCorrector(["ab"]).suggest("zebra", maxdist=2) == []
    assert "aaa" in VocabularyCorrector(["aaa", "abc", "zzz"]).suggest("aab", maxdist=1)  # Whoosh's skipped it
    many = VocabularyCorrector([f"w{i:04d}" for i in range(50)])
    near = many.suggest("w0007", limit=3, maxdist=9)  # distance 9 is searched at 2: one edit comes first
    assert len(near) == 3 and all(sum(a != b for a, b in zip(word, "w0007")) == 1 for word in near)


# -- quoting ids ------------------------------------------------------------------------------

ODD_IDS = [
    "id with spaces",
    "paper(v2)",
    "o'brien's",
    'say "hi"',
    "back\\slash",
    "openreview:abc:1",
]
FOLDED_ID = "two  spaces\tand a tab"
"""Whitespace in ids is folded when a corpus loads; quoting still keeps it."""


@pytest.mark.parametrize("paper_id", [*ODD_IDS, FOLDED_ID])
def test_quoted_ids_read_back_exactly(paper_id):
    text = " ".join(f"graph related:{quoted(paper_id)} has:code ".split())  # as the app normalises
    words, facets = split_facets(text)
    assert facets.related == paper_id and words.split() == ["graph"]


@pytest.fixture
def odd_ids(engine_over):
    """Papers with odd ids, each with a partner sharing two words only the two of them have."""
    animals = ["quokka", "narwhal", "axolotl", "pangolin", "okapi", "capybara", "tapir"]
    records = []
    for number, (paper_id, animal) in enumerate(zip(ODD_IDS, animals)):
        shared = f"{animal}zone {animal}field"
        records.append({"id": paper_id, "title": f"{animal.title()} studies", "abstract": f"The {shared} study."})
        records.append({"id": f"partner{number}", "title": "Field notes", "abstract": f"Notes on {shared} work."})
    return engine_over({"odd.json": records}), animals


async def test_r_works_for_ids_with_spaces_parentheses_quotes_backslashes_colons(odd_ids):
    from tui.app import ReaderApp
    from tui.widgets.results_list import ResultsList
    from tui.widgets.search_box import SearchBox

    engine, animals = odd_ids
    app = ReaderApp(engine, store=UserStore())
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(pilot, app)
        for number, (paper_id, animal) in enumerate(zip(ODD_IDS, animals)):
            await pilot.press("slash", "escape")  # the search box, emptied
            await pilot.press(*f"title:{animal}", "enter")
            await settle(pilot, app)
            assert app.screen.query_one(ResultsList).current_id == paper_id
            await pilot.press("r")
            await settle(pilot, app)
            box = app.screen.query_one(SearchBox)
            assert split_facets(box.value)[1].related == paper_id, box.value
            shown = app.screen.query_one(ResultsList).paper_ids
            assert shown[:1] == [f"partner{number}"] and paper_id not in shown, (paper_id, shown)
            assert f"related to “{animal.title()} studies”" in app.sub_title


async def test_the_list_picker_quotes_a_list_name_with_spaces(engine_over):
    from tui.app import ReaderApp
    from tui.widgets.results_list import ResultsList
    from tui.widgets.search_box import SearchBox

    engine = engine_over(
        {
            "my papers (v2).json": [{"id": "m", "title": "Zebra one", "abstract": "Zebra stripes here."}],
            "other.json": [{"id": "o", "title": "Zebra two", "abstract": "Zebra stripes there."}],
        }
    )
    app = ReaderApp(engine, store=UserStore())
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(pilot, app)
        await pilot.press(*"zebra", "ctrl+l", "2")  # [1] all lists, [2] my papers (v2)
        await settle(pilot, app)
        value = app.screen.query_one(SearchBox).value
        assert split_facets(value)[1].lists == (engine.lists[0].lower(),), value
        assert app.screen.query_one(ResultsList).paper_ids == ["m"]
        await pilot.press("ctrl+l", "3")  # the other list replaces it
        await settle(pilot, app)
        assert split_facets(app.screen.query_one(SearchBox).value)[1].lists == ("other",)


# -- cancelling the app's search --------------------------------------------------------------


class Stall:
    """Makes a query with the word `zqstall` a search that only cancellation ends (for at most
    HANG_GUARD seconds): the stand-in for an expensive query, on any machine."""

    WORD = "zqstall"

    def __init__(self, monkeypatch) -> None:
        self.entered = threading.Event()
        self.left = threading.Event()
        self.gave_up = False
        real = QueryRunner._execute

        def execute(runner, query, limit, hit_terms, allowed, budget, typed=None):
            if not any(_text(term) == self.WORD for _, term in query.iter_all_terms()):
                return real(runner, query, limit, hit_terms, allowed, budget, typed)
            self.entered.set()
            try:
                give_up = time.monotonic() + HANG_GUARD
                while time.monotonic() < give_up:
                    if budget.cancel is not None and budget.cancel.is_set():
                        budget.check()  # raises: cancelled
                    time.sleep(0.01)
                self.gave_up = True
                return (), 0, ()
            finally:
                self.left.set()

        monkeypatch.setattr(QueryRunner, "_execute", execute)


def _text(term) -> str:
    return term.decode() if isinstance(term, bytes) else str(term)


@pytest.fixture
def zebra_engine(engine_over):
    return engine_over(
        {
            "animals.json": [
                {"id": "a", "title": "Zebra Graph Networks", "abstract": "Graph neural networks for zebra stripes."},
                {"id": "b", "title": "Apple Graph Networks", "abstract": "Graph neural networks for apple orchards."},
            ]
        }
    )


async def until(pilot, condition, timeout: float = HANG_GUARD) -> bool:
    deadline = time.monotonic() + timeout
    while not condition() and time.monotonic() < deadline:
        await pilot.pause(0.05)
    return condition()


async def test_typing_on_cancels_the_running_search_and_shows_the_newer_query(zebra_engine, monkeypatch):
    from tui.app import ReaderApp
    from tui.widgets.results_list import ResultsList

    stall = Stall(monkeypatch)
    app = ReaderApp(zebra_engine, store=UserStore())
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(pilot, app)
        await pilot.press(*Stall.WORD)
        assert await until(pilot, stall.entered.is_set)
        await pilot.press(*["backspace"] * len(Stall.WORD), *"zebra")
        assert await until(pilot, lambda: app.screen.query_one(ResultsList).paper_ids == ["a"])
        assert stall.left.wait(HANG_GUARD) and not stall.gave_up


async def test_quitting_does_not_wait_for_a_running_search(zebra_engine, monkeypatch):
    from tui.app import ReaderApp

    stall = Stall(monkeypatch)
    app = ReaderApp(zebra_engine, store=UserStore())
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(pilot, app)
        await pilot.press(*Stall.WORD)
        assert await until(pilot, stall.entered.is_set)
        await pilot.press("ctrl+q")
        await pilot.pause()
    assert not app.is_running
    assert stall.left.wait(HANG_GUARD) and not stall.gave_up  # the search thread ended with the app


# -- child builds die with their parent -------------------------------------------------------

needs_proc = pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads processes from /proc")


def _children_of(pid: int) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
                found.append(int(entry.name))
    return found


def _alive(pid: int) -> bool:
    """Running (a zombie waiting to be reaped by whoever adopted it has ended)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state not in ("Z", "X")


def _threads(pid: int) -> int:
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return 0
    return int(next(line.split()[1] for line in status.splitlines() if line.startswith("Threads:")))


class SlowPaper:
    """A paper whose unpickling in the child sleeps: a build that would outlive the test."""

    abstract = "x"

    def __reduce__(self):
        return (time.sleep, (300,))


PARENT = textwrap.dedent(
    """
    import sys, threading, time
    from search.index import children

    class SlowPaper:
        abstract = "x"
        def __reduce__(self):
            return (time.sleep, (300,))

    shards = [("a", (SlowPaper(),)), ("b", (SlowPaper(),))]
    children.build_shards(shards, children.Progress(2, None), threading.Event())
    """
)


def _spawn(script: str, *args: str) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-c", script, *args], cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True
    )


@needs_proc
def test_child_builds_die_when_their_parent_is_killed():
    parent = _spawn(PARENT)
    try:
        expected = min(2, children.WORKERS)
        # Both children started and past their set-up: the parent watch is their second thread.
        assert wait_until(
            lambda: len(kids := _children_of(parent.pid)) >= expected and all(_threads(k) >= 2 for k in kids)
        )
        kids = _children_of(parent.pid)
        parent.send_signal(signal.SIGKILL)
        parent.wait(HANG_GUARD)
        assert wait_until(lambda: not any(_alive(kid) for kid in kids)), kids
    finally:
        _kill_all(parent)


WATCHED_CHILD = textwrap.dedent(
    """
    import os, sys, time
    from search.index.child import die_with_parent

    # A slow start in the forked process (hooks run in order): its parent may die before it watches.
    os.register_at_fork(after_in_child=lambda: time.sleep(1.0))
    die_with_parent(int(sys.argv[1]), use_prctl=sys.argv[2] == "prctl")
    grandchild = os.fork()
    if grandchild == 0:
        time.sleep(300)
        os._exit(0)
    print(os.getpid(), grandchild, flush=True)
    time.sleep(300)
    """
)
PARENT_OF_WATCHED = textwrap.dedent(
    """
    import os, subprocess, sys, time
    child = subprocess.Popen([sys.executable, "-c", sys.argv[1], str(os.getpid()), sys.argv[2]], stdout=subprocess.PIPE, text=True)
    print(child.stdout.readline().strip(), flush=True)
    time.sleep(300)
    """
)


@needs_proc
@pytest.mark.parametrize("how", ["prctl", "polling"])
def test_a_child_and_the_processes_it_forks_die_with_the_parent(how):
    """With the kernel's parent-death signal (Linux) and with the portable parent watch alone; the
    process a child forks to build half a shard dies with it the same way."""
    parent = _spawn(PARENT_OF_WATCHED, WATCHED_CHILD, how)
    pids: list[int] = []
    try:
        assert parent.stdout is not None
        child, grandchild = pids = list(map(int, parent.stdout.readline().split()))
        assert _alive(child) and _alive(grandchild)
        parent.send_signal(signal.SIGKILL)
        parent.wait(HANG_GUARD)
        assert wait_until(lambda: not _alive(child) and not _alive(grandchild)), (child, grandchild)
    finally:
        for pid in pids:  # adopted by init when the test fails: not found under the parent
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)
        _kill_all(parent)


@needs_proc
def test_a_cancelled_build_kills_and_reaps_its_child_at_once(monkeypatch):
    stop = threading.Event()
    started: list[subprocess.Popen] = []
    real_popen = subprocess.Popen

    def recording(*args, **kwargs):
        started.append(real_popen(*args, **kwargs))
        return started[-1]

    monkeypatch.setattr(children.subprocess, "Popen", recording)
    outcome: list[bool] = []
    runner = threading.Thread(
        target=lambda: outcome.append(
            children.run_child(children.child_command(), [("a", (SlowPaper(),))], print, stop)
        )
    )
    runner.start()
    assert wait_until(lambda: bool(started) and _threads(started[0].pid) >= 2)
    stop.set()  # the child prints nothing while it sleeps: only the kill ends it
    runner.join(HANG_GUARD)
    assert not runner.is_alive() and outcome == [False]
    assert started[0].returncode is not None  # reaped
    assert not _alive(started[0].pid)


def _kill_all(parent: subprocess.Popen) -> None:
    """Clean up after a failed test: the parent and anything still running under it."""
    for pid in [parent.pid, *_children_of(parent.pid)]:
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGKILL)
    parent.wait(HANG_GUARD)
    if parent.stdout is not None:
        parent.stdout.close()


def test_child_command_names_its_parent():
    command = children.child_command(2)
    assert command[-2:] == ["--parent", str(os.getpid())] and "--procs" in command


def test_a_build_child_runs_below_the_apps_priority():
    """A build is background work: the app's first matches and keystrokes come first on a busy machine."""
    import pickle

    script = "import os, sys; from search.index import child; child.main([]); print(os.nice(0))"
    done = subprocess.run(
        [sys.executable, "-c", script], input=pickle.dumps([]), capture_output=True, timeout=60, check=True
    )
    assert int(done.stdout.decode().split()[-1]) == min(19, os.nice(0) + child.BUILD_NICENESS)
