"""Getting a list from the app: the picker, the download in a worker (progress in the main screen's
bar and status line), and the list searchable when it is done. The download is the same call as
`iclr-reader get`; a failure is a notice and leaves the library as it was. Quitting (ctrl+q) cancels the
worker, and the download stops within about 0.1 s whatever the server does (it is asked through
`get_list`'s `cancel`, which does not wait for data to arrive), so the app never waits on it."""

from __future__ import annotations

import time
from abc import abstractmethod

from textual import work
from textual.binding import Binding
from textual.screen import Screen
from textual.widgets import ProgressBar
from textual.worker import get_current_worker

from search import ListRequest, ReaderError, SearchEngine, get_list, load_corpus, parse_request
from tui import wording
from tui.messages import DownloadFailed, DownloadProgress, ListDownloaded

GET_BINDINGS = [Binding("ctrl+g", "get_list", "Get a list", show=False)]
REVIEWS_FLAG = " --reviews"
"""After an OpenReview venue chosen in the picker, as on the command line: its reviews are fetched too."""
PROGRESS_INTERVAL = 0.1
"""Seconds between progress messages while a list downloads."""


class DownloadStopped(Exception):
    """The app is closing (or the screen went away) while a list downloads."""


class ListGetting(Screen[None]):
    """The main screen's "Get a list…". The screen sets `engine`, has the #progress bar, and
    implements `set_status` and `engine_changed` (search the new engine once it is indexed)."""

    engine: SearchEngine
    downloading: str | None = None
    """What is being downloaded now, as typed (one download at a time)."""

    @abstractmethod
    def set_status(self, text: str) -> None:
        """Show a line under the search box ("" clears it)."""

    @abstractmethod
    def engine_changed(self, engine: SearchEngine) -> None:
        """Search this engine from now on (it holds the new list): index it and show its papers."""

    def action_get_list(self) -> None:
        if self.downloading is not None:
            self.notify(f"Already getting {self.downloading}; one list at a time.", severity="warning", markup=False)
            return
        from tui.screens.get_list import GetListScreen  # loaded when first opened, not before the first frame

        self.app.push_screen(GetListScreen(), self._chosen)

    def _chosen(self, spec: str | None) -> None:
        if not spec:
            return
        reviews = spec.endswith(REVIEWS_FLAG)
        spec = spec.removesuffix(REVIEWS_FLAG).strip() if reviews else spec
        try:
            request = parse_request(spec, reviews=reviews)
        except ReaderError as error:
            self.notify(str(error), title="Cannot get that list", severity="error", markup=False)
            return
        self.downloading = request.spec
        self.set_status(wording.download_status(request.spec, 0, None, "bytes"))
        self.download(request, self.engine.corpus.sources)

    @work(thread=True, exclusive=True, group="download", exit_on_error=False)
    def download(self, request: ListRequest, sources: tuple[str, ...]) -> None:
        """Download, then load the corpus with the new list: both off the UI thread."""
        worker = get_current_worker()
        shown_at = [0.0]

        def progress(done: int, total: int | None, unit: str) -> None:
            if worker.is_cancelled:
                raise DownloadStopped
            now = time.monotonic()  # called for every piece that arrives: the bar moves 10 times a second
            if now - shown_at[0] >= PROGRESS_INTERVAL or done == total:
                shown_at[0] = now
                self.post_message(DownloadProgress(request.spec, done, total, unit))

        def cancelled() -> bool:
            """Asked every 0.1 s while the download runs, whether or not anything arrives: the worker
            is cancelled when the app quits (ctrl+q) or the screen goes, and the download stops."""
            return worker.is_cancelled

        try:
            got = get_list(request, on_progress=progress, cancel=cancelled)
            if worker.is_cancelled:
                return
            paths = list(dict.fromkeys([*sources, str(got.path)]))
            engine = SearchEngine(load_corpus(paths, skip_broken=True, keep=True))  # the next start's set
        except DownloadStopped:
            return
        except ReaderError as error:
            if not worker.is_cancelled:  # stopped on purpose: nothing to tell
                self.post_message(DownloadFailed(request.spec, str(error)))
            return
        except Exception as error:  # noqa: BLE001 - a notice, never a crash, whatever the server sent
            if not worker.is_cancelled:
                text = " ".join(str(error).split())[:200]
                self.post_message(DownloadFailed(request.spec, f"{type(error).__name__}: {text}"))
            return
        self.post_message(ListDownloaded(got.name, got.papers, engine))

    def on_download_progress(self, message: DownloadProgress) -> None:
        bar = self.query_one("#progress", ProgressBar)
        bar.add_class("active")
        bar.update(total=message.total, progress=message.done)
        self.set_status(wording.download_status(message.spec, message.done, message.total, message.unit))

    def on_download_failed(self, message: DownloadFailed) -> None:
        self.downloading = None
        self.query_one("#progress", ProgressBar).remove_class("active")
        self.set_status("")
        self.notify(message.error, title=f"Could not get {message.spec}", severity="error", markup=False, timeout=15)

    def on_list_downloaded(self, message: ListDownloaded) -> None:
        self.downloading = None
        self.query_one("#progress", ProgressBar).remove_class("active")
        self.notify(wording.list_downloaded(message.name, message.papers), title="List added", markup=False)
        self.engine_changed(message.engine)
