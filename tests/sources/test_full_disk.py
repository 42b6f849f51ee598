"""A full disk while `get` writes the list (issue 34, item 6): one line naming the library's folder,
never "cannot reach HOST", and the library as it was. The disk is simulated: files opened for
writing in a download's staging folder (`lists/.get-*`) fill up after a few bytes."""

from __future__ import annotations

import errno
import os
import pathlib

import pytest

from search import SourceError, get_list, parse_request
from tests.sources.server import records, snapshot
from tests.sources.test_arxiv import QUERY, serve_results
from tests.sources.test_openreview import VENUE, note, serve_notes
from tui.cli import main


class FullFile:
    """A file on a disk that is full once `room` more bytes are written (ENOSPC, as the kernel says)."""

    def __init__(self, file, room: int) -> None:
        self._file = file
        self._room = room

    def write(self, data):
        if len(data) > self._room:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        self._room -= len(data)
        return self._file.write(data)

    def __getattr__(self, name):
        return getattr(self._file, name)

    def __enter__(self):
        return self

    def __exit__(self, *exception) -> None:
        self._file.close()


@pytest.fixture
def full_disk(monkeypatch):
    """Every file a download opens for writing in its staging folder fills the disk after 100 bytes."""
    real = pathlib.Path.open

    def opening(self, mode="r", *args, **kwargs):
        file = real(self, mode, *args, **kwargs)
        if "w" in mode and self.parent.name.startswith(".get-"):
            return FullFile(file, room=100)
        return file

    monkeypatch.setattr(pathlib.Path, "open", opening)


SOURCES = {
    "paperlists": ("iclr2024", lambda server: server.route("/paperlists/iclr/iclr2024.json", _paperlist)),
    "openreview": (f"openreview:{VENUE}", lambda server: serve_notes(server, [note(n) for n in range(5)])),
    "arxiv": (f"arxiv:{QUERY}", lambda server: serve_results(server, 5)),
}


def _paperlist(h) -> None:
    h.json(records(30))


@pytest.mark.parametrize("source", list(SOURCES))
def test_a_full_disk_names_the_librarys_folder_and_leaves_it_as_it_was(server, library, full_disk, source):
    spec, serve = SOURCES[source]
    serve(server)
    before = snapshot(library.folder)
    with pytest.raises(SourceError) as error:
        get_list(parse_request(spec))
    assert str(error.value) == (
        f"cannot write the download into {library.folder}: the disk is full (No space left on device)"
    )
    assert snapshot(library.folder) == before


def test_the_command_line_says_the_disk_is_full_in_one_line(server, library, full_disk, capsys):
    SOURCES["paperlists"][1](server)
    code = main(["get", "iclr2024"])
    out, err = capsys.readouterr()
    assert (code, out) == (2, "")
    assert err.splitlines() == [
        f"iclr-reader: error: could not get iclr2024: cannot write the download into {library.folder}: "
        "the disk is full (No space left on device)"
    ]
