"""Files written whole or not at all, and the digest that names their bytes: the one place
that writes under a temporary name and renames into place.

Readers of a file another process may be writing (a second build sharing the cache, a web
server reading the output) see the old bytes or the new, never a part: every helper here
writes beside the target under a unique name and renames over it, which POSIX makes
atomic. Nothing here knows what the files are for.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import os
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Any


def file_digest(data: bytes) -> bytes:
    """What names a file's bytes in the build's records (16 bytes of BLAKE2b)."""
    return hashlib.blake2b(data, digest_size=16).digest()


def read_at_most(path: Path, limit: int) -> bytes | None:
    """The bytes of the file `path`, or None when it holds more than `limit` (read no
    further: a settings file that is not one may be huge). Raises OSError."""
    with path.open("rb") as handle:
        data = handle.read(limit + 1)
    return data if len(data) <= limit else None


def write_atomically(path: Path, data: bytes, *, mode: int | None = None) -> None:
    """`data` at `path`, whole or not at all: a unique temporary file beside it, renamed
    into place (removed if that fails); `mode`: its permissions (else mkstemp's 0o600).
    Raises OSError."""
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
        if mode is not None:
            os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def link_atomically(source: Path, path: Path) -> bool:
    """`path` made another link to the file `source`, replacing what is there; False when
    it cannot be (another file system, a file system without links)."""
    tmp = path.with_name(f".{path.name}.link")
    try:
        tmp.unlink(missing_ok=True)
        os.link(source, tmp)
        os.replace(tmp, path)
    except OSError:
        with contextlib.suppress(OSError):
            tmp.unlink()
        return False
    return True


def replace_folder(folder: Path, files: dict[str, bytes]) -> None:
    """`folder` made anew with `files` (name -> bytes), through a temporary folder renamed
    into place: two processes may make the same one, and a reader sees all of it or none.
    Raises OSError (the temporary folder is removed)."""
    tmp = folder.with_name(f"{folder.name}.{os.getpid()}.tmp")
    try:
        shutil.rmtree(tmp, ignore_errors=True)
        tmp.mkdir(parents=True)
        for name, content in sorted(files.items()):
            (tmp / name).write_bytes(content)
        shutil.rmtree(folder, ignore_errors=True)
        os.replace(tmp, folder)
    except OSError:
        shutil.rmtree(tmp, ignore_errors=True)
        raise


def folder_beside(path: Path, kind: str) -> Path:
    """A new, empty folder `.NAME.KIND-XXXX` beside `path` (on its file system, so that
    what is made there can be renamed into place)."""
    return Path(tempfile.mkdtemp(prefix=f".{path.name}.{kind}-", dir=path.parent))


def put_in_place(source: Path, target: Path) -> None:
    """Rename `source` over `target` in one step (a reader sees one or the other)."""
    os.replace(source, target)


_RENAME_EXCHANGE = 2  # linux/fs.h


def exchange(a: Path, b: Path) -> bool:
    """Atomically swap two paths, files or folders (Linux renameat2); False where that
    is not available."""
    renameat2 = _renameat2()
    if renameat2 is None:
        return False
    at_fdcwd = -100
    result = renameat2(at_fdcwd, os.fsencode(a), at_fdcwd, os.fsencode(b), _RENAME_EXCHANGE)
    return bool(result == 0)


@functools.cache
def _renameat2() -> Any:
    if sys.platform != "linux":
        return None
    import ctypes  # here: most builds swap nothing, and the module is a millisecond to load

    try:
        return ctypes.CDLL(None, use_errno=True).renameat2
    except (OSError, AttributeError):
        return None
