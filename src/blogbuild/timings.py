"""Where a render's time goes: named sections timed with `perf_counter`, off by default.

`blogbuild build --timings` turns it on. A worker times the parts of each render (front
matter, parse, plugin core rules, highlighting, math, HTML, …) and returns them with the
job's record; the build adds them up here. A section's time is its own: the time of the
sections inside it is counted there, not twice (highlighting is not in "rendering HTML").
Off, `section()` is a shared no-op context manager: no clock is read.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Mapping
from contextlib import AbstractContextManager
from time import perf_counter
from types import TracebackType

_enabled = False
_totals: dict[str, float] = {}
#: Per thread (the search index is made beside the templating), per open section: the
#: time of the sections inside it.
_open = threading.local()
_OFF = contextlib.nullcontext()


class _Section:
    __slots__ = ("name", "start")

    def __init__(self, name: str) -> None:
        self.name = name
        self.start = 0.0

    def __enter__(self) -> None:
        _stack().append(0.0)
        self.start = perf_counter()

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        elapsed = perf_counter() - self.start
        inner = _stack()
        own = elapsed - inner.pop()
        _totals[self.name] = _totals.get(self.name, 0.0) + own
        if inner:
            inner[-1] += elapsed


def _stack() -> list[float]:
    try:
        return _open.stack  # type: ignore[no-any-return]
    except AttributeError:
        _open.stack = []
        return _open.stack  # type: ignore[no-any-return]


def enable(on: bool = True) -> None:
    global _enabled
    _enabled = on


def enabled() -> bool:
    return _enabled


def section(name: str) -> AbstractContextManager[None]:
    """Time what runs inside under `name` (a no-op unless enabled)."""
    return _Section(name) if _enabled else _OFF


def take() -> dict[str, float]:
    """The seconds of each section since the last take (and forget them)."""
    found = dict(_totals)
    _totals.clear()
    return found


def add(seconds: Mapping[str, float]) -> None:
    """Count sections timed elsewhere (a worker's) as if timed here."""
    for name, value in seconds.items():
        _totals[name] = _totals.get(name, 0.0) + value
