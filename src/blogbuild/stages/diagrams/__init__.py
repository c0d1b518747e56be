"""The diagram stage: a document's Mermaid and Graphviz diagrams, found by the Markdown
plugin as it parsed (blogbuild.markdown.diagrams), drawn together once it is parsed
(`Step.PARSED`): those the cache lacks in one batch, in the drawing process of the process
that renders (blogbuild.diagrams.drawer), as a document's formulas go to KaTeX at once. The
work is `drawing`, loaded when a document has a diagram."""

from __future__ import annotations

from typing import TYPE_CHECKING

from blogbuild import timings
from blogbuild.stages import Step
from blogbuild.stages.context import Page, StageBase

if TYPE_CHECKING:
    from markdown_it.token import Token


class DiagramsStage(StageBase):
    """Each diagram's drawings (light and dark) into its token's meta; a problem at its
    fence's line when it cannot be drawn."""

    name = "diagrams"
    step = Step.PARSED

    def decide(self, page: Page) -> list[Token] | None:
        found: list[Token] = page.env.get("diagrams", [])
        return found or None

    def make(self, page: Page, plan: list[Token]) -> int:
        from blogbuild.stages.diagrams.drawing import draw_all

        with timings.section("diagrams"):
            return draw_all(page.env, plan)


STAGE = DiagramsStage()
