"""The `<div class="KIND">` family: one block rule for the known widget divs.

A known kind (collapsible, runnable, video-embed, image-compare, hf-space) becomes tokens
(``collapsible_open``/``_close`` and ``runnable_open``/``_close`` around block-parsed
Markdown; ``video_embed``, ``image_compare`` and ``hf_space`` leaves). Any other ``<div>``
is left to CommonMark's ``html_block``, untouched. Code spans and code blocks are never
transformed: fenced and indented code are consumed by their own rules before this one
runs, and the search for the matching ``</div>`` skips code inside the div.
"""

from __future__ import annotations

import html
import re
from collections.abc import Callable
from dataclasses import dataclass

from markdown_it import MarkdownIt
from markdown_it.rules_block import StateBlock

from blogbuild.markdown.env import report, report_error, source_line
from blogbuild.markdown.widgets import CONTAINERS, KINDS, RENDER_RULES, DivInput, build_meta
from blogbuild.urls import UrlBuilder

__all__ = ["KINDS", "divs_plugin"]

_DIV_START = re.compile(r"<div(?=[\s/>]|$)", re.IGNORECASE)
_NAME = re.compile(r"[A-Za-z_:][\w.:-]*")
_UNQUOTED = re.compile(r"[^\s\"'=<>`]+")
#: Tags that change the nesting depth; `\<div` is an escaped, literal "<div".
_DEPTH_TAG = re.compile(r"(?<!\\)(?:<div(?=[\s/>]|$)|</div\s*>)", re.IGNORECASE)
_FENCE_OPEN = re.compile(r"^(`{3,}|~{3,})(.*)$")
#: Container prefixes in front of a fence inside the div: blockquote markers, list markers.
_PREFIX = re.compile(r"^(?:[ \t]*(?:>|[-+*][ \t]|\d{1,9}[.)][ \t]))*[ \t]*")
#: HTML blocks whose text is verbatim (CommonMark's HTML block type 1).
_VERBATIM_OPEN = re.compile(r"^<(pre|script|style|textarea)(?=[\s>]|$)", re.IGNORECASE)
_PREFIX_START = frozenset(" \t>-+*0123456789")
_BACKTICKS = re.compile(r"`+")
_COMMENT = re.compile(r"<!--.*?-->")
_MAX_TAG_LINES = 40


@dataclass(frozen=True)
class OpenTag:
    """An opening `<div …>` tag as read from the source."""

    attrs: dict[str, str]
    line: int  # the line holding the tag's final '>'
    end: int  # src offset just after it
    self_closing: bool


@dataclass(frozen=True)
class Close:
    """Where a div's `</div>` is (or where it would have to be)."""

    line: int  # the line holding `</div>`; when not closed, the first line after the content
    start: int  # src offset of `</div>` (-1 when not closed)
    end: int


def _scan_tag(text: str) -> tuple[dict[str, str], int, bool] | bool:
    """Parse the `<div …>` at the start of `text` into (attributes, end index, self-closing).

    Returns True when `text` ends inside the tag (read another line) and False when it is
    not a well-formed tag (then it is left to html_block).
    """
    match = _DIV_START.match(text)
    if not match:
        return False
    attrs: dict[str, str] = {}
    i = match.end()
    while True:
        j = i
        while j < len(text) and text[j].isspace():
            j += 1
        if j >= len(text):
            return True
        if text.startswith("/>", j):
            return attrs, j + 2, True
        if text[j] == ">":
            return attrs, j + 1, False
        name = _NAME.match(text, j)
        if j == i or not name:  # attributes need whitespace before them
            return False
        k = name.end()
        value = ""
        eq = k
        while eq < len(text) and text[eq].isspace():
            eq += 1
        if eq < len(text) and text[eq] == "=":
            v = eq + 1
            while v < len(text) and text[v].isspace():
                v += 1
            if v >= len(text):
                return True
            if text[v] in "\"'":
                close = text.find(text[v], v + 1)
                if close < 0:
                    return True
                value, k = text[v + 1 : close], close + 1
            else:
                unquoted = _UNQUOTED.match(text, v)
                if not unquoted:
                    return False
                value, k = unquoted.group(0), unquoted.end()
        attrs.setdefault(name.group(0).lower(), html.unescape(value))
        i = k


