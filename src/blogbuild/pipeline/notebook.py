"""Rendering a Jupyter notebook: the render of a .ipynb source (see pipeline/render.py).

Read the notebook (blogbuild.content.notebooks.read), its front matter (first cell), run it when
`execute` asks, lay its cells out as one Markdown document and render that with the
site's parser and the notebook plugin. Every message about the notebook points at a line
of the .ipynb file, and says which cell (and which line of it) it is about.
"""

from __future__ import annotations

import dataclasses
import posixpath
from collections.abc import Callable
from typing import Any

from markdown_it.common.utils import escapeHtml

from blogbuild.config import Config
from blogbuild.config_checks import NOTEBOOK_EXECUTE
from blogbuild.config_citations import BUILTIN_STYLES
from blogbuild.content.frontmatter import parse_meta
from blogbuild.content.linkmap import LinkMap, document_url
from blogbuild.content.models import SourceJob
from blogbuild.content.notebooks.frontmatter import CellError, NotebookFront, notebook_front
from blogbuild.content.notebooks.locate import Locator
from blogbuild.content.notebooks.read import Notebook, read_notebook
from blogbuild.content.records import Rendered, RenderResult
from blogbuild.diagnostics import ContentError, Diagnostic, Severity, error, warning
from blogbuild.images.process import options_of
from blogbuild.markdown.notebook.document import notebook_page
from blogbuild.markdown.notebook.options import cell_options
from blogbuild.pipeline.bibliography import post_bibliography
from blogbuild.pipeline.notebook_run import run_notebook, wants_run
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


def render_notebook(job: SourceJob, config: Config, data: bytes, digest: str,
                    links: LinkMap | None, feed: bool,
                    render: Callable[..., Rendered]) -> RenderResult:
    """The render of a notebook; `render(text, **options)` renders Markdown with the
    site's parser (pipeline/render.py's `render_markdown`)."""
    places = _Places(data)
    try:
        notebook = read_notebook(data, job.display)
    except ContentError as exc:
        return RenderResult(job, digest, diagnostics=(
            error(job.display, exc.line, exc.message),))
    problems = [warning(job.display, p.line, p.message) for p in notebook.problems]
    try:
        front = notebook_front(notebook.cells, job.display)
    except CellError as exc:
        return RenderResult(job, digest, diagnostics=(places.diagnostic(
            job.display, exc.cell, exc.line, exc.message, severity=Severity.ERROR),))
    try:
        meta = parse_meta(front.fm, job.display, posixpath.basename(job.rel)[:-len(".ipynb")])
    except ContentError as exc:
        if front.cell is None or not exc.line:  # the file's name (a date that is not one)
            return RenderResult(job, digest, diagnostics=(error(job.display, exc.line,
                                                                exc.message),))
        return RenderResult(job, digest, diagnostics=(places.diagnostic(
            job.display, front.cell, exc.line + front.shift, exc.message,
            severity=Severity.ERROR),))
    notes = [places.diagnostic(job.display, front.cell or 1, line + front.shift, note)
             for line, note in meta.notes]
    meta = dataclasses.replace(meta, notes=())
    settings = _settings(front, config, problems, places, job)
    execution = None
    if settings["execute"] != "never" and wants_run(notebook, settings["execute"]):
        if notebook.language != "python":
            problems.append(warning(job.display, 0, f"the notebook's kernel is "
                                    f"{notebook.kernel or notebook.language}, and only Python "
                                    "notebooks run at build time; its stored outputs are "
                                    "shown"))
        else:
            ran, execution = _run(notebook, config, job, places, problems)
            notebook = ran
    bib = post_bibliography(job, front.fm, config)
    for problem in bib.problems:  # the front matter's lines are the first cell's
        problems.append(places.diagnostic(job.display, front.cell, problem.line + front.shift,
                                          problem.message, severity=problem.severity)
                        if problem.file == job.display and front.cell is not None
                        and problem.line else problem)
    page = notebook_page(notebook, front, scripts=config.notebooks.scripts)
    problems += [places.diagnostic(job.display, cell, line, message)
                 for cell, line, message in page.problems]
    self_url = links.url_of(job.rel) if links is not None else None
    if links is not None and self_url is None:  # a draft: it has a URL all the same
        self_url = document_url(config, job.rel, job.kind, meta)
    page_url = config.urls.url(encode_path(self_url)) if self_url is not None else None
    rendered = render(
        page.text,
        file=job.display,
        source_dir=job.rel.rpartition("/")[0],
        extract_title=meta.title is None,
        links=links,
        runnable=config.runnable,  # a Markdown cell's build-time blocks run as a post's do
        feed_base=config.urls.absolute(self_url) if self_url is not None else None,
        page_url=page_url,
        feed=feed,
        cover=bool(meta.image),
        bibliography=bib.library,
        citation_style=config.citations.style if config.citations.style in BUILTIN_STYLES
        else str(config.root / config.citations.style),
        images=options_of(config),
        extra_env={"notebook": page, "notebook_runnable": settings["runnable"]},
    )
    moved = [_moved(d, page.origins, places) for d in rendered.diagnostics]
    header, files = _links(job, config, settings, page_url)
    if execution is not None:
        rendered = dataclasses.replace(rendered, execution=execution)
    rendered = dataclasses.replace(rendered, html=header + rendered.html, diagnostics=(),
                                   files=tuple(sorted({*rendered.files, *files})))
    if not any(c.source.strip() for c in notebook.cells):
        problems.insert(0, warning(job.display, 0, "the notebook has no cells with text; "
                                   "write the post in it"))
    return RenderResult(job, digest, meta, rendered, (*problems, *notes, *moved))


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


def _run(notebook: Notebook, config: Config, job: SourceJob, places: _Places,
         problems: list[Diagnostic]) -> tuple[Notebook, Any]:
    from blogbuild.fingerprints import CAPTURE_MODULE
    from blogbuild.themefiles import theme_static

    options = {c.number: cell_options(c.source, c.tags) for c in notebook.cells
               if c.kind == "code"}
    ran = run_notebook(notebook, options, config.runnable.timeout,
                       theme_static() / CAPTURE_MODULE)
    for cell, line, is_error, message in ran.problems:
        problems.append(places.diagnostic(job.display, cell, line, message,
                                          severity=Severity.ERROR if is_error
                                          else Severity.WARNING))
    return ran.notebook, ran.execution


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
