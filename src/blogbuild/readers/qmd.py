"""The reader of Quarto documents (`.qmd`): YAML front matter, then Pandoc's Markdown as
Quarto writes it.

The body is Markdown of this site's dialect with Quarto's additions on: fenced divs and
bracketed spans, callouts, tabsets, cross-references, shortcodes and executable cells
(the plugins of blogbuild.markdown.quarto, in the parser of Quarto documents, each on only
for a page whose environment holds `quarto`). What Quarto reads around the file is read
here, by the helpers of blogbuild.quarto: its front matter's Quarto forms (quarto.front),
the `_metadata.yml` of its folders (quarto.metadata) and the files it includes
(quarto.include), each file read recorded among the render's inputs, and every message
about an included line moved to that file's line (`QuartoDocument.finish`).
"""

from __future__ import annotations

import dataclasses
import datetime as dt
from pathlib import Path
from typing import Any

from blogbuild.config_model import Config
from blogbuild.content.frontmatter import FrontMatter, parse_meta, split_front_matter
from blogbuild.content.jobs import SourceJob
from blogbuild.content.linkmap import DocumentInfo
from blogbuild.content.records import Rendered
from blogbuild.diagnostics import ContentError, Diagnostic, error, warning
from blogbuild.quarto import QuartoPage
from blogbuild.quarto.cells import read_cells
from blogbuild.quarto.crossref import read_crossref
from blogbuild.quarto.front import Modified, quarto_front, quarto_hint
from blogbuild.quarto.include import Where, expand
from blogbuild.quarto.metadata import (
    merge_plain,
    merged_front,
    metadata_paths,
    quick_layers,
    read_variables,
)
from blogbuild.readers import Document, Unreadable, stem
from blogbuild.readers.markdown import UNREADABLE, front_info, refuse_surrogates
from blogbuild.sourcetext import decode_source
from blogbuild.stages.context import Folders


class QuartoReader:
    """A Quarto document: front matter and Pandoc-flavoured Markdown."""

    def info(self, job: SourceJob, data: bytes, *, fast: bool) -> DocumentInfo | None:
        """`fast`: the front matter and the directory metadata as plain data, Quarto's
        dates made ours (`quarto_hint`), the fields that place the document only."""
        def quick(front: dict[str, Any]) -> dict[str, Any]:
            layers = quick_layers(metadata_paths(job.path, job.rel))
            return quarto_hint(merge_plain(layers, front), _modified(job))

        try:
            return front_info(job, decode_source(data, job.display), fast=fast, quick=quick,
                              full=lambda text: _front(job, text, Path(), {}))  # no messages
        except UNREADABLE:
            return None

    def read(self, job: SourceJob, data: bytes, config: Config, folders: Folders) -> Document:
        inputs: dict[str, str] = {}
        problems: list[Diagnostic] = []
        try:
            text = decode_source(data, job.display)
            fm = _front(job, text, config.root, inputs, problems=problems)
            meta = parse_meta(fm, job.display, stem(job.path.name))
        except ContentError as exc:
            raise Unreadable(error(exc.file or job.display, exc.line, exc.message)) from None
        where = Where(config.root, config.content_path)
        body = expand(fm.body, path=job.path, file=job.display,
                      first_line=fm.body_line_offset + 1, where=where)
        inputs.update(body.inputs)
        problems += body.problems
        if not fm.body.strip():
            what = "is empty" if not text.strip() else "has no text after its front matter"
            problems.append(warning(job.display, fm.body_line_offset + 1 if text.strip() else 0,
                                    f"the file {what}; write the post below the front matter"))
        page = QuartoPage(meta=dict(fm.data))
        problems += read_crossref(page, fm, job.display)
        if "{{<" in body.text and "var" in body.text:
            page.variables, problem = read_variables(config.content_path, config.root, inputs)
            problems += [problem] if problem is not None else []
        document = QuartoDocument(
            job.display, fm, meta, body.text, fm.body_line_offset,
            env={"quarto": page, "inputs": inputs}, problems=problems,
            origins=tuple(body.origins) if body.moved else (),
            anchors=tuple(body.anchors) if body.moved else ())
        read_cells(document, job, config, folders)  # executable cells and their outputs
        return document


READER = QuartoReader()


@dataclasses.dataclass
class QuartoDocument(Document):
    """A Quarto document as the render takes it: its front matter's `subtitle:` under its
    title, a message about an included line moved to the included file's line."""

    #: Per line of `text`, its file (as shown) and line; empty when nothing was included.
    origins: tuple[tuple[str, int], ...] = ()
    #: Per line of `text`, the line of this file it stands for (an include's, for the
    #: lines it brought: a link there is checked, and named, with the document).
    anchors: tuple[int, ...] = ()

    def finish(self, rendered: Rendered, cited: tuple[Diagnostic, ...],
               page_url: str | None = None) -> tuple[Rendered, tuple[Diagnostic, ...]]:
        rendered, diagnostics = super().finish(rendered, cited, page_url)
        subtitle = self.front.data.get("subtitle")
        if isinstance(subtitle, str) and subtitle.strip() and rendered.subtitle is None:
            rendered = dataclasses.replace(rendered, subtitle=subtitle.strip())
        if not self.origins:
            return rendered, diagnostics
        moved = tuple(self._moved(d) for d in rendered.diagnostics)
        refs = tuple(dataclasses.replace(ref, line=self._anchor(ref.line))
                     for ref in rendered.refs)
        return dataclasses.replace(rendered, diagnostics=moved, refs=refs), (
            *diagnostics[:len(diagnostics) - len(moved)], *moved)

    def _anchor(self, line: int) -> int:
        index = line - self.line_offset - 1
        return self.anchors[index] if 0 <= index < len(self.anchors) else line

    def _moved(self, diagnostic: Diagnostic) -> Diagnostic:
        index = diagnostic.line - self.line_offset - 1
        if diagnostic.file != self.file or not 0 <= index < len(self.origins):
            return diagnostic
        file, line = self.origins[index]
        return dataclasses.replace(diagnostic, file=file, line=line)


def _front(job: SourceJob, text: str, root: Path, inputs: dict[str, str], *,
           problems: list[Diagnostic] | None = None) -> FrontMatter:
    """The front matter as the site reads it: Quarto's values made ours, over the
    directory metadata (each file read recorded in `inputs`, shown from `root`; the
    warnings about it added to `problems`)."""
    fm = split_front_matter(text, job.display)
    refuse_surrogates(fm, job.display)
    modified = _modified(job)
    fm = quarto_front(fm, job.display, modified,
                      problems=[] if problems is None else problems)
    return merged_front(fm, job.display, metadata_paths(job.path, job.rel),
                        root, inputs, modified)


def _modified(job: SourceJob) -> Modified:
    """When the document's file was last written (`date: last-modified`), looked up when
    asked."""
    def modified() -> dt.datetime | None:
        try:
            stamp = job.path.stat().st_mtime
        except OSError:
            return None
        return dt.datetime.fromtimestamp(int(stamp), dt.UTC)
    return modified
