"""Build progress: the callback a build reports through, and the terminal bar the CLI draws."""

from __future__ import annotations

import shutil
import time
from collections.abc import Callable
from typing import TextIO

#: What the build calls as it goes: ``progress(phase, done, total)``; ``total`` 0 means the
#: phase has no count (it is shown by name only). The build never prints: the CLI decides.
Progress = Callable[[str, int, int], None]


def no_progress(phase: str, done: int, total: int) -> None:
    """The progress callback of builds nobody watches (the live server, library callers)."""


class TerminalBar:
    """A one-line progress bar on a terminal, drawn only once the build has run `delay`
    seconds (fast builds print nothing extra) and redrawn at most every `interval` seconds.

    Call it as a `Progress`; `close()` erases the line, so what is printed next starts clean.
    """

    def __init__(self, stream: TextIO, *, delay: float = 1.0, interval: float = 0.1,
                 clock: Callable[[], float] = time.monotonic, width: int | None = None) -> None:
        self.stream = stream
        self.delay = delay
        self.interval = interval
        self.clock = clock
        self.width = width
        self.start = clock()
        self.last_draw: float | None = None
        self.drawn = False

    def __call__(self, phase: str, done: int, total: int) -> None:
        now = self.clock()
        if now - self.start < self.delay:
            return
        final = total > 0 and done >= total
        if self.last_draw is not None and now - self.last_draw < self.interval and not final:
            return
        self.last_draw = now
        self.stream.write("\r" + self.line(phase, done, total) + "\x1b[K")
        self.stream.flush()
        self.drawn = True

    def line(self, phase: str, done: int, total: int) -> str:
        """The bar's text, e.g. ``rendering posts  [#######-------------]  350/1000``."""
        columns = self.width or shutil.get_terminal_size((80, 24)).columns
        if total <= 0:
            return phase[: columns - 1]
        count = f"{min(done, total)}/{total}"
        slots = max(0, min(40, columns - len(phase) - len(count) - 8))
        if slots < 5:
            return f"{phase} {count}"[: columns - 1]
        filled = slots * min(done, total) // total
        return f"{phase}  [{'#' * filled}{'-' * (slots - filled)}]  {count}"

    def close(self) -> None:
        """Erase the bar (if it was ever drawn) and leave the cursor at the line's start."""
        if self.drawn:
            self.stream.write("\r\x1b[K")
            self.stream.flush()
            self.drawn = False


def both(*callbacks: Progress) -> Progress:
    """One progress callback that calls each of `callbacks` in turn."""
    def call(phase: str, done: int, total: int) -> None:
        for callback in callbacks:
            callback(phase, done, total)
    return call


class StageClock:
    """Wall time per step of a build, from its progress events (`build --timings`).

    A step lasts from its first event to the first event of another step; a step that
    comes back (rendering again after the site is assembled) adds up. The time before the
    first event is `first`'s (loading the config, the check for "nothing changed")."""

    def __init__(self, first: str = "starting",
                 clock: Callable[[], float] = time.perf_counter) -> None:
        self.clock = clock
        self.phase = first
        self.since = clock()
        self.seconds: dict[str, float] = {}

    def __call__(self, phase: str, done: int, total: int) -> None:
        if phase != self.phase:
            self._close()
            self.phase = phase

    def _close(self) -> None:
        now = self.clock()
        self.seconds[self.phase] = self.seconds.get(self.phase, 0.0) + (now - self.since)
        self.since = now

    def stop(self) -> dict[str, float]:
        """The seconds of every step, in the order they first came."""
        self._close()
        return dict(self.seconds)


def timings_table(steps: dict[str, float], parts: dict[str, float]) -> list[str]:
    """`build --timings`' table: wall seconds per step and share of the build, then the
    render's parts, summed over the processes that rendered, and their share of that."""
    lines = ["where the time went:"]
    for title, seconds in (("step (wall time)", list(steps.items())),
                           ("the render, summed over its processes",
                            sorted(parts.items(), key=lambda part: -part[1]))):
        if not seconds:
            continue
        total = sum(value for _, value in seconds)
        lines.append(f"  {title:40} {'seconds':>8} {'share':>6}")
        for name, value in seconds:
            share = value / total if total > 0 else 0.0
            lines.append(f"  {name:40} {value:8.3f} {share:6.0%}")
        lines.append(f"  {'total':40} {total:8.3f} {1:6.0%}")
    return lines
