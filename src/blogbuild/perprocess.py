"""Per-process resources (a V8 context, a SQLite connection): one helper for fork, thread and exit.

Three rules keep a process that holds native resources from crashing or hanging when it
ends, whatever ended it:

- **Closed before the interpreter shuts down, in one order.** A resource registers its
  closer with `at_close(rank, closer)`; `close_all()` runs the closers by rank (children,
  then runtimes, then caches, whose pending rows go last). The command line calls it when a
  command returns, while every thread still runs; `atexit` calls it again for code that
  uses blogbuild as a library. Closing twice does nothing. What the interpreter finalizes
  on its own comes too late: threads that a native library calls back into can no longer
  take the interpreter lock then, and V8 waits for them for ever.
- **Made, used and freed on the thread that owns it** (`OwnerThread`). V8 guards its memory
  with the processor's protection keys where the hardware has them, and only the thread
  that initialised V8, and threads it started later, may touch that memory: freeing a
  context from any other thread (the main thread at exit, say) ends the process with
  SIGSEGV on such machines, and only on them.
- **Never touched in a forked child.** A child of `fork` inherits the handles but not the
  threads behind them: it forgets them (`after_fork_in_child`) and keeps the objects alive
  to its very end (`keep_forever`), so no finalizer frees them there.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import sys
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, NoReturn, TypeVar

if TYPE_CHECKING:
    import queue
    from concurrent.futures import Future

__all__ = [
    "CACHES",
    "CHILDREN",
    "RUNTIMES",
    "OwnerThread",
    "after_fork_in_child",
    "at_close",
    "close_all",
    "keep_forever",
]

T = TypeVar("T")

#: Ranks for `at_close`: lower ranks close first.
CHILDREN = 10  # child processes a resource talks to
RUNTIMES = 20  # V8 contexts
CACHES = 30  # result caches: written last, after everything that may still add to them

_lock = threading.Lock()
_closers: list[tuple[int, int, Callable[[], None]]] = []
_atexit_done = False


def at_close(rank: int, closer: Callable[[], None]) -> None:
    """Have `close_all` call `closer` (once per registration, by rank; same rank: in order of
    registration). `closer` must do nothing when there is nothing open."""
    global _atexit_done
    with _lock:
        if any(known is closer for _, _, known in _closers):
            return
        _closers.append((rank, len(_closers), closer))
        _closers.sort(key=lambda item: (item[0], item[1]))
        if not _atexit_done:
            atexit.register(close_all)
            _atexit_done = True


def close_all() -> None:
    """Close every registered resource of this process, in rank order. Never raises: a
    closer that fails is logged and the others still run."""
    with _lock:
        closers = [closer for _, _, closer in _closers]
    for closer in closers:
        try:
            closer()
        except Exception:
            import logging

            logging.getLogger(__name__).warning(
                "closing %s failed", getattr(closer, "__qualname__", closer), exc_info=True)


def end_now(code: int) -> NoReturn:
    """End this process with `code` at once, its output streams flushed and its logging
    shut down: not after the interpreter has taken apart, one by one, every object the
    process held (what needs closing is closed first, with `close_all`)."""
    logging = sys.modules.get("logging")  # a process that never logged has nothing to flush
    if logging is not None:
        logging.shutdown()
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(OSError, ValueError):  # a closed pipe: nothing to say
            stream.flush()
    os._exit(code)


def after_fork_in_child(forget: Callable[[], None]) -> None:
    """Call `forget` in the child after every fork of this process."""
    os.register_at_fork(after_in_child=forget)


def keep_forever(obj: object) -> None:
    """Keep `obj` alive until the process ends, past the interpreter's own shutdown.

    For native handles a forked child inherits: using or freeing them there hangs or crashes
    (their threads stayed in the parent), so the child must never run their finalizers. One
    extra reference that nothing releases is the only way to promise that; the memory goes
    with the process.
    """
    import ctypes

    ctypes.pythonapi.Py_IncRef(ctypes.py_object(obj))


class OwnerThread:
    """A thread of its own that runs the calls given to it, one at a time, in order.

    For a native library whose objects must be made, used and freed by one thread (and by the
    threads that one starts). It starts on the first call and lives as long as the process,
    never replaced: a thread started later would not be the one the library knows. It is a
    daemon thread, so a process never waits for it at exit. A call made on the owner
    thread itself runs at once.
    """

    def __init__(self, name: str) -> None:
        import queue

        self.name = name
        self._queue: queue.SimpleQueue[tuple[Callable[[], Any], Future[Any]] | None] = (
            queue.SimpleQueue())
        self._thread: threading.Thread | None = None
        self._start_lock = threading.Lock()

    def call(self, fn: Callable[[], T]) -> T:
        """Run `fn()` on the owner thread and return what it returns (or raise what it raised)."""
        if self._thread is threading.current_thread():
            return fn()
        with self._start_lock:
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name=self.name, daemon=True)
                self._thread.start()
        from concurrent.futures import Future

        from blogbuild import cancel

        future: Future[T] = Future()
        self._queue.put((fn, future))
        return cancel.result(future)

    def _run(self) -> None:
        while True:
            item = self._queue.get()
            if item is None:
                return
            fn, future = item
            if not future.set_running_or_notify_cancel():
                continue
            try:
                result = fn()
            except BaseException as exc:  # handed to the caller's thread
                future.set_exception(exc)
            else:
                future.set_result(result)
            finally:
                del fn, item

