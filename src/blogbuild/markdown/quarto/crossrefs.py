"""Quarto's cross-references on a Quarto page: its labels (tables' captions, labelled
equations, numbers and words: labels.py, tables.py, equations.py) and its references
(`@fig-x`: xrefs.py)."""

from __future__ import annotations

from markdown_it import MarkdownIt

from blogbuild.markdown.quarto.equations import equations_plugin
from blogbuild.markdown.quarto.labels import labels_plugin
from blogbuild.markdown.quarto.tables import tables_plugin
from blogbuild.markdown.quarto.xrefs import refs_plugin

__all__ = ["crossrefs_plugin"]


def crossrefs_plugin(md: MarkdownIt) -> None:
    """Install with the Quarto plugins (after the math plugin, before the figures', the
    citations', the table of contents' and the xrefs' plugins)."""
    md.use(tables_plugin)
    md.use(equations_plugin)
    md.use(labels_plugin)
    md.use(refs_plugin)
