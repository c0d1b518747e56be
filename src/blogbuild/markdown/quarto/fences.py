"""Pandoc's fenced divs: the `:::` lines of a Quarto page, and the block rule that reads them.

    ::: {#id .class key="value"}         an opening line: 3+ colons, then an attribute
    Block *Markdown*, other divs.        block or one class word (`::: callout-note`),
    :::                                  maybe trailing colons; a closing line is colons only

A closing line closes the innermost open div; the `:::` lines inside a code fence or an
indented code block are code. The rule finds the div's closing line first (`find_close`),
then hands the div to blogbuild.markdown.quarto.divs, which makes the tokens of what its
classes mean. A div never closed runs to the end of its container, with a warning at its
opening line; an opening whose attribute block does not parse stays text, with a warning;
divs nested deeper than `DIV_DEPTH` stay text (their content is parsed as it would be
without them), with one warning.

Pandoc reads Markdown inside raw HTML (`<div class="tab-pane">` on one line, `::: {.grid}`
on the next; `<details><summary>Code</summary>`, then a cell's ```` ```{r} ````), where
CommonMark makes every line up to a blank one part of the HTML block: on a Quarto page a
`:::` line or a code fence's opening ends such a block (`make_html_rule`), so the div, the
code block or the cell is one.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from markdown_it.rules_block import StateBlock, html_block
from markdown_it.rules_block.html_block import HTML_SEQUENCES

from blogbuild.markdown.env import Env, report, source_line
from blogbuild.markdown.quarto.attributes import PandocAttrs, parse

__all__ = ["DIV_DEPTH", "Fenced", "find_close", "make_div_rule", "make_html_rule", "opening"]

#: Fenced divs nested deeper than this are shown as text (their `:::` lines stay).
DIV_DEPTH = 16
_OPEN = re.compile(r":{3,}[ \t]*(?:\{(?P<attrs>.*)\}|(?P<word>[^\s{}:][^\s{}]*))[ \t]*:*[ \t]*$")
_CLOSE = re.compile(r":{3,}[ \t]*$")
_CODE_FENCE = re.compile(r"(`{3,}|~{3,})(.*)$")
_DEPTH = "quarto_div_depth"
_REPORTED = "quarto_div_reported"
#: What the rule hands on: it reads `Fenced` and pushes the div's tokens.
Emit = Callable[["Fenced"], None]


@dataclass(frozen=True)
class Fenced:
    """One fenced div: where it is and what its attribute block says."""

    state: StateBlock
    start: int  # the opening line
    end: int  # the line after the body: the closing line, or where the container ends
    attrs: PandocAttrs
    line: int  # the opening line in the source file (for messages)

    @property
    def env(self) -> Env:
        return self.state.env


def opening(text: str) -> PandocAttrs | bool:
    """What an opening line says; False: not one; True: one whose attributes do not parse."""
    match = _OPEN.match(text)
    if match is None:
        return False
    if match.group("word") is not None:
        return PandocAttrs(classes=[match.group("word")])
    found = parse(match.group("attrs"))
    return True if found is None else found


def _text(state: StateBlock, line: int) -> str:
    return state.src[state.bMarks[line] + state.tShift[line] : state.eMarks[line]]


def find_close(state: StateBlock, start: int, end_line: int) -> tuple[int, bool]:
    """(the closing line of the div opened at `start`, True), or (where its container ends,
    False) when nothing closes it. Nested divs count; code fences and indented code do not."""
    depth = 1
    fence: tuple[str, int] | None = None
    line = start + 1
    while line < end_line:
        if state.isEmpty(line):
            line += 1
            continue
        if state.sCount[line] < state.blkIndent:
            return line, False  # the list item or blockquote holding the div ends here
        text = _text(state, line)
        if fence is not None:
            run = re.match(r"(`+|~+)[ \t]*$", text)
            if run and run.group(1)[0] == fence[0] and len(run.group(1)) >= fence[1]:
                fence = None
        elif state.sCount[line] - state.blkIndent >= 4:
            pass  # indented code, or a paragraph's continuation: never a fence
        elif _fence_opening(text):
            run = re.match(r"`+|~+", text)
            assert run is not None
            fence = (run.group(0)[0], len(run.group(0)))
        elif text.startswith(":::"):
            if _CLOSE.match(text):
                depth -= 1
                if depth == 0:
                    return line, True
            elif isinstance(opening(text), PandocAttrs):
                depth += 1
        line += 1
    return end_line, False


def _report_once(env: Env, line: int, message: str) -> None:
    """Report `message` at `line` unless it was (the rule may see a line twice)."""
    seen: set[tuple[int, str]] = env.setdefault(_REPORTED, set())
    if (line, message[:20]) not in seen:
        seen.add((line, message[:20]))
        report(env, line, message)


def make_div_rule(emit: Emit, gate: Callable[[Env], bool],
                  ) -> Callable[[StateBlock, int, int, bool], bool]:
    """The block rule of fenced divs on the pages `gate` accepts; `emit` makes the tokens."""

    def fenced_div(state: StateBlock, start_line: int, end_line: int, silent: bool) -> bool:
        if not gate(state.env) or state.is_code_block(start_line):
            return False
        pos = state.bMarks[start_line] + state.tShift[start_line]
        if state.src[pos : pos + 3] != ":::":
            return False
        env = state.env
        found = opening(_text(state, start_line))
        if found is False:
            return False
        line = source_line(env, start_line)
        if found is True:
            _report_once(env, line, "this ::: line's attribute block does not parse, so it is "
                         'shown as text: write it as {#id .class key="value"}')
            return False
        assert isinstance(found, PandocAttrs)
        depth = int(env.get(_DEPTH, 0))
        if depth >= DIV_DEPTH:  # reported even when asked silently: a paragraph goes on
            if not env.get("quarto_div_too_deep"):
                env["quarto_div_too_deep"] = True
                report(env, line, f"fenced divs nested more than {DIV_DEPTH} deep are shown as "
                       "text from here (their content is kept); nest them less deeply")
            return False
        if silent:
            return True
        close, closed = find_close(state, start_line, end_line)
        if not closed:
            colons = re.match(r":+", _text(state, start_line))
            report(env, line, "this ::: div is never closed, so it runs to the end of "
                   f"{'the page' if state.level == 0 else 'its container'}: end it with a "
                   f"line of {colons.group(0) if colons else ':::'}")
        env[_DEPTH] = depth + 1
        old_max, old_parent = state.lineMax, state.parentType
        state.lineMax, state.parentType = close, "quarto_div"
        try:
            emit(Fenced(state, start_line, close, found, line))
        finally:
            env[_DEPTH] = depth
            state.lineMax, state.parentType = old_max, old_parent
        state.line = close + 1 if closed else close
        return True

    return fenced_div


#: The HTML blocks that end at a blank line (CommonMark's kinds 6 and 7: a tag); the others
#: (a comment, <script>, <pre>…) end at their closing text, `:::` lines inside included.
_TAG_BLOCKS = tuple(opening for opening, closing, _ in HTML_SEQUENCES if closing.pattern == "^$")


def make_html_rule(gate: Callable[[Env], bool],
                   ) -> Callable[[StateBlock, int, int, bool], bool]:
    """The HTML block rule on the pages `gate` accepts: a block of tags ends before its first
    `:::` line or code fence, which Pandoc reads as Markdown (a fenced div's opening or
    closing line, a code block or a cell)."""

    def quarto_html_block(state: StateBlock, start_line: int, end_line: int,
                          silent: bool) -> bool:
        if silent or not gate(state.env) or state.is_code_block(start_line):
            return False
        if not any(tag.search(_text(state, start_line)) for tag in _TAG_BLOCKS):
            return False
        comment = _in_comment(_text(state, start_line), False)
        line = start_line + 1
        while line < end_line and not state.isEmpty(line):
            text = _text(state, line)
            if (not comment and state.sCount[line] - state.blkIndent < 4
                    and (_CLOSE.match(text) or opening(text) is not False
                         or _fence_opening(text))):
                return html_block(state, start_line, line, silent)
            comment = _in_comment(text, comment)
            line += 1
        return False  # no `:::` line: the usual rule reads the block

    return quarto_html_block


def _fence_opening(text: str) -> bool:
    """Whether `text` opens a code fence (a backtick fence's info has no backtick)."""
    code = _CODE_FENCE.match(text)
    return code is not None and not (code.group(1)[0] == "`" and "`" in code.group(2))


def _in_comment(text: str, inside: bool) -> bool:
    """Whether an HTML comment is open after `text` (`inside`: one was before it)."""
    while True:
        if inside:
            end = text.find("-->")
            if end < 0:
                return True
            text, inside = text[end + 3:], False
        else:
            start = text.find("<!--")
            if start < 0:
                return False
            text, inside = text[start + 4:], True
