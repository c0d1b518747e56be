"""One run of the engine as its steps hand it on: what the stages see (the build's context,
blogbuild.stages.context) and what only the engine's steps need besides (the last state,
the render jobs, the renderer, the claims, the stages at work beside the templating)."""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from blogbuild.content.linkmap import DocumentInfo
from blogbuild.content.records import SourceEntry
from blogbuild.diagnostics import Diagnostic
from blogbuild.output.claims import Claims
from blogbuild.pipeline.nav import Ranking
from blogbuild.pipeline.quick import RenderJob, with_bytes
from blogbuild.pipeline.state import State
from blogbuild.stages.context import BuildContext

if TYPE_CHECKING:
    from blogbuild.pipeline.sources import Renderer
    from blogbuild.stages import Stage
    from blogbuild.stages.search.stage import Beside


@dataclass
class Run:
    """The engine's own part of one run (see the module's docstring)."""

    ctx: BuildContext
    start: float  # perf_counter() when the run began
    last: State  # what the last build knew (empty for a first build)
    #: The live server's: told the edited pages as soon as they are out.
    early: Callable[[set[str], list[Diagnostic]], None] | None = None
    items: dict[str, RenderJob] = field(default_factory=dict)  # the sources to render
    inputs: bytes = b""  # the fingerprint of everything the run reads (a saved state's)
    infos: list[DocumentInfo] = field(default_factory=list)  # every document's front matter
    #: The digests of the files the last renders read besides their sources, as this run
    #: finds them (looked at once: by the quick look, then by the renders).
    read: dict[str, str | None] = field(default_factory=dict)
    renderer: Renderer | None = None
    entries: dict[str, SourceEntry] = field(default_factory=dict)
    fresh_sources: set[str] = field(default_factory=set)  # rendered (or re-rendered) now
    #: Lenient runs: the errors of the sources that kept their last good version.
    errors: list[Diagnostic] = field(default_factory=list)
    diagnostics: list[Diagnostic] = field(default_factory=list)
    claims: Claims = field(default_factory=Claims)
    #: The stages at work beside the templating (`Step.PAGES`), and their work.
    beside: list[tuple[Stage[Any, Any, Any], Beside]] = field(default_factory=list)
    #: The related posts, ranked again only when what ranks them changed (`last.related`).
    ranking: Ranking = field(default_factory=Ranking)
    _again: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def render_again(self, digests: set[str]) -> None:
        """Bodies the render store lost (damaged, pruned): render those sources again.
        Called by the templating and by the search index's thread, one at a time."""
        with self._again:
            assert self.renderer is not None and self.ctx.links is not None
            config = self.ctx.config
            lost = [replace(with_bytes(self.items[rel], config), feed=entry.feed)
                    for rel, entry in self.entries.items()
                    if entry.digest in digests and rel in self.items]
            self.entries.update(self.renderer.render(lost, self.ctx.links, reuse=False))

    def abandon(self) -> None:
        """The run is over, or failed: the work beside the templating stops (at once when
        it is done)."""
        for _, work in self.beside:
            work.abandon()
