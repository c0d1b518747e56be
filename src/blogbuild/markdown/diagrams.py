"""```mermaid and ```dot / ```graphviz fences: diagrams drawn at build time, inline SVG.

The reader gets SVG and no script. A Mermaid diagram is drawn twice, in Mermaid's light
and dark themes, and the page shows the one of the reader's theme; a Graphviz drawing is
drawn once, its black and white following the theme's colours (static/css/diagram.css).
The info string may give a title (`title="…"`, also the SVG's accessible name) and an id
(`{#fig-flow}`): with either, the diagram is a numbered figure, referable as images are.

This plugin only finds the diagrams (a core rule, before the figures are numbered): what
each is, its title and id, in `env["diagrams"]`. The diagram stage draws a document's
diagrams together once it is parsed (blogbuild.stages.diagrams), and puts the drawings in
the tokens' meta. A diagram the renderer cannot draw (a syntax error) is an error at the
fence's line, with the renderer's message, and the page keeps the fence as code.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from markdown_it import MarkdownIt
from markdown_it.common.utils import escapeHtml
from markdown_it.rules_core import StateCore
from markdown_it.token import Token
from markdown_it.utils import OptionsDict

from blogbuild.markdown.env import Env
from blogbuild.markdown.fenceinfo import parse_info
from blogbuild.markdown.statements import split_id

KINDS = {"mermaid": "mermaid", "dot": "dot", "graphviz": "dot"}
#: `#fig-flow` among the words of the info string (`{#fig-flow title="…"}` too).
_ID = re.compile(r"(?:(?<=\s)|(?<=\{))#([\w:.-]+)")


#: Quarto's fences: `{mermaid}` runs the block when Quarto renders the page, `{{mermaid}}`
#: shows it as code. Neither is a diagram of ours (the page shows its text as code).
_QUARTO = re.compile(r"\{+[^{}.#\s]+\}+")


def _kind(info: str) -> str | None:
    words = info.strip().split(maxsplit=1)
    if not words or _QUARTO.fullmatch(words[0]):
        return None
    return KINDS.get(words[0].strip("{}.").lower())


def diagrams(state: StateCore) -> None:
    """Every diagram fence becomes a `diagram` token to draw (`env["diagrams"]`), its meta
    saying its kind, id and title; an id that cannot be one is dropped (the stage warns)."""
    found: list[Token] = state.env.setdefault("diagrams", [])
    for token in state.tokens:
        kind = _kind(token.info) if token.type == "fence" else None
        if kind is None or not token.content.strip() or token.map is None:
            continue
        token.type, token.tag, token.nesting = "diagram", "div", 0
        token.meta = {"kind": kind, **fence_meta(token.info)}
        found.append(token)


def as_code(token: Token) -> None:
    """A drawn fence that could not be drawn (a diagram, a chart) shown as the code it is:
    a fence again, without the figure's id."""
    token.type, token.tag, token.nesting = "fence", "code", 0
    if token.meta.get("figure_id") is not None and token.attrGet("id") == token.meta["figure_id"]:
        del token.attrs["id"]
    token.meta = {}


def fence_meta(info: str) -> dict[str, Any]:
    """The id and title a drawn fence's info string gives (`{#fig-flow title="…"}`, or the
    words themselves): {"id", "bad_id" (an id that cannot be one, for a warning), "title"}."""
    ident_match = _ID.search(info)
    ident = ident_match[1] if ident_match else None
    # The braces hold no more than the id and the attributes.
    _lang, attrs, _lines = parse_info(_ID.sub("", info).replace("{", " ").replace("}", " "))
    bad = ident is not None and split_id(f"{{#{ident}}}") is None
    return {"id": None if bad else ident, "bad_id": ident if bad else None,
            "title": " ".join(attrs.get("title", "").split())}


def _render(self: Any, tokens: Sequence[Token], idx: int, options: OptionsDict,
            env: Env) -> str:
    meta = tokens[idx].meta
    svgs: list[str] = meta["svgs"]
    if len(svgs) == 2 and not env.get("feed"):  # a feed reader has no theme switch
        body = (f'<div class="diagram-light only-light">{svgs[0]}</div>'
                f'<div class="diagram-dark only-dark">{svgs[1]}</div>')
    else:
        body = svgs[0]
    inner = f'<div class="diagram-scroll" tabindex="0">{body}</div>'
    if meta.get("number") is None:
        return f'<div class="diagram diagram-{meta["kind"]}">{inner}</div>\n'
    return (f'<figure class="figure diagram diagram-{meta["kind"]}" '
            f'id="{escapeHtml(str(meta["figure_id"]))}">\n{inner}\n'
            f"<figcaption>{caption_html(meta)}</figcaption>\n</figure>\n")


def caption_html(meta: dict[str, Any]) -> str:
    """The caption of a numbered drawn figure (a diagram, a chart): its number and title."""
    caption = f'<span class="figure-number">Figure {meta["number"]}.</span>'
    if meta.get("title"):
        caption += f" {escapeHtml(meta['title'])}"
    return caption


def preview_html(token: Token) -> str:
    """What a preview of a numbered diagram shows elsewhere: its caption (its drawing is
    large, and its ids are the page's own)."""
    caption = caption_html(token.meta)
    return f'<figure class="figure">\n<figcaption>{caption}</figcaption>\n</figure>'


def _render_fallback(self: Any, tokens: Sequence[Token], idx: int, options: OptionsDict,
                     env: Env) -> str:
    """The diagram's text, which static/js/mermaid.js replaces with Mermaid's drawing (a
    numbered one in its figure, with its caption)."""
    meta = tokens[idx].meta
    inner = (f'<pre class="mermaid-fallback">'
             f"{escapeHtml(tokens[idx].content)}</pre>")
    if meta.get("number") is None:
        return f'<div class="diagram diagram-mermaid">{inner}</div>\n'
    return (f'<figure class="figure diagram diagram-mermaid" '
            f'id="{escapeHtml(str(meta["figure_id"]))}">\n{inner}\n'
            f"<figcaption>{caption_html(meta)}</figcaption>\n</figure>\n")


def diagrams_plugin(md: MarkdownIt) -> None:
    """Install before the figures plugin's numbering runs (it numbers these too)."""
    md.core.ruler.after("block", "diagrams", diagrams)
    md.add_render_rule("diagram", _render)
    md.add_render_rule("diagram_fallback", _render_fallback)
