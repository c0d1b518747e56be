"""The render store: render results by digest, bodies included; unchanged posts are never
rendered twice, and the pages read bodies from here instead of holding them in memory."""

from __future__ import annotations

import dataclasses
import os
import pickle
import time
from collections.abc import Mapping
from pathlib import Path

from blogbuild.content.bodies import MissingBody
from blogbuild.content.frontmatter import PostMeta
from blogbuild.content.jobs import SourceJob
from blogbuild.content.records import Rendered, RenderResult
from blogbuild.output.outdir import CACHE_DIR
from blogbuild.pipeline.state import save_pickle


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
    """One pickle per digest under `<folder>/<digest[:2]>/`. Errors are not kept.

    An entry that cannot be read or is not intact is a miss (rendered again and rewritten);
    a store that cannot be written only costs speed. The object is small and picklable:
    worker processes get it with the posts whose bodies they read (`html`, `feed_html`).
    """

    def __init__(self, folder: Path, *, enabled: bool = True) -> None:
        self.dir = folder
        self.enabled = enabled
        #: Results that could not be written (a full disk, an unwritable entry): kept here,
        #: and sent to the workers with the posts.
        self.kept: dict[str, RenderResult] = {}

    @classmethod
    def of_site(cls, root: Path, *, enabled: bool = True) -> RenderCache:
        return cls(root / CACHE_DIR / "render", enabled=enabled)

    def _path(self, digest: str) -> Path:
        return self.dir / digest[:2] / f"{digest}.pickle"

    def get(self, digest: str) -> RenderResult | None:
        if not self.enabled:
            return None
        try:
            with open(self._path(digest), "rb") as fh:
                result = pickle.load(fh)
        except Exception:  # a damaged entry of any kind is only a miss
            return None
        if isinstance(result, RenderResult) and _intact(result, digest):
            return result
        return None

    def lacks(self, digests: set[str]) -> set[str]:
        """The digests of `digests` whose results the store does not have (a look at each
        file, not a read)."""
        return {d for d in digests if d not in self.kept and not self._path(d).is_file()}

    def put(self, result: RenderResult) -> bool:
        """Keep a result (bodies included); False when it was not kept."""
        if not self.enabled or not result.ok or any(d.is_error for d in result.diagnostics):
            return False
        return save_pickle(self._path(result.digest), result)

    def prune(self, keep: set[str], *, older_than: float) -> int:
        """Remove entries no digest in `keep` names and not written for `older_than`
        seconds (another output folder, a drafts build, may still want a newer one);
        returns how many went. Never fails."""
        now = time.time()
        removed = 0
        try:
            folders = list(os.scandir(self.dir))
        except OSError:
            return 0
        for folder in folders:
            try:
                entries = list(os.scandir(folder.path)) if folder.is_dir() else []
            except OSError:
                continue
            for entry in entries:
                digest = entry.name.removesuffix(".pickle").removesuffix(".tmp")
                try:
                    if digest not in keep and now - entry.stat().st_mtime > older_than:
                        os.unlink(entry.path)
                        removed += 1
                except OSError:
                    pass
        return removed

    def keep(self, result: RenderResult) -> None:
        self.kept[result.digest] = result

    def _rendered(self, digest: str) -> Rendered:
        result = self.kept.get(digest) or self.get(digest)
        if result is None or result.rendered is None:
            raise MissingBody(digest)
        return result.rendered

    def html(self, digest: str) -> str:
        return self._rendered(digest).html

    def feed_html(self, digest: str) -> str:
        feed = self._rendered(digest).feed_html
        if feed is None:
            raise MissingBody(digest)
        return feed


def without_body(result: RenderResult) -> RenderResult:
    """The record the build keeps of a render: everything but the bodies."""
    if result.rendered is None:
        return result
    return dataclasses.replace(result, rendered=dataclasses.replace(
        result.rendered, html="", feed_html="" if result.rendered.feed_html is not None
        else None, snippets=()))


class StoredSnippets:
    """The snippets of documents' ids, read from their bodies in the render store (see
    `LinkMap.preview_html`): `digests` maps a content path to its render's digest."""

    def __init__(self, store: RenderCache, digests: Mapping[str, str]) -> None:
        self.store = store
        self.digests = dict(digests)
        self._read: dict[str, dict[str, str]] = {}

    def __getstate__(self) -> dict[str, object]:
        return {"store": self.store, "digests": self.digests, "_read": {}}

    def preview_html(self, rel: str, ident: str) -> str | None:
        digest = self.digests.get(rel)
        if digest is None:
            return None
        if digest not in self._read:
            result = self.store.kept.get(digest) or self.store.get(digest)
            if result is None or result.rendered is None:
                return None  # lost: `Renderer.restore_previews` renders it again
            self._read[digest] = dict(result.rendered.snippets)
        return self._read[digest].get(ident)
