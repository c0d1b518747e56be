"""A Quarto document's Python cells run at build time, as a notebook's are.

A document without a freeze file runs under the notebooks' policy: the site's
`notebooks.execute` (never, auto, always), which the front matter's `execute:` overrides
(`execute: {eval: false}` or `{enabled: false}` is never, `{enabled: true}` always, a word
of the three itself). Its Python cells, and its inline Python expressions in their place
among them, are a notebook (blogbuild.content.notebooks.model) that the notebook-run stage
runs (`Step.CELLS`: one interpreter, its cache, its time limit); cells of other languages
keep their code and a note, with one warning for the file.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from blogbuild.config_checks import NOTEBOOK_EXECUTE
from blogbuild.content.notebooks.model import Cell, Notebook, Output
from blogbuild.diagnostics import Diagnostic, Severity
from blogbuild.quarto.freeze import freeze_candidates
from blogbuild.quarto.inline import expressions
from blogbuild.quarto.model import PageCells

if TYPE_CHECKING:
    from blogbuild.config_model import Config
    from blogbuild.content.jobs import SourceJob
    from blogbuild.readers import Document
    from blogbuild.stages.context import Folders


#: What messages call the languages of cells that are not run.
_NAMES = {"r": "R", "julia": "Julia", "sql": "SQL", "bash": "Bash", "sh": "shell"}


def execute_mode(data: dict[str, Any], site: str) -> str:
    """never, auto or always: what the front matter's `execute:` says, else `site`."""
    given = data.get("execute")
    if isinstance(given, dict):
        if given.get("eval") is False or given.get("enabled") is False:
            return "never"
        return "always" if given.get("enabled") is True else site
    if isinstance(given, bool):
        return "always" if given else "never"
    return given if given in NOTEBOOK_EXECUTE else site


def run_cells(found: PageCells, document: Document, job: SourceJob, config: Config,
              folders: Folders) -> None:
    """Run the page's Python cells and inline expressions when the policy says so; notes
    for what is not run."""
    cells = list(found.cells.values())
    others = [cell for cell in cells if cell.runs and cell.language != "python"]
    where = freeze_candidates(config.root, config.content_dir, job.rel)[0]
    frozen = where.relative_to(config.root).as_posix()
    for cell in others:
        name = _NAMES.get(cell.language, cell.language)
        found.notes[cell.line] = (f"This {name} cell was not run: only Python cells run "
                                  "when the site is built.")
    if others:
        names = ", ".join(sorted({_NAMES.get(cell.language, cell.language)
                                  for cell in others}))
        found.problems.append((others[0].line, f"the file's {names} cells are shown without "
                               "outputs: only Python cells run at build time, and no freeze "
                               f"file ({frozen}) holds theirs; render the file with Quarto to "
                               "freeze them", Severity.WARNING))
    python = [cell for cell in cells if cell.runs and cell.language == "python"
              and found.options[cell.line].evaluate]
    inline = [(line, k) for line, k in expressions(document.text) if k[0] == "python"]
    if not python and not inline:
        return
    mode = execute_mode(document.front.data, config.notebooks.execute)
    if mode == "never":
        found.problems.append((python[0].line if python else inline[0][0], "the file's "
                               "Python cells are shown without outputs: no freeze file "
                               f"({frozen}) holds theirs, and nothing runs them at build "
                               "time; set "
                               "'notebooks.execute: auto' in site.yaml (or 'execute: auto' "
                               "in the front matter), or render the file with Quarto to "
                               "freeze them", Severity.WARNING))
        return
    _run(found, document, job, config, folders, mode, python, inline)


def _run(found: PageCells, document: Document, job: SourceJob, config: Config,
         folders: Folders, mode: str, python: list[Any],
         inline: list[tuple[int, tuple[str, str, int]]]) -> None:
    from blogbuild.stages import Step, stages
    from blogbuild.stages.context import Page, run_stage

    # The cells in order, then the expressions (the values the cells leave: an expression
    # may name what a later cell makes, and one that fails stops nothing, and shows its
    # code); `base[n]`: the line of the text above line 1 of cell n.
    order = [(cell.line, 0, cell) for cell in python] + [(line, 1, k) for line, k in inline]
    base: dict[int, int] = {}
    notebook_cells = []
    for number, (line, is_inline, what) in enumerate(order, 1):
        base[number] = line - 1 if is_inline else line
        source = what[1] if is_inline else what.source
        tags = ("raises-exception",) if is_inline or found.options[what.line].allow_error \
            else ()
        notebook_cells.append(Cell("code", source, number, {}, tags))
    notebook = Notebook(tuple(notebook_cells), {}, 4, 5, "python", "python3", ())

    def place(cell: int, line: int, message: str, severity: Severity) -> Diagnostic:
        # A carrier of the line of the text (PageCells.problems), not a file's line.
        return Diagnostic(job.display, base.get(cell, 0) + max(1, line), 0, severity, message)

    page = Page(job.display, folders=folders, job=job, config=config, notebook=notebook,
                execute=mode, place=place)
    for stage in stages(Step.CELLS):  # the notebook-run stage
        run_stage(stage, page)
    found.problems.extend((d.line if d.line else None, d.message.replace(
        "tag the cell raises-exception", "add '#| error: true' to the cell"), d.severity)
        for d in page.problems)
    document.execution = page.execution
    ran = page.notebook or notebook
    for (_, is_inline, what), cell in zip(order, ran.cells, strict=True):
        if is_inline:
            value = _value(cell.outputs)
            if value is not None:
                found.inline[what] = value
            continue
        keep = found.options[what.line].warnings
        found.outputs[what.line] = tuple(
            o for o in cell.outputs if keep or not (o.kind == "stream" and o.name == "stderr"))


def _value(outputs: tuple[Output, ...]) -> str | None:
    """What an inline expression shows: its value's text, a string's without quotes."""
    for output in outputs:
        text = output.data.get("text/plain") if output.kind == "execute_result" else None
        if isinstance(text, str):
            if len(text) >= 2 and text[0] == text[-1] and text[0] in "'\"":
                return text[1:-1]
            return text
    return None

