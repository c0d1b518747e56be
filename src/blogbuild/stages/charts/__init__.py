"""The chart stage: a document's charts, found by the Markdown plugin as it parsed
(blogbuild.markdown.charts: ```vega-lite and ```vega fences) and by the notebook plugin (a
cell's Vega, Plotly or Bokeh output), made ready once it is parsed (`Step.PARSED`): Vega and
Vega-Lite drawn to SVG in one batch by the chart drawer of the process that renders (those
the cache lacks), Plotly and Bokeh given their stand-in and their data. The work is
`drawing`, loaded when a document has a chart."""

from __future__ import annotations

from typing import TYPE_CHECKING

from blogbuild import timings
from blogbuild.stages import Step
from blogbuild.stages.context import Page, StageBase

if TYPE_CHECKING:
    from markdown_it.token import Token


class ChartsStage(StageBase):
    """Each chart's page markup into its token's meta; a warning at its line when it
    cannot be shown (the page shows its spec as code, or a note)."""

    name = "charts"
    step = Step.PARSED

    def decide(self, page: Page) -> list[Token] | None:
        found: list[Token] = page.env.get("charts", [])
        return found or None

    def make(self, page: Page, plan: list[Token]) -> int:
        from blogbuild.stages.charts.drawing import draw_all

        with timings.section("charts"):
            return draw_all(page.env, plan)


STAGE = ChartsStage()
