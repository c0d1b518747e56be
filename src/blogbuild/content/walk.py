"""Walk a source folder: regular readable files inside the site only; odd entries are warnings.

content/ and static/ may hold symbolic links, FIFOs, unreadable files or broken links. None of
them stops a build: each is skipped with a warning that names it. Links that lead outside the
allowed folders are not followed, so a build never publishes a file from elsewhere on the
machine (`ln -s ~/.ssh content/keys`).
"""

from __future__ import annotations

import os
import stat
from collections.abc import Callable, Sequence
from pathlib import Path

from blogbuild.diagnostics import Diagnostic, warning
from blogbuild.readers import is_document, kind_of

#: Folders tools keep beside sources; never part of a site.
TOOL_FOLDERS = frozenset({".git", "__pycache__", "node_modules", ".ipynb_checkpoints"})


def ignored(name: str, *, in_content: bool = False) -> bool:
    """Whether a file or folder named `name` is no part of the site (the one rule).

    Hidden names (a leading dot, except .well-known), editors' backup and swap files
    (``~``, ``.swp``, ``.swx``, ``#name#``, vim's ``4913``) and tools' folders; under
    content/ also names starting with ``_`` (a place for drafts and notes)."""
    if name in TOOL_FOLDERS or name == "4913":
        return True
    if name.startswith(".") and name != ".well-known":
        return True
    if name.endswith(("~", ".swp", ".swx")) or (name.startswith("#") and name.endswith("#")):
        return True
    return in_content and name.startswith("_")


def ignored_path(parts: Sequence[str], *, in_content: bool = False) -> bool:
    """Whether a path (its parts below a source folder) is no part of the site: one of its
    parts is `ignored`, as a walk that skips that folder finds."""
    return any(ignored(part, in_content=in_content) for part in parts)


def shown(path: Path, root: Path) -> str:
    """`path` as messages show it: relative to the site folder when inside it."""
    try:
        return path.relative_to(root).as_posix()
    except ValueError:
        return str(path)


def walk_files(
    folder: Path,
    allowed: Sequence[Path],
    *,
    root: Path,
    skip: Callable[[str], bool] = lambda name: False,
    stats: dict[str, os.stat_result] | None = None,
    aside: list[str] | None = None,
) -> tuple[list[Path], list[Diagnostic]]:
    """Files under `folder` in sorted order, and warnings about the entries skipped.

    `allowed` are the (resolved) folders a symbolic link may point into; `root` is what
    shown paths are relative to; `skip(name)` hides files and folders silently (dot files).
    `stats` gets the stat of each file found, by its path as a string; `aside` the paths
    of the files `skip` hid whose names start with `_` (not published, but a document may
    read them: Quarto's `_metadata.yml` and included files).
    """
    files: list[Path] = []
    problems: list[Diagnostic] = []
    if not folder.is_dir():
        return files, problems
    seen = {folder.resolve()}

    def usable_dir(path: Path) -> bool:
        if is_document(path.name):
            problems.append(warning(shown(path, root), 0, f"a folder named like a "
                                    f"{kind_of(path.name)} file: it is read as a folder of "
                                    "files, not as a post; rename it to avoid the confusion"))
        if not path.is_symlink():
            return True
        reason = _link_problem(path, allowed, folder=True)
        if reason is not None:
            problems.append(warning(shown(path, root), 0, reason))
            return False
        real = path.resolve()
        if real in seen:  # a link back up the tree would walk forever
            problems.append(warning(shown(path, root), 0, "symbolic link loop: not followed"))
            return False
        seen.add(real)
        return True

    for dirpath, dirnames, filenames in os.walk(folder, followlinks=True,
                                                onerror=lambda exc: problems.append(
                                                    _unreadable(exc, root))):
        here = Path(dirpath)
        if aside is not None:
            aside.extend(_aside(dirpath, [d for d in dirnames if d.startswith("_") and skip(d)]))
        dirnames[:] = sorted(d for d in dirnames if not skip(d) and usable_dir(here / d))
        for name in sorted(filenames):
            if skip(name):
                if aside is not None and name.startswith("_"):
                    aside.append(os.path.join(dirpath, name))
                continue
            full = os.path.join(dirpath, name)  # strings: thousands of files, few problems
            reason = _file_problem(full, allowed, stats)
            if reason is not None:
                problems.append(warning(shown(Path(full), root), 0, reason))
                continue
            files.append(Path(full))
    return files, problems


def _aside(dirpath: str, folders: list[str]) -> list[str]:
    """The files under the `_` folders `folders` of `dirpath` (not published, but a
    document may read them), in sorted order."""
    found: list[str] = []
    for name in sorted(folders):
        for base, dirs, files in os.walk(os.path.join(dirpath, name)):
            dirs.sort()
            found.extend(os.path.join(base, file) for file in sorted(files))
    return found


def _link_problem(path: Path, allowed: Sequence[Path], *, folder: bool) -> str | None:
    target = os.readlink(path)
    try:
        real = path.resolve(strict=True)
    except (OSError, RuntimeError):
        return (f"broken symbolic link: it points to {target}, which does not exist; "
                "skipped (remove the link or restore its target)")
    if not any(real == a or real.is_relative_to(a) for a in allowed):
        kind = "folder" if folder else "file"
        return (f"symbolic link to a {kind} outside the site ({real}): not followed, so "
                f"nothing from elsewhere is published; copy the {kind} into the site instead")
    return None


def _file_problem(path: str, allowed: Sequence[Path],
                  stats: dict[str, os.stat_result] | None = None) -> str | None:
    try:
        found = os.lstat(path)
        if stat.S_ISLNK(found.st_mode):
            reason = _link_problem(Path(path), allowed, folder=False)
            if reason is not None:
                return reason
            found = os.stat(path)
    except OSError as exc:
        return f"cannot read the file ({exc.strerror or exc}); skipped"
    mode = found.st_mode
    if stats is not None:
        stats[path] = found
    if not stat.S_ISREG(mode):
        return "not a regular file (a FIFO, socket or device); skipped"
    if not os.access(path, os.R_OK):
        return "cannot read the file (permission denied); skipped: fix its permissions"
    return None


def _unreadable(exc: OSError, root: Path) -> Diagnostic:
    where = shown(Path(exc.filename), root) if exc.filename else "content"
    return warning(where, 0, f"cannot read the folder ({exc.strerror or exc}); skipped: fix "
                             "its permissions")
