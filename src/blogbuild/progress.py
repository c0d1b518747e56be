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
