"""Running a Python notebook at build time (the notebook-run stage's work), through the
runtime of build-time blocks.

The code cells of the notebook run in order in one interpreter (blogbuild.runtimes.python:
its cache, its timeout per cell, its memory limit); what they print and draw replaces
the outputs the notebook stored. A cell that raises stops the run (the cells after it are
not run, and keep no outputs) unless it is tagged `raises-exception` (`#| error: true`).

IPython's own syntax is not Python: `%matplotlib inline` and other line magics and `!`
shell commands are skipped (a line of `pass` keeps the line numbers), with a warning for
those that would have done something; a cell magic (`%%bash`) keeps the cell's stored
outputs, with a warning.
"""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from blogbuild.content.notebooks.read import Cell, Notebook, Output
from blogbuild.content.records import Execution
from blogbuild.diagnostics import Severity
from blogbuild.fingerprints import CAPTURE_MODULE
from blogbuild.markdown.notebook.options import CellOptions, cell_options
from blogbuild.runtimes.python import Block, Options, run_page
from blogbuild.stages.context import Page
from blogbuild.themefiles import theme_static

#: Line magics that only set up the notebook's display: skipped without a word.
_QUIET_MAGICS = ("%matplotlib", "%config", "%load_ext autoreload", "%autoreload")
_MAGIC = re.compile(r"([ \t]*)([%!].*)")


@dataclass(frozen=True)
class Ran:
    """The notebook with the outputs of this run, and what to tell the author: (cell
    number, line of the cell, error?, message)."""

    notebook: Notebook
    problems: tuple[tuple[int, int, bool, str], ...]
    execution: Execution


def wants_run(notebook: Notebook, mode: str) -> bool:
    """Whether `mode` (never, auto, always) runs this notebook."""
    if mode == "always":
        return True
    return mode == "auto" and not any(c.outputs for c in notebook.cells if c.kind == "code")


def python_code(cell: Cell, options: CellOptions) -> tuple[str | None, list[tuple[int, str]]]:
    """The cell's code as Python (None: it cannot run: a cell magic), and warnings."""
    lines = options.code.split("\n")
    first = next((line for line in lines if line.strip()), "")
    if first.lstrip().startswith("%%"):
        magic = first.strip().split()[0]
        return None, [(options.skipped + 1, f"the cell magic {magic} does not run at build "
                       "time (only Python does); the cell keeps the outputs it stored")]
    problems = []
    out = []
    for number, line in enumerate(lines, options.skipped + 1):
        match = _MAGIC.fullmatch(line)
        if match is None:
            out.append(line)
            continue
        out.append(f"{match[1]}pass")
        if not match[2].startswith(_QUIET_MAGICS):
            what = "shell command" if match[2].startswith("!") else "IPython magic"
            problems.append((number, f"the {what} {match[2].strip()!r} does not run at build "
                             "time; install what it installs in the Python that runs "
                             "blogbuild, or do it in Python"))
    return "\n".join(out), problems


def run_notebook(notebook: Notebook, options: dict[int, CellOptions], timeout: int,
                 capture: Path, runs: Path | None) -> Ran:
    """Run the code cells of `notebook` (not those with `eval: false`) in order; `runs`:
    where the runs are cached (blogbuild.runtimes.python; None: not cached)."""
    problems: list[tuple[int, int, bool, str]] = []
    blocks: list[Block] = []
    cells: list[Cell] = []
    for cell in notebook.cells:
        if cell.kind != "code" or not options[cell.number].evaluate:
            continue
        code, notes = python_code(cell, options[cell.number])
        problems.extend((cell.number, line, False, message) for line, message in notes)
        if code is None:
            continue
        blocks.append(Block(code, f"cell {cell.number}", False,
                            options[cell.number].allow_error))
        cells.append(cell)
    page = run_page(blocks, Options(float(timeout), capture, runs))
    outputs: dict[int, tuple[Output, ...]] = {}
    failed = 0
    for cell, block, run in zip(cells, blocks, page.runs, strict=True):
        skipped = options[cell.number].skipped
        if run.status in ("ok", "error"):
            outputs[cell.number] = tuple(_output(item) for item in run.items)
        else:
            outputs[cell.number] = ()
        if run.status == "error" and not block.allow_error:
            failed = failed or cell.number
            line = run.line + skipped if run.line else skipped + 1
            problems.append((cell.number, line, True, f"the cell raised {run.error}; fix the "
                             "code, or tag the cell raises-exception to show the error"))
        elif run.status == "timeout":
            failed = failed or cell.number
            problems.append((cell.number, skipped + 1, True, f"the cell was still running after "
                             f"{timeout} s and was stopped; make it faster, or raise "
                             "'runnable.timeout' in site.yaml"))
        elif run.status == "crashed":
            failed = failed or cell.number
            problems.append((cell.number, skipped + 1, True,
                             f"the cell could not finish: {run.error}"))
        elif run.status == "skipped":
            problems.append((cell.number, skipped + 1, False, f"the cell was not run: cell "
                             f"{failed} failed first, and a notebook's cells run in order"))
    ran = tuple(dataclasses.replace(c, outputs=outputs[c.number], execution_count=None)
                if c.number in outputs else c for c in notebook.cells)
    execution = Execution(0, len(blocks), 0.0) if page.cached else \
        Execution(sum(r.status != "skipped" for r in page.runs), 0, page.seconds)
    return Ran(dataclasses.replace(notebook, cells=ran), tuple(problems), execution)


def _output(item: dict[str, Any]) -> Output:
    """One output item of the runtime (blogbuild.runtimes.python) as a notebook output."""
    kind = item.get("type")
    if kind == "stream":
        return Output("stream", name=str(item.get("name", "stdout")),
                      text=str(item.get("text", "")))
    if kind == "error":
        return Output("error", ename=str(item.get("name", "")),
                      traceback=(str(item.get("text", "")),))
    if kind == "image":
        mime = str(item.get("mime", "image/png"))
        size = {k: item[k] for k in ("width", "height") if isinstance(item.get(k), int)}
        return Output("display_data", data={mime: str(item.get("data", "")),
                                            "text/plain": str(item.get("alt", ""))},
                      metadata={mime: size} if size else {})
    if kind == "html":
        return Output("execute_result", data={"text/html": str(item.get("html", ""))})
    if kind == "chart":  # drawn by the chart stage, as a stored chart output is
        return Output("execute_result", data={str(item.get("mime", "")): item.get("data")})
    return Output("execute_result", data={"text/plain": str(item.get("text", ""))})


def run_cells(page: Page, notebook: Notebook) -> tuple[Notebook, Execution]:
    """Run `notebook` as the page's front matter and the site say; its problems go to the
    page at their cells' lines."""
    config = page.config
    assert config is not None and page.place is not None
    options = {c.number: cell_options(c.source, c.tags) for c in notebook.cells
               if c.kind == "code"}
    ran = run_notebook(notebook, options, config.runnable.timeout,
                       theme_static() / CAPTURE_MODULE, page.folders.runs)
    for cell, line, is_error, message in ran.problems:
        page.problems.append(page.place(cell, line, message,
                                        Severity.ERROR if is_error else Severity.WARNING))
    return ran.notebook, ran.execution
