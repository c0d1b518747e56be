"""The reader of Jupyter notebooks (`.ipynb`): a notebook's cells as one Markdown page.

Read the notebook (blogbuild.content.notebooks.read), its front matter (first cell), run
it when `execute` asks (the notebook-run stage, `Step.CELLS`), and lay its cells out as one
Markdown document, which the render parses with the site's parser and the notebook plugin.
Every message about the notebook points at a line of the .ipynb file, and says which cell
(and which line of it) it is about.
"""

from __future__ import annotations

import dataclasses
import posixpath
from typing import Any

import yaml
from markdown_it.common.utils import escapeHtml

from blogbuild.config_checks import NOTEBOOK_EXECUTE
from blogbuild.config_model import Config
from blogbuild.content.dates import BadDate
from blogbuild.content.frontmatter import parse_meta
from blogbuild.content.jobs import SourceJob
from blogbuild.content.linkmap import DocumentInfo
from blogbuild.content.notebooks.frontmatter import CellError, NotebookFront, notebook_front
from blogbuild.content.notebooks.locate import Locator
from blogbuild.content.notebooks.read import read_notebook
from blogbuild.content.records import Rendered
from blogbuild.diagnostics import ContentError, Diagnostic, Severity, error, warning
from blogbuild.markdown.notebook.document import notebook_page
from blogbuild.readers import Document, Unreadable, stem
from blogbuild.readers.markdown import first_heading
from blogbuild.stages import Step, stages
from blogbuild.stages.context import Folders, Page, run_stage
from blogbuild.urls import encode_path

_FLAGS = ("download", "colab", "runnable")


class _Places:
    """Lines of the .ipynb file for lines of its cells (found only when a message needs
    one: the notebook's JSON is read for it)."""

    def __init__(self, data: bytes) -> None:
        self.data = data
        self._locator: Locator | None = None

    def line(self, cell: int, line: int) -> int:
        """The file line of a line of cell `cell`, else of the cell itself (an empty one)."""
        if self._locator is None:
            self._locator = Locator(self.data)
        return self._locator.line(cell, max(1, line)) or \
            self._locator.line_at(("cells", cell - 1))

    def diagnostic(self, file: str, cell: int, line: int, message: str, *,
                   severity: Severity = Severity.WARNING) -> Diagnostic:
        where = f"cell {cell}, line {line}" if line else f"cell {cell}, outputs"
        return Diagnostic(file, self.line(cell, line or 1), 0, severity, f"{where}: {message}")


class NotebookReader:
    """A Jupyter notebook: its cells laid out as one Markdown page."""

    def info(self, job: SourceJob, data: bytes, *, fast: bool) -> DocumentInfo | None:
        """What the notebook's front matter says (blogbuild.content.notebooks.frontmatter),
        and the title of its first heading when that says none (`fast` or not: notebooks
        are few, and their front matter is read one way)."""
        try:
            cells = read_notebook(data, job.display).cells
            front = notebook_front(cells, job.display)
            meta = parse_meta(front.fm, job.display, stem(job.path.name))
        except (ContentError, ValueError, TypeError, yaml.YAMLError, RecursionError, BadDate):
            return None
        body = front.body or ""
        if not body.strip():
            first = next((c for c in cells if c.source.strip() and c.number != front.cell),
                         None)
            body = first.source if first is not None and first.kind == "markdown" else ""
        return DocumentInfo(job.rel, job.kind, meta, meta.title or first_heading(body))

    def read(self, job: SourceJob, data: bytes, config: Config, folders: Folders) -> Document:
        """Read the notebook (blogbuild.content.notebooks.read) and its front matter (first
        cell), run it when `execute` asks, and lay its cells out as one Markdown page for
        the site's parser and the notebook plugin."""
        places = _Places(data)
        try:
            notebook = read_notebook(data, job.display)
        except ContentError as exc:
            raise Unreadable(error(job.display, exc.line, exc.message)) from None
        problems = [warning(job.display, p.line, p.message) for p in notebook.problems]
        try:
            front = notebook_front(notebook.cells, job.display)
        except CellError as exc:
            raise Unreadable(places.diagnostic(job.display, exc.cell, exc.line, exc.message,
                                               severity=Severity.ERROR)) from None
        try:
            meta = parse_meta(front.fm, job.display, stem(job.path.name))
        except ContentError as exc:
            if front.cell is None or not exc.line:  # the file's name (a date that is not one)
                raise Unreadable(error(job.display, exc.line, exc.message)) from None
            raise Unreadable(places.diagnostic(job.display, front.cell, exc.line + front.shift,
                                               exc.message, severity=Severity.ERROR)) from None
        settings = _settings(front, config, problems, places, job)
        cells = Page(job.display, folders=folders, job=job, config=config, notebook=notebook,
                     execute=settings["execute"], problems=problems,
                     place=lambda cell, line, message, severity: places.diagnostic(
                         job.display, cell, line, message, severity=severity))
        for stage in stages(Step.CELLS):  # the notebook run at build time
            run_stage(stage, cells)
        notebook, execution = cells.notebook or notebook, cells.execution
        page = notebook_page(notebook, front, scripts=config.notebooks.scripts)
        return NotebookDocument(
            job.display, front.fm, dataclasses.replace(meta, notes=()), page.text,
            env={"notebook": page, "notebook_runnable": settings["runnable"]},
            problems=problems, execution=execution, job=job, config=config,
            places=places, front_cell=front, notes=meta.notes, settings=settings,
            blank=not any(c.source.strip() for c in notebook.cells))


