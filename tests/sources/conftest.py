"""The local server every source test talks to, and nothing else: see server.py."""

from __future__ import annotations

import pytest


@pytest.fixture
def library():
    from search import Library

    return Library()
