"""Watch a site's sources with watchdog and hand out debounced batches of changed paths.

A batch ends once nothing happened for QUIET seconds, or SETTLED seconds after the last
event when every file in it was last closed after writing or renamed into place: the file
is complete then, and the reader should not wait for the debounce (inotify reports both;
where the platform does not, QUIET holds)."""

from __future__ import annotations

import logging
import os
import threading
import time
from collections.abc import Callable, Collection, Iterable
from pathlib import Path
from typing import Any

from watchdog.events import (
    EVENT_TYPE_CLOSED,
    EVENT_TYPE_CLOSED_NO_WRITE,
    EVENT_TYPE_OPENED,
    FileSystemEvent,
    FileSystemEventHandler,
)
from watchdog.observers import Observer

#: Editors save in several steps (write a temporary file, rename it, touch the folder) within
#: a few milliseconds; a batch ends when nothing happened for QUIET seconds.
QUIET = 0.05
#: …or this long when each file of the batch was written and closed or renamed into place
#: (an editor that saves through a temporary file renames it within a millisecond or two).
SETTLED = 0.01
#: …or at the latest this long after its first event (a long `git checkout`).
MAX_WAIT = 1.0


def _path(value: bytes | str) -> Path:
    return Path(os.fsdecode(value))


class _Handler(FileSystemEventHandler):
    def __init__(self, watcher: Watcher) -> None:
        self.watcher = watcher

    def on_any_event(self, event: FileSystemEvent) -> None:
        if event.event_type in (EVENT_TYPE_OPENED, EVENT_TYPE_CLOSED_NO_WRITE):
            return
        if event.is_directory and event.event_type == "modified":
            return  # a folder's mtime: the file events tell more
        paths = [_path(event.src_path)]
        complete = set()  # written and closed, or renamed into place (not the old name)
        if event.event_type == EVENT_TYPE_CLOSED:
            complete.add(paths[0])
        if event.dest_path:
            paths.append(_path(event.dest_path))
            complete.add(paths[-1])
        self.watcher.notify(paths, created_dir=event.is_directory
                            and event.event_type in ("created", "moved"), complete=complete)


class Watcher:
    """Recursive watches on `trees` (added when they appear later) and on `files`' folders."""

    def __init__(self, trees: Iterable[Path], files: Iterable[Path], *,
                 ignore: Callable[[Path], bool] = lambda p: False,
                 quiet: float = QUIET, max_wait: float = MAX_WAIT, settled: float = SETTLED,
                 changed: Callable[[], None] = lambda: None) -> None:
        self.trees = [Path(t).resolve() for t in trees]
        self.files = {Path(f).resolve() for f in files}
        self.ignore = ignore
        self.quiet = quiet
        self.max_wait = max_wait
        self.settled = settled
        #: Called (from the observer's thread) on every change that goes into a batch.
        self.changed = changed
        self._observer: Any = Observer()
        self._handler = _Handler(self)
        self._scheduled: set[Path] = set()
        self._pending: set[Path] = set()
        self._open: set[Path] = set()  # pending files whose last event was not `complete`
        self._first = 0.0
        self._last = 0.0
        self._stopped = False
        self._cond = threading.Condition()

    def start(self) -> None:
        for folder in sorted({f.parent for f in self.files} | {t.parent for t in self.trees}):
            if folder.is_dir() and folder not in self.trees:
                self._observer.schedule(self._handler, str(folder), recursive=False)
        self._schedule_trees()
        self._observer.daemon = True
        self._observer.start()

    def _schedule_trees(self) -> None:
        for tree in self.trees:
            if tree not in self._scheduled and tree.is_dir():
                self._observer.schedule(self._handler, str(tree), recursive=True)
                self._scheduled.add(tree)

    def notify(self, paths: Iterable[Path], *, created_dir: bool = False,
               complete: Collection[Path] = ()) -> None:
        """Changes of `paths`; those in `complete` were written and closed (or renamed
        into place) by the event."""
        if created_dir:
            self._schedule_trees()
        interesting = [p for p in paths if not self.ignore(p) and self._watched(p)]
        if not interesting:
            return
        with self._cond:
            now = time.monotonic()
            if not self._pending:
                self._first = now
            self._pending.update(interesting)
            self._open.update(p for p in interesting if p not in complete)
            self._open.difference_update(p for p in interesting if p in complete)
            self._last = now
            self._cond.notify_all()
        self.changed()

    def pending(self) -> bool:
        """Whether changes wait for the next batch."""
        with self._cond:
            return bool(self._pending)

    def _watched(self, path: Path) -> bool:
        return path in self.files or any(path.is_relative_to(t) for t in self.trees)

    def next_batch(self) -> set[Path] | None:
        """Wait for changes and return them once they settle; None after stop()."""
        with self._cond:
            while not self._pending and not self._stopped:
                self._cond.wait()
            while not self._stopped:
                now = time.monotonic()
                quiet = self.quiet if self._open else self.settled
                due = min(self._last + quiet, self._first + self.max_wait)
                if now >= due:
                    break
                self._cond.wait(due - now)
            if self._stopped:
                return None
            batch, self._pending = self._pending, set()
            self._open = set()
            return batch

    def stop(self) -> None:
        with self._cond:
            self._stopped = True
            self._cond.notify_all()
        # watchdog logs an error when a file event races with stopping; nothing is lost.
        quiet = logging.getLogger("watchdog.observers.inotify")
        level = quiet.level
        quiet.setLevel(logging.CRITICAL)
        try:
            self._observer.stop()
            if self._observer.is_alive():  # a daemon thread: never wait long for it
                self._observer.join(timeout=0.3)
        finally:
            quiet.setLevel(level)
