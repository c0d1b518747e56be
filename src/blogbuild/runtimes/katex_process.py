"""KaTeX in a process of its own, started before the build needs it.

A build that renders a new post with math reaches its first formula about 0.2 s in, and
the formula then waits for KaTeX's runtime to start: mini-racer's module, V8, KaTeX's
script, about 110 ms on one core. A build that knows early that it will render such a post
(`blogbuild build`, once it has read the sources) starts this child instead: the child
loads the runtime on the other core while the build loads its modules, reads its state and
parses, and blogbuild.runtimes.katex hands it the formulas its caches do not have
(`katex.use_process`). The caches stay the build's: the child renders and answers, nothing
else. When the child is gone or broken the build renders in its own process, as it does
without one.

Requests are (function, arguments, timeout), answers ("ok", the function's value) or
("stopped", the name of what stopped V8), framed as blogbuild.childproc says. This module
imports only the standard library and blogbuild.childproc until the child loads
mini-racer, so that the child starts fast.
"""

from __future__ import annotations

import contextlib
import os
import pickle
import select
import subprocess
import sys
from pathlib import Path
from typing import IO, Any

from blogbuild import childproc

__all__ = ["JS_RENDER", "VENDOR_DIR", "KatexProcess", "ProcessGone", "Stopped",
           "may_have_math", "new_context"]

VENDOR_DIR = Path(__file__).resolve().parent.parent / "vendor" / "katex"
#: blogbuild's functions around KaTeX, evaluated after katex.min.js in the same context.
JS_RENDER = Path(__file__).with_name("katex_render.js").read_text(encoding="utf-8")
#: How long past a call's own timeout the build waits for the child's answer (the first
#: answer waits for the child to load, on a machine that may be busy).
GRACE_SECONDS = 30.0

#: What marks math in a source (blogbuild.markdown.math): dollars, \( \[, environments,
#: math fences. A hint only: a source that has one may have no math.
_MATH_MARKS = (b"$", b"\\(", b"\\[", b"\\begin{", b"```math", b"~~~math")


def may_have_math(data: bytes) -> bool:
    """Whether the bytes of a source may hold a formula (worth starting KaTeX for)."""
    return any(mark in data for mark in _MATH_MARKS)


def new_context() -> Any:
    """A V8 context with KaTeX and blogbuild's functions loaded."""
    from py_mini_racer import MiniRacer

    ctx = MiniRacer()
    try:
        ctx.eval((VENDOR_DIR / "katex.min.js").read_text(encoding="utf-8"))
        ctx.eval(JS_RENDER)
    except BaseException:
        ctx.close()
        raise
    return ctx


class ProcessGone(Exception):
    """The child did not answer: it could not start, died, or took far too long."""


class Stopped(Exception):
    """V8 stopped the call in the child (a timeout, no memory): `kind` says what stopped
    it, as the name of mini-racer's exception."""

    def __init__(self, kind: str) -> None:
        super().__init__(kind)
        self.kind = kind


class KatexProcess:
    """The child, from the build's side. Used under blogbuild.runtimes.katex's lock: one
    call at a time."""

    def __init__(self, process: subprocess.Popen[bytes]) -> None:
        self.process = process

    @classmethod
    def begin(cls) -> KatexProcess | None:
        """Start the child; None when it cannot start (the build renders in its process),
        or where a pipe cannot be waited on with a deadline (not POSIX)."""
        if os.name != "posix":
            return None
        try:
            return cls(childproc.start("blogbuild.runtimes.katex_process"))
        except OSError:
            return None

    def call(self, function: str, args: tuple[Any, ...], timeout: float) -> Any:
        """`function(*args)` in the child's KaTeX context, in at most `timeout` seconds.
        Raises Stopped when V8 stopped it, ProcessGone when the child did not answer."""
        stdin, stdout = self.process.stdin, self.process.stdout
        assert stdin is not None and stdout is not None  # childproc.start pipes both
        try:
            childproc.write(stdin, (function, args, timeout))
            ready, _, _ = select.select([stdout], [], [], timeout + GRACE_SECONDS)
            answer = childproc.read(stdout) if ready else None
        except (OSError, ValueError, EOFError, pickle.UnpicklingError) as exc:
            raise ProcessGone(str(exc)) from exc
        if not (isinstance(answer, tuple) and len(answer) == 2):
            raise ProcessGone("no answer")
        status, value = answer
        if status == "ok":
            return value
        raise Stopped(str(value))

    def close(self) -> None:
        """The engine is done (its context kept the child): `end` it."""
        self.end()

    def end(self) -> None:
        """Stop the child now (it holds nothing the build needs) and reap it."""
        with contextlib.suppress(OSError):
            self.process.kill()
        childproc.reap(self.process)


def serve(inp: IO[bytes], out: IO[bytes]) -> None:
    """The child: load KaTeX at once, then answer each request until the input ends."""
    ctx = new_context()
    try:
        while True:
            request = childproc.read(inp)
            if not (isinstance(request, tuple) and len(request) == 3):
                return
            function, args, timeout = request
            try:
                answer = "ok", ctx.call(function, *args, timeout_sec=timeout)
            except Exception as exc:  # the build says so on the formula's page
                answer = "stopped", type(exc).__name__
            childproc.write(out, answer)
    finally:
        ctx.close()  # on the thread that made it (blogbuild.perprocess says why)


if __name__ == "__main__":
    serve(sys.stdin.buffer, sys.stdout.buffer)
