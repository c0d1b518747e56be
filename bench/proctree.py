"""Run a command in a fresh process and measure its wall time and peak memory.

Peak memory is sampled from /proc every ~20 ms while the command runs: the largest sum of
resident sets over the process and all its descendants (render workers, a forkserver,
KaTeX's V8), the process's own high-water mark (VmHWM), and the largest high-water mark of
any one process of the tree. A sum of RSS counts pages that
forked processes share once per process, so it overstates what the tree needs; it is what
a machine must have free in the worst case, and it is measured the same way for every tool.
"""

from __future__ import annotations

import os
import subprocess
import threading
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

PAGE = os.sysconf("SC_PAGE_SIZE")
INTERVAL = 0.02
MIB = 1024 * 1024


@dataclass(frozen=True)
class Measure:
    """One run: wall seconds, peak RSS summed over the process tree, the parent's own peak,
    the largest peak of any one process of the tree, and what the command printed to
    stderr."""

    wall: float
    tree_peak: int  # bytes
    own_peak: int  # bytes
    stderr: str = ""
    largest_peak: int = 0  # bytes


class CommandFailed(RuntimeError):
    """The measured command exited non-zero (its stderr tail is the message)."""


def children(pid: int) -> list[int]:
    """The direct children of `pid`, from every thread's `children` list (Linux ≥ 3.5)."""
    found: list[int] = []
    try:
        tasks = os.listdir(f"/proc/{pid}/task")
    except OSError:  # the process has exited
        return found
    for tid in tasks:
        try:
            text = Path(f"/proc/{pid}/task/{tid}/children").read_text()
        except OSError:
            continue
        found.extend(int(child) for child in text.split())
    return found


def tree(pid: int) -> list[int]:
    """`pid` and all its descendants alive at this moment."""
    todo, seen = [pid], []
    while todo:
        current = todo.pop()
        seen.append(current)
        todo.extend(children(current))
    return seen


def rss(pid: int) -> int:
    """Resident bytes of one process (0 once it has exited)."""
    try:
        fields = Path(f"/proc/{pid}/statm").read_text().split()
    except OSError:
        return 0
    return int(fields[1]) * PAGE


def high_water(pid: int) -> int:
    """The process's own peak resident bytes so far (VmHWM), 0 once it has exited."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return 0
    for line in status.splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) * 1024
    return 0


class Sampler(threading.Thread):
    """Polls a process tree until stopped; keeps the largest tree sum, the parent's own
    high-water mark and the largest of any one process's.

    VmHWM only grows, so a process's peak misses at most its growth in the last interval
    before it exits (a zombie has no memory figures left to read).
    """

    def __init__(self, pid: int) -> None:
        super().__init__(name=f"sampler-{pid}", daemon=True)
        self.pid = pid
        self.tree_peak = 0
        self.own_peak = 0
        self.largest_peak = 0
        self._done = threading.Event()

    def sample(self) -> None:
        self.own_peak = max(self.own_peak, high_water(self.pid))
        # The tree holds the parent, so its peak is at least the parent's, which VmHWM
        # may have caught between two samples.
        pids = tree(self.pid)
        total = sum(rss(p) for p in pids)
        self.tree_peak = max(self.tree_peak, total, self.own_peak)
        self.largest_peak = max(self.largest_peak, self.own_peak,
                                *(high_water(p) for p in pids[1:]))

    def run(self) -> None:
        while not self._done.is_set():
            self.sample()
            self._done.wait(INTERVAL)

    def stop(self) -> None:
        self._done.set()
        self.join()


def measure(argv: Sequence[str], *, cwd: Path, env: Mapping[str, str] | None = None) -> Measure:
    """Run `argv` to completion, sampling its process tree; raise CommandFailed on failure."""
    start = time.perf_counter()
    proc = subprocess.Popen(list(argv), cwd=cwd, env=None if env is None else dict(env),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    sampler = Sampler(proc.pid)
    sampler.start()
    try:
        _, err = proc.communicate()
    finally:
        wall = time.perf_counter() - start
        sampler.stop()
    if proc.returncode != 0:
        tail = err.decode(errors="replace")[-3000:]
        raise CommandFailed(f"{' '.join(argv)} exited {proc.returncode}:\n{tail}")
    return Measure(wall, sampler.tree_peak, sampler.own_peak, err.decode(errors="replace"),
                   sampler.largest_peak)


def run_quietly(argv: Sequence[str], *, cwd: Path, env: Mapping[str, str] | None = None) -> None:
    """Run an untimed step (a restoring rebuild); raise CommandFailed on failure."""
    proc = subprocess.run(list(argv), cwd=cwd, env=None if env is None else dict(env),
                          capture_output=True)
    if proc.returncode != 0:
        tail = proc.stderr.decode(errors="replace")[-3000:]
        raise CommandFailed(f"{' '.join(argv)} exited {proc.returncode}:\n{tail}")
