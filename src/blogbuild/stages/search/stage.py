"""The search stage (blogbuild.stages.search): the index made beside the templating of the
pages, in the process the command started ahead (an update of a build), else on a thread."""

from __future__ import annotations

from typing import Protocol

from blogbuild.content.records import RenderResult
from blogbuild.diagnostics import Diagnostic
from blogbuild.output.entries import FileEntry
from blogbuild.output.files import FileSpec
from blogbuild.output.writer import Stage as Writer
from blogbuild.stages import Step
from blogbuild.stages.context import BuildContext, StageBase
from blogbuild.stages.search.documents import Doc, documents
from blogbuild.stages.search.index import Search
from blogbuild.stages.search.process import KEPT_PROCESS

#: Where the engine's context keeps this stage's `Search` (it remembers the last index for
#: the live server's next run).
KEPT = "search"


class Beside(Protocol):
    """The index being made beside the templating (an `Indexing` thread, or the process's
    `Offloaded` job): handed the writer's stage when the writing begins, waited for when
    the pages are done, stopped when the run fails."""

    def until_reading(self) -> None: ...

    def write_into(self, stage: Writer) -> None: ...

    def result(self) -> tuple[dict[str, FileEntry], list[Diagnostic]]: ...

    def abandon(self) -> None: ...


class SearchStage(StageBase):
    """The search index of the posts and pages, made beside their templating."""

    name = "search"
    step = Step.PAGES

    def begin(self, ctx: BuildContext) -> None:
        """A first build makes its index beside its run, on a thread; an update's process
        loads while the sources are read and rendered."""
        search = search_of(ctx)
        if ctx.fresh:
            search.discard()
        else:
            search.prepare()

    def rendered(self, ctx: BuildContext, records: list[RenderResult], *, new: bool) -> None:
        """An update: Pagefind reads the pages of the sources just rendered while the site
        assembles."""
        if not ctx.fresh:
            search_of(ctx).send_ahead(records, ctx.post_of, new=new)

    def decide(self, ctx: BuildContext) -> list[Doc]:
        assert ctx.site is not None
        return documents(ctx.site)

    def make(self, ctx: BuildContext, plan: list[Doc]) -> Beside:
        return search_of(ctx).start(plan, ctx.last_files, ctx.output, ctx.fresh,
                                    ctx.render_again, ctx.seen)

    def files(self, ctx: BuildContext, made: Beside) -> list[FileSpec]:
        """The index's files are staged by the index itself: their records go to the
        context; a warning when Pagefind could not make it (the next build tries again)."""
        ctx.progress("indexing for search", 0, 0)
        indexed, notes = made.result()
        ctx.staged.update(indexed)
        ctx.notes += notes
        return []


STAGE = SearchStage()


def search_of(ctx: BuildContext) -> Search:
    """The engine's `Search`, made at its first run."""
    found = ctx.kept.get(KEPT)
    if not isinstance(found, Search):
        found = Search(ctx.config, remember=ctx.lenient, drafts=ctx.drafts,
                       child=ctx.kept.pop(KEPT_PROCESS, None), cache=ctx.folders.cache)
        ctx.kept[KEPT] = found
    return found
