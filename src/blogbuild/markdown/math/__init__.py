"""Math: $…$, $$…$$, \\(…\\), \\[…\\], amsmath environments, KaTeX at build time.

Parse rules make `math_inline`, `math_inline_double` (display math inside a paragraph)
and `math_block` tokens whose `.content` is the TeX, plus `math_ref` for \\eqref/\\ref
written in text. A core rule then numbers display equations, resolves references across
the post, renders every formula once (before the TOC rule reads headings) and reports
LaTeX errors at their line:col in the source file.
"""

from __future__ import annotations

import bisect
from collections.abc import Iterator, Sequence
from typing import Any

from markdown_it import MarkdownIt
from markdown_it.common.utils import escapeHtml
from markdown_it.rules_block import StateBlock
from markdown_it.rules_core import StateCore
from markdown_it.rules_inline import StateInline
from markdown_it.token import Token
from markdown_it.utils import OptionsDict

from blogbuild.config import MathConfig
from blogbuild.markdown.env import Env, need
from blogbuild.markdown.math.number import number_and_render
from blogbuild.markdown.math.tex import ENVIRONMENTS, REF_RE
from blogbuild.runtimes import katex

_BEGIN = tuple(f"\\begin{{{name}{star}}}" for name in ENVIRONMENTS for star in ("*", ""))
_MATH_TYPES = ("math_inline", "math_inline_double", "math_block", "math_ref")


# --- inline -------------------------------------------------------------------------


def _find_close(src: str, start: int, end: int, close: str) -> int:
    """Index of `close` in src[start:end], skipping backslash escapes; -1 if absent."""
    i = start
    while i < end:
        if src.startswith(close, i):
            return i
        i += 2 if src[i] == "\\" else 1
    return -1


def _closer_index(src: str, close: str) -> tuple[list[int], list[int], list[int]]:
    """Where `close` occurs in `src`, the backslashes right before each occurrence, and for
    each occurrence the first one at or after it with an even number of them (one that a
    `_find_close` scan reaches whatever its start before the backslashes)."""
    found: list[int] = []
    at = src.find(close)
    while at >= 0:
        found.append(at)
        at = src.find(close, at + 1)
    runs = []
    for at in found:
        run = at
        while run > 0 and src[run - 1] == "\\":
            run -= 1
        runs.append(at - run)
    reachable = [len(found)] * (len(found) + 1)
    for j in range(len(found) - 1, -1, -1):
        reachable[j] = j if runs[j] % 2 == 0 else reachable[j + 1]
    return found, runs, reachable


def _find_close_indexed(env: Env, src: str, start: int, end: int, close: str) -> int:
    """`_find_close` in constant time per call after one pass over `src` per closer.

    Searching from every opener to the end of the paragraph would take quadratic time on
    a paragraph of unclosed openers (`\\( \\( \\( …`)."""
    cache = env.setdefault("math_closers", {})
    entry = cache.get(close)
    if entry is None or entry[0] is not src:
        entry = cache[close] = (src, *_closer_index(src, close))
    _, found, runs, reachable = entry
    j = bisect.bisect_left(found, start)
    if j < len(found) and found[j] - runs[j] < start:
        # The scan starts inside the backslashes before this occurrence.
        if (found[j] - start) % 2 == 0:
            return found[j] if found[j] < end else -1
        j += 1
    k = reachable[j]
    return found[k] if k < len(found) and found[k] < end else -1


def _has_tex(content: str) -> bool:
    # `\[\\\]` and `\(\)` are CommonMark backslash escapes (spec example 12), not math.
    return bool(content.strip().replace("\\", ""))


def _find_dollar_close(src: str, start: int, end: int) -> int:
    """Pandoc's rule: the first unescaped $ closes, and only if it follows a non-space and
    is not followed by a digit; otherwise this $ opens nothing (`$5 and $10`)."""
    i = start
    while i < end:
        char = src[i]
        if char == "\\":
            i += 2
            continue
        if char == "$":
            after = src[i + 1] if i + 1 < end else ""
            return -1 if src[i - 1].isspace() or after.isdigit() else i
        i += 1
    return -1


def _code_span_crosses(src: str, start: int, close: int, end: int) -> bool:
    """A backtick run inside the math that a code span closes after it: code wins."""
    i = src.find("`", start, close)
    while i >= 0:
        run = i
        while run < end and src[run] == "`":
            run += 1
        ticks = src[i:run]
        later = src.find(ticks, max(run, close), end)
        while later >= 0 and (src[later - 1] == "`" or src.startswith("`", later + len(ticks))):
            later = src.find(ticks, later + len(ticks), end)
        if later >= 0:
            return True
        i = src.find("`", run, close)
    return False


def _push_inline(
    state: StateInline, kind: str, start: int, open_: str, content: str, close: str
) -> None:
    token = state.push(kind, "math", 0)
    token.content = content
    token.markup = open_
    token.meta = {"src": state.src, "start": start, "open": open_, "close": close}


