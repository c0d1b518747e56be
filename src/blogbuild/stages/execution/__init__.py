"""The execution stage: the runnable blocks a page runs at build time (`data-execute="build"`,
or site.yaml's `runnable: {execute: build}`), once its Markdown is parsed and before its
HTML is made (`Step.PARSED`); the work is `blocks`, loaded when a page has such a block."""

from __future__ import annotations

from typing import TYPE_CHECKING

from blogbuild import timings
from blogbuild.stages import Step
from blogbuild.stages.context import KEEP_SECONDS, BuildContext, Page, StageBase

if TYPE_CHECKING:
    from blogbuild.content.records import Execution
    from blogbuild.stages.execution.blocks import Found


class ExecutionStage(StageBase):
    """A page's build-time blocks run in order in one interpreter, their output in the
    tokens of their widgets; what ran in `page.execution`."""

    name = "execution"
    step = Step.PARSED

    def decide(self, page: Page) -> list[Found] | None:
        if page.runnable is None or "runnable" not in page.env.get("needs", ()):
            return None
        from blogbuild.stages.execution.blocks import to_run

        with timings.section("build-time execution"):
            return to_run(page.tokens, page.env, page.runnable.execute) or None

    def make(self, page: Page, plan: list[Found]) -> Execution:
        from blogbuild.stages.execution.blocks import run_blocks

        with timings.section("build-time execution"):
            page.execution = run_blocks(plan, page)
        return page.execution

    def prune(self, ctx: BuildContext) -> None:
        """Runs no build used for weeks go (once a day, after a build that ran blocks)."""
        if ctx.executions and ctx.folders.runs is not None and ctx.folders.due("exec"):
            from blogbuild.runtimes.python import prune

            prune(ctx.folders.runs, older_than=KEEP_SECONDS)


STAGE = ExecutionStage()
