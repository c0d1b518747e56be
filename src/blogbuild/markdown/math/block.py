"""Display math on lines of its own: $$, \\[, kramdown's \\\\[, and amsmath environments.

A block starts with its opener at the start of a line and ends with its closer at the end
of a line; it may interrupt a paragraph. An opener that a blank line or the end of its
container cuts off is noted in env["math_cut"], and the core rule reports it: display
math is never left on the page as raw TeX without a word.
"""

from __future__ import annotations

import re
from typing import NamedTuple

from markdown_it.rules_block import StateBlock

from blogbuild.markdown.math.beside import beside_text
from blogbuild.markdown.math.tex import DISPLAY_ENVIRONMENTS, find_close, kramdown_unescape

_BEGIN_RE = re.compile(r"\\begin\{(" + "|".join(DISPLAY_ENVIRONMENTS) + r")(\*?)\}")
#: How many lines of its paragraph, before and after, a `$$…$$` that fills its line looks
#: at for a `$$…$$` beside text (a bound: a paragraph of such lines stays linear).
NEIGHBOURS = 20


class Cut(NamedTuple):
    """An opener line that nothing closed: where the blank line (if one ended it) and a
    closer after that blank line (if the author meant it to close) are, as body lines.
    `started`: the line starts a block; otherwise it continues a paragraph, where an
    opener before it may still close at it."""

    opener: str
    closer: str
    blank: int | None
    late_closer: int | None
    started: bool
    column: int  # 0-based, of the opener


def _line_start(src: str, pos: int) -> int:
    return src.rfind("\n", 0, pos) + 1


def _block_opener(line: str) -> tuple[str, str] | None:
    if not line.startswith(("$$", "\\")):
        return None  # most lines: one test
    for open_, close in (("$$", "$$"), ("\\\\[", "\\\\]"), ("\\[", "\\]")):
        if line.startswith(open_):
            return open_, close
    match = _BEGIN_RE.match(line)
    if match is None:
        return None
    return "", f"\\end{{{match.group(1)}{match.group(2)}}}"


def _line(state: StateBlock, number: int) -> str:
    return state.src[state.bMarks[number] + state.tShift[number] : state.eMarks[number]]


def _late_closer(state: StateBlock, blank: int, end_line: int, close: str) -> int | None:
    """The line after the blank lines at `blank` that ends with `close`, within one
    paragraph: the closer the author meant, when the blank line is inside the math."""
    number = blank
    while number < end_line and state.isEmpty(number):
        number += 1
    while number < end_line and not state.isEmpty(number):
        if _line(state, number).rstrip().endswith(close):
            return number
        number += 1
    return None


def _note_cut(state: StateBlock, start_line: int, line: str, found: tuple[str, str],
              stop: int, end_line: int, started: bool) -> None:
    """Remember an opener nothing closed, if it surely meant math: `$$` or an environment
    at the start of a line, `\\[` alone on its line (`\\[x](y)` is an escaped bracket)."""
    open_, close = found
    if open_ in ("\\[", "\\\\[") and line.strip() != open_:
        return
    blank = stop if stop < end_line and state.isEmpty(stop) else None
    late = _late_closer(state, blank, end_line, close) if blank is not None else None
    cuts: dict[int, Cut] = state.env.setdefault("math_cut", {})
    label = open_ or line[: line.index("}") + 1]
    begin = state.bMarks[start_line] + state.tShift[start_line]
    column = begin - _line_start(state.src, begin)
    if start_line not in cuts or started:
        cuts[start_line] = Cut(label, close, blank, late, started, column)


def _line_beside_text(state: StateBlock, number: int) -> bool:
    """`beside_text` of a body line as the current container sees it, memoised."""
    begin = state.bMarks[number] + state.tShift[number]
    memo = state.env.setdefault("math_beside_lines", {})
    key = (number, begin)
    entry = memo.get(key)
    if entry is None or entry[0] is not state.src:
        entry = memo[key] = (state.src, beside_text(state.src[begin : state.eMarks[number]]))
    return bool(entry[1])


