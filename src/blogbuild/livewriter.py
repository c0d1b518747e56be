"""Single-file writes into an existing output folder, each atomic (the live server's writer)."""

from __future__ import annotations

import hashlib
import os
import shutil
import tempfile
from pathlib import Path

from blogbuild.diagnostics import BlogbuildError


def digest(data: bytes) -> bytes:
    return hashlib.blake2b(data, digest_size=16).digest()


class LiveWriter:
    """Writes, copies and removes files under `output`; readers see the old or the new file.

    The full build goes through `blogbuild.writer.Writer` (temporary folder + swap); between
    full builds the live server changes a few files in place with this class: each file is
    written beside its destination and renamed over it with os.replace.
    """

    def __init__(self, output: Path) -> None:
        self.output = output.resolve()

    def _target(self, rel: str) -> Path:
        rel = rel.lstrip("/")
        if not rel or ".." in Path(rel).parts or "\\" in rel:
            raise BlogbuildError(f"refusing to write outside the output folder: {rel!r}")
        return self.output / rel

    def write_bytes(self, rel: str, data: bytes) -> None:
        target = self._target(rel)
        target.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=".blogbuild-", suffix=".tmp")
        try:
            with os.fdopen(fd, "wb") as fh:
                fh.write(data)
            os.chmod(tmp, 0o644)
            os.replace(tmp, target)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise

    def copy(self, rel: str, source: Path) -> bool:
        """Copy `source` to `rel` unless the bytes there are the same; True when written."""
        data = source.read_bytes()
        target = self._target(rel)
        try:
            if target.stat().st_size == len(data) and target.read_bytes() == data:
                return False
        except OSError:
            pass
        self.write_bytes(rel, data)
        return True

    def remove(self, rel: str) -> None:
        target = self._target(rel)
        if target.is_dir() and not target.is_symlink():
            shutil.rmtree(target, ignore_errors=True)
        else:
            target.unlink(missing_ok=True)
        parent = target.parent
        while parent != self.output and parent.is_dir():  # drop folders left empty
            try:
                parent.rmdir()
            except OSError:
                break
            parent = parent.parent
