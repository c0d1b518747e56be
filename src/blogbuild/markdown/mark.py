"""`==highlighted text==` as Obsidian, Python-Markdown's `pymdownx.mark` and Quarto write it.

The pairs follow the rules of `_emphasis_`: an `==` is a delimiter that may open or close
by what surrounds it (`a == b` and `x==y` do neither), a closer is matched to an opener by
the shared pass that pairs emphasis, and a pair becomes `<mark>…</mark>`. An `==` that
finds no partner, and a run of one or three or more `=`, stays text.
"""

from __future__ import annotations

from markdown_it import MarkdownIt
from markdown_it.rules_inline import StateInline
from markdown_it.rules_inline.state_inline import Delimiter

_EQUALS = 0x3D


def mark_delimiters(state: StateInline, silent: bool) -> bool:
    """Push an `==` as a text token and a delimiter; other runs of `=` are text.

    Inside a word an `==` neither opens nor closes (`x==y and y==z` stays as written), as
    with `_` emphasis: in a technical post that is a comparison, not a highlight."""
    if silent or state.src[state.pos] != "=":
        return False
    scanned = state.scanDelims(state.pos, False)
    state.push("text", "", 0).content = "=" * scanned.length
    if scanned.length == 2:
        state.delimiters.append(Delimiter(marker=_EQUALS, length=0, token=len(state.tokens) - 1,
                                          end=-1, open=scanned.can_open,
                                          close=scanned.can_close))
    state.pos += scanned.length
    return True


def _pair(state: StateInline, delimiters: list[Delimiter]) -> None:
    for opener in delimiters:
        if opener.marker != _EQUALS or opener.end == -1:
            continue
        start = state.tokens[opener.token]
        start.type, start.nesting = "mark_open", 1
        end = state.tokens[delimiters[opener.end].token]
        end.type, end.nesting = "mark_close", -1
        for token in (start, end):
            token.tag, token.markup, token.content = "mark", "==", ""


def mark_pairs(state: StateInline) -> None:
    """Turn matched delimiters into mark_open/mark_close, in the paragraph and inside
    every link text (markdown-it keeps those delimiters apart, in tokens_meta)."""
    _pair(state, state.delimiters)
    for meta in state.tokens_meta:
        if meta and "delimiters" in meta:
            _pair(state, meta["delimiters"])


def mark_plugin(md: MarkdownIt) -> None:
    md.inline.ruler.before("emphasis", "mark", mark_delimiters)
    md.inline.ruler2.before("emphasis", "mark", mark_pairs)
