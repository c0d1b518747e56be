"""The only code that writes the output folder: stage new files beside it, then commit."""

from __future__ import annotations

import hashlib
import importlib
import os
import shutil
import stat
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType

from blogbuild.diagnostics import BlogbuildError
from blogbuild.fileio import exchange, folder_beside, put_in_place, write_atomically
from blogbuild.output.entries import files_under
from blogbuild.output.outdir import MARKER, MARKER_TEXT, is_previous_output

#: need -> (module, folder under the output). The module's ``site_files()`` (or the function
#: named after a colon, "module:function") returns ``[(source Path, path relative to that
#: folder), …]``; copied only when a page has the need.
BUNDLES: dict[str, tuple[str, str]] = {
    "math": ("blogbuild.runtimes.katex", "vendor/katex"),
    "runnable": ("blogbuild.runtimes.pyodide", "vendor/pyodide"),
    "mermaid": ("blogbuild.diagrams.fallback", "vendor/mermaid"),
    "chart-vega": ("blogbuild.charts.vendored:vega_files", "vendor/vega"),
    "chart-plotly": ("blogbuild.charts.vendored:plotly_files", "vendor/plotly"),
    "chart-bokeh": ("blogbuild.charts.vendored:bokeh_files", "vendor/bokeh"),
}


def bundle_files(need: str) -> list[tuple[Path, str]]:
    """Files (source, output-relative path) of the vendored bundle for `need`, if any."""
    if need not in BUNDLES:
        return []
    name, folder = BUNDLES[need]
    module_name, _, function = name.partition(":")
    site_files = getattr(importlib.import_module(module_name), function or "site_files")
    return [(src, f"{folder}/{rel}") for src, rel in site_files()]


@dataclass(frozen=True)
class Staging:
    """Where a staged file is written (what a worker process is given). A fresh build's
    staging folder becomes the output, so it holds the site's tree; an update's holds its
    files side by side under names made from their paths: the folders of a tree would be
    made and removed again for a handful of files.

    A file placed in an update's folder takes over one of the `spares` in `spare_dir` (the
    output's old files, kept by earlier updates on the same file system) while any is
    left: a file written over costs less than a new one, and on some file systems (ext4
    without a journal, soon after many files were removed) a new one costs up to a
    millisecond. Processes that place files at once each take a spare by renaming it, so
    no two share one."""

    dir: Path
    tree: bool
    spare_dir: Path | None = None
    spares: tuple[str, ...] = ()

    def path(self, rel: str) -> Path:
        if self.tree:
            return self.dir / rel
        return self.dir / hashlib.blake2b(rel.encode(), digest_size=16).hexdigest()

    def place(self, rel: str) -> Path:
        """`path(rel)`, with its folder made, or with a spare file there to write over."""
        target = self.path(rel)
        if self.tree:
            target.parent.mkdir(parents=True, exist_ok=True)
        elif self.spares and not os.path.lexists(target):
            _take_spare(self, target)
        return target

    def link(self, rel: str, source: Path) -> None:
        """Stage `rel` as another link to the file `source` (on the same file system)."""
        target = self.path(rel)
        if self.tree:
            target.parent.mkdir(parents=True, exist_ok=True)
        os.link(source, target)


#: By staging folder (this build's only): where this process began trying the spares, and
#: how many it has tried. Processes begin at different places, so they seldom try the same.
_SPARES_TRIED: dict[Path, list[int]] = {}


def _take_spare(staging: Staging, target: Path) -> None:
    spares, folder = staging.spares, staging.spare_dir
    assert folder is not None
    tried = _SPARES_TRIED.get(staging.dir)
    if tried is None:  # this process's first file of this build
        _SPARES_TRIED.clear()
        tried = _SPARES_TRIED[staging.dir] = [os.getpid() * 7919 % len(spares), 0]
    while tried[1] < len(spares):
        name = spares[(tried[0] + tried[1]) % len(spares)]
        tried[1] += 1
        try:
            put_in_place(folder / name, target)
            return
        except FileNotFoundError:  # another process took it
            continue
        except OSError:  # another file system: none will do
            tried[1] = len(spares)
            return


def _names(folder: Path | None) -> tuple[str, ...]:
    if folder is None:
        return ()
    try:
        return tuple(os.listdir(folder))
    except OSError:
        return ()


#: Spare files kept between updates, at most (emptied: an inode each).
MAX_SPARES = 4096


