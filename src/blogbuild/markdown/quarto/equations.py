"""Quarto's labelled equations: `$$ … $$ {#eq-x}`, the label after the closing `$$`.

The block rule reads the display as the math plugin reads any `$$` block (it calls that
rule with the label cut off the last line) and puts the id in the token's `meta["label"]`;
the math plugin numbers such a display and gives it the id (blogbuild.markdown.math.number).
"""

from __future__ import annotations

import re

from markdown_it import MarkdownIt
from markdown_it.rules_block import StateBlock

from blogbuild.markdown.env import is_quarto
from blogbuild.markdown.math.block import math_block
from blogbuild.markdown.statements import ID

__all__ = ["equations_plugin"]

#: The end of a labelled display's last line: `$$ {#eq-x}`.
_LABELLED = re.compile(r"\$\$[ \t]*\{#(eq-[^{}\s]+)\}[ \t]*$")


def _labelled_end(state: StateBlock, start_line: int, end_line: int) -> tuple[int, int, str]:
    """(the line that closes the display, where its `$$` ends, the id), or (-1, 0, ""):
    the first line after the opening `$$` that holds a `$$` closes it (so each line is
    looked at once, however many `$$` lines a paragraph has)."""
    line = start_line
    while line < end_line and not state.isEmpty(line):
        begin = state.bMarks[line] + state.tShift[line]
        text = state.src[begin:state.eMarks[line]]
        if "$$" in (text[2:] if line == start_line else text):
            match = _LABELLED.search(text)
            if match is None or (line == start_line and match.start() < 2):
                return -1, 0, ""
            return line, begin + match.start() + 2, match.group(1)
        line += 1
    return -1, 0, ""


def labelled_equation(state: StateBlock, start_line: int, end_line: int,
                      silent: bool) -> bool:
    if not is_quarto(state.env) or state.sCount[start_line] - state.blkIndent >= 4:
        return False
    begin = state.bMarks[start_line] + state.tShift[start_line]
    if not state.src.startswith("$$", begin):
        return False
    line, end, ident = _labelled_end(state, start_line, end_line)
    if line < 0 or not ID.fullmatch(ident):
        return False
    kept = state.eMarks[line]
    state.eMarks[line] = end  # the display as the math rule reads it: no label
    try:
        found = math_block(state, start_line, end_line, silent)
    finally:
        state.eMarks[line] = kept
    if found and not silent:
        state.tokens[-1].meta["label"] = ident
    return found


def equations_plugin(md: MarkdownIt) -> None:
    """Install after the math plugin (nothing to do when math is off)."""
    if md.block.ruler.__find__("math_block") < 0:
        return
    md.block.ruler.before("math_block", "quarto_equation", labelled_equation,
                          {"alt": ["paragraph", "reference", "blockquote", "list",
                                   "footnote_def"]})
