"""Tabs: MkDocs content tabs (pymdownx.tabbed) on every page, and the tab tokens' HTML.

    === "Python"                  ->  <div class="tabset" id="tabset-1">
        print(1)                        <section class="tab" id="tabset-1-1">
                                        <p class="tab-title">Python</p> …body… </section>
    ===+ "Shell"                        <section class="tab" id="tabset-1-2" data-selected>
        echo 1                          <p class="tab-title">Shell</p> … </section>
                                      </div>

A tab is `===` and a quoted title (inline Markdown), its body the lines indented four
columns under it. Tabs that follow one another, blank lines between, are one set; `===!`
starts a new set, `===+` is the tab shown first (else the first one). Quarto's
`.panel-tabset` divs (blogbuild.markdown.quarto) emit the same tokens, with the set's
`group=` in its meta.

The HTML reads without JavaScript: every panel shows under its title, and prints so.
js/tabs.js (the need "tabs") makes each set the WAI-ARIA tabs pattern from that markup.
The ids are given once the headings have theirs (they step aside from every id of the
page), in document order, so the same page always gets the same ids.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from markdown_it import MarkdownIt
from markdown_it.renderer import RendererHTML
from markdown_it.rules_block import StateBlock
from markdown_it.rules_core import StateCore
from markdown_it.token import Token
from markdown_it.utils import OptionsDict

from blogbuild.markdown.env import Env, need, report, source_line

__all__ = ["NEED", "tab_ids", "tabs_plugin"]

NEED = "tabs"
#: `===`, then `!` (a new set) and/or `+` (shown first), then the title in double quotes.
_HEADER = re.compile(r'===(\+!?|!\+?)?[ \t]+"(.*)"[ \t]*$')
_BODY_INDENT = 4  # pymdownx's tab length: the body is indented four columns
_MD_PUNCTUATION = re.compile(r"([!-/:-@\[-`{-~])")


def _header(state: StateBlock, line: int) -> re.Match[str] | None:
    if state.is_code_block(line):
        return None
    pos = state.bMarks[line] + state.tShift[line]
    if not state.src.startswith("===", pos):
        return None
    return _HEADER.match(state.src, pos, state.eMarks[line])


def _body_end(state: StateBlock, start_line: int, end_line: int, indent: int) -> int:
    """The line after the body: the last line indented `indent` columns before a lesser one."""
    end = start_line + 1
    for line in range(start_line + 1, end_line):
        if not state.isEmpty(line):
            if state.sCount[line] < indent:
                break
            end = line + 1
    return end


def _push_title(state: StateBlock, line: int, title: str, number: int) -> None:
    """The title row; an empty title (`=== ""`) would leave its tab without a name."""
    env = state.env
    if not title.strip():
        title = _MD_PUNCTUATION.sub(r"\\\1", f"Tab {number}")
        report(env, source_line(env, line), f'content tab with an empty title: it is shown '
               f'as "Tab {number}"; write its title between the quotes')
    state.push("tab_title_open", "p", 1).map = [line, line + 1]
    token = state.push("inline", "", 0)
    token.content = title.strip()
    token.map = [line, line + 1]
    token.children = []
    state.push("tab_title_close", "p", -1)


def _push_tab(state: StateBlock, line: int, end_line: int, match: re.Match[str],
              number: int) -> int:
    """One tab from its `===` line; the line after its body."""
    flags, title = match.group(1) or "", match.group(2)
    end = _body_end(state, line, end_line, state.sCount[line] + _BODY_INDENT)
    opening = state.push("tab_open", "section", 1)
    opening.map = [line, end]
    opening.markup = f"==={flags}"
    opening.meta = {"selected": "+" in flags}
    _push_title(state, line, title, number)
    if state.skipEmptyLines(line + 1) >= end:
        env = state.env
        report(env, source_line(env, line), f'content tab "{title.strip()}" has no content: '
               "its body is the lines under it indented four spaces")
    old = state.parentType, state.lineMax, state.blkIndent
    state.parentType, state.lineMax = "tabbed", end
    state.blkIndent = state.sCount[line] + _BODY_INDENT
    state.md.block.tokenize(state, line + 1, end)
    state.parentType, state.lineMax, state.blkIndent = old
    state.push("tab_close", "section", -1)
    return end


def tabbed(state: StateBlock, start_line: int, end_line: int, silent: bool) -> bool:
    """A set of `=== "Title"` tabs from `start_line`: the tabs that follow it, blank lines
    between, join it unless they start with `===!`."""
    match = _header(state, start_line)
    if match is None:
        return False
    if silent:
        return True
    opening = state.push("tabset_open", "div", 1)
    opening.attrs = {"class": "tabset"}
    opening.meta = {"group": None}
    line, number = start_line, 1
    while True:
        end = _push_tab(state, line, end_line, match, number)
        following = state.skipEmptyLines(end)
        match = _header(state, following) if following < end_line else None
        if match is None or "!" in (match.group(1) or ""):
            break
        line, number = following, number + 1
    state.push("tabset_close", "div", -1)
    opening.map = [start_line, end]
    state.line = end
    return True


def _free(base: str, count: int, taken: dict[str, int]) -> bool:
    names = [base] + [f"{base}-{k}{end}" for k in range(1, count + 1) for end in ("", "-tab")]
    return not any(name in taken for name in names)


def _panels(tokens: Sequence[Token], start: int) -> list[Token]:
    """The tab_open tokens of the set opened at `start` (not those of sets inside it),
    found by the tokens' nesting, which every way of making them gets right."""
    found = []
    depth = 0
    for i in range(start + 1, len(tokens)):  # not a slice: that copies the rest each time
        token = tokens[i]
        if depth == 0 and token.type == "tabset_close":
            break
        if depth == 0 and token.type == "tab_open":
            found.append(token)
        depth += token.nesting
    return found


