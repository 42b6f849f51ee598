"""The local server every source test talks to, and nothing else: see server.py."""

from __future__ import annotations

import pytest

from tests.sources.server import LocalServer, fast, loopback_only, point_sources_at


@pytest.fixture
def server(monkeypatch):
    loopback_only(monkeypatch)
    fast(monkeypatch)
    local = LocalServer().start()
    point_sources_at(monkeypatch, local)
    yield local
    local.stop()


@pytest.fixture
def library():
    from search import Library

    return Library()
