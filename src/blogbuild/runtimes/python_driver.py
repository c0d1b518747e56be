"""Runs one page's build-time blocks in a child interpreter (started by runtimes/python.py).

A script, not a module of the package: the child imports nothing of blogbuild. It reads
its job (JSON) from stdin, then closes stdin, points the process's stdout at /dev/null and
answers on the pipe that stdout was, one JSON line per event; what the blocks print is
captured as output items and never reaches that pipe. The rich output (figures, a final
value's HTML) is the capture module's business; this file calls it through `Capture` only.
"""

from __future__ import annotations

import ast
import builtins
import importlib.util
import io
import json
import linecache
import os
import sys
import traceback
from types import CodeType, ModuleType, TracebackType
from typing import Any, TextIO

Item = dict[str, Any]


class Capture:
    """The one seam to the capture module shared with the browser's runtime."""

    def __init__(self, path: str) -> None:
        spec = importlib.util.spec_from_file_location("runnable_capture", path)
        assert spec is not None and spec.loader is not None
        self.module: ModuleType = importlib.util.module_from_spec(spec)
        sys.modules["runnable_capture"] = self.module
        spec.loader.exec_module(self.module)

    def prepare(self) -> None:
        self.module.prepare()

    def result_items(self, value: Any) -> list[Item]:
        return list(self.module.result_items(value))

    def figure_items(self) -> list[Item]:
        return list(self.module.figure_items())


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
    """The items of the block that runs."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.items: list[Item] = []
        self.size = 0
        self.cut = False

    def stream(self, name: str, text: str) -> None:
        if self.cut or not text:
            return
        room = self.limit - self.size
        if len(text) > room:
            text, self.cut = text[:room], True
        self.size += len(text)
        last = self.items[-1] if self.items else None
        if last is not None and last["type"] == "stream" and last["name"] == name:
            last["text"] += text
        else:
            self.items.append({"type": "stream", "name": name, "text": text})
        if self.cut:
            self.items.append({"type": "stream", "name": "stderr",
                               "text": f"\n[output cut after {self.limit:,} characters]\n"})

    def add(self, items: list[Item]) -> None:
        self.items.extend(items)


def _no_input(prompt: object = "") -> str:
    raise RuntimeError("input() cannot read from the keyboard in a runnable block; "
                       "set the value in the code instead")


def _split(code: str, filename: str) -> tuple[CodeType, CodeType | None]:
    """The block's statements, and its final expression apart (None when it has none, or
    when a ';' ends it: notebooks print nothing then)."""
    tree = ast.parse(code, filename, "exec")
    last = tree.body[-1] if tree.body else None
    if isinstance(last, ast.Expr) and last.end_lineno is not None:
        line = code.splitlines()[last.end_lineno - 1]
        if not line[last.end_col_offset or 0:].lstrip().startswith(";"):
            tree.body.pop()
            value = compile(ast.Expression(last.value), filename, "eval")
            return compile(tree, filename, "exec"), value
    return compile(tree, filename, "exec"), None


def _own(tb: TracebackType | None, filename: str) -> TracebackType | None:
    """The traceback from the block's first frame on (the driver's frames are not the
    author's business)."""
    while tb is not None and tb.tb_frame.f_code.co_filename != filename:
        tb = tb.tb_next
    return tb


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


def _format(exc: BaseException, filename: str) -> str:
    tb = _own(exc.__traceback__, filename)
    if tb is None and isinstance(exc, SyntaxError):
        return "".join(traceback.format_exception_only(type(exc), exc))
    return "".join(traceback.format_exception(type(exc), exc, tb or exc.__traceback__))


def run_block(block: dict[str, Any], namespace: dict[str, Any], capture: Capture,
              out: Output) -> dict[str, Any] | None:
    """Run one block into `out`; the error (name, last line, line in the block) or None."""
    code, filename = str(block["code"]), str(block["filename"])
    linecache.cache[filename] = (len(code), None, code.splitlines(True), filename)
    sys.stdout, sys.stderr = Stream("stdout", out), Stream("stderr", out)
    failure = None
    try:
        body, last = _split(code, filename)
        exec(body, namespace)
        if last is not None:
            value = eval(last, namespace)
            sys.stdout.flush()
            out.add(capture.figure_items())
            out.add(capture.result_items(value))
    except BaseException as exc:  # the author's exceptions, SystemExit and KeyboardInterrupt too
        text = _format(exc, filename)
        last_line = "".join(traceback.format_exception_only(type(exc), exc)).strip()
        out.add(capture.figure_items())
        out.add([{"type": "error", "name": type(exc).__name__, "text": text}])
        failure = {"name": type(exc).__name__, "message": last_line.splitlines()[-1],
                   "line": _line_in_block(exc, filename)}
    else:
        out.add(capture.figure_items())
    finally:
        sys.stdout, sys.stderr = sys.__stdout__, sys.__stderr__
    return failure


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


def main() -> None:
    job = json.load(sys.stdin)
    channel: TextIO = os.fdopen(os.dup(1), "w", encoding="utf-8")
    null = os.open(os.devnull, os.O_RDWR)
    os.dup2(null, 0)
    os.dup2(null, 1)
    sys.path[:0] = [p for p in job["path"] if p not in sys.path]

    def send(event: dict[str, Any]) -> None:
        channel.write(json.dumps(event, ensure_ascii=True) + "\n")
        channel.flush()

    builtins.input = _no_input
    capture = Capture(job["capture"])
    capture.prepare()
    _limit_memory(int(job.get("memory_mb", 0)))
    shared: dict[str, Any] = {"__name__": "__main__"}
    for index, block in enumerate(job["blocks"]):
        send({"event": "start", "block": index})
        namespace = {"__name__": "__main__"} if block["isolated"] else shared
        out = Output(int(job["output_limit"]))
        failure = run_block(block, namespace, capture, out)
        send({"event": "done", "block": index, "items": out.items, "error": failure})
        if failure is not None and not block["allow_error"]:
            break
    send({"event": "end"})
    channel.close()


if __name__ == "__main__":
    main()
