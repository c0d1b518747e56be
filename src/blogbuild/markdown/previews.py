"""The need of pages whose links show previews: footnote references here, equation
references in math/number.py. Cross-references and citations add it with one call,
``need(env, PREVIEWS)``.

A page with the need loads ``js/previews.js`` (templates/needs/previews.html) and its
stylesheet takes ``css/previews.css``: hovering or focusing such a link shows a copy of
its target, and with ``sidenotes: true`` in site.yaml footnotes also show in the margin.
"""

from __future__ import annotations

from markdown_it import MarkdownIt
from markdown_it.rules_core import StateCore

from blogbuild.markdown.env import need

PREVIEWS = "previews"


def _footnote_refs(state: StateCore) -> None:
    if "^" not in state.src:  # no footnote syntax: most posts skip the walk
        return
    for token in state.tokens:
        if token.type == "inline" and any(
                child.type == "footnote_ref" for child in token.children or ()):
            need(state.env, PREVIEWS)
            return


def previews_plugin(md: MarkdownIt) -> None:
    """Install after the footnote plugin: the rule looks for its references."""
    md.core.ruler.push("previews", _footnote_refs)
