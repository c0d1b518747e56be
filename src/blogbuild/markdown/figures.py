"""Numbered figures: an image alone in its paragraph, with a title, becomes a <figure>.

Its id is `figure-N`, or the one the author gave: `{#fig-arch}` right after the image, or
an attribute list (`{: #fig-arch}`) on the line below."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from markdown_it import MarkdownIt
from markdown_it.common.utils import escapeHtml
from markdown_it.rules_core import StateCore
from markdown_it.token import Token
from markdown_it.utils import OptionsDict

from blogbuild.markdown.env import Env, report, token_line
from blogbuild.markdown.statements import ID

#: `{#fig-arch}` right after the image: the figure's id.
_ID_AFTER = re.compile(r"\{#([^{}\s]*)\}")


def _is_figure(tokens: list[Token], i: int) -> bool:
    if i + 2 >= len(tokens):
        return False
    opening, inline, closing = tokens[i], tokens[i + 1], tokens[i + 2]
    if opening.type != "paragraph_open" or closing.type != "paragraph_close" or opening.hidden:
        return False
    children = [
        c for c in (inline.children or []) if not (c.type == "text" and not c.content.strip())
    ]
    if len(children) == 2 and children[1].type == "text" \
            and _ID_AFTER.fullmatch(children[1].content.strip()):
        children = children[:1]
    return (
        len(children) == 1
        and children[0].type == "image"
        and bool(children[0].attrGet("title"))
    )


def _take_id(state: StateCore, opening: Token, inline: Token) -> None:
    """Move a `{#id}` written after the image to the figure (a bad id is reported)."""
    children = inline.children or []
    last = children[-1] if children else None
    if last is None or last.type != "text":
        return
    match = _ID_AFTER.fullmatch(last.content.strip())
    if match is None:
        return
    inline.children = [c for c in children if c is not last]
    if ID.fullmatch(match.group(1)):
        opening.attrSet("id", match.group(1))
    else:
        report(state.env, token_line(state.env, opening),
               f"{{#{match.group(1)}}} is not a usable id: an id starts with a letter and "
               "holds letters, digits, '-', '_', '.' or ':' (the figure gets no id)")


def figures(state: StateCore) -> None:
    tokens = state.tokens
    count = int(state.env.get("figure_count", 0))
    for i in range(len(tokens)):
        if not _is_figure(tokens, i):
            continue
        count += 1
        _take_id(state, tokens[i], tokens[i + 1])
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
    token = tokens[idx]
    ident = token.attrGet("id") or f"figure-{token.meta['number']}"
    return f'<figure class="figure" id="{escapeHtml(str(ident))}">\n'


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
