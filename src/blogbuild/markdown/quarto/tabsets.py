"""`.panel-tabset` divs: their headings become tabs (the tab tokens other parts render).

    ::: {.panel-tabset group="language"}     ->  tabset_open (meta group "language")
    ## R                                            tab_open (selected), tab_title_open,
    Body of the R tab.                               inline "R", tab_title_close, …body…,
    ## Python                                       tab_close
    Body of the Python tab.                         tab_open …
    :::                                           tabset_close

The tabs are the headings of the level of the first heading inside the div; deeper
headings stay in their tab's body. What comes before the first heading stays above the
tabset. A tabset with no heading is a plain div, with a warning.
"""

from __future__ import annotations

import re

from markdown_it.token import Token

from blogbuild.markdown.env import report
from blogbuild.markdown.quarto.attributes import html_attributes, parse
from blogbuild.markdown.quarto.blocks import blocks, shift, tokenize, wrapper
from blogbuild.markdown.quarto.fences import Fenced

__all__ = ["tabset"]

_KEYS = frozenset({"group"})
_ATTRIBUTES = re.compile(r"[ \t]+\{([^{}]*)\}[ \t]*$")


def _tab(heading: list[Token], body: list[Token], level: int, selected: bool) -> list[Token]:
    tab_open, tab_close = wrapper("tab", "section", level)
    tab_open.meta = {"selected": selected}
    tab_open.map = heading[0].map
    title_open, title_close = wrapper("tab_title", "p", level + 1)
    inline = heading[1]
    inline.level = level + 2
    written = _ATTRIBUTES.search(inline.content)
    if written and parse(written.group(1)) is not None:  # `## Tab {#id}`: a tab has no id
        inline.content = inline.content[: written.start()]
    return [tab_open, title_open, inline, title_close, *shift(body, 2), tab_close]


def tabset(div: Fenced) -> None:
    """Push the tab tokens of `div` (a plain div when it holds no heading)."""
    state = div.state
    level = state.level
    first = tokenize(div, div.start + 1)
    body = state.tokens[first:]
    parts = blocks(body, level)
    tag = next((p[0].tag for p in parts if p[0].type == "heading_open"), None)
    if tag is None:
        report(div.env, div.line, "this .panel-tabset holds no heading, so it has no tabs: "
               "start each tab with a heading (## Title)")
        opening, closing = wrapper("quarto_div", "div", level,
                                   html_attributes(div.env, div.line, div.attrs, used=_KEYS))
        state.tokens[first:] = [opening, *shift(body, 1), closing]
        return
    del state.tokens[first:]
    before: list[Token] = []
    tabs: list[tuple[list[Token], list[Token]]] = []
    for part in parts:
        if part[0].type == "heading_open" and part[0].tag == tag:
            tabs.append((part, []))
        elif tabs:
            tabs[-1][1].extend(part)
        else:
            before.extend(part)
    opening, closing = wrapper("tabset", "div", level, {"class": "tabset"})
    opening.map = [div.start, div.end]
    opening.meta = {"group": div.attrs.get("group")}
    out = [*before, opening]
    for index, (heading, content) in enumerate(tabs):
        out += _tab(heading, content, level + 1, index == 0)
    state.tokens += [*out, closing]
