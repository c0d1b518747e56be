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

from blogbuild.diagnostics import BlogbuildError

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

    Two pages may not claim one destination; static files may override theme files.
    Used as a context manager: leaving with an exception removes the temporary folder and
    leaves the previous output untouched.
    """

    def __init__(self, output: Path) -> None:
        self.output = output.resolve()
        self.output.parent.mkdir(parents=True, exist_ok=True)
        _remove_stale(self.output)
        self.tmp = Path(tempfile.mkdtemp(prefix=f".{self.output.name}.tmp-",
                                         dir=self.output.parent))
        self.owners: dict[str, str] = {}
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

    def _target(self, rel: str, owner: str, override: bool) -> Path:
        rel = rel.lstrip("/")
        if not rel or ".." in Path(rel).parts:
            raise BlogbuildError(f"refusing to write outside the output folder: {rel!r}")
        if rel in self.owners and not override:
            raise BlogbuildError(
                f"two outputs want {rel}: {self.owners[rel]} and {owner}; rename one of them"
            )
        self.owners[rel] = owner
        target = self.tmp / rel
        parent = target.parent
        if parent not in self._dirs:
            parent.mkdir(parents=True, exist_ok=True)
            self._dirs.add(parent)
        return target

    def write_text(self, rel: str, text: str, owner: str) -> None:
        self._target(rel, owner, override=False).write_text(text, encoding="utf-8")

    def write_bytes(self, rel: str, data: bytes, owner: str) -> None:
        self._target(rel, owner, override=False).write_bytes(data)

    def copy(self, rel: str, source: Path, owner: str, *, override: bool = False) -> None:
        shutil.copyfile(source, self._target(rel, owner, override))

    def copy_tree(self, source: Path, owner: str, *, prefix: str = "") -> None:
        """Copy a folder's files (static/); later copies override earlier ones."""
        if not source.is_dir():
            return
        for dirpath, dirnames, filenames in os.walk(source):
            dirnames[:] = sorted(d for d in dirnames if not d.startswith("."))
            for name in sorted(filenames):
                if name.startswith(".") or name.endswith("~"):
                    continue
                path = Path(dirpath) / name
                rel = prefix + path.relative_to(source).as_posix()
                self.copy(rel, path, f"{owner}/{rel}", override=True)

    def paths(self) -> set[str]:
        return set(self.owners)

    def commit(self) -> None:
        """Swap the finished folder in; the old output is removed only after the swap."""
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
