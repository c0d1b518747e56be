"""Heading ids (stable, unique), anchor links, and the page's table of contents in env["toc"]."""

from __future__ import annotations

import re
import unicodedata

from markdown_it import MarkdownIt
from markdown_it.rules_core import StateCore
from markdown_it.token import Token

from blogbuild.content.models import TocEntry
from blogbuild.markdown.env import html_renderer, report, token_line
from blogbuild.urls import slugify

_GITHUB_DROP = re.compile(r"[^\w\- ]")
_KRAMDOWN_DROP = re.compile(r"[^a-z0-9\- ]")
_KRAMDOWN_LEAD = re.compile(r"^[^a-z]+")


def compat_ids(text: str) -> set[str]:
    """The ids GitHub and kramdown give a heading with this text. Both keep one "-" per
    space (`Search + Evaluation` is `search--evaluation`) where blogbuild's ids join words
    with one: posts written for them link to these spellings."""
    lowered = unicodedata.normalize("NFKC", text).lower()
    github = _GITHUB_DROP.sub("", lowered).replace(" ", "-")
    kramdown = _KRAMDOWN_LEAD.sub("", _KRAMDOWN_DROP.sub("", lowered)).replace(" ", "-")
    return {ident for ident in (github, kramdown) if ident}


def plain_text(children: list[Token]) -> str:
    """The text of inline tokens without their markup (code and math as written)."""
    parts = []
    for child in children:
        if child.type in ("text", "code_inline", "math_inline", "math_inline_double"):
            parts.append(child.content)
        elif child.children:
            parts.append(plain_text(child.children))
    return "".join(parts)


def _unique(seen: dict[str, int], base: str) -> str:
    """`base`, or `base-N` with the first N no heading has yet; records it in `seen`."""
    slug = base
    if slug in seen:
        seen[base] += 1
        slug = f"{base}-{seen[base]}"
        while slug in seen:
            seen[base] += 1
            slug = f"{base}-{seen[base]}"
    seen[slug] = 0
    return slug


def _explicit_ids(state: StateCore, headings: list[Token], seen: dict[str, int]) -> None:
    """Ids the author wrote (`## T {#id}`, `{: #id}`) first, so generated ones step aside."""
    for token in headings:
        wanted = token.attrGet("id")
        if wanted is None:
            continue
        ident = _unique(seen, str(wanted))
        if ident != wanted:
            report(state.env, token_line(state.env, token),
                   f"heading id #{wanted} is already used on this page: this heading gets "
                   f"#{ident}; give it an id of its own")
        token.attrSet("id", ident)
        token.meta = {**(token.meta or {}), "explicit_id": True}


def heading_ids(state: StateCore) -> None:
    seen: dict[str, int] = state.env.setdefault("heading_ids", {})
    pending: list[tuple[int, str, Token]] = state.env.setdefault("toc_headings", [])
    tokens = state.tokens
    headings = [t for t in tokens[:-1] if t.type == "heading_open"]
    for token in tokens:  # ids on other blocks (`{: #id}` on a paragraph): headings avoid them
        if token.type != "heading_open" and token.attrGet("id") is not None:
            seen.setdefault(str(token.attrGet("id")), 0)
    _explicit_ids(state, headings, seen)
    for i, token in enumerate(tokens[:-1]):
        if token.type != "heading_open":
            continue
        inline = tokens[i + 1]
        children = inline.children or []
        if not (token.meta or {}).get("explicit_id"):
            token.attrSet("id", _unique(seen, slugify(plain_text(children))))
        slug = str(token.attrGet("id"))
        aliases = state.env.setdefault("heading_aliases", {})
        for alias in compat_ids(plain_text(children)):
            aliases.setdefault(alias, slug)
        # kramdown's `{: .no_toc}`: the heading keeps its id and anchor but stays out of the TOC.
        if "no_toc" not in str(token.attrGet("class") or "").split():
            pending.append((int(token.tag[1]), slug, inline))
        anchor = Token("heading_anchor", "a", 0)  # rendered by blogbuild.markdown.feed
        anchor.meta = {"slug": slug}
        inline.children = [*children, anchor]


def toc_entries(state: StateCore) -> None:
    """The TOC entry of every heading, once its text is final (a cross-reference in a
    heading shows "Theorem 2" only after the xrefs rule, which needs the headings' ids)."""
    md = state.md
    toc: list[TocEntry] = state.env.setdefault("toc", [])
    for level, slug, inline in state.env.pop("toc_headings", []):
        # The TOC entry is itself a link: the heading's own links keep their text only.
        shown = [c for c in inline.children or []
                 if c.type not in ("link_open", "link_close", "heading_anchor")]
        html = html_renderer(md).renderInline(shown, md.options, state.env)
        toc.append(TocEntry(level, slug, html.strip()))


def toc_plugin(md: MarkdownIt) -> None:
    # After every inline rule (math, links) so the TOC HTML shows the final heading; the
    # entries come in a rule of their own, which cross-references run before.
    md.core.ruler.push("heading_ids", heading_ids)
    md.core.ruler.push("toc_entries", toc_entries)
