"""What a build left in its output folder, file by file: the record it keeps of each file
(its digest, size and time), and the check that a file is still what it wrote.

The build's state (blogbuild.pipeline.state) keeps these for every page and file; a file
whose size and time are as recorded is taken as unchanged without reading it.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeAlias

from blogbuild.fileio import file_digest


@dataclass
class OutputEntry:
    """A file of the output as the last build left it."""

    digest: bytes  # of its bytes
    size: int
    mtime_ns: int

    def __reduce__(self) -> tuple[type, tuple[bytes, int, int]]:
        # Thousands in every state and summary: a call of the class unpickles in 60% of
        # the time of the default (a new object, then its attributes).
        return OutputEntry, (self.digest, self.size, self.mtime_ns)


@dataclass
class FileEntry:
    """A file copied or made into the output: where from, and what it is there."""

    source: str  # absolute path, or "" for a generated file
    stamp: tuple[int, int]  # the source's (size, mtime_ns), or (0, 0)
    out: OutputEntry

    def __reduce__(self) -> tuple[type, tuple[str, tuple[int, int], OutputEntry]]:
        return FileEntry, (self.source, self.stamp, self.out)


#: The output's files as one loop of stats found them (`stat_all`), by path relative to the
#: output; None for a file that was not there.
Seen: TypeAlias = Mapping[str, "os.stat_result | None"]


def _path(output: Path, rel: str) -> str:
    """The output file `rel` as a path to stat (`rel` is safe, see blogbuild.urls.
    unsafe_path): thousands per build, and os.path.join's checks cost a quarter of each
    stat's time."""
    return f"{output}/{rel}"


def stat_all(output: Path, rels: Iterable[str]) -> dict[str, os.stat_result | None]:
    """Each of the output's files `rels`, stat'ed once. A build takes them in one loop
    before its search index starts: a stat lets go of the GIL, and one taken while another
    thread runs Python waits for it to come back (the 3,600 checks of an edit of a
    1,000-post blog took 37 ms that way, 14 ms in one loop). The output does not change
    until the run commits, so what the loop found holds for the run."""
    found: dict[str, os.stat_result | None] = {}
    for rel in rels:
        try:
            found[rel] = os.stat(_path(output, rel))
        except OSError:
            found[rel] = None
    return found


def files_under(folder: Path, stats: dict[str, os.stat_result | None] | None = None
                ) -> set[str]:
    """Every file (and symbolic link) under `folder`, as POSIX paths relative to it;
    `stats` gets the stat of each (None: a link to nothing), taken in the same walk."""
    found: set[str] = set()
    stack = [(str(folder), "")]  # strings: a Path per folder costs more than the walk
    while stack:
        path, prefix = stack.pop()
        with os.scandir(path) as entries:
            for entry in entries:
                rel = prefix + entry.name
                if entry.is_dir(follow_symlinks=False):
                    stack.append((entry.path, rel + "/"))
                    continue
                found.add(rel)
                if stats is not None:
                    try:
                        stats[rel] = entry.stat()
                    except OSError:
                        stats[rel] = None
    return found


#: How much older than its record a folder's time must be to be trusted: a folder changed
#: in the same tick of the file system's clock as the recorded change keeps its time. A
#: time with a fraction of a second says the clock is fine (a tick of a few milliseconds);
#: whole seconds may be all a file system keeps.
FINE_NS = 20_000_000
COARSE_NS = 2_000_000_000


def folders_of(rel: str) -> Iterator[str]:
    """The folders the output path `rel` is in, innermost first: `a/b/c.html` is in `a/b`
    and `a` (`rel` is safe: no empty segment, see blogbuild.urls.unsafe_path)."""
    cut = rel.rfind("/")
    while cut > 0:
        rel = rel[:cut]
        yield rel
        cut = rel.rfind("/")


def folder_times(output: Path, rels: Iterable[str]) -> dict[str, int]:
    """The modification time of the output folder and of every folder under it that holds
    one of the files `rels`: a file added, removed or renamed in a folder changes its time
    (see `files_known`)."""
    folders = {""}
    for rel in rels:
        for folder in folders_of(rel):
            if folder in folders:
                break
            folders.add(folder)
    times: dict[str, int] = {}
    for folder in folders:
        try:
            times[folder] = os.stat(os.path.join(output, folder)).st_mtime_ns
        except OSError:
            continue
    return times


def files_known(output: Path, files: set[str], times: dict[str, int], taken_ns: int) -> bool:
    """Whether the output holds exactly `files`, as it did when `folder_times` found its
    folders' `times` (at `taken_ns`, the clock then), told by a stat of each folder (4 µs;
    listing one takes 14): a folder with its time, older than the record by more than a
    tick of the file system's clock, holds what it held. The few others (changed since,
    or changed in the tick before the record, which may keep the time) are listed and
    compared with `files`."""
    if not times:
        return False
    doubtful = []
    for folder, mtime in times.items():
        try:
            now = os.stat(os.path.join(output, folder)).st_mtime_ns
        except OSError:
            return False
        margin = COARSE_NS if mtime % 1_000_000_000 == 0 else FINE_NS
        if now != mtime or mtime >= taken_ns - margin:
            doubtful.append(folder)
    return not doubtful or _entries_are(output, files, doubtful, times)


def _entries_are(output: Path, files: set[str], folders: list[str],
                 times: dict[str, int]) -> bool:
    """Whether each of `folders` holds the files of `files` in it and the folders of
    `times` under it, nothing else."""
    expected: dict[str, set[tuple[str, bool]]] = {folder: set() for folder in folders}
    for rels, is_dir in ((files, False), (times, True)):
        for rel in rels:
            parent, _, name = rel.rpartition("/")
            if rel and parent in expected:
                expected[parent].add((name, is_dir))
    for folder, names in expected.items():
        try:
            with os.scandir(os.path.join(output, folder)) as entries:
                found = {(e.name, e.is_dir(follow_symlinks=False)) for e in entries}
        except OSError:
            return False
        if found != names:
            return False
    return True


_UNSEEN: Any = object()


def intact(output: Path, rel: str, entry: OutputEntry, seen: Seen | None = None) -> bool:
    """The file is still what the last build wrote (a quick stat, bytes only if needed);
    `seen`: the stats taken already (a file it lacks is stat'ed now)."""
    st = seen.get(rel, _UNSEEN) if seen is not None else _UNSEEN
    if st is _UNSEEN:
        try:
            st = os.stat(_path(output, rel))
        except OSError:
            return False
    if st is None:
        return False
    if st.st_size != entry.size:
        return False
    if st.st_mtime_ns == entry.mtime_ns:
        return True
    try:  # touched or restored from an archive: compare the bytes
        same = file_digest(Path(output, rel).read_bytes()) == entry.digest
    except OSError:
        return False
    if same:
        entry.mtime_ns = st.st_mtime_ns
    return same
