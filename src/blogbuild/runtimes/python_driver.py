"""Runs one page's build-time blocks in a child interpreter (started by runtimes/python.py).

A script, not a module of the package: the child imports nothing of blogbuild. It reads
its job (JSON) from stdin, then closes stdin, points the process's stdout at /dev/null and
answers on the pipe that stdout was, one JSON line per event; what the blocks print is
captured as output items and never reaches that pipe. The rich output (figures, a final
value's HTML) are the business of the capture module the browser runs too
(js/runnable_capture.py): this file runs each block with its `execute` and `Capture`.
"""

from __future__ import annotations

import builtins
import importlib.util
import io
import json
import os
import sys
import traceback
from types import ModuleType
from typing import Any, TextIO

Item = dict[str, Any]


def load_capture(path: str) -> ModuleType:
    """The capture module shared with the browser's runtime, as ``runnable_capture`` (its
    matplotlib backend finds it under that name)."""
    spec = importlib.util.spec_from_file_location("runnable_capture", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["runnable_capture"] = module
    spec.loader.exec_module(module)
    return module


class Stream(io.TextIOBase):
    """sys.stdout or sys.stderr of a block: text becomes stream items, up to a limit."""

    def __init__(self, name: str, out: Output) -> None:
        self.stream_name = name
        self.out = out

    @property
    def encoding(self) -> str:  # type: ignore[override]  # read-only, as on sys.stdout
        return "utf-8"

    def writable(self) -> bool:
        return True

    def isatty(self) -> bool:
        return False

    def write(self, text: str) -> int:
        if not isinstance(text, str):
            raise TypeError(f"write() argument must be str, not {type(text).__name__}")
        self.out.stream(self.stream_name, text)
        return len(text)


class Output:
    """The printed text of the block that runs, up to a limit, into the capture's items."""

    def __init__(self, capture: Any, limit: int) -> None:
        self.capture = capture
        self.limit = limit
        self.size = 0
        self.cut = False

    def stream(self, name: str, text: str) -> None:
        if self.cut or not text:
            return
        room = self.limit - self.size
        if len(text) > room:
            text, self.cut = text[:room], True
        self.size += len(text)
        self.capture.stream(name, text)
        if self.cut:
            self.capture.stream("stderr", f"\n[output cut after {self.limit:,} characters]\n")


def _line_in_block(exc: BaseException, filename: str) -> int:
    """The block's line that was running (the deepest frame of the block), or 0."""
    if isinstance(exc, SyntaxError) and exc.filename == filename:
        return exc.lineno or 0
    line = 0
    tb = exc.__traceback__
    while tb is not None:
        if tb.tb_frame.f_code.co_filename == filename:
            line = tb.tb_lineno
        tb = tb.tb_next
    return line


def run_block(block: dict[str, Any], namespace: dict[str, Any], module: ModuleType,
              limit: int) -> tuple[list[Item], dict[str, Any] | None]:
    """Run one block as the browser does (the capture module's `execute` and `Capture`):
    its items, and its error (name, last line, line in the block) or None."""
    code, filename = str(block["code"]), str(block["filename"])
    capture = module.Capture()
    out = Output(capture, limit)
    sys.stdout, sys.stderr = Stream("stdout", out), Stream("stderr", out)
    failure = None
    try:
        with capture:
            try:
                capture.finish(module.execute(code, filename, namespace))
            except BaseException as exc:  # the author's exceptions, SystemExit too
                capture.fail(exc, filename)
                last_line = "".join(traceback.format_exception_only(type(exc), exc)).strip()
                failure = {"name": type(exc).__name__, "message": last_line.splitlines()[-1],
                           "line": _line_in_block(exc, filename)}
    finally:
        sys.stdout, sys.stderr = sys.__stdout__, sys.__stderr__
    return list(capture.items), failure


def _limit_memory(megabytes: int) -> None:
    if megabytes <= 0:
        return
    try:
        import resource
    except ImportError:  # not on POSIX
        return
    limit = megabytes * 1024 * 1024
    _, hard = resource.getrlimit(resource.RLIMIT_AS)
    if hard != resource.RLIM_INFINITY:
        limit = min(limit, hard)
    resource.setrlimit(resource.RLIMIT_AS, (limit, hard))


def die_with_parent(parent: int) -> None:
    """On Linux, be killed when the process that started this one dies (a render worker
    killed because the live server stops), instead of running on alone."""
    if not sys.platform.startswith("linux"):
        return
    try:
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(1, 9)  # PR_SET_PDEATHSIG, SIGKILL
    except (OSError, AttributeError):
        return
    if parent and os.getppid() != parent:  # it died before the line above
        os._exit(1)


def main() -> None:
    job = json.load(sys.stdin)
    die_with_parent(int(job.get("parent", 0)))
    channel: TextIO = os.fdopen(os.dup(1), "w", encoding="utf-8")
    null = os.open(os.devnull, os.O_RDWR)
    os.dup2(null, 0)
    os.dup2(null, 1)
    sys.path[:0] = [p for p in job["path"] if p not in sys.path]

    def send(event: dict[str, Any]) -> None:
        channel.write(json.dumps(event, ensure_ascii=True) + "\n")
        channel.flush()

    module = load_capture(job["capture"])
    module.install()
    builtins.input = module.no_input
    _limit_memory(int(job.get("memory_mb", 0)))
    shared: dict[str, Any] = {"__name__": "__main__"}
    for index, block in enumerate(job["blocks"]):
        send({"event": "start", "block": index})
        namespace = {"__name__": "__main__"} if block["isolated"] else shared
        items, failure = run_block(block, namespace, module, int(job["output_limit"]))
        send({"event": "done", "block": index, "items": items, "error": failure})
        if failure is not None and not block["allow_error"]:
            break
    send({"event": "end"})
    channel.close()


if __name__ == "__main__":
    main()
