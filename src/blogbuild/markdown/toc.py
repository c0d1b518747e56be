"""Heading ids (stable, unique), anchor links, and the page's table of contents in env["toc"]."""

from __future__ import annotations

from markdown_it import MarkdownIt
from markdown_it.rules_core import StateCore
from markdown_it.token import Token

from blogbuild.content.models import TocEntry
from blogbuild.markdown.env import html_renderer
from blogbuild.urls import slugify


def _plain_text(children: list[Token]) -> str:
    parts = []
    for child in children:
        if child.type in ("text", "code_inline", "math_inline", "math_inline_double"):
            parts.append(child.content)
        elif child.children:
            parts.append(_plain_text(child.children))
    return "".join(parts)


def heading_ids(state: StateCore) -> None:
    seen: dict[str, int] = state.env.setdefault("heading_ids", {})
    toc: list[TocEntry] = state.env.setdefault("toc", [])
    md = state.md
    tokens = state.tokens
    for i, token in enumerate(tokens):
        if token.type != "heading_open" or i + 1 >= len(tokens):
            continue
        inline = tokens[i + 1]
        children = inline.children or []
        base = slugify(_plain_text(children))
        slug = base
        if slug in seen:
            seen[base] += 1
            slug = f"{base}-{seen[base]}"
            while slug in seen:
                seen[base] += 1
                slug = f"{base}-{seen[base]}"
        seen[slug] = 0
        token.attrSet("id", slug)
        # The TOC entry is itself a link: the heading's own links keep their text only.
        unlinked = [c for c in children if c.type not in ("link_open", "link_close")]
        html = html_renderer(md).renderInline(unlinked, md.options, state.env)
        toc.append(TocEntry(int(token.tag[1]), slug, html.strip()))
        anchor = Token("heading_anchor", "a", 0)  # rendered by blogbuild.markdown.feed
        anchor.meta = {"slug": slug}
        inline.children = [*children, anchor]


def toc_plugin(md: MarkdownIt) -> None:
    # After every inline rule (math, links) so the TOC HTML shows the final heading.
    md.core.ruler.push("heading_ids", heading_ids)