def _line(state: StateBlock, line: int) -> tuple[int, str]:
    begin = state.bMarks[line] + state.tShift[line]
    return begin, state.src[begin : state.eMarks[line]]


def parse_open_tag(state: StateBlock, start_line: int, end_line: int) -> OpenTag | None:
    """The opening tag at `start_line`, possibly spread over several lines."""
    text = ""
    offsets: list[tuple[int, int]] = []  # (index in text, src offset) where each line starts
    line = start_line
    while line < end_line and line - start_line < _MAX_TAG_LINES:
        begin, chunk = _line(state, line)
        if line > start_line:
            if not chunk.strip() or state.sCount[line] < state.blkIndent:
                return None  # a blank or outdented line ends an HTML block: not a tag
            text += "\n"
        offsets.append((len(text), begin))
        text += chunk
        result = _scan_tag(text)
        if result is False:
            return None
        if isinstance(result, tuple):
            attrs, end, self_closing = result
            index, src_begin = offsets[-1]
            return OpenTag(attrs, line, src_begin + end - index, self_closing)
        line += 1
    return None


def _mask(text: str) -> str:
    """Blank out code spans and HTML comments so tags inside them are not counted."""
    text = _COMMENT.sub(lambda m: " " * len(m.group(0)), text)
    runs = list(_BACKTICKS.finditer(text))
    chars = list(text)
    i = 0
    while i < len(runs):
        opener = runs[i]
        closer = next((j for j in range(i + 1, len(runs))
                       if len(runs[j].group(0)) == len(opener.group(0))), None)
        if closer is None:
            i += 1
            continue
        chars[opener.start() : runs[closer].end()] = " " * (runs[closer].end() - opener.start())
        i = closer + 1
    return "".join(chars)


def find_close(state: StateBlock, tag: OpenTag, end_line: int) -> Close:
    """The `</div>` that closes `tag`, counting nested `<div>`s and skipping code.

    Skipped: fenced and indented code, `<pre>`/`<script>`/`<style>`/`<textarea>` blocks,
    code spans and HTML comments on one line, and backslash-escaped tags.
    """
    depth = 1
    fence: tuple[str, int] | None = None
    raw_end: str | None = None
    code_may_start = False  # an indented code block needs a blank line before it
    line, segment = tag.line, tag.end
    while line < end_line:
        stop = state.eMarks[line]
        if line != tag.line:
            if state.isEmpty(line):
                code_may_start = fence is None and raw_end is None
                line += 1
                continue
            if state.sCount[line] < state.blkIndent:
                break  # the enclosing list item or blockquote ends here
            segment, text = _line(state, line)
            bare = _PREFIX.sub("", text, count=1) if text[:1] in _PREFIX_START else text
            if fence is not None:
                run = re.match(r"^(`+|~+)\s*$", bare.lstrip(" >"))
                if run and run.group(1)[0] == fence[0] and len(run.group(1)) >= fence[1]:
                    fence = None
                line += 1
                continue
            if raw_end is not None:  # inside <pre>, <script>, <style> or <textarea>
                if raw_end in text.lower():
                    raw_end = None
                line += 1
                continue
            opener = _FENCE_OPEN.match(bare)
            if opener and not (opener.group(1)[0] == "`" and "`" in opener.group(2)):
                fence = (opener.group(1)[0], len(opener.group(1)))
                line += 1
                continue
            verbatim = _VERBATIM_OPEN.match(bare)
            if verbatim:
                end_tag = f"</{verbatim.group(1).lower()}>"
                raw_end = None if end_tag in text.lower() else end_tag
                line += 1
                continue
            if code_may_start and state.sCount[line] - state.blkIndent >= 4:
                line += 1  # indented code: its text is not HTML
                continue
            code_may_start = False
        text = state.src[segment:stop]
        if "DIV" not in text.upper():
            line += 1
            continue
        for match in _DEPTH_TAG.finditer(_mask(text)):
            depth += -1 if match.group(0)[1] == "/" else 1
            if depth == 0:
                return Close(line, segment + match.start(), segment + match.end())
        line += 1
    return Close(line, -1, -1)


