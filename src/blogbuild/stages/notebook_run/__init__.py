"""The notebook-run stage: a Python notebook run at build time when its `execute` (or the
site's `notebooks.execute`) asks, once its cells are read and before they are laid out as
a page (`Step.CELLS`); the work is `cells`, loaded when a notebook runs."""

from __future__ import annotations

from typing import TYPE_CHECKING

from blogbuild import timings
from blogbuild.diagnostics import warning
from blogbuild.stages import Step
from blogbuild.stages.context import Page, StageBase

if TYPE_CHECKING:
    from blogbuild.content.notebooks.read import Notebook
    from blogbuild.content.records import Execution


class NotebookRunStage(StageBase):
    """The notebook's code cells run in order; what they print and draw replaces the
    outputs it stored (`page.notebook`), what ran in `page.execution`."""

    name = "notebook-run"
    step = Step.CELLS

    def decide(self, page: Page) -> Notebook | None:
        notebook = page.notebook
        if notebook is None or page.execute == "never":
            return None
        from blogbuild.stages.notebook_run.cells import wants_run

        if not wants_run(notebook, page.execute):
            return None
        if notebook.language != "python":
            page.problems.append(warning(page.file, 0, f"the notebook's kernel is "
                                         f"{notebook.kernel or notebook.language}, and only "
                                         "Python notebooks run at build time; its stored "
                                         "outputs are shown"))
            return None
        return notebook

    def make(self, page: Page, plan: Notebook) -> Execution:
        from blogbuild.stages.notebook_run.cells import run_cells

        with timings.section("build-time execution"):
            page.notebook, page.execution = run_cells(page, plan)
        return page.execution


STAGE = NotebookRunStage()
