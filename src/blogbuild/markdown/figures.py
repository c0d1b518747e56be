"""Numbered figures: an image alone in its paragraph, with a title, becomes a <figure>.

Its id is the one the author gave, `{#fig-arch}` right after the image or an attribute
list (`{: #fig-arch}`) on the line below, else `figure-N`: an attribute of the figure's
token from the start, so whatever reads ids (references, previews) finds it there.

On a Quarto page, as in Pandoc, the alt text of an image alone in its paragraph is its
caption (`![Elephant](e.png){#fig-e}`); what the caption starts with there is Quarto's
("Figure 1:", or nothing for a figure without a `#fig-` id: blogbuild.markdown.quarto.labels
puts it in `meta["caption_label"]`)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from markdown_it import MarkdownIt
from markdown_it.common.utils import escapeHtml
from markdown_it.rules_core import StateCore
from markdown_it.token import Token
from markdown_it.utils import OptionsDict

from blogbuild.markdown.env import Env, token_line
from blogbuild.markdown.statements import split_id, take_id
from blogbuild.quarto import QuartoPage


def _written_id(token: Token) -> str | None:
    """The text of a `{#fig-arch}` token written right after the image, or None."""
    if token.type != "text":
        return None
    found = split_id(token.content.strip())
    if found is None or found[0] or any(c.isspace() for c in found[1]):
        return None
    return token.content.strip()


def _caption_of(image: Token, quarto: bool) -> str:
    """The caption an image alone in its paragraph gives its figure ("": none)."""
    if quarto:
        return image.content or str(image.attrGet("title") or "")
    return str(image.attrGet("title") or "")


def _is_figure(tokens: list[Token], i: int, quarto: bool) -> bool:
    if i + 2 >= len(tokens):
        return False
    opening, inline, closing = tokens[i], tokens[i + 1], tokens[i + 2]
    if opening.type != "paragraph_open" or closing.type != "paragraph_close" or opening.hidden:
        return False
    if opening.meta.get("in_figure"):  # a picture in a Quarto figure div: the div is the figure
        return False
    children = [
        c for c in (inline.children or []) if not (c.type == "text" and not c.content.strip())
    ]
    if len(children) == 2 and _written_id(children[1]) is not None:
        children = children[:1]
    return len(children) == 1 and children[0].type == "image" \
        and bool(_caption_of(children[0], quarto))


def _take_id(state: StateCore, opening: Token, inline: Token) -> None:
    """Move a `{#id}` written after the image to the figure (a bad id is reported)."""
    children = inline.children or []
    written = _written_id(children[-1]) if children else None
    if written is None:
        return
    inline.children = children[:-1]
    _, ident = take_id(state.env, token_line(state.env, opening), written, "figure")
    if ident is not None:
        opening.attrSet("id", ident)


#: Tokens of figures drawn at build time (blogbuild.markdown.diagrams, .charts): numbered
#: when their fence names them (an id or a title).
DRAWN = ("diagram", "chart")


def figures(state: StateCore) -> None:
    tokens = state.tokens
    count = int(state.env.get("figure_count", 0))
    quarto = isinstance(state.env.get("quarto"), QuartoPage)
    for i in range(len(tokens)):
        if tokens[i].type == "figure_open" and "number" not in tokens[i].meta:
            # A figure another plugin made (a notebook's captioned output): numbered in turn.
            count += 1
            tokens[i].meta["number"] = count
            if tokens[i].attrGet("id") is None:
                tokens[i].attrSet("id", f"figure-{count}")
            continue
        if tokens[i].type in DRAWN:  # diagrams and charts: a figure when named
            meta = tokens[i].meta
            if meta.get("id") or meta.get("title"):
                count += 1
                meta["number"] = count
                meta["figure_id"] = meta.get("id") or f"figure-{count}"
                tokens[i].attrSet("id", meta["figure_id"])
            continue
        if not _is_figure(tokens, i, quarto):
            continue
        count += 1
        _take_id(state, tokens[i], tokens[i + 1])
        image = next(c for c in tokens[i + 1].children or [] if c.type == "image")
        caption = _caption_of(image, quarto)
        if not quarto or caption == image.attrGet("title"):
            image.attrs.pop("title", None)
        opening, closing = tokens[i], tokens[i + 2]
        opening.type, opening.tag = "figure_open", "figure"
        closing.type, closing.tag = "figure_close", "figure"
        if opening.attrGet("id") is None:
            opening.attrSet("id", f"figure-{count}")
        opening.meta = {"number": count, "caption": caption}
        closing.meta = opening.meta
    state.env["figure_count"] = count


def _figure_open(
    self: Any, tokens: Sequence[Token], idx: int, options: OptionsDict, env: Env
) -> str:
    token = tokens[idx]
    extra = token.meta.get("class")  # a Quarto figure div's own classes (markdown.quarto)
    classes = f"figure {escapeHtml(extra)}" if extra else "figure"
    return f'<figure class="{classes}" id="{escapeHtml(str(token.attrGet("id")))}">\n'


def _figure_close(
    self: Any, tokens: Sequence[Token], idx: int, options: OptionsDict, env: Env
) -> str:
    meta = tokens[idx].meta
    if meta.get("quarto"):  # a Quarto figure div: its caption is tokens of its own
        return "</figure>\n"
    label = meta.get("caption_label", f"Figure {meta['number']}.")
    number = f'<span class="figure-number">{escapeHtml(label)}</span> ' if label else ""
    return f"\n<figcaption>{number}{escapeHtml(meta['caption'])}</figcaption>\n</figure>\n"


def figures_plugin(md: MarkdownIt) -> None:
    md.core.ruler.after("inline", "figures", figures)
    md.add_render_rule("figure_open", _figure_open)
    md.add_render_rule("figure_close", _figure_close)
