"""What `get` is asked for: the sources told apart, the default list names, the catalogue."""

from __future__ import annotations

import pytest

from search import SourceError, available_lists, in_catalogue, parse_request
from search.sources import catalogue


@pytest.mark.parametrize(
    ("spec", "options", "kind", "target", "name"),
    [
        ("iclr2025", {}, "paperlists", "iclr2025", "iclr2025"),
        ("NeurIPS2024", {}, "paperlists", "nips2024", "nips2024"),
        ("3dv2025", {}, "paperlists", "3dv2025", "3dv2025"),
        ("openreview:ICLR.cc/2025/Conference", {}, "openreview", "ICLR.cc/2025/Conference", "iclr2025-openreview"),
        (
            "openreview:ICLR.cc/2025/Conference",
            {"all_submissions": True},
            "openreview",
            "ICLR.cc/2025/Conference",
            "iclr2025-openreview-all",
        ),
        (
            "openreview:NeurIPS.cc/2024/Datasets_and_Benchmarks_Track",
            {},
            "openreview",
            "NeurIPS.cc/2024/Datasets_and_Benchmarks_Track",
            "neurips2024-datasets_and_benchmarks_track-openreview",
        ),
        ("openreview:TMLR", {}, "openreview", "TMLR", "tmlr-openreview"),
        # A venue named under its organisation's domain is named by its own name (issue 38)
        (
            "openreview:colmweb.org/COLM/2024/Conference",
            {},
            "openreview",
            "colmweb.org/COLM/2024/Conference",
            "colm2024-openreview",
        ),
        (
            "openreview:robot-learning.org/CoRL/2023/Conference",
            {},
            "openreview",
            "robot-learning.org/CoRL/2023/Conference",
            "corl2023-openreview",
        ),
        (
            "openreview:aclweb.org/ACL/2024/Workshop/NLP4Science",
            {},
            "openreview",
            "aclweb.org/ACL/2024/Workshop/NLP4Science",
            "acl2024-workshop-nlp4science-openreview",
        ),
        (
            "arxiv:cat:cs.LG AND ti:diffusion",
            {},
            "arxiv",
            "cat:cs.LG AND ti:diffusion",
            "arxiv-cat-cs.lg-and-ti-diffusion",
        ),
        ("arxiv:au:hinton", {"name": "Hinton"}, "arxiv", "au:hinton", "Hinton"),
    ],
)
def test_sources_and_default_names(spec, options, kind, target, name):
    request = parse_request(spec, **options)
    assert (request.kind, request.target, request.name) == (kind, target, name)


def test_long_queries_make_names_that_fit():
    request = parse_request("arxiv:" + " OR ".join(f"ti:word{n}" for n in range(40)))
    assert len(request.name) <= 64 and request.name.startswith("arxiv-ti-word0-or-") and request.name[-1] != "-"


@pytest.mark.parametrize(
    ("spec", "options", "message"),
    [
        ("iclr", {}, "'iclr' is not a paperlists name like iclr2025 (`get --available` lists them), nor openreview:"),
        (
            "openreview:",
            {},
            "'openreview:': say what to get after openreview:, e.g. openreview:ICLR.cc/2025/Conference",
        ),
        ("iclr2025", {"all_submissions": True}, "--all is for OpenReview venues (openreview:VENUE_ID), not 'iclr2025'"),
        ("openreview:X", {"max_results": 5}, "--max is for arXiv queries (arxiv:QUERY), not 'openreview:X'"),
        ("arxiv:x", {"max_results": 0}, "--max must be at least 1, not 0"),
    ],
)
def test_what_cannot_be_asked(spec, options, message):
    with pytest.raises(SourceError) as error:
        parse_request(spec, **options)
    assert str(error.value).startswith(message)


def test_the_catalogue_follows_the_notes():
    conferences = {conference.name: conference for conference in available_lists()}
    assert len(conferences) == 31
    assert conferences["iclr"].ranges == "2013 2014 2017-2026"
    assert conferences["aistats"].years[:3] == (1995, 1997, 1999) and 2010 in conferences["aistats"].years
    assert conferences["iccv"].ranges == "2013 2015 2017 2019 2021 2023 2025"
    assert conferences["nips"].label == "NeurIPS" and conferences["nips"].years[0] == 1987
    assert in_catalogue("iclr2025") and in_catalogue("neurips2024") and not in_catalogue("iclr2031")
    assert catalogue.split("ai4x2025") == ("ai4x", 2025)
