"""Build-time execution of runnable blocks: one child interpreter per page, and its cache.

The blocks of a page run in order in one CPython process (this interpreter's executable),
so they share state like notebook cells; an isolated block gets a namespace of its own.
The child (python_driver.py) runs in a fresh temporary folder with stdin closed and
answers as JSON lines on a pipe; a block that runs longer than the timeout is killed with
the process. Results are cached on disk under a key of everything that can change them:
the code of every block of the page, in order, the options, the interpreter and the
installed distributions, and the capture module.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import queue
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from blogbuild import cancel, diskcache
from blogbuild.fileio import write_atomically
from blogbuild.fingerprints import execution_fingerprint

DRIVER = Path(__file__).resolve().parent / "python_driver.py"
#: Characters of stdout and stderr kept per block, as the browser keeps them.
OUTPUT_LIMIT = 200_000
#: Address space a page's process may take (MB): enough for numpy, pandas and matplotlib.
MEMORY_MB = 4096
#: Seconds the interpreter gets to exit once the last block is done.
_EXIT_WAIT = 5.0

Item = dict[str, Any]


@dataclass(frozen=True)
class Block:
    """A code block to run at build time."""

    code: str
    filename: str  # what tracebacks call it ("block 2", the browser's name too)
    isolated: bool
    allow_error: bool


@dataclass(frozen=True)
class BlockRun:
    """What became of one block. `status`: "ok", "error" (an exception), "timeout",
    "crashed" (the process ended or could not start) or "skipped" (an earlier block
    stopped the page)."""

    status: str
    items: tuple[Item, ...] = ()
    error: str = ""  # the exception's last line, or what happened
    line: int = 0  # the line in the block that raised (1-based; 0: unknown)

    def fails(self, block: Block) -> bool:
        return self.status != "ok" and not (self.status == "error" and block.allow_error)


@dataclass(frozen=True)
class PageRun:
    """The runs of a page's blocks, and whether they came from the cache."""

    runs: tuple[BlockRun, ...]
    seconds: float
    cached: bool


@dataclass(frozen=True)
class Options:
    """How blocks run: the time each may take, the module that captures their output,
    and where runs are cached."""

    timeout: float  # seconds per block
    capture: Path  # the capture module
    cache: Path | None  # folder of cached runs (None: no cache)


def run_page(blocks: list[Block], options: Options) -> PageRun:
    """Run `blocks` (one page's, in order), or take their results from the cache."""
    key = _key(blocks, options)
    cached = _load(options.cache, key, len(blocks))
    if cached is not None:
        return PageRun(cached, 0.0, True)
    start = time.perf_counter()
    runs = _execute(blocks, options)
    seconds = time.perf_counter() - start
    if not any(run.fails(block) for run, block in zip(runs, blocks, strict=True)):
        _save(options.cache, key, runs)
    return PageRun(runs, seconds, False)


def _key(blocks: list[Block], options: Options) -> str:
    data = {
        "env": execution_fingerprint(options.capture),
        "timeout": options.timeout,
        "limits": [OUTPUT_LIMIT, MEMORY_MB],
        "blocks": [[b.code, b.filename, b.isolated, b.allow_error] for b in blocks],
    }
    return hashlib.sha256(json.dumps(data, sort_keys=True).encode()).hexdigest()


def _load(folder: Path | None, key: str, count: int) -> tuple[BlockRun, ...] | None:
    if folder is None:
        return None
    path = folder / f"{key}.json"
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        runs = tuple(BlockRun(r["status"], tuple(r["items"]), r["error"], r["line"])
                     for r in data)
    except (OSError, ValueError, KeyError, TypeError):  # missing or damaged: run again
        return None
    with contextlib.suppress(OSError):
        os.utime(path)  # in use: `prune` keeps it
    return runs if len(runs) == count else None


def prune(folder: Path, *, older_than: float) -> None:
    """Remove cached runs that no build has used for `older_than` seconds. Never fails."""
    diskcache.prune_folder(folder, older_than=older_than)


def _save(folder: Path | None, key: str, runs: tuple[BlockRun, ...]) -> None:
    if folder is None:
        return
    data = [{"status": r.status, "items": list(r.items), "error": r.error, "line": r.line}
            for r in runs]
    try:
        folder.mkdir(parents=True, exist_ok=True)
        # Another build sees the whole file or none.
        write_atomically(folder / f"{key}.json", json.dumps(data).encode("utf-8"), mode=0o644)
    except OSError:
        pass  # a cache that cannot be written only costs time


