"""The search index's files staged for the output: those the output has with the same
bytes kept as they are, a chunk the cache holds linked, the others written."""

from __future__ import annotations

import contextlib
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from blogbuild.fileio import file_digest
from blogbuild.output.entries import FileEntry, OutputEntry, Seen, intact
from blogbuild.output.writer import Staging
from blogbuild.stages.search.documents import ENTRY, FOLDER, SOURCE

if TYPE_CHECKING:
    from blogbuild.search.layout import Made


class Staged(Protocol):
    """Where the index's files go: the build's stage, or the stage's folder as the index's
    own process sees it."""

    @property
    def staging(self) -> Staging: ...

    def write_bytes(self, rel: str, data: bytes) -> None: ...

    def link(self, rel: str, source: Path) -> None: ...


def _kept(kept: FileEntry | None, digest: bytes | None, named: str, output: Path, path: str,
          seen: Seen | None) -> FileEntry | None:
    """The entry of the output's file `path` (`kept`, named `named` now) when the file is
    there with the bytes of `digest`."""
    if (kept is None or digest is None or kept.out.digest != digest
            or not intact(output, path, kept.out, seen)):
        return None
    return kept if kept.source == named else FileEntry(named, (0, 0), kept.out)


def stage_files(stage: Staged, index: Made, source: str, old: dict[str, FileEntry],
            output: Path, staged: dict[bytes, Path], seen: Seen | None,
            ) -> dict[str, FileEntry]:
    """Stage the index's files that the output lacks (`old`: the entries of the index's
    files the output has); their entries. Raises ChunkLost. `staged` is told where each
    file whose digest was known is staged."""
    from blogbuild.search.kept import kept_copy

    entries: dict[str, FileEntry] = {}
    for rel, (known, make) in index.files.items():
        path = f"{FOLDER}/{rel}"
        kept = old.get(path)
        named = source if rel == ENTRY else SOURCE
        # Most files outlive an edit (the script, the fragments of other pages, the
        # chunks that hold none of its words): kept without being made again.
        same = _kept(kept, known, named, output, path, seen)
        if same is None:
            data = make()
            digest = file_digest(data)
            same = _kept(kept, digest, named, output, path, seen)
        if same is not None:
            entries[path] = same
            continue
        entries[path] = FileEntry(named, (0, 0), OutputEntry(digest, len(data), 0))
        copy = kept_copy(digest, data)  # a chunk the cache has: linked, not written
        if copy is not None:
            with contextlib.suppress(OSError):
                stage.link(path, copy)
                continue
        stage.write_bytes(path, data)
        if known is not None:
            staged[known] = stage.staging.path(path)
    return entries
