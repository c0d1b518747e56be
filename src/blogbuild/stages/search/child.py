"""The search index's process (blogbuild.stages.search.process): `python -m
blogbuild.stages.search.child` reads the site's configuration, the pages to read ahead,
the job and the stage's folder from its standard input, and answers on its output."""

from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from blogbuild import cancel, childproc, diskcache, fingerprints
from blogbuild.output.entries import FileEntry
from blogbuild.output.writer import Staging
from blogbuild.stages.search.documents import index_programs
from blogbuild.stages.search.index import Search
from blogbuild.stages.search.process import Ahead, Answer, Job
from blogbuild.stages.search.reading import start_pagefind


@dataclass
class _ChildStage:
    """The stage as the child sees it: the folder the parent's stage writes into."""

    staging: Staging
    staged: set[str] = field(default_factory=set)

    def write_bytes(self, rel: str, data: bytes) -> None:
        self.staging.place(rel).write_bytes(data)
        self.staged.add(rel)

    def link(self, rel: str, source: Path) -> None:
        self.staging.link(rel, source)
        self.staged.add(rel)


class _Lost(Exception):
    def __init__(self, digests: set[str]) -> None:
        super().__init__()
        self.digests = digests


def _shape(entry: FileEntry) -> tuple[Any, ...]:
    return entry.source, entry.stamp, entry.out.digest, entry.out.size, entry.out.mtime_ns


def serve(inp: IO[bytes], out: IO[bytes]) -> None:
    """The child: the site's configuration, one job, its stage, one answer."""
    from blogbuild.config_model import Config
    from blogbuild.search.layout import Layout  # and with it the index's other modules

    config = childproc.read(inp)
    if not isinstance(config, Config):
        return
    # While the build reads and renders: what needs no job. Pagefind first: its program
    # loads on the other core while this one reads the last layout.
    search = Search(config, remember=False, spare=start_pagefind(config))
    try:
        code = fingerprints.code_fingerprint()
        search.layout = Layout.load()
        _serve(inp, out, search, code)
    finally:
        search.close_spare()


def _serve(inp: IO[bytes], out: IO[bytes], search: Search, code: str) -> None:
    """The pages to read ahead, the job and the stage, for `search` (the layout loaded), in
    this process of `code`."""
    programs = index_programs()  # what makes the index: for the pages ahead and the job
    job = childproc.read(inp)
    while isinstance(job, Ahead):  # Pagefind reads them while the build assembles the site
        if job.code == code:
            search.read_ahead(job.docs, new=job.new, programs=programs)
        job = childproc.read(inp)
    if not isinstance(job, Job):
        return
    if job.code != code:
        childproc.write(out, ("failed", "it runs other code"))
        return
    search.drafts = job.drafts
    stage: _ChildStage | None = None

    def staged() -> _ChildStage:
        nonlocal stage
        if stage is None:
            staging = childproc.read(inp)
            if not isinstance(staging, Staging):  # the build failed: nothing to write
                raise cancel.Cancelled
            stage = _ChildStage(staging)
        return stage

    def lost(digests: set[str]) -> None:
        raise _Lost(digests)

    before = {rel: _shape(entry) for rel, entry in job.last.items()}
    answer: Answer
    later: list[Callable[[], None]] = []  # after the answer: the build commits meanwhile
    try:
        entries, notes = search.stage(staged, job.docs, job.last, job.output, job.fresh,
                                      lost, later=later, programs=programs)
        # The entries the build has already as they are go back by name: the build keeps
        # its own objects (its state compares them by identity first).
        kept = {rel for rel, entry in entries.items()
                if job.last.get(rel) is entry and before[rel] == _shape(entry)}
        changed = {rel: entry for rel, entry in entries.items() if rel not in kept}
        answer = "done", (sorted(kept), changed, notes, sorted(stage.staged) if stage else [])
    except _Lost as exc:
        answer = "lost", exc.digests
    except cancel.Cancelled:
        return
    except Exception as exc:  # the build makes the index itself, and says why
        answer = "failed", f"{type(exc).__name__}: {exc}"
        later.clear()
    childproc.write(out, answer)
    try:
        for then in later:
            then()
    finally:
        search.settle_ahead()
        diskcache.close()  # the pages' parts it read: the build waits for this


if __name__ == "__main__":
    # By the module's own name: the job's classes are pickled as its, not as __main__'s.
    from blogbuild.stages.search import child

    child.serve(sys.stdin.buffer, sys.stdout.buffer)
    # The build waits for this process to end: not for the interpreter to take apart,
    # one by one, the index it made. What needs closing is closed first.
    from blogbuild.perprocess import close_all, end_now

    close_all()
    end_now(0)
