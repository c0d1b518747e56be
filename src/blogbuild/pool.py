"""The worker pool: a function over many jobs, in processes of their own when there are
enough of them, in this process otherwise (starting workers costs more than a few jobs).

forkserver, not fork: a V8 context (KaTeX) made in a parent hangs in a forked child. A
cancelled run (blogbuild.cancel) kills the pool's processes at once.

A pool starts its workers one at a time under `_STARTING`, which `stop_helpers` takes too:
a stop never meets a worker half started. It kills the workers of cancelled runs, then
waits for the forkserver, which ends once every worker it started is gone. (Without the
lock, a worker that the live server's build thread started after the stop's kill kept the
forkserver alive, while the waiting stop held the forkserver's lock that the thread's next
worker needed: the server hung on SIGTERM.)
"""

from __future__ import annotations

import contextlib
import os
import threading
from collections.abc import Callable, Iterator, Sequence
from typing import TYPE_CHECKING, Any, TypeVar

from blogbuild import cancel
from blogbuild.perprocess import CHILDREN, at_close

if TYPE_CHECKING:
    from concurrent.futures import Future, ProcessPoolExecutor

J = TypeVar("J")
R = TypeVar("R")

#: Modules the forkserver loads once for every worker it forks (`preload`).
_PRELOAD: list[str] = []
#: Held while a pool starts a worker, and while `stop_helpers` stops them all.
_STARTING = threading.Lock()
#: Each pool in use: the token of its run, and how to kill its workers (`stop_helpers`).
_RUNNING: dict[int, tuple[cancel.Token, Callable[[], None]]] = {}


def preload(module: str) -> None:
    """Have the pool's forkserver load `module` before it forks a worker: a module whose
    functions are jobs names itself when it is imported (a forkserver already running
    keeps what it loaded)."""
    if module not in _PRELOAD:
        _PRELOAD.append(module)


def default_jobs() -> int:
    """`BLOGBUILD_WORKERS` when set, else the cores this process may run on."""
    env = os.environ.get("BLOGBUILD_WORKERS", "")
    if env.isdigit() and int(env) > 0:
        return int(env)
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return max(1, os.cpu_count() or 1)


def run_jobs(items: Sequence[J], work: Callable[[J], R], init: Callable[..., None],
             initargs: tuple[Any, ...], *, jobs: int, minimum: int) -> Iterator[R]:
    """`work` over `items`, in order; in a forkserver pool when worth it.

    forkserver, not fork: a V8 (KaTeX) context made in a parent hangs in a forked child.
    """
    token = cancel.current()
    token.check()
    if jobs <= 1 or len(items) < minimum:
        init(*initargs)
        try:
            for item in items:
                token.check()
                yield work(item)
        finally:
            init(*[None] * len(initargs))
        return
    # Only now: a build that renders a few sources in its own process never needs them.
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor
    from concurrent.futures.process import BrokenProcessPool

    ctx = multiprocessing.get_context("forkserver")
    ctx.set_forkserver_preload(list(_PRELOAD))
    at_close(CHILDREN, stop_helpers)
    chunk = max(1, min(16, len(items) // (jobs * 4)))
    pool = ProcessPoolExecutor(jobs, mp_context=ctx, initializer=init, initargs=initargs)

    def kill() -> None:
        """Cancelled: the workers die now, whatever they are doing (a page's blocks run
        in a process that dies with its worker: runtimes/python_driver.py)."""
        for process in list((pool._processes or {}).values()):
            with contextlib.suppress(OSError, ValueError, AttributeError):
                process.kill()

    finished = False
    _RUNNING[id(pool)] = token, kill
    try:
        futures = _submit(pool, token, work, items, chunk)
        with token.child(kill):
            for future in futures:
                try:
                    results = cancel.result(future)
                except BrokenProcessPool:
                    token.check()  # the workers were killed because the run was cancelled
                    raise
                for result in results:
                    token.check()
                    yield result
        finished = True
    finally:
        _RUNNING.pop(id(pool), None)
        if not finished:  # cancelled, interrupted (Ctrl-C, SIGTERM) or failed: stop now
            kill()  # the pool sees its workers gone and fails what is left
        pool.shutdown(wait=True)


def _submit(pool: ProcessPoolExecutor, token: cancel.Token, work: Callable[[J], R],
            items: Sequence[J], chunk: int) -> list[Future[list[R]]]:
    """The jobs handed to `pool` in chunks; a submit starts a worker while the pool has
    fewer than it may (under `_STARTING`: none once the run is cancelled).

    Not pool.map: closing its iterator cancels the futures not started, and Python 3.11
    then fails to tear down a pool whose workers were killed (the manager thread raises
    InvalidStateError, and the exit hangs on the queue's feeder thread)."""
    futures = []
    for i in range(0, len(items), chunk):
        with _STARTING:
            token.check()
            futures.append(pool.submit(_chunk, work, items[i:i + chunk]))
    return futures


def _chunk(work: Callable[[J], R], items: Sequence[J]) -> list[R]:
    return [work(item) for item in items]


def stop_helpers(*, idle: bool = True) -> None:
    """End the processes multiprocessing keeps for the pools of this process, so that
    none is left when it exits (the next pool starts them again): the forkserver, and
    when no pool may still be in use (`idle`) the resource tracker, which would otherwise
    remove the semaphores of a pool still being torn down.

    The workers of the pools of cancelled runs are killed first (cancel the runs that may
    start a pool before this): the forkserver ends only once every worker it started is
    gone. While the run of another pool goes on, the helpers are left to it."""
    import gc
    from multiprocessing import forkserver, resource_tracker

    with _STARTING:  # no worker is half started; a cancelled run starts none after this
        going_on = False
        for token, kill in list(_RUNNING.values()):
            if token.cancelled:
                kill()
            else:
                going_on = True
        if going_on:
            return
        helpers: list[object] = [getattr(forkserver, "_forkserver", None)]
        if idle:
            gc.collect()  # the queues of finished pools release their semaphores
            helpers.append(getattr(resource_tracker, "_resource_tracker", None))
        for helper in helpers:
            with contextlib.suppress(Exception):  # not running, or another Python's own
                helper._stop()  # type: ignore[attr-defined]
