"""The tags each output page loads files with, remembered between builds for the summary.

Weighing a page means reading it and finding its `<link>`, `<script>`, `<img>` and
`<video>` tags: over a thousand pages of 80 kB that is most of the summary's time, and an
incremental build writes a handful of them. A page whose file has the size and
modification time it had when it was last read has the same tags (the build trusts them
as much for its own output), so only the others are read again. What the tags load is
resolved afresh every time (another file may have appeared).
"""

from __future__ import annotations

import hashlib
import pickle
from pathlib import Path

from blogbuild.pipeline.state import save_pickle

#: Bump when what is kept changes (tags found another way, another layout).
FORMAT = 3

Stamp = tuple[int, int]  # the page file's size and mtime_ns


class PageTags:
    """The tags of the pages of one output folder, by page; `save()` keeps this run's."""

    def __init__(self, path: Path | None, known: dict[str, tuple[Stamp, tuple[bytes, ...]]]
                 ) -> None:
        self.path = path
        self.known = known
        self.seen: dict[str, tuple[Stamp, tuple[bytes, ...]]] = {}
        self.read = 0  # pages that were read this time

    @classmethod
    def load(cls, cache: Path | None, output: Path) -> PageTags:
        """What the last summary of `output` found (nothing without a cache folder)."""
        if cache is None:
            return cls(None, {})
        name = hashlib.sha256(str(output).encode()).hexdigest()[:24]
        path = cache / "summary" / f"{name}.pickle"
        try:
            with open(path, "rb") as fh:
                found = pickle.load(fh)
        except Exception:  # missing or damaged: every page is read
            return cls(path, {})
        if not isinstance(found, tuple) or len(found) != 2 or found[0] != FORMAT:
            return cls(path, {})
        return cls(path, found[1])

    def get(self, rel: str, stamp: Stamp) -> tuple[bytes, ...] | None:
        found = self.known.get(rel)
        if found is None or found[0] != stamp:
            return None
        self.seen[rel] = found
        return found[1]

    def put(self, rel: str, stamp: Stamp, tags: tuple[bytes, ...]) -> None:
        self.seen[rel] = (stamp, tags)
        self.read += 1

    def save(self) -> None:
        """Keep the tags of the pages weighed this time, when any of them is new."""
        if self.path is not None and (self.read or self.seen.keys() != self.known.keys()):
            save_pickle(self.path, (FORMAT, self.seen))
