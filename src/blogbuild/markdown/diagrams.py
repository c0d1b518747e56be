"""```mermaid and ```dot / ```graphviz fences: diagrams drawn at build time, inline SVG.

The reader gets SVG and no script. A Mermaid diagram is drawn twice, in Mermaid's light
and dark themes, and the page shows the one of the reader's theme; a Graphviz drawing is
drawn once, its black and white following the theme's colours (static/css/diagram.css).
The info string may give a title (`title="…"`, also the SVG's accessible name) and an id
(`{#fig-flow}`): with either, the diagram is a numbered figure, referable as images are.

A diagram the renderer cannot draw (a syntax error) is an error at the fence's line, with
the renderer's message, and the page keeps the fence as code. Drawing happens in the
render, in a child process per diagram with a time and memory limit, cached by its text
(blogbuild.diagrams.draw).
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence
from typing import Any

from markdown_it import MarkdownIt
from markdown_it.common.utils import escapeHtml
from markdown_it.rules_core import StateCore
from markdown_it.token import Token
from markdown_it.utils import OptionsDict

from blogbuild.diagrams.draw import Drawn, draw
from blogbuild.markdown.env import Env, need, report, report_error, source_line
from blogbuild.markdown.highlight import parse_info
from blogbuild.markdown.statements import split_id

KINDS = {"mermaid": "mermaid", "dot": "dot", "graphviz": "dot"}
#: What mmdr says of a type of diagram it does not know (Mermaid may: a newer type).
UNKNOWN_TYPE = "No Mermaid diagram type detected"
#: `#fig-flow` among the words of the info string (`{#fig-flow title="…"}` too).
_ID = re.compile(r"(?:(?<=\s)|(?<=\{))#([\w:.-]+)")


def _kind(info: str) -> str | None:
    words = info.strip().split(maxsplit=1)
    return KINDS.get(words[0].strip("{}.").lower()) if words else None


def _problem(env: Env, token: Token, drawn: Drawn, what: str) -> None:
    assert token.map is not None
    line = source_line(env, token.map[0] + drawn.line) if drawn.line else \
        source_line(env, token.map[0])
    where = f" (line {drawn.line} of the diagram)" if drawn.line else ""
    report_error(env, line, f"{what} cannot be drawn{where}: {drawn.error}; fix the diagram "
                 "(the page shows its text as code until then)")


def diagrams(state: StateCore) -> None:
    env = state.env
    count = 0
    for token in state.tokens:
        kind = _kind(token.info) if token.type == "fence" else None
        if kind is None or not token.content.strip() or token.map is None:
            continue
        info = token.info
        ident_match = _ID.search(info)
        ident = ident_match[1] if ident_match else None
        # `{#fig-flow title="…"}` or the words themselves: the braces hold no more.
        _lang, attrs, _lines = parse_info(_ID.sub("", info).replace("{", " ").replace("}", " "))
        title = " ".join(attrs.get("title", "").split())
        what = "this Mermaid diagram" if kind == "mermaid" else "this Graphviz graph"
        themes = ("default", "dark") if kind == "mermaid" else ("default",)
        drawings = [draw(kind, token.content, theme) for theme in themes]
        failed = next((d for d in drawings if not d.svg), None)
        if failed is not None and kind == "mermaid" and failed.error == UNKNOWN_TYPE:
            first = token.content.strip().split(maxsplit=1)[0]
            report(env, source_line(env, token.map[0]), f"blogbuild cannot draw Mermaid "
                   f"diagrams of the type {first!r}: the reader's browser draws this one "
                   "with Mermaid's own script (5 MB, loaded by this page only); if it is a "
                   "misspelt type, fix it")
            need(env, "mermaid")
            need(env, "diagram")
            token.type, token.tag, token.nesting = "diagram_fallback", "pre", 0
            continue
        if failed is not None:
            _problem(env, token, failed, what)
            continue
        if drawings[0].error:  # drawn, with the renderer's warnings
            report(env, source_line(env, token.map[0]), f"{what} was drawn with warnings: "
                   f"{drawings[0].error}")
        from blogbuild.diagrams.svg import BadSvg, adapt  # XML: only for pages with diagrams

        count += 1
        digest = hashlib.sha256(token.content.encode()).hexdigest()[:8]
        prefix = f"diagram-{count}-{digest}"
        try:
            svgs = [adapt(d.svg, f"{prefix}-{theme}", title=title or _fallback(kind))
                    for d, theme in zip(drawings, themes, strict=True)]
        except BadSvg as exc:
            _problem(env, token, Drawn(error=str(exc)), what)
            continue
        if ident is not None and split_id(f"{{#{ident}}}") is None:
            report(env, source_line(env, token.map[0]), f"the id {ident!r} of this diagram "
                   "cannot be used; write letters, digits and dashes")
            ident = None
        need(env, "diagram")
        token.type, token.tag, token.nesting = "diagram", "div", 0
        token.meta = {"svgs": svgs, "kind": kind, "id": ident, "title": title}


def _fallback(kind: str) -> str:
    return "A diagram" if kind == "mermaid" else "A graph"


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
            f"<figcaption>{_caption(meta)}</figcaption>\n</figure>\n")


def _caption(meta: dict[str, Any]) -> str:
    caption = f'<span class="figure-number">Figure {meta["number"]}.</span>'
    if meta.get("title"):
        caption += f" {escapeHtml(meta['title'])}"
    return caption


def preview_html(token: Token) -> str:
    """What a preview of a numbered diagram shows elsewhere: its caption (its drawing is
    large, and its ids are the page's own)."""
    return f'<figure class="figure">\n<figcaption>{_caption(token.meta)}</figcaption>\n</figure>'


def _render_fallback(self: Any, tokens: Sequence[Token], idx: int, options: OptionsDict,
                     env: Env) -> str:
    """The diagram's text, which static/js/mermaid.js replaces with Mermaid's drawing."""
    return (f'<div class="diagram diagram-mermaid"><pre class="mermaid-fallback">'
            f"{escapeHtml(tokens[idx].content)}</pre></div>\n")


def diagrams_plugin(md: MarkdownIt) -> None:
    """Install before the figures plugin's numbering runs (it numbers these too)."""
    md.core.ruler.after("block", "diagrams", diagrams)
    md.add_render_rule("diagram", _render)
    md.add_render_rule("diagram_fallback", _render_fallback)
