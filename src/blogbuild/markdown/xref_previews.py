"""Previews of cross-references to other posts: snippets kept by one post, templates shown
by another.

The post that has the target keeps, for each labelled id, a snippet: the statement's
callout, the equation, the figure, the captioned table, or the heading with the paragraph
under it, rendered from copies of its tokens (`snippets`). Links to the page itself
(`#eq-1`, a footnote) point at the page's URL there, because the snippet is shown on other
pages. A snippet above `SNIPPET_CAP` is not kept (a figure keeps its caption), so a
picture stored as a `data:` URL does not travel into every page that refers to it. The
render store keeps the snippets with the page's body; the build's record keeps their
digests (`snippet_digest`), which tell whether a page that shows one must be rendered
again.

The post that refers to it gives the link `data-preview="xref-preview-N"` (xrefs.py, with
`preview_id`) and its page ends with one `<template id="xref-preview-N">` per target
(`templates`): previews.js shows the template's content, and nothing is fetched. The feed
entry carries neither.
"""

from __future__ import annotations

import copy
import hashlib
from collections.abc import Iterator
from typing import Any

from markdown_it import MarkdownIt
from markdown_it.common.utils import escapeHtml
from markdown_it.token import Token

from blogbuild.markdown.diagrams import preview_html
from blogbuild.markdown.env import Env, html_renderer, need
from blogbuild.markdown.figures import DRAWN

__all__ = ["SNIPPET_CAP", "Snippet", "preview_id", "snippet_digest", "snippets", "templates"]

#: Characters of HTML a snippet may have.
SNIPPET_CAP = 8192
#: (id, HTML, the needs its markup has: stylesheets the referring page must load).
Snippet = tuple[str, str, tuple[str, ...]]
#: Blocks whose id may be a label (a table: a Quarto page's captioned table).
_BLOCKS = ("callout_open", "figure_open", "heading_open", "table_open")
_MATH = ("math_block", "math_inline", "math_inline_double", "math_ref")
#: The blocks a snippet is, whole: a statement, a figure (a table div), a heading.
_FIGURES = ("figure_open", "table_figure_open")
_BLOCKS = ("callout_open", *_FIGURES, "heading_open")
_NEEDS = {"callout_open": "callouts", "fence": "code", "code_block": "code",
          **dict.fromkeys(_MATH, "math"),
          # a Quarto figure or table div's grid, subfigures and caption (markdown.quarto)
          **dict.fromkeys(("layout_open", "subfigure_open", "table_figure_open"), "divs"),
          "tabset_open": "tabs"}  # a preview shows every panel, in the tabs' own look


def _close_of(tokens: list[Token], index: int) -> int:
    """The index of the token that closes the block opened at `index`."""
    opening = tokens[index]
    closing = opening.type.removesuffix("_open") + "_close"
    for j in range(index + 1, len(tokens)):
        if tokens[j].type == closing and tokens[j].level == opening.level:
            return j
    return index


def _caption(part: list[Token]) -> list[Token]:
    """The caption tokens of a Quarto figure or table div (`part`), or none: an image
    figure's caption is written by its closing token."""
    level = part[0].level + 1
    start = next((i for i, t in enumerate(part)
                  if t.type == "figure_caption_open" and t.level == level), None)
    if start is None:
        return []
    end = next(i for i in range(start, len(part))
               if part[i].type == "figure_caption_close" and part[i].level == level)
    return part[start : end + 1]


def _ranges(tokens: list[Token], labels: dict[str, Any]) -> Iterator[tuple[str, list[Token]]]:
    """(id, the tokens its snippet renders) for each labelled target among `tokens`."""
    for index, token in enumerate(tokens):
        ident = token.attrGet("id")
        if token.type in _BLOCKS and ident in labels:
            end = _close_of(tokens, index)
            if token.type == "heading_open" and end + 1 < len(tokens) \
                    and tokens[end + 1].type == "paragraph_open":
                end = _close_of(tokens, end + 1)  # the section's first paragraph too
            yield str(ident), tokens[index:end + 1]
        if token.type in DRAWN and ident in labels:
            yield str(ident), [token]
        blocks = [token] if token.type == "math_block" else token.children or [] \
            if token.type == "inline" else []
        for block in blocks:
            ids = (block.meta or {}).get("ids", ()) if block.type in _MATH else ()
            for math_id in ids:  # an equation: the display that has its \label
                if math_id in labels:
                    yield math_id, [block]


