"""A Quarto document's executable cells, read with the document (blogbuild.readers.qmd).

A cell is a code fence whose info is a language in braces, wherever it stands in the one
Markdown text (in a div, a callout, a list):

    ```{python}
    #| echo: false
    #| fig-cap: "The loss"
    plot(loss)
    ```

`read_cells` finds them (their `#|` options read with the front matter's `execute:`
defaults, blogbuild.markdown.notebook.options), and gives each its outputs: those Quarto
froze (blogbuild.quarto.freeze) when the document has a freeze file, else those of a run
at build time of its Python cells under the notebooks' policy (`notebooks.execute`, the
front matter's `execute:`; the notebook-run stage, `Step.CELLS`, and its cache). What it
finds goes to the page's `QuartoPage.cells`, which the Markdown plugin
(blogbuild.markdown.quarto.cells) shows; its messages are at lines of the text.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from blogbuild.diagnostics import Severity
from blogbuild.markdown.notebook.options import CellOptions, cell_options, quarto_values
from blogbuild.quarto.freeze import Freeze, read_freeze
from blogbuild.quarto.inline import INLINE, frozen_values
from blogbuild.quarto.model import PageCells, scan

if TYPE_CHECKING:
    from blogbuild.config_model import Config
    from blogbuild.content.jobs import SourceJob
    from blogbuild.readers import Document
    from blogbuild.stages.context import Folders

#: The front matter's keys of cells' defaults, besides `execute:` (Quarto's `format: html:`).
_FORMAT_KEYS = ("echo", "eval", "output", "include", "warning", "error", "code-fold",
                "code-summary")


def read_cells(document: Document, job: SourceJob, config: Config, folders: Folders) -> None:
    """The cells of the document (into `document.env["quarto"].cells`), their outputs from
    its freeze file or a run at build time, the files read among the render's inputs."""
    page = document.env["quarto"]
    cells = scan(document.text)
    if not cells and not INLINE.search(document.text):
        return
    found = PageCells(scripts=config.notebooks.scripts)
    defaults = _defaults(document, found)
    for cell in cells:
        found.cells[cell.line] = cell
        options = cell_options(cell.source, (), defaults={**defaults, **knitr(cell.attrs)}) \
            if cell.runs else CellOptions(code=cell.source)
        found.options[cell.line] = options
        found.problems.extend((cell.line + line, message, Severity.WARNING)
                              for line, message in options.problems)
    page.cells = found
    freeze = read_freeze(config.root, config.content_dir, job.rel)
    document.env.setdefault("inputs", {}).update(freeze.inputs)
    if freeze.shown and use_freeze(found, freeze, document.text):
        return
    from blogbuild.quarto.running import run_cells  # the notebook-run stage's machinery

    run_cells(found, document, job, config, folders)


#: A knitr chunk option in a cell's braces that CellOptions has: ```{r, echo=FALSE}.
_KNITR = re.compile(r"\b(echo|eval|include|error|warning)\s*=\s*(TRUE|FALSE|T|F)\b")
_KNITR_FIELDS = {"echo": "input", "eval": "evaluate", "include": "show",
                 "error": "allow_error", "warning": "warnings"}


#: knitr's chunk label: the first word in the braces, not `key=value` (```{r fig-map, echo=F}).
_KNITR_LABEL = re.compile(r"[\s,]*([A-Za-z][\w.:-]*)[ \t]*(?:,|$)")


def knitr(attrs: str) -> dict[str, bool | str]:
    """The fields of CellOptions that knitr's options in a cell's braces set, its chunk
    label the cell's `label` as Quarto reads it (the `#|` lines override them)."""
    found: dict[str, bool | str] = {_KNITR_FIELDS[key]: value.startswith("T")
                                    for key, value in _KNITR.findall(attrs)}
    label = _KNITR_LABEL.match(attrs)
    if label is not None:
        found["label"] = label[1]
    return found


def _defaults(document: Document, found: PageCells) -> dict[str, Any]:
    """The fields of every cell's options the front matter sets: `execute:` (and under
    `format: html:`, with its `code-fold` and `code-summary`)."""
    front = document.front
    data = front.data
    html = data.get("format", {}).get("html") if isinstance(data.get("format"), dict) \
        else None
    values: dict[str, Any] = {}
    for place, key in ((html, "execute"), (data, "execute")):
        given = place.get(key) if isinstance(place, dict) else None
        if isinstance(given, dict):
            values.update({str(k): v for k, v in given.items()})
    if isinstance(html, dict):
        values.update({k: html[k] for k in _FORMAT_KEYS if k in html})
    for key in ("code-fold", "code-summary"):
        if key in data:
            values[key] = data[key]
    node = front.nodes.get("execute") or front.nodes.get("format")
    line = front.doc.line(node) if node is not None and front.doc is not None else 0
    problems: list[tuple[int, str]] = []
    out = quarto_values({k: v for k, v in values.items() if k in _FORMAT_KEYS}, {},
                        problems, prefix="execute: ")
    # A line of the front matter, as a line of the text (above its first).
    found.problems.extend((line - document.line_offset - 1 if line else None, message,
                           Severity.WARNING) for _, message in problems)
    return out


def use_freeze(found: PageCells, freeze: Freeze, text: str) -> bool:
    """Give the page's cells the outputs of `freeze` in order; False (and a warning) when
    its cells are not those of the page: frozen from another version."""
    for message in freeze.problems:
        found.problems.append((None, message, Severity.WARNING))
    ran = [cell for cell in found.cells.values() if cell.runs]
    # Quarto leaves out of the document it freezes a cell with `include: false`, and one
    # that shows nothing (no code, no output); a frozen cell shows its code or not.
    shown = [cell for cell in ran if found.options[cell.line].show]
    pairs = _pairs([found.options[cell.line].input for cell in shown], freeze.echoed)
    if pairs is None:
        where = ran[0].line if ran else None
        found.problems.append((where, f"{freeze.shown} holds the outputs of "
                               f"{len(freeze.cells)} cells that are not this file's "
                               f"{len(shown)}: it was frozen from another version of the "
                               "file, and is not used; run `quarto render` on the file to "
                               "freeze it again", Severity.WARNING))
        return False
    for index, frozen in pairs:
        found.outputs[shown[index].line] = tuple(freeze.cells[frozen])
    found.inline.update(frozen_values(text, freeze.markdown))
    return True


def _pairs(echo: list[bool], echoed: list[bool]) -> list[tuple[int, int]] | None:
    """(cell of the source, cell of the freeze) in order: a frozen cell that shows its code
    is the next cell that shows it (those between, without code, showed nothing), one that
    does not the next cell; None when they do not pair so, or cells that show their code
    are left over."""
    pairs: list[tuple[int, int]] = []
    index = 0
    for frozen, shows_code in enumerate(echoed):
        while shows_code and index < len(echo) and not echo[index]:
            index += 1
        if index >= len(echo) or echo[index] != shows_code:
            return None
        pairs.append((index, frozen))
        index += 1
    return pairs if not any(echo[index:]) else None
