"""The live server's events: what changed after each build, fanned out to the open pages."""

from __future__ import annotations

import threading
from collections import Counter, deque
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from blogbuild.diagnostics import Diagnostic


@dataclass(frozen=True)
class Event:
    """A message to the pages open in a browser: reload, new stylesheet, errors."""

    id: int
    name: str  # "reload", "css" or "errors"
    data: dict[str, Any]
    paths: frozenset[str] | None = None  # output paths a reload concerns; None: every page


def diagnostic_json(d: Diagnostic) -> dict[str, Any]:
    return {"file": d.file, "line": d.line, "column": d.column, "message": d.message,
            "severity": d.severity.value}


@dataclass
class Broker:
    """Fan-out of events to the open SSE streams; keeps a short history for reconnects."""

    history: deque[Event] = field(default_factory=lambda: deque(maxlen=512))
    errors: list[dict[str, Any]] = field(default_factory=list)
    last_id: int = 0
    closed: bool = False
    token: str = ""  # tells a reconnecting page that the server was restarted
    _cond: threading.Condition = field(default_factory=threading.Condition)
    _open: Counter[str] = field(default_factory=Counter)  # output paths of open pages
    _opened: Counter[str] = field(default_factory=Counter)  # streams ever opened, by page

    def opened(self, page: str) -> None:
        with self._cond:
            self._open[page] += 1
            self._opened[page] += 1
            self._cond.notify_all()

    def closed_page(self, page: str) -> None:
        with self._cond:
            self._open[page] -= 1
            if self._open[page] <= 0:
                del self._open[page]

    def open_pages(self) -> set[str]:
        """The output paths of the pages whose event stream is open (a browser shows
        them): a rebuild templates them first."""
        with self._cond:
            return set(self._open)

    def reopens(self, pages: Iterable[str]) -> dict[str, int]:
        """Call before a reload of `pages`: for each of them that a browser shows, how many
        streams it will have opened once it is loaded again. (Counting the streams open now
        would wait for the streams of pages gone, which end only within a second.)"""
        with self._cond:
            return {p: self._opened[p] + 1 for p in pages if self._open[p] > 0}

    def wait_reopened(self, targets: dict[str, int], timeout: float) -> bool:
        """Wait until each page of `reopens()` is loaded again in a browser (a new stream
        opened: the page was parsed and its scripts ran), at most `timeout` seconds."""
        with self._cond:
            return self._cond.wait_for(
                lambda: self.closed or all(self._opened[p] >= n for p, n in targets.items()),
                timeout)

    def publish(self, name: str, data: dict[str, Any] | None = None,
                paths: Iterable[str] | None = None) -> Event:
        with self._cond:
            self.last_id += 1
            event = Event(self.last_id, name, {**(data or {}), "build": self.last_id},
                          frozenset(paths) if paths is not None else None)
            if name == "errors":
                self.errors = event.data["errors"]
            self.history.append(event)
            self._cond.notify_all()
            return event

    def set_errors(self, errors: list[Diagnostic]) -> None:
        payload = [diagnostic_json(d) for d in errors]
        if payload != self.errors:
            self.publish("errors", {"errors": payload})

    def since(self, after: int) -> list[Event] | None:
        """Events after `after`; None when some of them fell out of the history."""
        with self._cond:
            if self.history and after < self.history[0].id - 1:
                return None
            return [e for e in self.history if e.id > after]

    def wait(self, after: int, timeout: float) -> list[Event] | None:
        """Block until events newer than `after` exist (or timeout: []); None when closed."""
        with self._cond:
            self._cond.wait_for(lambda: self.closed or self.last_id > after, timeout)
            if self.closed:
                return None
            return [e for e in self.history if e.id > after]

    def close(self) -> None:
        with self._cond:
            self.closed = True
            self._cond.notify_all()
