"""A store writer for the SIGKILL test, run in processes forked from a multiprocessing fork server
that has imported this module (and with it the store) once."""

from __future__ import annotations

from pathlib import Path

from search.models import Bookmark
from search.user.store import UserStore


def write_and_acknowledge(path: str, prefix: str, count: int, acknowledgements) -> None:
    store = UserStore(Path(path))
    for i in range(count):
        store.add(Bookmark(paper_id=f"{prefix}{i}", headline=f"{prefix} {i}"))
        if i % 3 == 0:
            store.set_note(f"{prefix}{i}", "note")
        acknowledgements.send(f"{prefix}{i}")  # acknowledged: add() has returned
