"""Write an import's posts and files under content/ (a Quarto project's under the site's
folder): all checked first, nothing overwritten unless asked, nothing ever outside."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from blogbuild.diagnostics import BlogbuildError
from blogbuild.importers.meta import emit
from blogbuild.importers.model import Converted
from blogbuild.urls import unsafe_path


def text_of(post: Converted) -> str:
    """The file an imported post becomes."""
    return emit(post.meta) + "\n" + post.body


def conflicts(content: Path, posts: list[Converted], files: dict[Path, str], *,
              force: bool) -> list[str]:
    """The files a write would overwrite (none with `force`, but for identical copies)."""
    found = []
    for rel in [*(post.dest for post in posts), *files.values()]:
        reason = unsafe_path(rel)
        if reason is not None:
            raise BlogbuildError(f"refusing to write {rel}: {reason}")
        path = content / rel
        _check_inside(path, content)
        if (path.exists() or path.is_symlink()) and not force \
                and not _same_file(path, rel, files):
            found.append(f"{path} exists")
    return found


def write_all(content: Path, posts: list[Converted], files: dict[Path, str]) -> None:
    """Write every post and copy every file (`conflicts` was asked first)."""
    written: dict[str, Path | bytes] = {post.dest: text_of(post).encode("utf-8")
                                        for post in posts}
    written.update((rel, source) for source, rel in files.items())
    write_files(content, written)


def _check_inside(path: Path, content: Path) -> None:
    """Refuse a destination whose folder leads outside content/ (a symbolic link)."""
    real = content.resolve()
    parent = path.parent
    while not parent.exists() and parent != content:
        parent = parent.parent
    if not parent.resolve().is_relative_to(real):
        raise BlogbuildError(f"refusing to write {path}: its folder leads outside "
                             f"{content} (a symbolic link?)")


def _same_file(path: Path, rel: str, files: dict[Path, str]) -> bool:
    """A file the import would copy again with the same bytes is no conflict."""
    source = next((s for s, r in files.items() if r == rel), None)
    return source is not None and _same_bytes(source, path)


def _same_bytes(source: Path, path: Path) -> bool:
    try:
        if path.is_symlink() or source.stat().st_size != path.stat().st_size:
            return False
        return source.read_bytes() == path.read_bytes()
    except OSError:
        return False


def _replace(path: Path) -> None:
    """Make way for a new file at `path`: a link is removed, never written through."""
    path.parent.mkdir(parents=True, exist_ok=True)
    if path.is_symlink() or path.exists():
        os.unlink(path)


def _put(path: Path, data: bytes) -> None:
    _replace(path)
    with open(path, "xb") as fh:
        fh.write(data)


def file_conflicts(root: Path, files: dict[str, Path | bytes], *, force: bool) -> list[str]:
    """For a write of whole files under `root` (a relative path -> the file to copy or the
    bytes to write): the files it would overwrite (none with `force`) whose bytes differ."""
    found = []
    for rel, what in files.items():
        reason = unsafe_path(rel)
        if reason is not None:
            raise BlogbuildError(f"refusing to write {rel}: {reason}")
        path = root / rel
        _check_inside(path, root)
        if (path.exists() or path.is_symlink()) and not force and not (
                _same_bytes(what, path) if isinstance(what, Path)
                else not path.is_symlink() and path.is_file() and path.read_bytes() == what):
            found.append(f"{path} exists")
    return found


def write_files(root: Path, files: dict[str, Path | bytes]) -> None:
    """Copy or write every file under `root` (`file_conflicts` was asked first)."""
    path = root
    try:
        for rel, what in files.items():
            path = root / rel
            if isinstance(what, bytes):
                _put(path, what)
            elif not _same_bytes(what, path):
                _replace(path)
                shutil.copyfile(what, path)
    except OSError as exc:
        raise BlogbuildError(f"cannot write {path}: {exc.strerror or exc}; the files before "
                             "it were written, the rest not") from None
