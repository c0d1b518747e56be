"""Stopping a run midway: the live server stops all work when it stops, and drops the
long tail of a run (other pages, the search index) once a newer save has made it stale.

The engine runs under a `Token` (`scope`) and calls `check()` between steps, pages and
search documents; whatever it starts that may block for long (the worker pool, the Pagefind
service, the Python process of build-time blocks) is registered with `child(kill)`, and
the token kills it as soon as it is cancelled, from whichever thread cancels. A run that is
never cancelled (`blogbuild build`) pays for a few attribute reads.
"""

from __future__ import annotations

import contextlib
import contextvars
import logging
import os
import signal
import subprocess
import threading
from collections.abc import Callable, Iterator
from concurrent.futures import Future
from typing import TypeVar

log = logging.getLogger("blogbuild.cancel")

T = TypeVar("T")


class Cancelled(Exception):
    """The run was stopped: the server is stopping, or a newer change made it stale."""


class Token:
    """Cancels one run. `stop()` cancels at once; `stale()` only the deferred part: it takes
    effect once the run called `defer()` (the page the reader waits for is out)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._stopped = False
        self._stale = False
        self._deferred = False
        self._kills: dict[int, Callable[[], None]] = {}
        self._next = 0

    @property
    def cancelled(self) -> bool:
        return self._stopped or (self._stale and self._deferred)

    @property
    def stopped(self) -> bool:
        return self._stopped

    def check(self) -> None:
        """Raise Cancelled when the run should stop here."""
        if self.cancelled:
            raise Cancelled

    def stop(self) -> None:
        with self._lock:
            self._stopped = True
        self._kill()

    def stale(self) -> None:
        with self._lock:
            self._stale = True
        self._kill()

    def defer(self) -> None:
        """What the reader waits for is done; from here on a newer change cancels."""
        with self._lock:
            self._deferred = True
        self._kill()

    def _kill(self) -> None:
        if not self.cancelled:
            return
        with self._lock:
            kills, self._kills = list(self._kills.values()), {}
        for kill in kills:
            try:
                kill()
            except Exception:  # a process that is gone already
                log.debug("stopping a child failed", exc_info=True)

    @contextlib.contextmanager
    def child(self, kill: Callable[[], None]) -> Iterator[None]:
        """While inside, cancelling calls `kill` (at once when cancelled already)."""
        with self._lock:
            self._next += 1
            key = self._next
            self._kills[key] = kill
        self._kill()
        try:
            yield
        finally:
            with self._lock:
                self._kills.pop(key, None)


#: The token of runs nobody cancels.
NEVER = Token()
_current: contextvars.ContextVar[Token] = contextvars.ContextVar("blogbuild_cancel",
                                                                 default=NEVER)


def current() -> Token:
    """The token of the run in this thread (NEVER outside a scope)."""
    return _current.get()


@contextlib.contextmanager
def scope(token: Token) -> Iterator[Token]:
    reset = _current.set(token)
    try:
        yield token
    finally:
        _current.reset(reset)


def check() -> None:
    current().check()


def kill_session(proc: subprocess.Popen[bytes]) -> None:
    """Kill a child started with `start_new_session` and whatever it started (its
    session), without waiting: what `child(kill)` is given for such a process."""
    if os.name == "posix":
        with contextlib.suppress(OSError):
            os.killpg(proc.pid, signal.SIGKILL)
    with contextlib.suppress(OSError):
        proc.kill()


#: Seconds a wait for another thread lasts at most before the waiting thread wakes up. The
#: kernel may hand SIGTERM or SIGINT to any thread of the process, and Python runs the
#: handler only in the main thread, when that thread next wakes: a wait without an end
#: would hold a stop until the work it waits for is done (a first build, a whole index).
WAKE_SECONDS = 0.25


def join(thread: threading.Thread) -> None:
    """`thread.join()`, waking up every WAKE_SECONDS (so that signals are handled)."""
    while thread.is_alive():
        thread.join(WAKE_SECONDS)


def result(future: Future[T]) -> T:
    """`future.result()`, waking up every WAKE_SECONDS (so that signals are handled).

    Not `concurrent.futures.wait`: a KeyboardInterrupt raised in it just after it took the
    future's lock (its `_AcquireFutures.__enter__`) leaves the lock taken, and the pool
    that sets the result then waits forever (a SIGTERM test hung once in CI with it)."""
    while True:
        try:
            return future.result(WAKE_SECONDS)
        except TimeoutError:
            # Done since the wait gave up, or the work's own TimeoutError: its outcome.
            if future.done():
                return future.result()