READER = NotebookReader()


@dataclasses.dataclass
class NotebookDocument(Document):
    """A notebook as the render takes it: every message moved to its cell."""

    job: SourceJob | None = None
    config: Config | None = None
    places: _Places | None = None
    front_cell: NotebookFront | None = None
    #: The front matter's warnings (lines of its text), moved to its cell when shown.
    notes: tuple[tuple[int, str], ...] = ()
    settings: dict[str, Any] = dataclasses.field(default_factory=dict)
    blank: bool = False  # no cell has text

    def at_front(self, diagnostic: Diagnostic) -> Diagnostic:
        """A line of the front matter is a line of the cell it was read from."""
        front = self.front_cell
        if (self.places is None or front is None or front.cell is None
                or diagnostic.file != self.file or not diagnostic.line):
            return diagnostic
        return self.places.diagnostic(self.file, front.cell, diagnostic.line + front.shift,
                                      diagnostic.message, severity=diagnostic.severity)

    def finish(self, rendered: Rendered, cited: tuple[Diagnostic, ...],
               page_url: str | None = None) -> tuple[Rendered, tuple[Diagnostic, ...]]:
        assert self.places is not None and self.job is not None and self.config is not None
        page = self.env["notebook"]
        front = self.front_cell
        cell = (front.cell if front is not None else None) or 1
        shift = front.shift if front is not None else 0
        notes = [self.places.diagnostic(self.file, cell, line + shift, note)
                 for line, note in self.notes]
        moved = [_moved(d, page.origins, self.places) for d in rendered.diagnostics]
        header, files = _links(self.job, self.config, self.settings, page_url)
        if self.execution is not None:
            rendered = dataclasses.replace(rendered, execution=self.execution)
        rendered = dataclasses.replace(rendered, html=header + rendered.html, diagnostics=(),
                                       files=tuple(sorted({*rendered.files, *files})))
        problems = [*self.problems, *cited]
        problems += [self.places.diagnostic(self.file, cell_number, line, message)
                     for cell_number, line, message in page.problems]
        if self.blank:
            problems.insert(0, warning(self.file, 0, "the notebook has no cells with text; "
                                       "write the post in it"))
        return rendered, (*problems, *notes, *moved)


def _settings(front: NotebookFront, config: Config, problems: list[Diagnostic],
              places: _Places, job: SourceJob) -> dict[str, Any]:
    """The notebook's own choices (front matter) over the site's `notebooks:`."""
    data, cell = front.fm.data, front.cell or 1

    def line(key: str) -> int:  # the key's line in the front matter's cell
        node, doc = front.fm.nodes.get(key), front.fm.doc
        return max(1, doc.line(node) + front.shift) if node is not None and doc else 1

    site = config.notebooks
    out: dict[str, Any] = {"execute": site.execute, "download": site.download,
                           "colab": site.colab, "runnable": False}
    execute = data.get("execute")
    if isinstance(execute, dict):  # Quarto's `execute: {eval: false, …}`
        execute = "never" if execute.get("eval") is False else None
    if execute is not None:
        if execute is True:
            execute = "always"
        elif execute is False:
            execute = "never"
        if execute in NOTEBOOK_EXECUTE:
            out["execute"] = execute
        else:
            problems.append(places.diagnostic(
                job.display, cell, line("execute"), "'execute' must be never, auto or "
                f"always, not {execute!r}; the site's {site.execute!r} applies"))
    for key in _FLAGS:
        value = data.get(key)
        if isinstance(value, bool):
            out[key] = value
        elif value is not None:
            problems.append(places.diagnostic(job.display, cell, line(key), f"'{key}' must be "
                                              f"true or false, not {value!r}; it is ignored"))
    return out


def _moved(diagnostic: Diagnostic, origins: tuple[tuple[int, int], ...],
           places: _Places) -> Diagnostic:
    """A message of the Markdown render (at a line of the page's text) moved to its cell."""
    index = diagnostic.line - 1
    if not 0 <= index < len(origins):
        return diagnostic
    cell, line = origins[index]
    # An output is what code printed, not what the author wrote: LaTeX that KaTeX cannot
    # typeset there is shown as its source with a warning, and never stops the build.
    severity = Severity.WARNING if line == 0 else diagnostic.severity
    return places.diagnostic(diagnostic.file, cell, line, diagnostic.message,
                             severity=severity)


def _links(job: SourceJob, config: Config, settings: dict[str, Any],
           page_url: str | None) -> tuple[str, list[tuple[str, str]]]:
    """The links above a notebook post (download it, open it in Colab) and the files
    published beside its page for them."""
    name = posixpath.basename(job.rel)
    items = []
    files: list[tuple[str, str]] = []
    if settings["download"] and page_url is not None:
        files.append((name, str(job.path)))
        items.append(f'<a class="nb-download" href="{escapeHtml(encode_path(name))}" '
                     "download>Download the notebook</a>")
    repo = config.notebooks.repository
    if settings["colab"] and repo:
        folder = config.notebooks.folder.strip("/")
        path = posixpath.join(folder, config.content_dir, job.rel)
        url = (f"https://colab.research.google.com/github/{repo}/blob/"
               f"{config.notebooks.branch}/{encode_path(path)}")
        items.append(f'<a class="nb-colab" href="{escapeHtml(url)}" rel="noopener">Open in '
                     "Colab</a>")
    if not items:
        return "", files
    return f'<p class="nb-links">{" ".join(items)}</p>\n', files
