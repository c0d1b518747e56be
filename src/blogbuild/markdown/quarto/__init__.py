"""Quarto's Markdown: what a `.qmd` page (blogbuild.readers.qmd) adds to the site's dialect.

Each plugin here is installed only in the parser of Quarto documents (blogbuild.pipeline.
render.parser_for: a `.md` post is parsed without them, and a site without a `.qmd` page
never loads them), and each does nothing on a page whose environment holds no `quarto`.
"""

from __future__ import annotations

from markdown_it import MarkdownIt

from blogbuild.config_model import Config
from blogbuild.markdown.env import is_quarto
from blogbuild.markdown.quarto.cells import cells_plugin
from blogbuild.markdown.quarto.crossrefs import crossrefs_plugin
from blogbuild.markdown.quarto.divs import divs_plugin
from blogbuild.markdown.quarto.grids import grids_plugin
from blogbuild.markdown.quarto.shortcodes import shortcodes_plugin

__all__ = ["is_quarto", "quarto_plugin"]


def quarto_plugin(md: MarkdownIt, *, config: Config) -> None:
    """Quarto's additions, each gated by `is_quarto` (blogbuild.markdown.env: the plugins
    import it from there, not from this package, which imports them)."""
    md.use(crossrefs_plugin)
    md.use(divs_plugin, config=config, gate=is_quarto)
    md.use(shortcodes_plugin, urls=config.urls)
    md.use(cells_plugin)
    md.use(grids_plugin)
