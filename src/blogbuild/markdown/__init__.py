"""The one parser factory: ``create_markdown(config)`` returns a fully configured MarkdownIt."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from markdown_it import MarkdownIt

    from blogbuild.config_model import Config

__all__ = ["create_markdown"]


def create_markdown(config: Config | None = None, *, quarto: bool = True) -> MarkdownIt:
    """Build the parser with every plugin on; `config=None` uses the defaults (REPL, tests).
    `quarto=False` leaves out Quarto's additions, which do nothing on a page that is not a
    Quarto document (a site without one never loads them).

    The plugins are imported here, not with the package: importing one module of it (a
    record type, a helper) must not load them all."""
    from markdown_it import MarkdownIt

    from blogbuild.config_model import Config
    from blogbuild.markdown.admonitions import admonitions_plugin
    from blogbuild.markdown.callouts import callouts_plugin
    from blogbuild.markdown.charts import charts_plugin
    from blogbuild.markdown.citations import citations_plugin
    from blogbuild.markdown.comments import comments_plugin
    from blogbuild.markdown.diagrams import diagrams_plugin
    from blogbuild.markdown.dispatch import dispatch_plugin
    from blogbuild.markdown.feed import feed_plugin
    from blogbuild.markdown.figures import figures_plugin
    from blogbuild.markdown.foreign import foreign_plugin
    from blogbuild.markdown.highlight import highlight_plugin
    from blogbuild.markdown.images import images_plugin
    from blogbuild.markdown.limits import limits_plugin
    from blogbuild.markdown.links import links_plugin
    from blogbuild.markdown.math import math_plugin
    from blogbuild.markdown.more import more_plugin
    from blogbuild.markdown.notebook import notebook_plugin
    from blogbuild.markdown.statements import statements_plugin
    from blogbuild.markdown.tabs import tabs_plugin
    from blogbuild.markdown.toc import toc_plugin
    from blogbuild.markdown.unclosed_tags import unclosed_tags_plugin
    from blogbuild.markdown.widgets.divs import divs_plugin
    from blogbuild.markdown.wikilinks import wikilinks_plugin
    from blogbuild.markdown.xrefs import xrefs_plugin

    config = Config() if config is None else config
    md = MarkdownIt("commonmark", {"html": True, "typographer": False})
    md.enable(["table", "strikethrough"])
    _use_extensions(md)
    md.use(foreign_plugin)
    md.use(feed_plugin)
    md.use(comments_plugin)
    md.use(math_plugin, config=config.math, urls=config.urls)
    md.use(callouts_plugin, types=config.callouts)
    md.use(admonitions_plugin, types=config.callouts)
    md.use(statements_plugin, per_type=config.statements.counters == "per-type")
    md.use(divs_plugin, urls=config.urls)
    if quarto:
        from blogbuild.markdown.quarto import quarto_plugin

        md.use(quarto_plugin, config=config)
    md.use(highlight_plugin)
    md.use(figures_plugin)
    md.use(diagrams_plugin)
    md.use(charts_plugin)
    md.use(toc_plugin)
    md.use(tabs_plugin)  # after the toc plugin: tab ids step aside from headings' ids
    md.use(xrefs_plugin)
    md.use(citations_plugin)
    md.use(wikilinks_plugin)
    md.use(links_plugin, urls=config.urls)
    md.use(images_plugin, urls=config.urls)
    md.use(notebook_plugin)  # after the images plugin: attachments come after its rule
    md.use(limits_plugin)
    md.use(more_plugin)
    md.use(unclosed_tags_plugin)  # last: its check of HTML blocks runs first after "block"
    md.use(dispatch_plugin)  # once every inline rule is in place
    return md


def _use_extensions(md: MarkdownIt) -> None:
    """The extensions of CommonMark every page reads, first: GitHub's (highlights, task
    lists, autolinks, footnotes), definition lists and attribute lists."""
    from mdit_py_plugins.deflist import deflist_plugin
    from mdit_py_plugins.footnote import footnote_plugin
    from mdit_py_plugins.gfm_autolink import gfm_autolink_plugin

    from blogbuild.markdown.attrs import attrs_plugin
    from blogbuild.markdown.footnotes import footnotes_plugin
    from blogbuild.markdown.mark import mark_plugin
    from blogbuild.markdown.positions import positions_plugin
    from blogbuild.markdown.previews import previews_plugin
    from blogbuild.markdown.tasks import tasks_plugin

    md.use(mark_plugin)
    md.use(tasks_plugin)
    md.use(gfm_autolink_plugin)
    md.use(footnote_plugin)
    md.use(positions_plugin)  # after the footnote plugin: its inline notes get lines too
    md.use(footnotes_plugin)
    md.use(previews_plugin)
    md.use(deflist_plugin)
    md.use(attrs_plugin)
