"""A cold start's lists parsed on two CPUs (search/corpus/parsed.py, parsed_ahead): a forked
process parses a share of them into the cache while this one parses the rest. The loads run in
a process of their own, with one thread (a test process may have others: nothing is forked there)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import threading

from search.corpus import parsed
from search.corpus.loader import load_corpus

SCRIPT = textwrap.dedent(
    """
    import hashlib, json, os, sys
    from pathlib import Path
    from search.corpus import parsed
    from search.corpus.loader import load_corpus
    from search.errors import CorpusError

    if sys.argv[1] != "as set":
        parsed.AHEAD_MIN_BYTES = int(sys.argv[1])

    # Each process takes its first list before the other takes a second: on a busy machine one
    # process could take every small list before the other is scheduled (the waits end on the other's
    # progress; 60 s only if it never comes).
    import time
    here = os.getpid()
    cache = Path(os.environ["XDG_CACHE_HOME"])
    took_here, took_there = cache.with_name(cache.name + ".here"), cache.with_name(cache.name + ".there")
    def wait_for(marker):
        began = time.monotonic()
        while not marker.exists() and time.monotonic() - began < 60:
            time.sleep(0.002)
    real_claim, real_claims = parsed._claim, parsed.Ahead.claims
    def claim(queue):
        if os.getpid() == here:
            return real_claim(queue)
        wait_for(took_here)
        taken = real_claim(queue)
        took_there.touch()
        return taken
    def claims(self):
        for count, path in enumerate(real_claims(self)):
            took_here.touch()
            yield path
            if count == 0:
                wait_for(took_there)
    parsed._claim, parsed.Ahead.claims = claim, claims
    forks = []
    real_fork = os.fork
    def fork():
        if os.environ.get("FAIL_FORK"):
            forks.append(None)
            raise OSError(11, "Resource temporarily unavailable")
        pid = real_fork()
        forks.append(pid)
        return pid
    os.fork = fork
    paths = [Path(p) for p in sys.argv[3:]]
    later = []
    try:
        corpus = load_corpus(paths, skip_broken=sys.argv[2] == "skip", keep=True, later=later)
        for save in later:  # as the app does once its user pauses
            save()
    except CorpusError as error:
        print(json.dumps({"error": str(error), "forks": len(forks)}))
        sys.exit(0)
    digest = hashlib.sha256()
    for paper in corpus.papers:
        digest.update(repr((tuple(paper)[:1], paper.abstract, tuple(paper)[2:-1], tuple(paper.facts))).encode())
    kept = sum(1 for paper in corpus.papers if tuple.__getitem__(paper, 1).__class__ is not str)
    print(json.dumps({"digest": digest.hexdigest(), "papers": len(corpus.papers), "forks": len(forks),
                      "kept": kept, "problems": list(corpus.problems), "aliases": dict(corpus.aliases)}))
    """
)


def lists(folder, count=4, papers=30, longer=1):
    folder.mkdir(exist_ok=True)
    paths = []
    for number in range(count):
        records = [
            {
                "id": f"l{number}-{i}",
                "title": f"Paper {i} of list {number}",
                "abstract": f"List {number} paper {i} studies graphs, zebras and kernels number {i}."
                * (1 + i % 3)
                * longer,
                "authors": [f"Author {i % 7}", "Ada Lovelace"],
                "rating": "5;6;7",
                "aff": "MIT;Oxford",
            }
            for i in range(papers)
        ]
        shared = "A paper in every list, which the merge keeps once, under the first list's id, the others its aliases."
        records.append({"id": f"shared{number}", "abstract": shared})
        path = folder / f"conf{2020 + number}.json"
        path.write_text(json.dumps(records), encoding="utf-8")
        paths.append(path)
    return paths


def load_apart(tmp_path, paths, minimum: int | str, cache: str, skip: bool = False, fail_fork: bool = False) -> dict:
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path / cache), "XDG_DATA_HOME": str(tmp_path / "data")}
    env = {**env, "FAIL_FORK": "1"} if fail_fork else env
    command = [sys.executable, "-c", SCRIPT, str(minimum), "skip" if skip else "", *map(str, paths)]
    done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=120, check=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_a_share_parsed_by_another_process_makes_the_same_corpus(tmp_path):
    paths = lists(tmp_path / "lists")
    alone = load_apart(tmp_path, paths, 1 << 40, "alone")
    ahead = load_apart(tmp_path, paths, 0, "ahead")
    assert alone["forks"] == 0 and ahead["forks"] == 1
    assert ahead["digest"] == alone["digest"] and ahead["aliases"] == alone["aliases"] == {
        "shared1": "shared0",
        "shared2": "shared0",
        "shared3": "shared0",
    }
    assert 0 < ahead["kept"] < ahead["papers"] and alone["kept"] == 0  # its share read from the cache
    again = load_apart(tmp_path, paths, 0, "ahead")  # every entry written: nothing to parse ahead
    assert again["forks"] == 0 and again["digest"] == alone["digest"]


def test_a_library_of_a_quarter_of_the_real_lists_size_is_parsed_on_two_cores(tmp_path):
    """9 MB of lists: the 17 real lists (10,744 papers) are 36 MB, which a cold start parsed on one
    core while the other idled (AHEAD_MIN_BYTES was 48 MB, when the other process made every paper's
    facts to write its entries)."""
    paths = lists(tmp_path / "lists", count=4, papers=1200, longer=15)
    assert 9 << 20 < sum(path.stat().st_size for path in paths) < 10 << 20
    ahead = load_apart(tmp_path, paths, "as set", "ahead")
    alone = load_apart(tmp_path, paths, 1 << 40, "alone")
    assert ahead["forks"] == 1 and 0 < ahead["kept"] < ahead["papers"] == 4 * 1200 + 1
    assert ahead["digest"] == alone["digest"]


def test_no_process_to_be_had_means_parsing_everything_here(tmp_path):
    paths = lists(tmp_path / "lists")
    alone = load_apart(tmp_path, paths, 1 << 40, "alone")
    failed = load_apart(tmp_path, paths, 0, "failed", fail_fork=True)
    assert failed["forks"] == 1 and failed["kept"] == 0 and failed["digest"] == alone["digest"]


def test_a_broken_list_in_the_other_share_is_refused_or_left_out_as_before(tmp_path):
    paths = lists(tmp_path / "lists")
    paths[2].write_text("[{]" + " " * 1000, encoding="utf-8")  # in the other process's share or not
    refused = load_apart(tmp_path, paths, 0, "refused")
    assert refused["forks"] == 1 and "conf2022.json" in refused["error"]
    skipped = load_apart(tmp_path, paths, 0, "skipped", skip=True)
    assert skipped["forks"] == 1 and len(skipped["problems"]) == 1 and "conf2022.json" in skipped["problems"][0]
    alone = load_apart(tmp_path, paths, 1 << 40, "alone", skip=True)
    assert skipped["digest"] == alone["digest"] and skipped["papers"] == 3 * 30 + 1


def test_nothing_is_parsed_ahead_in_a_process_with_other_threads(tmp_path, monkeypatch, isolated_dirs):
    paths = lists(tmp_path / "lists", count=3, papers=5)
    monkeypatch.setattr(parsed, "AHEAD_MIN_BYTES", 0)
    monkeypatch.setattr(os, "fork", lambda: (_ for _ in ()).throw(AssertionError("forked")))
    stop = threading.Event()
    other = threading.Thread(target=stop.wait)
    other.start()
    try:
        assert len(load_corpus(paths).papers) == 3 * 5 + 1  # (the shared paper once)
    finally:
        stop.set()
        other.join()


def test_entries_older_than_their_list_or_the_engines_code_are_parsed_again(tmp_path, monkeypatch, isolated_dirs):
    paths = lists(tmp_path / "lists", count=2, papers=3)
    assert set(parsed._uncached(paths, 1 << 30)) == set(paths)  # no entries yet
    load_corpus(paths)  # each file's entry written (no later: now)
    assert parsed._uncached(paths, 1 << 30) == {}
    monkeypatch.setattr(parsed, "_code_written", lambda: 1 << 62)  # an upgrade: every entry is stale
    assert set(parsed._uncached(paths, 1 << 30)) == set(paths)


TAKING_TURNS = textwrap.dedent(
    """
    import json, os, sys, time
    from pathlib import Path
    from search.corpus import loader, parsed

    parsed.AHEAD_MIN_BYTES = 0
    parsed.MEANWHILE_LEAD_BYTES = int(sys.argv[2])
    here = os.getpid()
    released = Path(sys.argv[1])
    parsed_by = {}
    real_parse = loader._parse
    def parse(path):
        if os.getpid() != here:  # the other process: held at its first list until this one has taken the rest
            while not released.exists():
                time.sleep(0.01)
        else:
            parsed_by[path.name] = "here"
        return real_parse(path)
    loader._parse = parse
    def meanwhile():
        parsed_by["meanwhile"] = sorted(parsed_by)
        released.touch()
    paths = [Path(p) for p in sys.argv[3:]]
    corpus = loader.load_corpus(paths, keep=True, later=[], meanwhile=meanwhile)
    print(json.dumps({"papers": len(corpus.papers), "here": sorted(parsed_by["meanwhile"])}))
    """
)


def test_a_list_the_other_process_is_slow_with_holds_up_none_of_the_rest(tmp_path):
    """The two processes each take the next list as they finish one: while the other process is
    held up on one list, this one parses all the others, then does what it has to do meanwhile (the
    app's imports) before it waits; a fixed share left it waiting with lists of the other's unparsed."""
    paths = lists(tmp_path / "lists", count=6)
    result = taking_turns(tmp_path, paths, lead=0)
    assert len(result["here"]) == len(paths) - 1  # all but the one the other process holds
    assert result["papers"] == 6 * 30 + 1


def test_the_apps_imports_are_made_while_the_other_process_parses_the_last_lists(tmp_path):
    """With small lists (the 17 real ones: 2 MB, 40 ms each), `meanwhile` (the app's imports, 0.12-0.15
    s) came once no list was left, and the other process, done with its last, idled through it. It
    comes once no more than MEANWHILE_LEAD_BYTES are left to take: here, with the other process held
    on its first list, after the third list this one takes (two left)."""
    paths = lists(tmp_path / "lists", count=6)
    size = paths[0].stat().st_size
    assert all(path.stat().st_size == size for path in paths)
    result = taking_turns(tmp_path, paths, lead=2 * size)
    assert len(result["here"]) == 3  # (whichever the other process did not take first)
    assert result["papers"] == 6 * 30 + 1


def taking_turns(tmp_path, paths, lead: int) -> dict:
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path / "cache"), "XDG_DATA_HOME": str(tmp_path / "data")}
    command = [sys.executable, "-c", TAKING_TURNS, str(tmp_path / "released"), str(lead), *map(str, paths)]
    done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=120, check=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


APP_START = textwrap.dedent(
    """
    import json, os, sys, time
    from pathlib import Path
    from search.corpus import loader, parsed

    parsed.AHEAD_MIN_BYTES = 0
    os.cpu_count = lambda: 2
    here = os.getpid()
    seen = Path(sys.argv[1])
    forks = []
    real_fork = os.fork
    def fork():
        forks.append(1)
        return real_fork()
    os.fork = fork
    real_parse = loader._parse
    def parse(path):
        if os.getpid() != here and not seen.exists():  # the other process, at its first list
            heavy = ("search.engine", "search.index.lifecycle", "whoosh", "tui.cli.papers", "tui.app")
            seen.write_text(json.dumps([name for name in heavy if name in sys.modules]))
        while not seen.exists():  # this one leaves it a list, however busy the machine
            time.sleep(0.01)
        return real_parse(path)
    loader._parse = parse
    real_load = loader.load_corpus
    def load_corpus(*args, **kwargs):  # the load the app's start makes; the app itself is not run
        corpus = real_load(*args, **kwargs)
        print(json.dumps({"papers": len(corpus.papers), "forks": len(forks)}))
        raise SystemExit(0)
    loader.load_corpus = load_corpus
    if "search.engine" in sys.modules:  # (imported already, with the loader's own)
        sys.modules["search.engine"].load_corpus = load_corpus
    from tui.cli import main
    main(["--query", "zebras", *(f"--corpus={path}" for path in sys.argv[2:])])
    """
)


def test_the_apps_lists_are_parsed_on_another_core_before_the_engine_is_imported(tmp_path):
    """`iclr-reader` with a cold cache: the other process begins parsing the lists before this one
    imports the engine, Whoosh and the commands (0.3-0.5 s of one core, which the other process
    spent waiting for its fork), and the load then takes it over: one fork, every paper."""
    paths = lists(tmp_path / "lists", count=4)
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path / "cache"), "XDG_DATA_HOME": str(tmp_path / "data")}
    command = [sys.executable, "-c", APP_START, str(tmp_path / "seen.json"), *map(str, paths)]
    done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=120, check=True)
    result = json.loads(done.stdout.strip().splitlines()[-1])
    assert result == {"papers": 4 * 30 + 1, "forks": 1}
    assert json.loads((tmp_path / "seen.json").read_text()) == []
