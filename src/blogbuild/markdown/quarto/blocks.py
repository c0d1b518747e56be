"""Helpers of the fenced divs' tokens: the body's blocks, what a body starts with.

The body of a div is tokenized by the block parser between its fences
(blogbuild.markdown.quarto.fences bounds `lineMax`); what a kind does with the tokens
afterwards (a figure's caption, a grid's cells, a tabset's tabs) works on the top-level
blocks of the body, which `blocks` finds.
"""

from __future__ import annotations

import re

from markdown_it.rules_block import StateBlock
from markdown_it.token import Token

from blogbuild.markdown.quarto.fences import Fenced

__all__ = ["blocks", "first_heading", "has_text", "shift", "tokenize"]

_HEADING = re.compile(r"(#{1,6})[ \t]+(.*?)(?:[ \t]+#+)?[ \t]*$")


def tokenize(div: Fenced, begin: int) -> int:
    """Tokenize the body from line `begin` to the div's end; the index of its first token."""
    state = div.state
    first = len(state.tokens)
    if begin < div.end:
        state.md.block.tokenize(state, begin, div.end)
    return first


def has_text(state: StateBlock, begin: int, end: int) -> bool:
    return any(not state.isEmpty(line) for line in range(begin, end))


def first_heading(div: Fenced) -> tuple[str, int] | None:
    """(the text of the heading the body starts with, the line after it), or None."""
    state = div.state
    line = state.skipEmptyLines(div.start + 1)
    if line >= div.end or state.sCount[line] - state.blkIndent >= 4:
        return None
    begin = state.bMarks[line] + state.tShift[line]
    match = _HEADING.match(state.src, begin, state.eMarks[line])
    if match is None:
        return None
    return match.group(2), line + 1


def blocks(tokens: list[Token], level: int) -> list[list[Token]]:
    """The top-level blocks of `tokens` (each a list of tokens) at `level`."""
    found: list[list[Token]] = []
    current: list[Token] = []
    depth = 0
    for token in tokens:
        current.append(token)
        depth += token.nesting
        if depth == 0 and token.level == level:
            found.append(current)
            current = []
    if current:
        found.append(current)
    return found


def shift(tokens: list[Token], by: int) -> list[Token]:
    """`tokens` moved `by` levels deeper (they are wrapped in new containers)."""
    for token in tokens:
        token.level += by
    return tokens


def wrapper(kind: str, tag: str, level: int, attrs: dict[str, str] | None = None,
            ) -> tuple[Token, Token]:
    """A pair of block tokens `KIND_open`/`KIND_close` at `level`."""
    opening = Token(f"{kind}_open", tag, 1, level=level, block=True)
    opening.attrs = dict(attrs or {})
    closing = Token(f"{kind}_close", tag, -1, level=level, block=True)
    return opening, closing