def _tokenize_between(state: StateBlock, tag: OpenTag, close: Close) -> None:
    """Block-parse the div's content: from after the opening tag to before `</div>`.

    The content may begin on the tag's line and end on the `</div>` line; those partial
    lines are parsed by narrowing their line marks for the duration of the call.
    """
    saved: list[tuple[list[int], int, int]] = []

    def patch(marks: list[int], line: int, value: int) -> None:
        saved.append((marks, line, marks[line]))
        marks[line] = value

    closed = close.start >= 0
    first = tag.line + 1
    head_end = close.start if closed and close.line == tag.line else state.eMarks[tag.line]
    head = state.src[tag.end : head_end]
    if head.strip():
        first = tag.line
        patch(state.bMarks, tag.line, tag.end)
        patch(state.tShift, tag.line, len(head) - len(head.lstrip()))
        patch(state.sCount, tag.line, state.blkIndent)
    last = close.line
    if closed:
        begin = tag.end if close.line == tag.line else _line(state, close.line)[0]
        if state.src[begin : close.start].strip():
            patch(state.eMarks, close.line, close.start)
            last = close.line + 1
    old_max, old_parent = state.lineMax, state.parentType
    state.lineMax, state.parentType = last, "div"
    try:
        if first < last:
            state.md.block.tokenize(state, first, last)
    finally:
        state.lineMax, state.parentType = old_max, old_parent
        for marks, line, value in reversed(saved):
            marks[line] = value


def make_div_rule(urls: UrlBuilder) -> Callable[[StateBlock, int, int, bool], bool]:
    def div_widget(state: StateBlock, start_line: int, end_line: int, silent: bool) -> bool:
        if state.is_code_block(start_line) or state.env.get("nb_output_parse"):
            return False  # a notebook's output is no author's widget (markdown.notebook)
        begin = state.bMarks[start_line] + state.tShift[start_line]
        if state.src[begin : begin + 4].lower() != "<div":
            return False
        tag = parse_open_tag(state, start_line, end_line)
        if tag is None:
            return False
        classes = tag.attrs.get("class", "").split()
        kind = next((c for c in classes if c in KINDS), None)
        if kind is None:
            return False
        if silent:
            return True

        env = state.env
        line = source_line(env, start_line)
        if tag.self_closing:
            close = Close(tag.line, tag.end, tag.end)
        else:
            close = find_close(state, tag, end_line)
        closed = close.start >= 0
        if not closed:
            report_error(env, line, f'<div class="{kind}"> is never closed: add a matching '
                         "</div> (content up to the end of its block is used)")
            if kind not in CONTAINERS:  # a leaf widget takes only its opening tag
                close = Close(tag.line + 1, -1, -1)
        elif state.src[close.end : state.eMarks[close.line]].strip():
            report(env, source_line(env, close.line),
                   f"text after the </div> closing '{kind}' is ignored; start it on a new line")
        inner = state.src[tag.end : close.start] if closed else ""
        meta = build_meta(DivInput(kind, tag.attrs, inner, line, env, urls))
        name = KINDS[kind]
        end = close.line + 1 if closed else close.line
        if kind in CONTAINERS:
            token = state.push(f"{name}_open", "div", 1)
            token.map, token.meta, token.block = [start_line, end], meta, True
            first_token = len(state.tokens)
            _tokenize_between(state, tag, close)
            if kind == "runnable" and not any(
                t.type in ("fence", "code_block") for t in state.tokens[first_token:]
            ):
                report(env, line, "this runnable div holds no fenced code block to run")
            token = state.push(f"{name}_close", "div", -1)
            token.block = True
        else:
            token = state.push(name, "div", 0)
            token.map, token.meta, token.block = [start_line, end], meta, True
        state.line = end
        return True

    return div_widget


def divs_plugin(md: MarkdownIt, *, urls: UrlBuilder | None = None) -> None:
    """Parse the known `<div class="KIND">` widgets; other divs stay raw HTML."""
    rule = make_div_rule(urls or UrlBuilder("http://localhost/"))
    # Like html_block, a widget div may interrupt a paragraph, a reference or a blockquote.
    md.block.ruler.before(
        "html_block", "div_widget", rule, {"alt": ["paragraph", "reference", "blockquote"]}
    )
    for name, render in RENDER_RULES.items():
        md.add_render_rule(name, render)
