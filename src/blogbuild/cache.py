"""Content-hash cache of render results: unchanged posts are never rendered twice."""

from __future__ import annotations

import os
import pickle
import tempfile
from pathlib import Path

from blogbuild.render import RenderResult

CACHE_DIR = ".blogbuild-cache"


class RenderCache:
    """One pickle per digest under `<site>/.blogbuild-cache/render/`. Errors are not cached."""

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
        except (OSError, pickle.UnpicklingError, EOFError, AttributeError, ImportError,
                TypeError, ValueError):
            self.misses += 1
            return None
        if not isinstance(result, RenderResult):
            self.misses += 1
            return None
        self.hits += 1
        return result

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
