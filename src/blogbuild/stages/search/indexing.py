"""The search index made on a thread of its own beside the run (blogbuild.stages.search)."""

from __future__ import annotations

import contextvars
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING

from blogbuild import cancel
from blogbuild.diagnostics import Diagnostic
from blogbuild.output.entries import FileEntry
from blogbuild.output.writer import Stage

if TYPE_CHECKING:
    from blogbuild.stages.search.staging import Staged


class Indexing:
    """The search step of one run, in a thread of its own: the live server's, a first
    build's, and an update's whose index process could not make it (`process`).
    Pagefind reads in processes of its own and the chunks compress outside the GIL, so on two
    cores some of the index is made beside the main thread's work. An update starts it
    once the site is assembled and hands it the stage for its files when the writing
    begins (`write_into`). It runs under a token of its own, stopped when the run's is
    cancelled or when the run fails (`abandon`)."""

    def __init__(self, work: Callable[[Callable[[], Staged], Callable[[], None]],
                                      tuple[dict[str, FileEntry], list[Diagnostic]]]) -> None:
        parent, self._token = cancel.current(), cancel.Token()
        self._outcome: tuple[dict[str, FileEntry], list[Diagnostic]] | None = None
        self._error: BaseException | None = None
        self._stage: Stage | None = None
        self._given = threading.Event()  # the stage was handed over, or the run failed
        self._reading = threading.Event()  # Pagefind reads, or the work is done

        def stage() -> Stage:
            self._given.wait()
            cancel.check()
            assert self._stage is not None
            return self._stage

        def run() -> None:
            try:
                with parent.child(self._token.stop), cancel.scope(self._token):
                    self._outcome = work(stage, self._reading.set)
            except BaseException as exc:  # handed to the run's thread
                self._error = exc
            finally:
                self._reading.set()

        # A copy of this thread's context: the run's timing and settings go with it.
        self._thread = threading.Thread(target=contextvars.copy_context().run, args=(run,),
                                        name="search-index", daemon=True)
        self._thread.start()

    def until_reading(self) -> None:
        """Wait until Pagefind reads the new pages (or the index is made). Until then the
        index's thread needs the GIL (the pages' keys, the last layout), and the index
        is what a build's update waits for last: run alone, that part is done in a few
        tens of milliseconds, and the reading goes on beside the main thread's work."""
        while not self._reading.wait(cancel.WAKE_SECONDS):
            cancel.check()

    def write_into(self, stage: Stage) -> None:
        """The stage the index's files go into."""
        self._stage = stage
        self._given.set()

    def result(self) -> tuple[dict[str, FileEntry], list[Diagnostic]]:
        """Wait for it: the index's files' entries, and a warning when there is no index."""
        assert self._given.is_set(), "write_into comes first"
        cancel.join(self._thread)
        if self._error is not None:
            raise self._error
        assert self._outcome is not None
        return self._outcome

    def abandon(self) -> None:
        """The run failed: stop, and wait until it wrote its last file into the stage."""
        self._token.stop()
        self._given.set()
        cancel.join(self._thread)
