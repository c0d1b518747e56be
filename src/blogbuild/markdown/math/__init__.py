"""Math: $…$, $$…$$, \\(…\\), \\[…\\], amsmath environments, KaTeX at build time.

Parse rules (inline.py, block.py) make `math_inline`, `math_inline_double` (display math
inside a paragraph) and `math_block` tokens whose `.content` is the TeX, plus `math_ref`
for \\eqref/\\ref written in text. A core rule then numbers display equations, resolves
references across the post, renders every formula once (before the TOC rule reads
headings), reports LaTeX errors at their line:col in the source file, and warns about
openers that nothing closed.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

from markdown_it import MarkdownIt
from markdown_it.common.utils import escapeHtml
from markdown_it.rules_core import StateCore
from markdown_it.token import Token
from markdown_it.utils import OptionsDict

from blogbuild.config_model import MathConfig
from blogbuild.markdown.env import Env, need
from blogbuild.markdown.math.block import MathBlock
from blogbuild.markdown.math.fences import math_fences
from blogbuild.markdown.math.inline import InlineRule
from blogbuild.markdown.math.number import number_and_render
from blogbuild.markdown.math.unclosed import report_unclosed
from blogbuild.runtimes import katex
from blogbuild.urls import UrlBuilder

_MATH_TYPES = ("math_inline", "math_inline_double", "math_block", "math_ref")


# --- core: number, resolve, render -------------------------------------------------------


def _math_tokens(tokens: list[Token]) -> Iterator[tuple[Token, Token | None]]:
    for token in tokens:
        if token.type == "math_block":
            yield token, None
        elif token.type == "inline":
            for child in token.children or []:
                if child.type in _MATH_TYPES:
                    yield child, token


def make_math_core(  # type: ignore[no-untyped-def]
    options: katex.KatexOptions, *, numbering: bool, base_path: str
):
    def math_render(state: StateCore) -> None:
        report_unclosed(state)
        found = list(_math_tokens(state.tokens))
        if not found:
            return
        need(state.env, "math")
        number_and_render(state, found, options, numbering=numbering, base_path=base_path)
        _hide_empty_paragraphs(state.tokens)

    return math_render


def _hide_empty_paragraphs(tokens: list[Token]) -> None:
    """A paragraph of macro definitions alone (`$\\newcommand{…}{…}$`) shows nothing, as
    a display block of them does: no empty <p>."""
    for index in range(1, len(tokens) - 1):
        inline = tokens[index]
        if inline.type != "inline" or tokens[index - 1].type != "paragraph_open":
            continue
        children = inline.children or []
        if not any(child.type in _MATH_TYPES for child in children):
            continue
        if all((child.type in _MATH_TYPES and (child.meta or {}).get("html") == "")
               or (child.type in ("text", "softbreak") and not child.content.strip())
               for child in children):
            tokens[index - 1].hidden = tokens[index + 1].hidden = True
            inline.children = []


# --- render -----------------------------------------------------------------------------


def _source_markup(token: Token) -> str:
    meta = token.meta or {}
    return f"{meta.get('open', '')}{meta.get('raw', token.content)}{meta.get('close', '')}"


def _html(token: Token, env: Env | None = None) -> str:
    meta = token.meta or {}
    html = meta.get("feed_html") if env and env.get("feed") else None
    html = html if html is not None else meta.get("html")
    if html is None:  # the core rule did not run (a renderer used on its own)
        return f'<span class="math-error">{escapeHtml(_source_markup(token))}</span>'
    return str(html)


def _render_inline(
    self: Any, tokens: Sequence[Token], idx: int, options: OptionsDict, env: Env
) -> str:
    return _html(tokens[idx], env)


def _render_inline_double(
    self: Any, tokens: Sequence[Token], idx: int, options: OptionsDict, env: Env
) -> str:
    return _html(tokens[idx], env)


def _render_block(
    self: Any, tokens: Sequence[Token], idx: int, options: OptionsDict, env: Env
) -> str:
    html = _html(tokens[idx], env)
    return html + "\n" if html else ""  # a block of macro definitions shows nothing


def math_plugin(
    md: MarkdownIt, *, config: MathConfig | None = None, urls: UrlBuilder | None = None
) -> None:
    """`urls`: the site's URLs, whose sub-path site-root paths in \\href & co. get."""
    config = config or MathConfig()
    if not config.enabled:
        return
    options = katex.KatexOptions.make(config.output, dict(config.macros))
    rule = InlineRule(dollar=config.inline_dollar,
                      double_inline=config.inline_double_dollar == "inline")
    # Before `escape`: `\(` and `\[` are otherwise CommonMark escapes of ( and [.
    md.inline.ruler.before("escape", "math_inline", rule)
    md.block.ruler.before(
        "fence",
        "math_block",
        MathBlock(double_inline=config.inline_double_dollar == "inline"),
        {"alt": ["paragraph", "reference", "blockquote", "list", "footnote_def"]},
    )
    # Pushed now, so it runs after `inline` and footnotes and before the TOC's heading_ids.
    base_path = urls.base_path if urls is not None else "/"
    md.core.ruler.push("math", make_math_core(options, numbering=config.numbering,
                                              base_path=base_path))
    md.core.ruler.before("math", "math_fences", math_fences)
    md.add_render_rule("math_inline", _render_inline)
    md.add_render_rule("math_inline_double", _render_inline_double)
    md.add_render_rule("math_block", _render_block)
    md.add_render_rule("math_ref", _render_inline)
