"""Figure and table divs: `::: {#fig-x}` and `::: {#tbl-x}`, numbered like our figures.

    ::: {#fig-plots layout-ncol=2}       ->  <figure class="figure" id="fig-plots">
    ![Before](a.png)                           <div class="layout">… <figure class="figure
                                                 subfigure">…<figcaption>(a) Before…
    ![After](b.png)                            <figcaption><span class="figure-number">
                                                 Figure 1.</span> Two *plots*</figcaption>
    Two *plots*                                </figure>
    :::

The last paragraph of the div is its caption (a table's caption goes above the table, a
figure's below, as Quarto puts them). A figure div opens with a `figure_open` token: the
figures rule (blogbuild.markdown.figures) numbers it among the page's figures and the
cross-references label it "Figure N". A table div is numbered here, in the page's own
count of tables (`env["table_count"]`), and labelled through its token's `xref_label`.
Two or more pictures alone in their paragraphs, or figure divs, inside a figure div are its
subfigures, captioned (a), (b), … from their alt text or caption.
"""

from __future__ import annotations

import re
import string
from collections.abc import Sequence
from typing import Any

from markdown_it.common.utils import escapeHtml
from markdown_it.token import Token
from markdown_it.utils import OptionsDict

from blogbuild.markdown.env import Env, need, report
from blogbuild.markdown.quarto.attributes import html_attributes
from blogbuild.markdown.quarto.blocks import blocks, shift, tokenize, wrapper
from blogbuild.markdown.quarto.fences import Fenced
from blogbuild.markdown.quarto.layout import KEYS, has_layout, lay_out

__all__ = ["RENDER_RULES", "figure_div", "listing_div", "number_table"]

#: A paragraph that is one picture: `![alt](src "title")`, maybe with `{#id …}` after it.
_PICTURE = re.compile(r"!\[(?P<alt>(?:[^\[\]\\]|\\.)*)\]\((?:[^()\\\n]|\\.)*\)"
                      r"(?:\{(?P<attrs>[^{}\n]*)\})?[ \t]*$")
_ID_IN = re.compile(r"(?:^|\s)#([^\s{}#]+)")


class SubLabel:
    """What a cross-reference to a subfigure says, "Figure 2 (b)": the number of its figure
    is known only once the figures rule has counted the page's figures."""

    def __init__(self, parent: dict[str, Any], letter: str) -> None:
        self.parent, self.letter = parent, letter

    def __str__(self) -> str:
        return f"Figure {self.parent.get('number', '?')} ({self.letter})"


def _letters() -> list[str]:
    single = list(string.ascii_lowercase)
    return single + [a + b for a in single for b in single]


def _is_picture(part: list[Token]) -> bool:
    return (len(part) == 3 and part[0].type == "paragraph_open"
            and bool(_PICTURE.fullmatch(part[1].content.strip())))


def _subfigures(parts: list[list[Token]], meta: dict[str, Any]) -> None:
    """Make the pictures and figure divs among `parts` subfigures of the figure `meta`."""
    found = [p for p in parts if _is_picture(p)
             or (p[0].type == "figure_open" and p[0].meta.get("quarto"))]
    if len(found) < 2:
        return
    for letter, part in zip(_letters(), found, strict=False):
        opening = part[0]
        label = SubLabel(meta, letter)
        if opening.type == "figure_open":  # a figure div: no number of its own
            opening.meta.update(number=label, sub=letter, xref_label=label)
            continue
        inline = part[1]
        match = _PICTURE.fullmatch(inline.content.strip())
        assert match is not None
        if match.group("attrs") and (ident := _ID_IN.search(match.group("attrs"))):
            opening.attrs["id"] = ident.group(1)
            inline.content = inline.content[: inline.content.rindex("{")].rstrip()
        opening.type, opening.tag = "subfigure_open", "figure"
        part[-1].type, part[-1].tag = "subfigure_close", "figure"
        alt = re.sub(r"\\(.)", r"\1", match.group("alt"))
        opening.meta = part[-1].meta = {"letter": letter, "caption": alt, "xref_label": label}


def _caption_of(parts: list[list[Token]]) -> list[Token] | None:
    """The last paragraph, unless it is the only block and a picture (no caption then)."""
    if not parts or parts[-1][0].type != "paragraph_open" or len(parts[-1]) != 3:
        return None
    if len(parts) == 1 and _is_picture(parts[0]):
        return None
    return parts.pop()


