"""The search index of a build's update, made in a process of its own.

On a thread, the index and the rest of the run share one GIL: an edit's keys, layout and
chunks, and a new post's hundreds of chunks spliced, staged and linked, took their turns
with the templating, and each short read or write of the index's thread waited for the
templating to let go. In a process of its own the two run on two cores.

The process is started as soon as the build knows it updates an output (`IndexProcess.
begin`, before the engine's own modules load), and handed the site's configuration at
once, so that Python, the index's modules and a Pagefind process load while the build
reads and renders. It is handed the job once the site is assembled (`blogbuild.stages.
search.documents.Doc` for each page: what the key is made of, and where the body is), and the
stage's folder when the writing begins; it writes the index's new files there and answers
with their entries. Before the job, it may be sent the pages of the sources the build has
just rendered (`Ahead`): Pagefind reads them while the build assembles the site, and the
job finds their parts in the result cache.
When it cannot make the index (a body the render store lost, which only the build can
render again, or any failure of its own) it says so, and the build makes the index on a
thread as before. Messages go as blogbuild.childproc frames them, on the child's standard
input and output.
"""

from __future__ import annotations

import contextlib
import logging
import os
import subprocess
import threading
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from blogbuild import cancel, childproc, diskcache, fingerprints
from blogbuild.diagnostics import Diagnostic
from blogbuild.output.entries import FileEntry
from blogbuild.output.writer import Stage

if TYPE_CHECKING:
    from blogbuild.config_model import Config
    from blogbuild.stages.search.indexing import Indexing

log = logging.getLogger(__name__)

#: How long a build waits, once it has committed, for the child to finish what it does
#: after its answer: write the layout, tidy the cache, write the pages' parts it read.
FINISH_SECONDS = 30.0

#: How much lower the child's scheduling priority is than the build's.
NICER = 10

#: The name the engine's context keeps a child started ahead under, for the search stage
#: (`BuildContext.kept`).
KEPT_PROCESS = "search-process"

#: What the child answers: ("done", (the files whose entries the build has as they are,
#: the other entries, the notes, the files it staged)); ("lost", the digests of the bodies
#: it could not read); ("failed", why).
Answer = tuple[str, Any]


class IndexProcess:
    """The child process, from the parent's side."""

    def __init__(self, process: subprocess.Popen[bytes]) -> None:
        self.process = process
        self.writing: threading.Thread | None = None
        self.failed: list[BaseException] = []

    @classmethod
    def begin(cls, config: Config, cache: Path | None) -> IndexProcess | None:
        """Start the child for the site of `config`, its results kept in the folder
        `cache` (the site's cache folder; None: nowhere); None when it cannot start (the
        build makes the index itself)."""
        # The job names the code: a child that runs other code makes no index. Until the
        # job comes it only loads, with time to spare: it runs at a lower priority, so
        # that the build's process keeps its core while a third one (KaTeX's, see
        # blogbuild.runtimes.katex_process) loads on the other.
        try:
            process = childproc.start(
                "blogbuild.stages.search.child",
                # The result cache's folder named: the engine names it for its workers,
                # but this process may start before the engine does.
                diskcache.environment(cache, dict(os.environ)), nicer=NICER)
        except OSError:
            return None
        child = cls(process)
        child.send(config)  # what it needs to start Pagefind
        return child

    def send(self, value: Any) -> bool:
        """Send `value` after what was sent before; False when the child is gone. The bytes
        are written by a thread: the job is hundreds of kB, a pipe holds 64, and the child
        reads it only once its modules are loaded."""
        stdin = self.process.stdin
        assert stdin is not None
        data = childproc.framed(value)
        if not self._written():
            return False
        failed: list[BaseException] = []

        def write() -> None:
            try:
                stdin.write(data)
                stdin.flush()
            except (OSError, ValueError) as exc:  # gone: its answer says so
                failed.append(exc)

        self.failed = failed
        self.writing = threading.Thread(target=write, name="search-job", daemon=True)
        self.writing.start()
        return True

    def _written(self) -> bool:
        """Wait for what is being written; False if it could not be."""
        if self.writing is not None:
            cancel.join(self.writing)
            self.writing = None
            return not self.failed
        return True

    def answer(self) -> Answer:
        """The child's answer; ("failed", why) when it has none."""
        stdout = self.process.stdout
        assert stdout is not None
        with cancel.current().child(self.kill):
            found = childproc.read(stdout)
            # What was being written is done, or failed: a process that answered without
            # the stage (the index as it was) may be gone before the stage was sent.
            self._written()
        cancel.check()
        if not (isinstance(found, tuple) and len(found) == 2 and isinstance(found[0], str)):
            return "failed", f"it answered {type(found).__name__}"
        return found

    def kill(self) -> None:
        with contextlib.suppress(OSError):
            self.process.kill()

    def close(self) -> None:
        """No run took it (the engine is done): end it now."""
        self.end()

    def end(self, grace: float = 0.0) -> None:
        """Close the pipes and wait for the child: killed unless it is done within `grace`
        seconds (what it does after its answer)."""
        if grace and self.process.poll() is None:
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.process.wait(grace)
        if self.process.poll() is None:
            self.kill()
        if self.writing is not None:  # it fails now, if it waited for the child
            cancel.join(self.writing)
            self.writing = None
        childproc.reap(self.process)


