"""Numbered figures: an image alone in its paragraph, with a title, becomes a <figure>."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from markdown_it import MarkdownIt
from markdown_it.common.utils import escapeHtml
from markdown_it.rules_core import StateCore
from markdown_it.token import Token
from markdown_it.utils import OptionsDict

from blogbuild.markdown.env import Env


def _is_figure(tokens: list[Token], i: int) -> bool:
    if i + 2 >= len(tokens):
        return False
    opening, inline, closing = tokens[i], tokens[i + 1], tokens[i + 2]
    if opening.type != "paragraph_open" or closing.type != "paragraph_close" or opening.hidden:
        return False
    children = [
        c for c in (inline.children or []) if not (c.type == "text" and not c.content.strip())
    ]
    return (
        len(children) == 1
        and children[0].type == "image"
        and bool(children[0].attrGet("title"))
    )


def figures(state: StateCore) -> None:
    tokens = state.tokens
    count = int(state.env.get("figure_count", 0))
    for i in range(len(tokens)):
        if not _is_figure(tokens, i):
            continue
        count += 1
        image = next(c for c in tokens[i + 1].children or [] if c.type == "image")
        caption = str(image.attrGet("title"))
        image.attrs.pop("title", None)
        opening, closing = tokens[i], tokens[i + 2]
        opening.type, opening.tag = "figure_open", "figure"
        closing.type, closing.tag = "figure_close", "figure"
        opening.meta = {"number": count, "caption": caption}
        closing.meta = opening.meta
    state.env["figure_count"] = count


def _figure_open(
    self: Any, tokens: Sequence[Token], idx: int, options: OptionsDict, env: Env
) -> str:
    number = tokens[idx].meta["number"]
    return f'<figure class="figure" id="figure-{number}">\n'


def _figure_close(
    self: Any, tokens: Sequence[Token], idx: int, options: OptionsDict, env: Env
) -> str:
    meta = tokens[idx].meta
    return (
        f'\n<figcaption><span class="figure-number">Figure {meta["number"]}.</span> '
        f"{escapeHtml(meta['caption'])}</figcaption>\n</figure>\n"
    )


def figures_plugin(md: MarkdownIt) -> None:
    md.core.ruler.after("inline", "figures", figures)
    md.add_render_rule("figure_open", _figure_open)
    md.add_render_rule("figure_close", _figure_close)