def _inline_by_neighbours(state: StateBlock, start_line: int, last: int, end_line: int,
                          silent: bool) -> bool:
    """A `$$…$$` that fills lines start_line..last but shares its paragraph with text:
    inline math when a `$$…$$` near it in that paragraph stands beside text (see
    math/beside.py); display math otherwise, and always when it is its own paragraph."""
    inside = silent and state.parentType == "paragraph"  # interrupting a paragraph
    after = last + 1
    alone_after = (after >= end_line or state.isEmpty(after)
                   or state.sCount[after] < state.blkIndent)
    if not inside and alone_after:
        return False
    if inside:
        for number in range(start_line - 1, max(state.line, start_line - NEIGHBOURS) - 1, -1):
            if state.sCount[number] >= 0 and _line_beside_text(state, number):
                return True
    number = after
    while number < min(end_line, after + NEIGHBOURS) and not state.isEmpty(number) \
            and state.sCount[number] >= state.blkIndent:
        if _line_beside_text(state, number):
            return True
        number += 1
    return False


class MathBlock:
    """The block rule; `double_inline`: a `$$…$$` beside text is inline math, so one
    alone on its line in such a paragraph is too (math.inline_double_dollar)."""

    def __init__(self, *, double_inline: bool = True) -> None:
        self.double_inline = double_inline

    def __call__(self, state: StateBlock, start_line: int, end_line: int, silent: bool) -> bool:
        return _math_block(state, start_line, end_line, silent, self.double_inline)


def math_block(state: StateBlock, start_line: int, end_line: int, silent: bool) -> bool:
    """Display math starting a line; it ends with its closer at the end of a line."""
    return _math_block(state, start_line, end_line, silent, True)


def _math_block(state: StateBlock, start_line: int, end_line: int, silent: bool,
                double_inline: bool) -> bool:
    if state.sCount[start_line] - state.blkIndent >= 4:
        return False
    begin = state.bMarks[start_line] + state.tShift[start_line]
    line = state.src[begin : state.eMarks[start_line]]
    found = _block_opener(line)
    if found is None:
        return False
    open_, close = found
    # A scan that failed from an earlier line fails from every line it passed over, so a
    # run of unclosed openers (`\\begin{align}` on each line) is read once, not once each.
    failed = state.env.setdefault("math_block_failed", {})
    key = (close, state.blkIndent, end_line)
    before = failed.get(key)
    if before is not None and before[0] is state.src and before[1] < start_line < before[2]:
        return False
    parts: list[str] = []
    lines: list[tuple[int, int]] = []
    text, col = line[len(open_) :], begin + len(open_) - _line_start(state.src, begin)
    current = start_line
    while True:
        stripped = text.rstrip()
        at = find_close(stripped, 0, len(stripped), close)
        if at >= 0:
            if at + len(close) != len(stripped):
                failed[key] = (state.src, start_line, current)
                return False  # text after the closer: inline math in a paragraph
            body = stripped if not open_ else stripped[:at]
            parts.append(body)
            lines.append((current, col))
            break
        parts.append(text)
        lines.append((current, col))
        current += 1
        if current >= end_line or state.isEmpty(current):
            failed[key] = (state.src, start_line, current)
            _note_cut(state, start_line, line, found, current, end_line, not silent)
            return False
        if state.sCount[current] < state.blkIndent:
            failed[key] = (state.src, start_line, current)
            return False
        begin = state.bMarks[current] + state.tShift[current]
        text = state.src[begin : state.eMarks[current]]
        col = begin - _line_start(state.src, begin)
    content = "\n".join(parts)
    if not content.strip():
        return False
    # `$$x$$` filling its line (not `$$` alone on the lines around the formula) in a
    # paragraph that writes `$$…$$` beside text: inline math, the inline rule's.
    compact = open_ == "$$" and (parts[0].strip() != "" or parts[-1].strip() != "")
    if compact and double_inline and _inline_by_neighbours(state, start_line, current,
                                                           end_line, silent):
        return False
    if silent:
        return True
    token = state.push("math_block", "div", 0)
    token.block = True
    token.content = content
    token.markup = open_
    token.map = [start_line, current + 1]
    token.meta = {"lines": lines, "open": open_, "close": close if open_ else ""}
    if open_ == "\\\\[":
        token.content, token.meta["origin"] = kramdown_unescape(content)
        token.meta["raw"] = content
    state.line = current + 1
    return True
