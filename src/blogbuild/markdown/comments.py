"""Author comments that never reach the page: Obsidian's `%% … %%`, kramdown's `{::comment}`.

    Text %% a note to self %% goes on.     ->  <p>Text  goes on.</p>
    %%                                     ->  (nothing)
    Several lines, blank ones too.
    %%

A comment that starts a block and ends at the end of a line is removed with its lines (a
block rule, so blank lines inside do not split it). A comment inside a paragraph, heading
or table cell is removed by an inline rule. Code spans, fenced and indented code are
tokenized by their own rules first, so a `%%` in code stays text.
"""

from __future__ import annotations

from markdown_it import MarkdownIt
from markdown_it.rules_block import StateBlock
from markdown_it.rules_inline import StateInline

from blogbuild.markdown.env import report, source_line

__all__ = ["comments_plugin"]

# (opening, closings): a comment starts with the opening and ends at the first closing.
_BLOCK_DELIMITERS = (("%%", ("%%",)), ("{::comment}", ("{:/comment}", "{:/}")))


def _find_close(
    state: StateBlock, start_line: int, end_line: int, start: int, closings: tuple[str, ...]
) -> tuple[int, int] | None:
    """(line, offset after the closing) of the first closing from `start`, or None."""
    line = start_line
    while line < end_line:
        begin = start if line == start_line else state.bMarks[line] + state.tShift[line]
        text = state.src[begin : state.eMarks[line]]
        found = [(text.find(c), c) for c in closings if c in text]
        if found:
            offset, closing = min(found)
            return line, begin + offset + len(closing)
        line += 1
    return None


def _block_comment(state: StateBlock, start_line: int, end_line: int, silent: bool) -> bool:
    if state.is_code_block(start_line):
        return False
    pos = state.bMarks[start_line] + state.tShift[start_line]
    delimiters = [d for d in _BLOCK_DELIMITERS if state.src.startswith(d[0], pos)]
    if not delimiters:
        return False
    opening, closings = delimiters[0]
    close = _find_close(state, start_line, end_line, pos + len(opening), closings)
    if close is None:
        # `%%timeit` and the like (IPython's cell magics) are prose, not an unclosed comment.
        if not silent and state.src[pos + len(opening) : pos + len(opening) + 1] in " \t\n":
            env = state.env
            report(env, source_line(env, start_line),
                   f"'{opening}' opens a comment that is never closed: the text after it is "
                   f"shown; close it with '{closings[0]}'")
        return False
    line, after = close
    if state.src[after : state.eMarks[line]].strip():
        return False  # text follows the comment on its line: the inline rule's case
    if silent:
        # As a paragraph's terminator only a comment of several lines: one inside a line of
        # prose is part of that paragraph.
        return line > start_line
    state.line = line + 1
    return True


def _inline_comment(state: StateInline, silent: bool) -> bool:
    pos = state.pos
    if not state.src.startswith("%%", pos):
        return False
    close = state.src.find("%%", pos + 2, state.posMax)
    if close < 0:
        return False
    state.pos = close + 2
    if not silent and not state.src[state.pos : state.posMax].strip():
        # A comment that ends the paragraph takes the line break before it along.
        state.pending = state.pending.rstrip()
        while not state.pending and state.tokens and state.tokens[-1].type == "softbreak":
            state.tokens.pop()
    return True


def comments_plugin(md: MarkdownIt) -> None:
    """Remove `%% … %%` and `{::comment} … {:/comment}` from the output."""
    md.block.ruler.before(
        "fence", "block_comment", _block_comment, {"alt": ["paragraph", "blockquote", "list"]}
    )
    md.inline.ruler.before("text", "inline_comment", _inline_comment)
    md.inline.add_terminator_char("%")
