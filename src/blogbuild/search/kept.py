"""The site's cache of an index's chunk files (`search-chunks/`, named by the digest of
their bytes): read back by a later build (a chunk it kept), written there as a second link
to the file staged for the output, and tidied of the files no index named for a day.
"""

from __future__ import annotations

import contextlib
import os
import time
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from blogbuild import diskcache
from blogbuild.fileio import file_digest, link_atomically, write_atomically

if TYPE_CHECKING:
    from blogbuild.search.chunks import Chunk


class ChunkLost(Exception):
    """The file of a chunk is no longer in the cache: the chunks are made anew."""


#: The cache's folder of chunk files, named by the digest of their bytes.
KEPT = "search-chunks"


def read_kept(out: bytes) -> bytes:
    """The bytes of the chunk file named `out` (its digest). Raises ChunkLost."""
    folder = diskcache.cache_dir()
    if folder is None:
        raise ChunkLost(out.hex())
    path = Path(folder) / KEPT / out.hex()
    try:
        data = path.read_bytes()
    except OSError:
        raise ChunkLost(out.hex()) from None
    if file_digest(data) != out:  # changed (through its output's link): made again
        with contextlib.suppress(OSError):
            path.unlink()
        raise ChunkLost(out.hex())
    return data


#: A chunk file is removed once it is this old and no index named it in that time: until
#: then it may be another process's (`serve` shows drafts, so its index is not the one
#: `build` makes with the same cache, and each would otherwise remove the other's files).
UNNAMED_SECONDS = 24 * 3600
#: How often a build lists the folder: it writes the names of the files its index uses
#: (`<folder>/tidied/search-chunks-<kind>.names`) and removes the old files that no list
#: written in the last `UNNAMED_SECONDS` names. Between those passes a build writes its
#: new files and reads nothing else (the folder holds a day of other indexes' files:
#: thousands after a day of editing).
TIDY_SECONDS = 3600


def keep_files(chunks: list[Chunk], kind: str, staged: Mapping[bytes, Path]) -> None:
    """Put in the cache the files of `chunks` made or read in this process that it lacks:
    a second link to the file staged for the output when there is one (`staged`, by
    digest: a new post changes nearly every chunk, and a link costs a fraction of writing
    a file), else a copy. Once an hour for each `kind` of index (`TIDY_SECONDS`: one kind's
    passes must not stand in for the other's), tidy the folder. A file changed through its
    other link no longer has the digest that names it: reading it then fails
    (`ChunkLost`), and the index is made anew."""
    folder = diskcache.cache_dir()
    if folder is None:
        return
    kept = Path(folder) / KEPT
    try:
        kept.mkdir(exist_ok=True)
        for chunk in chunks:
            if chunk.made is not None:
                path = kept / chunk.out.hex()
                # A file staged anew replaces the cache's: the output lacked it, or its copy
                # was changed, and so then was the cache's when they were one file.
                if not _linked(staged.get(chunk.out), path) and not path.exists():
                    write_atomically(path, chunk.made)
    except OSError:
        return  # the next edit makes the chunks it cannot read from scratch
    names = Path(folder) / "tidied" / f"{KEPT}-{kind}.names"
    with contextlib.suppress(OSError):
        if time.time() - names.stat().st_mtime < TIDY_SECONDS:
            return
    _tidy(kept, names, {chunk.out.hex() for chunk in chunks})


def kept_copy(digest: bytes, data: bytes) -> Path | None:
    """The cache's file of the chunk whose file is `data` (of digest `digest`), when it
    holds those bytes: a stage links it instead of writing a new file. A new file costs
    more than a link, and on some file systems (ext4 without a journal) much more soon
    after files were removed; and the output's copy that the next update removes is then
    a link, not a file that file system must free."""
    folder = diskcache.cache_dir()
    if folder is None:
        return None
    path = Path(folder) / KEPT / digest.hex()
    try:
        with open(path, "rb") as fh:
            same = fh.read(len(data) + 1) == data  # not changed through an output's link
    except OSError:
        return None
    return path if same else None


def _linked(source: Path | None, path: Path) -> bool:
    """Whether `path` is now a link to the whole file `source`, in place of the file of
    that name an output shared (another file system, or one without links, says no). A
    new name is linked at once: a link through a temporary name and a rename cost ten
    times as much on some disks, and a new post links some 300 chunks."""
    if source is None:
        return False
    try:
        os.link(source, path)
        return True
    except FileExistsError:
        # A copy no output shares (a chunk that left the index, back with the same bytes)
        # stays as it is: reading it checks its digest. One an output shares may have been
        # changed through it, and is replaced.
        with contextlib.suppress(OSError):
            if os.stat(path).st_nlink == 1:
                return False
    except OSError:
        return False
    return link_atomically(source, path)


def _tidy(kept: Path, names: Path, wanted: set[str]) -> None:
    """Write `wanted` (the names of the files an index uses) to `names`; remove the files
    older than `UNNAMED_SECONDS` that none of the lists of the last `UNNAMED_SECONDS` name.
    (Lists, not the files' times: a file's time is its output link's too.)"""
    now = time.time()
    try:
        names.parent.mkdir(exist_ok=True)
        write_atomically(names, "\n".join(sorted(wanted)).encode())
        named = set(wanted)
        for other in names.parent.glob(f"{KEPT}-*.names"):
            with contextlib.suppress(OSError, ValueError):  # removed, or not ours
                if now - other.stat().st_mtime <= UNNAMED_SECONDS:
                    named.update(other.read_text(encoding="ascii").split())
        with os.scandir(kept) as entries:
            for entry in entries:
                with contextlib.suppress(OSError):  # removed meanwhile
                    if (entry.name not in named
                            and now - entry.stat().st_mtime > UNNAMED_SECONDS):
                        os.unlink(entry.path)
    except OSError:
        return


#: Chunks cut and not yet made, at most: each holds its words' raw bytes until compressed.