def make_math_inline(*, dollar: bool):  # type: ignore[no-untyped-def]
    def math_inline(state: StateInline, silent: bool) -> bool:
        src, pos, end = state.src, state.pos, state.posMax
        char = src[pos]
        if char == "$":
            if src.startswith("$$", pos):
                close = _find_close_indexed(state.env, src, pos + 2, end, "$$")
                content = src[pos + 2 : close] if close >= 0 else ""
                if close < 0 or not content.strip():
                    # An unclosed $$ is text; consume both so the second is not an opener.
                    if not silent:
                        state.pending += "$$"
                    state.pos += 2
                    return True
                if not silent:
                    _push_inline(state, "math_inline_double", pos, "$$", content, "$$")
                state.pos = close + 2
                return True
            if not dollar or pos + 1 >= end or src[pos + 1].isspace():
                return False
            close = _find_dollar_close(src, pos + 1, end)
            if close < 0 or _code_span_crosses(src, pos + 1, close, end):
                return False
            if not silent:
                _push_inline(state, "math_inline", pos, "$", src[pos + 1 : close], "$")
            state.pos = close + 1
            return True
        if char != "\\" or pos + 1 >= end:
            return False
        opener = src[pos + 1]
        if opener in "([":
            close_mark = "\\)" if opener == "(" else "\\]"
            close = _find_close_indexed(state.env, src, pos + 2, end, close_mark)
            if close < 0 or not _has_tex(src[pos + 2 : close]):
                return False
            if not silent:
                kind = "math_inline" if opener == "(" else "math_inline_double"
                _push_inline(state, kind, pos, "\\" + opener, src[pos + 2 : close], close_mark)
            state.pos = close + 2
            return True
        match = REF_RE.match(src, pos, end)
        if match is None:
            return False
        if not silent:
            token = state.push("math_ref", "a", 0)
            token.content = match.group(0)
            token.meta = {
                "kind": match.group(1),
                "label": match.group(2).strip(),
                "src": state.src,
                "start": pos,
                "open": "",
                "close": "",
            }
        state.pos = match.end()
        return True

    return math_inline


# --- block ----------------------------------------------------------------------------


def _line_start(src: str, pos: int) -> int:
    return src.rfind("\n", 0, pos) + 1


def _block_opener(line: str) -> tuple[str, str] | None:
    if line.startswith("$$"):
        return "$$", "$$"
    if line.startswith("\\["):
        return "\\[", "\\]"
    for begin in _BEGIN:
        if line.startswith(begin):
            return "", "\\end" + begin[len("\\begin") :]
    return None


def math_block(state: StateBlock, start_line: int, end_line: int, silent: bool) -> bool:
    """Display math starting a line; it ends with its closer at the end of a line."""
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
        at = _find_close(stripped, 0, len(stripped), close)
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
        if (current >= end_line or state.isEmpty(current)
                or state.sCount[current] < state.blkIndent):
            failed[key] = (state.src, start_line, current)
            return False
        begin = state.bMarks[current] + state.tShift[current]
        text = state.src[begin : state.eMarks[current]]
        col = begin - _line_start(state.src, begin)
    content = "\n".join(parts)
    if not content.strip():
        return False
    if silent:
        return True
    token = state.push("math_block", "div", 0)
    token.block = True
    token.content = content
    token.markup = open_
    token.map = [start_line, current + 1]
    token.meta = {"lines": lines, "open": open_, "close": close if open_ else ""}
    state.line = current + 1
    return True


# --- core: number, resolve, render -------------------------------------------------------


def _math_tokens(tokens: list[Token]) -> Iterator[tuple[Token, Token | None]]:
    for token in tokens:
        if token.type == "math_block":
            yield token, None
        elif token.type == "inline":
            for child in token.children or []:
                if child.type in _MATH_TYPES:
                    yield child, token


def make_math_core(options: katex.KatexOptions, *, numbering: bool):  # type: ignore[no-untyped-def]
    def math_render(state: StateCore) -> None:
        found = list(_math_tokens(state.tokens))
        if not found:
            return
        need(state.env, "math")
        number_and_render(state, found, options, numbering=numbering)

    return math_render


# --- render -----------------------------------------------------------------------------


def _source_markup(token: Token) -> str:
    meta = token.meta or {}
    return f"{meta.get('open', '')}{token.content}{meta.get('close', '')}"


def _html(token: Token, env: Env | None = None) -> str:
    meta = token.meta or {}
    html = meta.get("feed_html") if env and env.get("feed") else None
    html = html if html is not None else meta.get("html")
    if html is None:  # the core rule did not run (a renderer used on its own)
        return f'<span class="math-error">{escapeHtml(_source_markup(token))}</span>'
    return str(html)


def _render_inline(
    self: Any, tokens: Sequence[Token], idx: int, options: OptionsDict, env: Env
) -> str:
    return _html(tokens[idx], env)


def _render_inline_double(
    self: Any, tokens: Sequence[Token], idx: int, options: OptionsDict, env: Env
) -> str:
    return _html(tokens[idx], env)


def _render_block(
    self: Any, tokens: Sequence[Token], idx: int, options: OptionsDict, env: Env
) -> str:
    return _html(tokens[idx], env) + "\n"


def math_plugin(md: MarkdownIt, *, config: MathConfig | None = None) -> None:
    config = config or MathConfig()
    if not config.enabled:
        return
    options = katex.KatexOptions.make(config.output, dict(config.macros))
    # Before `escape`: `\(` and `\[` are otherwise CommonMark escapes of ( and [.
    md.inline.ruler.before("escape", "math_inline", make_math_inline(dollar=config.inline_dollar))
    md.block.ruler.before(
        "fence",
        "math_block",
        math_block,
        {"alt": ["paragraph", "reference", "blockquote", "list", "footnote_def"]},
    )
    # Pushed now, so it runs after `inline` and footnotes and before the TOC's heading_ids.
    md.core.ruler.push("math", make_math_core(options, numbering=config.numbering))
    md.add_render_rule("math_inline", _render_inline)
    md.add_render_rule("math_inline_double", _render_inline_double)
    md.add_render_rule("math_block", _render_block)
    md.add_render_rule("math_ref", _render_inline)