def figure_div(div: Fenced, kind: str) -> None:
    """The tokens of a figure (`kind` "figure") or table ("table") div."""
    state, env, attrs = div.state, div.env, div.attrs
    level = state.level
    figure = kind == "figure"
    need(env, "divs")
    shown = html_attributes(env, div.line, attrs, used=KEYS)
    if figure:  # the figure's other attributes: blogbuild.markdown.figures writes its tag
        opening = state.push("figure_open", "figure", 1)
        opening.attrs = {"id": shown["id"]}
        opening.meta = {"quarto": True, "kind": kind, "class": shown.get("class", "")}
    else:
        opening = state.push("table_figure_open", "figure", 1)
        number_table(env, opening, shown)
    opening.map = [div.start, div.end]
    meta: dict[str, Any] = opening.meta
    first = tokenize(div, div.start + 1)
    body = state.tokens[first:]
    del state.tokens[first:]
    parts = blocks(body, level + 1)
    caption = _caption_of(parts)
    if figure:
        _subfigures(parts, meta)
        for part in parts:  # a picture left in the div is no figure of its own
            if part[0].type == "paragraph_open":
                part[0].meta["in_figure"] = True
    content = [token for part in parts for token in part]
    if has_layout(attrs):
        content = lay_out(env, div.line, attrs, content, level + 1)
    cap: list[Token] = []
    cap_open = Token("figure_caption_open", "figcaption", 1, level=level + 1, block=True)
    cap_open.meta = meta
    cap.append(cap_open)
    if caption is not None:
        cap.append(caption[1])
    cap.append(Token("figure_caption_close", "figcaption", -1, level=level + 1, block=True))
    state.tokens += content + cap if figure else cap + content
    closing = state.push("figure_close" if figure else "table_figure_close", "figure", -1)
    closing.meta = meta


def listing_div(div: Fenced) -> None:
    """A `::: {#lst-x}` div (Quarto 1.4's code listing): its code block numbered as
    ```` ```{#lst-x lst-cap="…"} ```` makes it (blogbuild.markdown.quarto.labels), the
    div's last paragraph its caption, shown as the block's title ("Listing 1: Caption").
    A div without exactly one code block is a `<div>` with its id, its body as written,
    and a warning at its line."""
    state = div.state
    level = state.level
    first = tokenize(div, div.start + 1)
    parts = blocks(state.tokens[first:], level)
    codes = [part[0] for part in parts if len(part) == 1 and part[0].type == "fence"]
    if len(codes) != 1:
        report(div.env, div.line, f"the listing div #{div.attrs.ident} numbers the one code "
               f"block it holds, with its caption after it; it holds {len(codes) or 'no'} "
               "code blocks of its own, so it is shown unnumbered (put one code block in it, "
               "or give each code block its own #lst- div)")
        opening, closing = wrapper("quarto_div", "div", level, html_attributes(
            div.env, div.line, div.attrs))
        opening.map = [div.start, div.end]
        state.tokens[first:] = [opening, *shift(state.tokens[first:], 1), closing]
        return
    caption = parts[-1] if len(parts[-1]) == 3 and parts[-1][0].type == "paragraph_open" \
        else None
    code = codes[0]
    code.attrSet("id", str(div.attrs.ident))
    code.meta = {**(code.meta or {}), "listing_caption":
                 " ".join(caption[1].content.split()) if caption is not None else ""}
    state.tokens[first:] = [token for part in parts if part is not caption for token in part]


def number_table(env: Env, opening: Token, shown: dict[str, str]) -> None:
    """`opening` (a `table_figure_open`: a `#tbl-` div's, or a cell's with a `tbl-` label)
    made a captioned table numbered in the page's count of tables, with the HTML
    attributes `shown`."""
    need(env, "divs")
    meta: dict[str, Any] = {"quarto": True, "kind": "table", "class": shown.get("class", "")}
    opening.attrs = {**shown, "class": f"figure table-figure {meta['class']}".strip()}
    count = int(env.get("table_count", 0)) + 1
    env["table_count"] = count
    meta.update(number=count, xref_label=f"Table {count}", xref_kind="table")
    opening.meta = meta


def _figure_caption_open(self: Any, tokens: Sequence[Token], idx: int, options: OptionsDict,
                         env: Env) -> str:
    meta = tokens[idx].meta
    if meta.get("sub"):
        return f'<figcaption><span class="figure-number">({escapeHtml(meta["sub"])})</span> '
    if "caption_label" in meta:  # a Quarto page's words: "Figure 1:", or none
        label = meta["caption_label"]
        number = f'<span class="figure-number">{escapeHtml(label)}</span> ' if label else ""
        return f"<figcaption>{number}"
    word = "Table" if meta.get("kind") == "table" else "Figure"
    return (f'<figcaption><span class="figure-number">{word} '
            f'{escapeHtml(str(meta.get("number", "")))}.</span> ')


def _figure_caption_close(self: Any, tokens: Sequence[Token], idx: int, options: OptionsDict,
                          env: Env) -> str:
    return "</figcaption>\n"


def _subfigure_open(self: Any, tokens: Sequence[Token], idx: int, options: OptionsDict,
                    env: Env) -> str:
    ident = tokens[idx].attrGet("id")
    shown = f' id="{escapeHtml(str(ident))}"' if ident else ""
    return f'<figure class="figure subfigure"{shown}>\n'


def _subfigure_close(self: Any, tokens: Sequence[Token], idx: int, options: OptionsDict,
                     env: Env) -> str:
    meta = tokens[idx].meta
    return (f'\n<figcaption><span class="figure-number">({escapeHtml(meta["letter"])})</span> '
            f"{escapeHtml(meta['caption'])}</figcaption>\n</figure>\n")


RENDER_RULES = {
    "figure_caption_open": _figure_caption_open,
    "figure_caption_close": _figure_caption_close,
    "subfigure_open": _subfigure_open,
    "subfigure_close": _subfigure_close,
}
