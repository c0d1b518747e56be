"""The feed's rendering of a page, and the in-page links (footnotes, heading anchors) in it.

A feed entry has no stylesheet and no page around it, so `render_feed` renders the same
tokens a second time with ``env["feed"]`` set: tokens take the absolute URLs stored in
``meta["feed_attrs"]`` (see links.py) and lose the attributes it maps to None (xrefs.py),
math renders as MathML only (math.py), and links to the page's own footnotes and headings,
``#fn1`` on the page, get the post's absolute URL (``env["feed_base"]``, set by the build)
in front. Ids are numbers, slugs we made or ids
the author wrote (`{#id}`); each is escaped where it is written.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from markdown_it import MarkdownIt
from markdown_it.common.utils import escapeHtml
from markdown_it.token import Token
from markdown_it.utils import OptionsDict

from blogbuild.markdown.env import Env


def fragment_href(env: Env, fragment: str) -> str:
    """`#fragment` on the page; the post's absolute URL + `#fragment` in the feed, its URL +
    `#fragment` in a snippet shown on other pages (blogbuild.markdown.xref_previews)."""
    base = str(env.get("feed_base") or "") if env.get("feed") else str(
        env.get("snippet_base") or "")
    return escapeHtml(base + "#" + fragment)


def _footnote_ident(renderer: Any, tokens: Sequence[Token], idx: int, options: OptionsDict,
                    env: Env) -> str:
    return str(renderer.rules["footnote_anchor_name"](tokens, idx, options, env))


def _footnote_ref(self: Any, tokens: Sequence[Token], idx: int, options: OptionsDict,
                  env: Env) -> str:
    ident = _footnote_ident(self, tokens, idx, options, env)
    caption = self.rules["footnote_caption"](tokens, idx, options, env)
    sub = tokens[idx].meta.get("subId", -1)
    refid = f"{ident}:{sub}" if sub > 0 else ident
    return (f'<sup class="footnote-ref"><a href="{fragment_href(env, "fn" + ident)}" '
            f'id="fnref{escapeHtml(refid)}">{caption}</a></sup>')


def _footnote_anchor(self: Any, tokens: Sequence[Token], idx: int, options: OptionsDict,
                     env: Env) -> str:
    ident = _footnote_ident(self, tokens, idx, options, env)
    sub = tokens[idx].meta.get("subId", -1)
    if sub > 0:
        ident += f":{sub}"
    # U+FE0E keeps the arrow text, not an emoji, on iOS.
    return (f' <a href="{fragment_href(env, "fnref" + ident)}" '
            'class="footnote-backref">\u21a9\ufe0e</a>')


def _heading_anchor(self: Any, tokens: Sequence[Token], idx: int, options: OptionsDict,
                    env: Env) -> str:
    slug = str(tokens[idx].meta["slug"])
    return (f' <a class="heading-anchor" href="{fragment_href(env, slug)}" '
            'aria-label="Link to this section">#</a>')


def render_feed(md: MarkdownIt, tokens: list[Token], env: Env) -> str:
    """Render `tokens` (already rendered once for the page) again as a feed entry."""
    stack = list(tokens)
    while stack:
        token = stack.pop()
        variants = (token.meta or {}).get("feed_attrs")
        if variants:
            for name, value in variants.items():
                if value is None:  # what the page has and the feed does not
                    token.attrs.pop(name, None)
                else:
                    token.attrSet(name, value)
        stack.extend(token.children or ())
    env["feed"] = True
    try:
        return str(md.renderer.render(tokens, md.options, env))
    finally:
        env["feed"] = False


def feed_plugin(md: MarkdownIt) -> None:
    """Install after the footnote plugin (its rules are replaced here)."""
    md.add_render_rule("footnote_ref", _footnote_ref)
    md.add_render_rule("footnote_anchor", _footnote_anchor)
    md.add_render_rule("heading_anchor", _heading_anchor)
