"""Pandoc's bracketed spans and the attributes of links and pictures, on Quarto pages.

    [Some *text*]{#id .smallcaps key=v}   ->  <span id="id" class="smallcaps" data-key="v">
    [marked]{.mark}                       ->  <mark>marked</mark>
    [underlined]{.underline}              ->  <u>underlined</u>
    [a note]{.aside}                      ->  <span class="aside margin-note">: in the margin
    [a link](url){.external}              ->  <a href="url" class="external">
    ![a picture](a.png){width=50%}        ->  <img … width="50%">

A bracket that no `]{…}` follows, or whose braces do not hold an attribute block, is left
to the link rules (so footnotes, citations and wiki links work as before). A picture's
`{#fig-…}` is left to the figures. The attributes are those attributes.py lets through.
"""

from __future__ import annotations

import bisect
from collections.abc import Callable

from markdown_it import MarkdownIt
from markdown_it.rules_core import StateCore
from markdown_it.rules_inline import StateInline

from blogbuild.markdown.env import Env, need
from blogbuild.markdown.positions import inline_lines
from blogbuild.markdown.quarto.attributes import (
    PandocAttrs,
    parse,
    report_refused,
    safe_attributes,
)

__all__ = ["spans_plugin"]

InlineRule = Callable[[StateInline, bool], bool]

#: The longest span text looked at: a `]{` further away is no span's.
MAX_SPAN = 2000
#: Classes that are an element of their own in Pandoc's HTML.
_ELEMENTS = {"mark": "mark", "underline": "u"}
_MARGIN = frozenset({"aside", "column-margin"})


def _openers(state: StateInline) -> list[int]:
    """The offsets of every `]{` of the inline source (computed once per source)."""
    cached = state.env.get("quarto_span_marks")
    if cached is None or cached[0] is not state.src:
        src = state.src
        marks, at = [], src.find("]{")
        while at >= 0:
            marks.append(at)
            at = src.find("]{", at + 1)
        cached = (src, marks)
        state.env["quarto_span_marks"] = cached
    found: list[int] = cached[1]
    return found


def _attributes(state: StateInline, start: int) -> tuple[PandocAttrs, int] | None:
    """The attribute block starting at `start` (a `{`) and the offset after it."""
    close = state.src.find("}", start, min(state.posMax, start + MAX_SPAN))
    if close < 0:
        return None
    found = parse(state.src[start + 1 : close])
    return None if found is None else (found, close + 1)


def bracketed_span(state: StateInline, silent: bool) -> bool:
    src, pos = state.src, state.pos
    if src[pos] != "[" or src.startswith(("[^", "[["), pos):
        return False
    marks = _openers(state)
    nearest = bisect.bisect_left(marks, pos)
    if nearest == len(marks) or marks[nearest] - pos > MAX_SPAN:
        return False
    saved_max = state.posMax
    state.posMax = min(saved_max, marks[nearest] + 1)
    try:
        end = state.md.helpers.parseLinkLabel(state, pos, False)
    finally:
        state.posMax = saved_max
    if end < 0 or not src.startswith("]{", end):
        return False
    found = _attributes(state, end + 1)
    if found is None:
        return False
    attrs, after = found
    if not silent:
        _push_span(state, attrs, pos + 1, end)
    state.pos = after
    return True


def _push_span(state: StateInline, attrs: PandocAttrs, begin: int, end: int) -> None:
    env: Env = state.env
    tag = next((_ELEMENTS[c] for c in attrs.classes if c in _ELEMENTS), "span")
    classes = [c for c in attrs.classes if _ELEMENTS.get(c) != tag]
    if _MARGIN.intersection(classes):
        classes.append("margin-note")
    if _MARGIN.intersection(classes) or "smallcaps" in classes:
        need(env, "divs")
    token = state.push("quarto_span_open", tag, 1)
    shown, refused = safe_attributes(attrs, classes=classes)
    token.attrs = dict(shown)
    token.meta = {"offset": begin - 1, "refused": refused}
    if refused:
        env["quarto_refused"] = True
    saved = state.pos, state.posMax
    state.pos, state.posMax = begin, end
    state.md.inline.tokenize(state)
    state.pos, state.posMax = saved
    state.push("quarto_span_close", tag, -1)


def link_attributes(state: StateInline, silent: bool) -> bool:
    """`{…}` right after a link or a picture gives it attributes."""
    if state.src[state.pos] != "{" or state.pending or not state.tokens:
        return False
    last = state.tokens[-1]
    if last.type not in ("link_close", "image"):
        return False
    found = _attributes(state, state.pos)
    if found is None:
        return False
    attrs, after = found
    if last.type == "image" and (attrs.ident or "").startswith("fig-"):
        return False  # a numbered figure's label: blogbuild.markdown.figures reads it
    if not silent:
        target = last
        if last.type == "link_close":
            target = next(t for t in reversed(state.tokens)
                          if t.type == "link_open" and t.level == last.level)
        alt = attrs.get("fig-alt") if target.type == "image" else None
        shown, refused = safe_attributes(attrs, used=("fig-alt",) if alt is not None else ())
        if alt is not None:  # the picture's alt text; the bracketed text is its caption
            target.meta = {**(target.meta or {}), "alt": alt}
        if refused:
            target.meta = {**(target.meta or {}), "refused": refused}
            state.env["quarto_refused"] = True
        for name, value in shown.items():
            old = target.attrGet(name) if name == "class" else None
            target.attrSet(name, f"{old} {value}" if old else value)
    state.pos = after
    return True


def refused_attributes(state: StateCore) -> None:
    """Report what the attribute blocks of spans, links and pictures had refused, at the
    line of each (the inline rules know no lines)."""
    if not state.env.get("quarto_refused"):
        return
    for child, _, line in inline_lines(state.env, state.tokens):
        if child.meta and child.meta.get("refused"):
            report_refused(state.env, line, child.meta["refused"])


def _gated(rule: InlineRule, gate: Callable[[Env], bool]) -> InlineRule:
    def gated(state: StateInline, silent: bool) -> bool:
        return gate(state.env) and rule(state, silent)

    return gated


def spans_plugin(md: MarkdownIt, *, gate: Callable[[Env], bool]) -> None:
    """Bracketed spans and link attributes, on the pages `gate` accepts."""
    md.inline.ruler.before("link", "quarto_span", _gated(bracketed_span, gate))
    md.inline.ruler.before("link", "quarto_link_attributes", _gated(link_attributes, gate))
    md.core.ruler.after("inline", "quarto_refused_attributes", refused_attributes)