@dataclass
class Job:
    """What the child needs to make the index (blogbuild.stages.search.index.Search.stage), after
    the configuration it was sent first."""

    drafts: bool
    docs: list[Any]
    last: dict[str, FileEntry]  # the index's files as the last build left them
    output: Path
    fresh: bool
    code: str = field(default_factory=fingerprints.code_fingerprint)


@dataclass
class Ahead:
    """Pages the child may have Pagefind read before the job names them: those of the
    sources the build has just rendered, as the site will show them (`blogbuild.stages.
    search.documents.Doc`), sent before the site is assembled. `new`: one of them is a source the
    last build did not have (nearly every chunk of the index changes then)."""

    docs: list[Any]
    new: bool
    code: str = field(default_factory=fingerprints.code_fingerprint)


class Offloaded:
    """The search step of one run in the child: what `blogbuild.stages.search.indexing.Indexing`
    is for a thread. When the child cannot make the index, `fallback()` makes it on a
    thread (after `render_again` rendered the bodies the child could not read)."""

    def __init__(self, child: IndexProcess, last: dict[str, FileEntry],
                 fallback: Callable[[], Indexing],
                 render_again: Callable[[set[str]], None]) -> None:
        self.child = child
        self.last = last
        self.fallback = fallback
        self.render_again = render_again
        self.stage: Stage | None = None
        self.done = False  # it answered with the index
        self.handed = False

    def until_reading(self) -> None:
        """Nothing to wait for: the child does not share this process's GIL."""

    def write_into(self, stage: Stage) -> None:
        self.stage = stage
        # Without the spare files (blogbuild.output.writer.Staging): the pages templated
        # meanwhile are the build's path, the index's files are not.
        self.handed = self.child.send(replace(stage.staging, spares=()))

    def result(self) -> tuple[dict[str, FileEntry], list[Diagnostic]]:
        assert self.stage is not None, "write_into comes first"
        answer: Answer = self.child.answer() if self.handed else ("failed", "it stopped")
        kind, value = answer
        if kind != "done":
            self.child.end()
        else:  # it writes the layout and the cache's rows while the build commits
            self.done = True
            kept, changed, notes, staged = value
            self.stage.staged.update(staged)
            entries = {rel: self.last[rel] for rel in kept}
            entries.update(changed)
            return entries, list(notes)
        if kind == "lost":
            self.render_again(set(value))
        else:
            log.debug("the search index's process failed (%s): made here", value)
        indexing = self.fallback()
        indexing.write_into(self.stage)
        return indexing.result()

    def abandon(self) -> None:
        """The run failed (or is done): the child ends (once it has finished what it does
        after a good answer)."""
        self.child.end(FINISH_SECONDS if self.done else 0.0)
