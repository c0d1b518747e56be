"""The process that draws a worker's diagrams: started on the first diagram, kept for the
life of the process that uses it (each worker has its own), and given every diagram of a
document in one batch, as KaTeX is given a document's formulas. A process per diagram cost
about 70 ms each (Python and the renderer loading again).

It runs under a cap on its memory and dies with its parent (limited.py); each diagram may
take at most `draw.TIMEOUT` seconds: one that takes longer, or whose drawing ends the
process (out of memory), stops the process, and the diagrams after it go to a new one. A
cancelled run (the live server, SIGTERM) kills it at once.

Mermaid's own parser (checker.py) is a second such process, started the first time mmdr
refuses a diagram, under the same rules but for its memory, which V8 holds itself.
"""

from __future__ import annotations

import contextlib
import os
import re
import subprocess
import sys
import tempfile
import threading
from pathlib import Path
from typing import IO

from blogbuild import cancel, childproc
from blogbuild.perprocess import CHILDREN, after_fork_in_child, at_close

_RUNNER = Path(__file__).with_name("runner.py")
_CHECKER = Path(__file__).with_name("checker.py")
#: The chart drawer's program (vl-convert: V8 holds its own memory, so no cap).
_CHARTS = Path(__file__).resolve().parent.parent / "charts" / "runner.py"
_LIMITED = Path(__file__).with_name("limited.py")

#: What a diagram's drawing gave: exit status, SVG, what the renderer said.
Answer = tuple[int, str, str]
#: What `Drawer.draw` answers for a diagram stopped at the time limit.
STOPPED = "stopped"
#: Where a renderer's or Mermaid's message names a line of the diagram's text.
_LINE = re.compile(r"\bline (\d+)")


def line_of(message: str) -> int:
    """The line of the diagram's text `message` names (its first "line N"), 0 when none."""
    found = _LINE.search(message)
    return int(found[1]) if found else 0


def launch(command: list[str], memory: int, env: dict[str, str],
           stderr: IO[bytes] | int = subprocess.DEVNULL) -> subprocess.Popen[bytes]:
    """`command` in a session of its own, with at most `memory` bytes of address space,
    dying with this process (see limited.py); its standard input and output are pipes."""
    return subprocess.Popen(
        [sys.executable, "-I", str(_LIMITED), str(memory), str(os.getpid()), *command],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=stderr, env=env,
        start_new_session=True)


class Drawer:
    """One drawing process (see the module's docstring), used by one thread at a time:
    `program` is what it runs (runner.py, checker.py)."""

    def __init__(self, program: Path) -> None:
        self.program = program
        self.lock = threading.Lock()
        self.process: subprocess.Popen[bytes] | None = None
        self.memory = 0  # the cap it started with
        #: What it says on its standard error (read when it ended without an answer).
        self.errors: IO[bytes] | None = None

    def draw(self, batch: list[tuple[str, str, str]], *, timeout: float,
             memory: int) -> list[Answer]:
        """Each diagram of `batch` ((kind, text, program): see runner.py) drawn, in order."""
        answers: list[Answer] = []
        with self.lock:
            while len(answers) < len(batch):
                answers += self._batch(batch[len(answers):], timeout, memory)
        return answers

    def _batch(self, batch: list[tuple[str, str, str]], timeout: float,
               memory: int) -> list[Answer]:
        """Answers for the first diagrams of `batch`: all, or up to one that stopped the
        process (its answer last)."""
        process = self._process(memory)
        assert process.stdin is not None and process.stdout is not None
        answers: list[Answer] = []
        with cancel.current().child(lambda: cancel.kill_session(process)):
            with contextlib.suppress(OSError):  # it died at once: its answer says how
                childproc.write(process.stdin, batch)
            for _ in batch:
                ready, answer = childproc.read_within(process.stdout, timeout)
                if isinstance(answer, tuple) and len(answer) == 3:
                    answers.append(answer)
                    continue
                answers.append(self._ended(ready=bool(ready)))
                break
        cancel.check()
        return answers

    def _process(self, memory: int) -> subprocess.Popen[bytes]:
        if self.process is not None and (self.process.poll() is not None
                                         or self.memory != memory):
            self.close()
        if self.process is None:
            self.errors = tempfile.TemporaryFile()  # noqa: SIM115  closed with the process
            self.process = launch([sys.executable, "-I", str(self.program)], memory,
                                  {"PATH": os.environ.get("PATH", "")}, self.errors)
            self.memory = memory
            at_close(CHILDREN, close)
        return self.process

    def _ended(self, *, ready: bool) -> Answer:
        """The answer of a diagram whose drawing did not end in an answer: it took too
        long (the process is stopped), or the process ended (out of memory)."""
        process, errors = self.process, self.errors
        assert process is not None and errors is not None
        cancel.kill_session(process)
        code = process.wait()
        errors.seek(0)
        said = errors.read()[-4096:].decode("utf-8", "replace")
        self.close()
        if not ready:
            return -1, "", STOPPED
        # Killed (out of memory), or what it said (a MemoryError before it could start).
        return code, "", said or f"the diagram renderer stopped with exit status {code}"

    def close(self) -> None:
        process, self.process = self.process, None
        errors, self.errors = self.errors, None
        if process is not None:
            cancel.kill_session(process)
            childproc.reap(process)
        if errors is not None:
            errors.close()


_drawer = Drawer(_RUNNER)
_checker = Drawer(_CHECKER)
_charts = Drawer(_CHARTS)


def draw(batch: list[tuple[str, str, str]], *, timeout: float, memory: int) -> list[Answer]:
    """This process's `Drawer.draw`."""
    return _drawer.draw(batch, timeout=timeout, memory=memory)


def check(texts: list[str], *, timeout: float) -> list[Answer]:
    """Mermaid's parser on each of `texts`, in this process's checker (see checker.py)."""
    return _checker.draw([("parse", text, "") for text in texts], timeout=timeout, memory=0)


def charts(batch: list[tuple[str, str, str]], *, timeout: float) -> list[Answer]:
    """Each chart of `batch` drawn by this process's chart drawer (blogbuild.charts.runner).
    After a chart it could not draw, the drawer is ended (the next chart starts another):
    vl-convert's V8 may fail every later chart the same way once one has failed."""
    answers = _charts.draw(batch, timeout=timeout, memory=0)
    if any(code != 0 for code, _, _ in answers):
        _charts.close()
    return answers


def close() -> None:
    """End this process's drawers and checker (the command ends; the next diagram or chart
    starts another)."""
    _drawer.close()
    _checker.close()
    _charts.close()


def _after_fork_in_child() -> None:
    """A forked child has its parent's handles, not the processes: it makes its own."""
    global _drawer, _checker, _charts
    _drawer, _checker, _charts = Drawer(_RUNNER), Drawer(_CHECKER), Drawer(_CHARTS)


after_fork_in_child(_after_fork_in_child)