def _detached(tokens: list[Token], page_url: str) -> list[Token]:
    """Copies of `tokens` to render elsewhere: in-page links go to the page, heading anchors
    and preview names (this page's templates) are dropped."""
    out = []
    for token in tokens:
        if token.type == "heading_anchor":
            continue
        piece = copy.copy(token)
        piece.attrs = dict(token.attrs)
        href = str(piece.attrs.get("href") or "")
        if piece.type == "link_open" and href.startswith("#"):
            piece.attrs["href"] = page_url + href
        piece.attrs.pop("data-preview", None)
        if token.children is not None:
            piece.children = _detached(token.children, page_url)
        out.append(piece)
    return out


def _needs(tokens: list[Token]) -> tuple[str, ...]:
    found = set()
    for token in tokens:
        if token.type in _NEEDS:
            found.add(_NEEDS[token.type])
        if token.type == "link_open" and "xref" in str(token.attrGet("class") or "").split():
            found.add("xrefs")
        found.update(_needs(token.children or []))
    return tuple(sorted(found))


def _render(md: MarkdownIt, tokens: list[Token], env: Env, page_url: str) -> str:
    pieces = _detached(tokens, page_url)
    if pieces and pieces[0].nesting == 0 and pieces[0].block is False:  # an inline display
        return str(html_renderer(md).renderInline(pieces, md.options, env))
    return str(md.renderer.render(pieces, md.options, env))


def snippets(md: MarkdownIt, tokens: list[Token], env: Env,
             page_url: str | None) -> tuple[Snippet, ...]:
    """The snippet of each labelled target of the page (`env["xref_labels"]`), by id.
    Render it before the feed entry (which gives the tokens the feed's URLs)."""
    labels: dict[str, Any] = env.get("xref_labels", {})
    if not labels or page_url is None:
        return ()
    found: dict[str, Snippet] = {}
    env["snippet_base"] = page_url
    try:
        for ident, part in _ranges(tokens, labels):
            html = preview_html(part[0]) if part[0].type in DRAWN else \
                _render(md, part, env, page_url)
            if len(html) > SNIPPET_CAP and part[0].type in _FIGURES:  # the caption alone
                html = _render(md, [part[0], *_caption(part), part[-1]], env, page_url)
            if len(html) <= SNIPPET_CAP:
                found.setdefault(ident, (ident, html.strip(), _needs(part)))
    finally:
        env.pop("snippet_base", None)
    return tuple(found[ident] for ident in sorted(found))


def snippet_digest(html: str) -> str:
    """What the record keeps of a snippet to see that it changed (the render store keeps it)."""
    return hashlib.sha256(html.encode()).hexdigest()[:16]


def preview_id(env: Env, key: str, snippet: tuple[str, tuple[str, ...]], taken: set[str],
               ) -> str:
    """The template id of another post's target (`key`: rel#id) on this page: one per
    target, numbered in order, none an id the page already has."""
    previews: dict[str, tuple[str, str]] = env.setdefault("xref_previews", {})
    if key not in previews:
        number = len(previews) + 1
        while f"xref-preview-{number}" in taken:
            number += 1
        ident = f"xref-preview-{number}"
        taken.add(ident)
        previews[key] = (ident, snippet[0])
        for name in snippet[1]:
            need(env, name)
    return previews[key][0]


def templates(env: Env) -> str:
    """The page's templates of other posts' targets (after its body, not in its feed)."""
    previews: dict[str, tuple[str, str]] = env.get("xref_previews", {})
    return "".join(f'<template id="{escapeHtml(ident)}">{html}</template>\n'
                   for ident, html in previews.values())
