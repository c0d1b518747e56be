"""The reader of Quarto documents (`.qmd`): YAML front matter, then Pandoc's Markdown as
Quarto writes it.

The body is Markdown of this site's dialect with Quarto's additions on: fenced divs and
bracketed spans, callouts, tabsets, cross-references, shortcodes and executable cells
(the plugins of blogbuild.markdown.quarto, each on only for a page whose environment holds
`quarto`). What Quarto reads around the file (`_metadata.yml`, the freeze folder, included
files) is read here, by the helpers of blogbuild.quarto.
"""

from __future__ import annotations

from blogbuild.config import Config
from blogbuild.content.jobs import SourceJob
from blogbuild.content.linkmap import DocumentInfo
from blogbuild.quarto import QuartoPage
from blogbuild.quarto.crossref import read_crossref
from blogbuild.readers import Document
from blogbuild.readers.markdown import MarkdownReader
from blogbuild.stages.context import Folders


class QuartoReader:
    """A Quarto document: front matter and Pandoc-flavoured Markdown."""

    def __init__(self) -> None:
        self._markdown = MarkdownReader()

    def info(self, job: SourceJob, data: bytes, *, fast: bool) -> DocumentInfo | None:
        return self._markdown.info(job, data, fast=fast)

    def read(self, job: SourceJob, data: bytes, config: Config, folders: Folders) -> Document:
        document = self._markdown.read(job, data, config, folders)
        page = QuartoPage(meta=document.front.data)
        document.problems.extend(read_crossref(page, document.front, document.file))
        document.env["quarto"] = page
        return document


READER = QuartoReader()
