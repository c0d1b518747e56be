"""The only code that writes the output folder: build into a temporary folder, then swap it in."""

from __future__ import annotations

import ctypes
import importlib
import os
import shutil
import sys
import tempfile
import threading
from pathlib import Path
from types import TracebackType

from blogbuild.claims import THEME, Claims, Owner
from blogbuild.content.walk import shown, walk_files
from blogbuild.diagnostics import BlogbuildError, Diagnostic
from blogbuild.outdir import MARKER, MARKER_TEXT, is_previous_output

#: need -> (module, folder under the output). The module's ``site_files()`` returns
#: ``[(source Path, path relative to that folder), …]``; copied only when a page has the need.
BUNDLES: dict[str, tuple[str, str]] = {
    "math": ("blogbuild.katex", "vendor/katex"),
    "runnable": ("blogbuild.pyodide", "vendor/pyodide"),
}


def bundle_files(need: str) -> list[tuple[Path, str]]:
    """Files (source, output-relative path) of the vendored bundle for `need`, if any."""
    if need not in BUNDLES:
        return []
    module_name, folder = BUNDLES[need]
    module = importlib.import_module(module_name)
    return [(src, f"{folder}/{rel}") for src, rel in module.site_files()]


class Writer:
    """Collects output files in a fresh temporary folder beside `output`; `commit()` swaps.

    Every path is claimed first (`blogbuild.claims`): two owners of one path are an error
    naming both, and the colliding file is not written; site static files may replace
    theme files. Used as a context manager: leaving with an exception removes the temporary
    folder and leaves the previous output untouched.
    """

    def __init__(self, output: Path) -> None:
        self.output = output.resolve()
        self.output.parent.mkdir(parents=True, exist_ok=True)
        _remove_stale(self.output)
        self.tmp = Path(tempfile.mkdtemp(prefix=f".{self.output.name}.tmp-",
                                         dir=self.output.parent))
        (self.tmp / MARKER).write_text(MARKER_TEXT, encoding="utf-8")
        self.claims = Claims()
        self.claims.claim(MARKER, Owner("blogbuild's marker file", ""))
        self._dirs: set[Path] = set()
        self.committed = False

    def __enter__(self) -> Writer:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if not self.committed:
            shutil.rmtree(self.tmp, ignore_errors=True)

    @property
    def owners(self) -> dict[str, Owner]:
        return self.claims.files

    @property
    def problems(self) -> list[Diagnostic]:
        """Collisions and unsafe paths found so far (error diagnostics)."""
        return self.claims.problems

    def claim(self, rel: str, owner: Owner) -> bool:
        """Reserve `rel` for `owner` before writing it (pages are claimed before any is
        rendered, so every collision is reported at once)."""
        return self.claims.claim(rel, owner)

    def _target(self, rel: str, owner: Owner) -> Path | None:
        if not self.claims.claim(rel, owner):
            return None
        target = self.tmp / rel
        parent = target.parent
        if parent not in self._dirs:
            parent.mkdir(parents=True, exist_ok=True)
            self._dirs.add(parent)
        return target

    def write_text(self, rel: str, text: str, owner: Owner) -> None:
        target = self._target(rel, owner)
        if target is not None:
            target.write_text(text, encoding="utf-8")

    def write_bytes(self, rel: str, data: bytes, owner: Owner) -> None:
        target = self._target(rel, owner)
        if target is not None:
            target.write_bytes(data)

    def copy(self, rel: str, source: Path, owner: Owner) -> None:
        target = self._target(rel, owner)
        if target is None:
            return
        try:
            shutil.copyfile(source, target)
        except OSError as exc:
            raise BlogbuildError(f"cannot copy {source}: {exc.strerror or exc}",
                                 file=owner.file or None) from None

    def copy_tree(self, source: Path, root: Path, *, rank: int,
                  label: str = "") -> list[Diagnostic]:
        """Copy a static folder's files; returns warnings about entries it skipped.

        `root` is the folder symbolic links may point into and messages are relative to;
        `label` is put before the shown path (the theme's files have no site path).
        """
        allowed = [root.resolve(), source.resolve()]
        files, problems = walk_files(source, allowed, root=root, skip=_hidden)
        for path in files:
            rel = path.relative_to(source).as_posix()
            where = shown(path, root)
            # The theme's files are no file of the site: report collisions at the other one.
            self.copy(rel, path, Owner(f"{label}{where}", "" if rank == THEME else where,
                                       rank=rank))
        return problems

    def paths(self) -> set[str]:
        return set(self.claims.files)

    def commit(self) -> None:
        """Swap the finished folder in; the old output is removed only after the swap."""
        if not is_previous_output(self.output):
            raise BlogbuildError(f"{self.output} was not made by blogbuild (it has no {MARKER} "
                                 "file): refusing to replace it; empty or remove it yourself")
        os.chmod(self.tmp, 0o755)
        if self.output.is_dir() and _exchange(self.tmp, self.output):
            # One atomic step: a server reading the output never sees it missing.
            self.committed = True
            previous = self.tmp.with_name(self.tmp.name.replace(".tmp-", ".old-"))
            os.replace(self.tmp, previous)
            _background_rmtree(previous)
            return
        old: Path | None = None
        if self.output.exists():
            old = Path(tempfile.mkdtemp(prefix=f".{self.output.name}.old-",
                                        dir=self.output.parent))
            old.rmdir()
            os.replace(self.output, old)
        os.replace(self.tmp, self.output)
        self.committed = True
        if old is not None:
            # Deleting thousands of files takes long on some file systems: do it beside the
            # rest of the work; whatever is left is removed by the next build.
            _background_rmtree(old)


def _hidden(name: str) -> bool:
    return name.startswith(".") or name.endswith("~")


_REMOVALS: list[threading.Thread] = []
_RENAME_EXCHANGE = 2  # linux/fs.h


def _exchange(a: Path, b: Path) -> bool:
    """Atomically swap two folders (Linux renameat2); False where that is not available."""
    if sys.platform != "linux":
        return False
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        renameat2 = libc.renameat2
    except (OSError, AttributeError):
        return False
    at_fdcwd = -100
    result = renameat2(at_fdcwd, os.fsencode(a), at_fdcwd, os.fsencode(b), _RENAME_EXCHANGE)
    return bool(result == 0)


def _background_rmtree(path: Path) -> None:
    thread = threading.Thread(target=shutil.rmtree, args=(path, True), daemon=True,
                              name=f"rm {path.name}")
    thread.start()
    _REMOVALS.append(thread)


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