def child_environment(workdir: Path) -> dict[str, str]:
    """The parent's environment less Python's own variables, with a fixed hash seed (so
    sets print in the same order on every build) and plots drawn off screen."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTHON")}
    env.update(PYTHONHASHSEED="0", PYTHONUTF8="1", MPLBACKEND="Agg", TMPDIR=str(workdir))
    return env


def _execute(blocks: list[Block], options: Options) -> tuple[BlockRun, ...]:
    root = Path(tempfile.mkdtemp(prefix="blogbuild-run-"))
    try:
        workdir = root / "work"
        workdir.mkdir()
        job = {
            "capture": str(options.capture),
            # Where this interpreter finds packages (user site and PYTHONPATH included);
            # never the current folder.
            "path": [p for p in sys.path if p and os.path.isabs(p) and p != os.getcwd()],
            "blocks": [{"code": b.code, "filename": b.filename, "isolated": b.isolated,
                        "allow_error": b.allow_error} for b in blocks],
            "output_limit": OUTPUT_LIMIT,
            "memory_mb": MEMORY_MB,
            "parent": os.getpid(),  # the child dies with this process (Linux)
        }
        with open(root / "driver.log", "w+b") as log:
            runs = _drive(job, blocks, options.timeout, workdir, log)
    finally:
        shutil.rmtree(root, ignore_errors=True)
    return runs


def _drive(job: dict[str, Any], blocks: list[Block], timeout: float, workdir: Path,
           log: IO[bytes]) -> tuple[BlockRun, ...]:
    # -s -P and a cleaned environment are -I (isolated mode) but for the hash seed,
    # which -I would leave random.
    command = [sys.executable, "-s", "-P", str(DRIVER)]
    try:
        proc = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                stderr=log, cwd=workdir, env=child_environment(workdir),
                                start_new_session=os.name == "posix")
    except OSError as exc:
        reason = f"Python could not be started ({sys.executable}: {exc.strerror or exc})"
        return tuple(BlockRun("crashed", error=reason) for _ in blocks)
    assert proc.stdin is not None and proc.stdout is not None
    # A cancelled run (the live server stopping) kills the blocks at once.
    with cancel.current().child(lambda: cancel.kill_session(proc)):
        return _talk(proc, job, blocks, timeout, log)


def _talk(proc: subprocess.Popen[bytes], job: dict[str, Any], blocks: list[Block],
          timeout: float, log: IO[bytes]) -> tuple[BlockRun, ...]:
    assert proc.stdin is not None and proc.stdout is not None
    events: queue.Queue[str | None] = queue.Queue()
    reader = threading.Thread(target=_read_lines, args=(proc.stdout, events), daemon=True)
    reader.start()
    try:
        proc.stdin.write(json.dumps(job).encode())
        proc.stdin.close()
    except OSError:
        pass  # it died at once: the reader sees the end of the pipe
    runs: dict[int, BlockRun] = {}
    current, finished = 0, False
    deadline = time.monotonic() + timeout
    try:
        while True:
            try:
                line = events.get(timeout=max(0.0, deadline - time.monotonic()))
            except queue.Empty:
                runs[current] = BlockRun("timeout", error=f"still running after {timeout:g} s")
                break
            if line is None:
                runs[current] = BlockRun("crashed", error=_death(proc, log))
                break
            event = json.loads(line)
            if event["event"] == "start":
                current, deadline = int(event["block"]), time.monotonic() + timeout
            elif event["event"] == "done":
                error = event["error"] or {}
                runs[current] = BlockRun("error" if error else "ok", tuple(event["items"]),
                                         str(error.get("message", "")),
                                         int(error.get("line", 0)))
            else:
                finished = True
                break
    finally:
        _stop(proc, finished=finished)
    return tuple(runs.get(i, BlockRun("skipped")) for i in range(len(blocks)))


def _read_lines(stream: IO[bytes], events: queue.Queue[str | None]) -> None:
    for raw in stream:
        events.put(raw.decode("utf-8", "replace"))
    events.put(None)


def _death(proc: subprocess.Popen[bytes], log: IO[bytes]) -> str:
    """What to say when the process ended in the middle of a block."""
    with contextlib.suppress(subprocess.TimeoutExpired):
        proc.wait(_EXIT_WAIT)
    code = proc.returncode
    log.seek(0)
    lines = log.read().decode("utf-8", "replace").strip().splitlines()
    if code is not None and code < 0:
        what = f"the Python process was killed by signal {-code}"
        if -code == signal.SIGKILL:
            what += " (out of memory?)"
    else:
        what = f"the Python process ended (exit status {code})"
    return what + (f": {lines[-1]}" if lines else "")


def _stop(proc: subprocess.Popen[bytes], *, finished: bool) -> None:
    """End the process and whatever it started (its session), and reap it; a process
    that `finished` its blocks gets a moment to exit by itself."""
    if finished:
        with contextlib.suppress(subprocess.TimeoutExpired):
            proc.wait(_EXIT_WAIT)
    if os.name == "posix":
        with contextlib.suppress(OSError):
            os.killpg(proc.pid, signal.SIGKILL)
    if proc.poll() is None:
        proc.kill()
    proc.wait()
    if proc.stdout is not None:
        proc.stdout.close()