class Stage:
    """A staging folder beside `output` that collects this build's new and changed files.

    Workers write pages into it (`staging`); the build copies files into it. `commit` then
    moves them into the output folder and removes what the site no longer has; leaving
    without a commit (an error anywhere) removes the staging folder and the output stays
    as it was. A `fresh` stage holds the whole site and is swapped in at once.

    An update given a `spares` folder (in the cache; of use on the output's file system)
    writes its files over the spare files there (`Staging`), and commits a file by
    swapping it with the output's where it can: the output's old file, emptied, is then a
    spare for the next update. An output file with other links (the search index's chunks
    share theirs with the cache) is replaced, never swapped.
    """

    def __init__(self, output: Path, *, fresh: bool, spares: Path | None = None) -> None:
        self.output = output.resolve()
        self.output.parent.mkdir(parents=True, exist_ok=True)
        _remove_stale(self.output)
        self.dir = folder_beside(self.output, "tmp")
        self.fresh = fresh
        self.spares = None if fresh else spares
        self.staging = Staging(self.dir, tree=fresh, spare_dir=self.spares,
                               spares=_names(self.spares))
        self.staged: set[str] = set()
        self.moved: set[str] = set()  # staged files already put in place (`publish_now`)
        self.committed = False
        self._folders: set[Path] = set()  # folders of the output known to be there
        #: The output's old files, now in the staging folder, and their inode numbers.
        self._swapped: list[tuple[Path, int]] = []
        self.tidying: threading.Thread | None = None  # after the commit (`finish`)

    def __enter__(self) -> Stage:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if not self.committed:
            shutil.rmtree(self.dir, ignore_errors=True)

    def _target(self, rel: str) -> Path:
        target = self.staging.place(rel)
        self.staged.add(rel)
        return target

    def write_bytes(self, rel: str, data: bytes) -> None:
        self._target(rel).write_bytes(data)

    def link(self, rel: str, source: Path) -> None:
        """Stage `rel` as another link to the file `source`; OSError where it cannot be."""
        self.staging.link(rel, source)
        self.staged.add(rel)

    def copy(self, rel: str, source: Path, *, shown: str = "") -> None:
        try:
            shutil.copyfile(source, self._target(rel))
        except OSError as exc:
            raise BlogbuildError(f"cannot copy {source}: {exc.strerror or exc}",
                                 file=shown or None) from None

    def publish_now(self, rels: set[str]) -> set[str]:
        """Put these staged files in place before the rest (the live server shows an edited
        page before its listings are done); only into an existing output. Returns them."""
        if self.fresh or not is_previous_output(self.output) or not self.output.is_dir():
            return set()
        done = rels & self.staged
        for rel in sorted(done):
            self._put(rel)
        self.staged -= done
        self.moved |= done
        return done

    def _put(self, rel: str) -> None:
        target = self.output / rel
        staged = self.staging.path(rel)
        try:
            st: os.stat_result | None = os.lstat(target)
        except OSError:
            st = None
        if st is not None and stat.S_ISDIR(st.st_mode):
            shutil.rmtree(target)  # a folder the site had where a file is now
        elif (st is not None and self.spares is not None and stat.S_ISREG(st.st_mode)
              and st.st_nlink == 1 and exchange(staged, target)):
            self._swapped.append((staged, st.st_ino))
            return
        if target.parent not in self._folders:
            target.parent.mkdir(parents=True, exist_ok=True)
            self._folders.add(target.parent)
        put_in_place(staged, target)

    def commit(self, keep: set[str], present: set[str] | None = None
               ) -> tuple[set[str], set[str]]:
        """Put the staged files in place; remove every other file not in `keep` (the paths
        the site has now). `present`: the files of the output, when the caller listed them
        since it last wrote there. Returns (paths written, paths removed)."""
        if not is_previous_output(self.output):
            raise BlogbuildError(f"{self.output} was not made by blogbuild (it has no {MARKER} "
                                 "file): refusing to replace it; empty or remove it yourself")
        if self.fresh:
            self._swap()
            return set(self.staged), set()
        self.output.mkdir(exist_ok=True)  # removed since the run began: the next one sees it
        removed = {rel for rel in (files_under(self.output) if present is None else present)
                   if rel not in keep and rel != MARKER}
        if not (self.output / MARKER).is_file():
            (self.output / MARKER).write_text(MARKER_TEXT, encoding="utf-8")
        for rel in sorted(self.staged):
            self._put(rel)
        _remove_files(self.output, sorted(removed))
        self.committed = True
        # The output is complete. What is left (the output's old files, emptied, become
        # spares; the staging folder goes) happens while the build saves its state:
        # `finish` waits for it.
        self.tidying = _in_background(self._tidy, f"rm {self.dir.name}")
        return self.staged | self.moved, removed

    def _tidy(self) -> None:
        self._keep_spares()
        shutil.rmtree(self.dir, ignore_errors=True)

    def finish(self) -> None:
        """Wait for what the commit left to do."""
        if self.tidying is not None:
            self.tidying.join()
            self.tidying = None

    def _keep_spares(self) -> None:
        """Empty the output's old files and move them to the spares folder, up to
        `MAX_SPARES` spares in all (the others go with the staging folder). A spare is
        named by its inode's number: no two files of the folder have the same."""
        if self.spares is None or not self._swapped:
            return
        try:
            self.spares.mkdir(parents=True, exist_ok=True)
            room = MAX_SPARES - len(os.listdir(self.spares))
            for path, inode in self._swapped[:max(0, room)]:
                os.truncate(path, 0)
                put_in_place(path, self.spares / str(inode))
        except OSError:
            return

    def _swap(self) -> None:
        """Swap the finished folder in; the old output is removed only after the swap."""
        (self.dir / MARKER).write_text(MARKER_TEXT, encoding="utf-8")
        os.chmod(self.dir, 0o755)
        if self.output.is_dir() and exchange(self.dir, self.output):
            # One atomic step: a server reading the output never sees it missing.
            self.committed = True
            previous = self.dir.parent / self.dir.name.replace(".tmp-", ".old-")
            put_in_place(self.dir, previous)
            _background_rmtree(previous)
            return
        old: Path | None = None
        if self.output.exists():
            old = folder_beside(self.output, "old")
            old.rmdir()
            put_in_place(self.output, old)
        put_in_place(self.dir, self.output)
        self.committed = True
        if old is not None:
            # Deleting thousands of files takes long on some file systems: do it beside the
            # rest of the work; whatever is left is removed by the next build.
            _background_rmtree(old)


