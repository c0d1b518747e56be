"""MkDocs / Python-Markdown admonitions, rendered as callouts.

    !!! note "Optional title"           ->  the callout `> [!NOTE] Optional title` renders
        Body, indented four spaces.
    ??? tip                             ->  `> [!TIP]-` (folded, closed); `???+` is open

The header follows Python-Markdown's grammar: a type, optional extra words (kept as extra
classes, as Python-Markdown does), an optional quoted title; `""` means no title row. A
`{#id}` may end the header, as it ends a callout's first line.
A line that does not fit it (`!!! IMPORTANT !!!`) stays a paragraph.

mdit-py-plugins has an `admon` plugin with the same markers; it is not used because its
header grammar is looser than Python-Markdown's (`!!! note Some words` becomes a title,
`!!! IMPORTANT !!!` an admonition), two blank lines end its body where Python-Markdown
keeps reading indented blocks, and its tokens and classes are not our callouts', so every
one would have to be rewritten afterwards. This rule emits the callout tokens directly.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from markdown_it import MarkdownIt
from markdown_it.rules_block import StateBlock

from blogbuild.callout_kinds import CalloutType, Kind, build_kinds
from blogbuild.markdown.callouts import (
    push_title,
    set_title_and_id,
    style_opening,
    tokenize_body,
    unknown_kind,
)
from blogbuild.markdown.env import need, source_line
from blogbuild.markdown.statements import take_id

__all__ = ["admonitions_plugin"]

_HEADER = re.compile(
    r'(!!!|\?\?\?\+?)[ \t]*([^\W\d][\w-]*)((?:[ \t]+[\w-]+)*)(?:[ \t]+"(.*)")?'
    r'((?:[ \t]+\{#[^{}]*\})?)[ \t]*$'
)
_BODY_INDENT = 4  # Python-Markdown's tab length: the body is indented four columns


def _body_end(state: StateBlock, start_line: int, end_line: int, indent: int) -> int:
    """The line after the body: the last line indented `indent` columns before a lesser one.

    Blank lines inside the body belong to it; blank lines after it do not."""
    end = start_line + 1
    line = start_line + 1
    while line < end_line:
        if not state.isEmpty(line):
            if state.sCount[line] < indent:
                break
            end = line + 1
        line += 1
    return end


def _make_rule(kinds: Mapping[str, Kind]) -> Any:
    def admonition(state: StateBlock, start_line: int, end_line: int, silent: bool) -> bool:
        if state.is_code_block(start_line):
            return False
        pos = state.bMarks[start_line] + state.tShift[start_line]
        if state.src[pos : pos + 1] not in ("!", "?"):
            return False
        match = _HEADER.match(state.src, pos, state.eMarks[start_line])
        if match is None:
            return False
        if silent:
            return True

        marker, name, extra, title, written_id = match.groups()
        fold = "" if marker == "!!!" else "+" if marker.endswith("+") else "-"
        env = state.env
        kind = kinds.get(name.lower()) or unknown_kind(
            env, source_line(env, start_line), name, kinds, marker="'!!! {}'"
        )
        need(env, "callouts")
        indent = state.sCount[start_line] + _BODY_INDENT
        end = _body_end(state, start_line, end_line, indent)

        opening = state.push("blockquote_open", "div", 1)
        opening.map = [start_line, end]
        opening.markup = marker
        style_opening(opening, name, kind, fold)
        _, ident = take_id(env, source_line(env, start_line), written_id.strip())
        set_title_and_id(opening, title or "", ident)
        if extra.split():
            opening.attrs["class"] = f"{opening.attrs['class']} {' '.join(extra.split())}"
        if title is None or title or fold:
            push_title(state, start_line, kind, title or "", fold)

        old = state.parentType, state.lineMax, state.blkIndent
        state.parentType, state.lineMax, state.blkIndent = "admonition", end, indent
        if end > start_line + 1:
            tokenize_body(state, start_line + 1, end, kind)
        state.parentType, state.lineMax, state.blkIndent = old

        closing = state.push("callout_close", opening.tag, -1)
        closing.meta = opening.meta
        state.line = end
        return True

    return admonition


def admonitions_plugin(md: MarkdownIt, *, types: Mapping[str, CalloutType] | None = None) -> None:
    """Read `!!!` / `???` admonitions as callouts; `types` is site.yaml's `callouts:`.

    Needs callouts_plugin: it owns the render rules of the callout tokens."""
    md.block.ruler.before(
        "fence",
        "admonition",
        _make_rule(build_kinds(types)),
        {"alt": ["paragraph", "reference", "blockquote", "list"]},
    )