def tab_ids(state: StateCore) -> None:
    """Each set's id (`tabset-N`, or the one it was given) and its panels' (`ID-K`); the
    ids js/tabs.js gives the tabs (`ID-K-tab`) are kept free too. The first panel is the
    one shown first when no other is (the stylesheet lays the set out before the script
    runs)."""
    if not any(token.type == "tabset_open" for token in state.tokens):
        return
    need(state.env, NEED)
    taken: dict[str, int] = state.env.setdefault("heading_ids", {})
    for token in state.tokens:
        if token.attrGet("id") is not None:
            taken.setdefault(str(token.attrGet("id")), 0)
    number = 0
    for index, token in enumerate(state.tokens):
        if token.type != "tabset_open":
            continue
        panels = _panels(state.tokens, index)
        base = token.attrGet("id")
        if base is None:
            number += 1
            while not _free(f"tabset-{number}", len(panels), taken):
                number += 1
            base = f"tabset-{number}"
            token.attrSet("id", base)
        if panels and not any((panel.meta or {}).get("selected") for panel in panels):
            panels[0].meta = {**(panels[0].meta or {}), "selected": True}
        for k, panel in enumerate(panels, 1):
            panel.attrSet("id", f"{base}-{k}")
            taken.update({f"{base}-{k}": 0, f"{base}-{k}-tab": 0})
        taken[str(base)] = 0


def _render_tabset_open(self: RendererHTML, tokens: Sequence[Token], idx: int,
                        options: OptionsDict, env: Env) -> str:
    token = tokens[idx]
    group = (token.meta or {}).get("group")
    if group:  # the sets of one group switch together (js/tabs.js)
        token = Token(token.type, token.tag, token.nesting,
                      attrs={**token.attrs, "data-group": str(group)})
    return f"<div{self.renderAttrs(token)}>\n"


def _render_tab_open(self: RendererHTML, tokens: Sequence[Token], idx: int,
                     options: OptionsDict, env: Env) -> str:
    token = tokens[idx]
    given = {name: value for name, value in token.attrs.items() if name != "class"}
    attrs = {"class": f"tab {token.attrs.get('class', '')}".strip(), **given}
    if (token.meta or {}).get("selected"):
        attrs["data-selected"] = ""
    shown = Token(token.type, token.tag, token.nesting, attrs=attrs)
    return f"<section{self.renderAttrs(shown)}>\n"


def _render_title_open(self: RendererHTML, tokens: Sequence[Token], idx: int,
                       options: OptionsDict, env: Env) -> str:
    return '<p class="tab-title">'


def _closing(html: str) -> Any:
    def render(self: RendererHTML, tokens: Sequence[Token], idx: int,
               options: OptionsDict, env: Env) -> str:
        return html

    return render


def tabs_plugin(md: MarkdownIt) -> None:
    """Read `=== "Title"` content tabs; render the tab tokens (theirs and Quarto's).

    Install after toc_plugin: the ids are given after the headings'."""
    md.block.ruler.before(
        "fence", "tabbed", tabbed, {"alt": ["paragraph", "reference", "blockquote", "list"]}
    )
    md.core.ruler.after("heading_ids", "tab_ids", tab_ids)
    md.add_render_rule("tabset_open", _render_tabset_open)
    md.add_render_rule("tabset_close", _closing("</div>\n"))
    md.add_render_rule("tab_open", _render_tab_open)
    md.add_render_rule("tab_close", _closing("</section>\n"))
    md.add_render_rule("tab_title_open", _render_title_open)
    md.add_render_rule("tab_title_close", _closing("</p>\n"))
