"""Content-hash cache of render results: unchanged posts are never rendered twice."""

from __future__ import annotations

import dataclasses
import os
import pickle
import tempfile
from pathlib import Path

from blogbuild.content.frontmatter import PostMeta
from blogbuild.render import Rendered, RenderResult, SourceJob

CACHE_DIR = ".blogbuild-cache"


def _intact(result: RenderResult, digest: str) -> bool:
    """A complete result of this very code for `digest`: an entry written by an older
    blogbuild (a class without today's fields) or for another digest is not used."""
    if result.digest != digest:
        return False
    parts = ((result, RenderResult), (result.job, SourceJob), (result.meta, PostMeta),
             (result.rendered, Rendered))
    return all(
        isinstance(part, cls) and all(f.name in vars(part) for f in dataclasses.fields(cls))
        for part, cls in parts
    )


class RenderCache:
    """One pickle per digest under `<site>/.blogbuild-cache/render/`. Errors are not cached.

    The cache only ever costs or saves time: an entry that cannot be read or is not intact
    is a miss (rendered again and rewritten), and a cache that cannot be written is skipped.
    """

    def __init__(self, root: Path, *, enabled: bool = True) -> None:
        self.dir = root / CACHE_DIR / "render"
        self.enabled = enabled
        self.hits = 0
        self.misses = 0

    def _path(self, digest: str) -> Path:
        return self.dir / digest[:2] / f"{digest}.pickle"

    def get(self, digest: str) -> RenderResult | None:
        if not self.enabled:
            return None
        try:
            with open(self._path(digest), "rb") as fh:
                result = pickle.load(fh)
        except Exception:  # a damaged entry of any kind is only a miss
            result = None
        if isinstance(result, RenderResult) and _intact(result, digest):
            self.hits += 1
            return result
        self.misses += 1
        return None

    def put(self, result: RenderResult) -> None:
        if not self.enabled or not result.ok or any(d.is_error for d in result.diagnostics):
            return
        path = self._path(result.digest)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=path.parent, suffix=".tmp")
            with os.fdopen(fd, "wb") as fh:
                pickle.dump(result, fh, protocol=pickle.HIGHEST_PROTOCOL)
            os.replace(tmp, path)
        except OSError:
            pass  # a cache that cannot be written only costs speed