def write_now(output: Path, files: dict[str, bytes]) -> set[str]:
    """Write a few files straight into an output folder blogbuild made, each atomically,
    outside a build's stage: the live server's page for a first build that failed, and
    the page of an edited post ahead of its run. The next run replaces them."""
    output.mkdir(parents=True, exist_ok=True)
    if not is_previous_output(output):
        return set()
    marker = output / MARKER
    if not marker.is_file():
        marker.write_text(MARKER_TEXT, encoding="utf-8")
    for rel, data in files.items():
        write_atomically(output / rel, data, mode=0o644)
    return set(files)


def _remove_files(output: Path, rels: list[str]) -> None:
    """Remove files of the output, then the folders they leave empty (each folder once:
    the old chunks of a search index are hundreds of files in one folder)."""
    folders = set()
    for rel in rels:
        target = output / rel
        target.unlink(missing_ok=True)
        folders.add(target.parent)
    for folder in sorted(folders, key=lambda f: len(f.parts), reverse=True):
        while folder != output:
            try:
                folder.rmdir()
            except OSError:  # not empty, or gone with a child's
                break
            folder = folder.parent


_REMOVALS: list[threading.Thread] = []


def _background_rmtree(path: Path) -> None:
    _in_background(lambda: shutil.rmtree(path, True), f"rm {path.name}")


def _in_background(work: Callable[[], None], name: str) -> threading.Thread:
    """Run `work` on a thread that `wait_for_cleanup` waits for (`name`: "rm " and the
    folder it removes, which `_remove_stale` leaves alone meanwhile)."""
    thread = threading.Thread(target=work, daemon=True, name=name)
    thread.start()
    _REMOVALS.append(thread)
    return thread


def _remove_stale(output: Path) -> None:
    """Start removing folders that earlier builds left beside `output` (crashes, old trees)."""
    import time

    busy = {t.name for t in _REMOVALS if t.is_alive()}
    for pattern in (f".{output.name}.old-*", f".{output.name}.tmp-*"):
        for stale in output.parent.glob(pattern):
            if not stale.is_dir() or f"rm {stale.name}" in busy:
                continue
            # A temporary folder may belong to a build running right now: leave young ones.
            if ".tmp-" in stale.name and time.time() - stale.stat().st_mtime < 3600:
                continue
            _background_rmtree(stale)


def wait_for_cleanup(timeout: float | None = None) -> None:
    """Wait until old output folders are deleted (the CLI calls this before it exits)."""
    for thread in list(_REMOVALS):
        thread.join(timeout)
    _REMOVALS[:] = [t for t in _REMOVALS if t.is_alive()]
