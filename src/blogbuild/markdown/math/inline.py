"""Inline math: $…$, $$…$$, \\(…\\), \\[…\\], kramdown's \\\\(…\\\\), environments, \\eqref.

Every scan here is linear in the paragraph, whatever the input: closers are found through
an index built once per paragraph and a `$` formula skips whole brace groups through a
table of matching braces (blogbuild.markdown.math.closers).
"""

from __future__ import annotations

import re

from markdown_it.rules_inline import StateInline

from blogbuild.markdown.env import Env
from blogbuild.markdown.math.beside import paragraph_beside_text
from blogbuild.markdown.math.closers import BRACE_OR_ESCAPE, find_close_indexed, find_dollar
from blogbuild.markdown.math.tex import (
    DISPLAY_ENVIRONMENTS,
    ENVIRONMENTS,
    REF_RE,
    kramdown_unescape,
)

#: `\begin{align}` and the other environments KaTeX knows, written inside a paragraph.
_BEGIN_RE = re.compile(r"\\begin\{(" + "|".join(DISPLAY_ENVIRONMENTS) + r")(\*?)\}")
#: Environments KaTeX typesets only in display mode: `$$\\begin{align*}…$$` is display.
_DISPLAY_ONLY = re.compile(r"\s*\\begin\{(" + "|".join(ENVIRONMENTS) + r")\*?\}")
#: A formula that starts like an amount ($5, $.50, $,5) only ends at a `$` right after text.
_AMOUNT = re.compile(r"[.,]?\d")
#: After a `$` with a space before it: what could open something, so it is no closer.
_OPENING = ("{", "[", "(", "$", "\\")
#: In a formula written `$ … $` (spaces inside the dollars, as MathJax allows): a TeX
#: command, a script or a brace group is evidence of math.
_TEX_EVIDENCE = re.compile(r"\\[A-Za-z]+|[\^_{}]")
_TEX_COMMAND = re.compile(r"\\[A-Za-z]+")
#: A relation or operator between two operands (`x = 1`, `a + b`), weaker evidence.
_OPERATOR = re.compile(r"[\w)\]}]\s*(?:=|<|>|\+|-|\\[lg]eq?)\s*[\w(\\{-]")
#: A word of prose or a shell command (three letters or more, not a TeX command), or a
#: shell option (`ls -la`).
_WORD = re.compile(r"(?<![\\A-Za-z])[A-Za-z]{3,}|(?<!\S)(?:-[A-Za-z]{2}|--[A-Za-z])")
#: How far a `$ … $` formula may reach: it closes on its line, and this bound keeps the
#: scans of many openers linear whatever the brace groups.
SPACED_LIMIT = 1000
#: TeX before a `$` that opens nothing: a command since the `$` before it, if any.
_TEX_BEFORE = re.compile(r"\\[A-Za-z]+[^$]*\$\Z")
_LOOKBACK = 60
_OPENED_END = re.compile(r"[$\n]")
#: A `$`, not a price, with a TeX command soon after it on its line (`$\\frac{a}{b}`,
#: `$x^2 \\alpha`, `$ = \\sqrt2`; not a path or a string, `$env:A = "C:\\B"`): math that
#: is shown as text when nothing closes it.
_TEX_AHEAD = re.compile(r"\$(?!\d)[^$\n:/\"']{0," + str(_LOOKBACK) + r"}?\\[A-Za-z]{2}")


def _dollar_closes(src: str, start: int, close: int, end: int) -> bool:
    """Pandoc's rule, with MathJax's `$x = 1 $` allowed: the closing $ is not followed by a
    digit; a space before it is fine unless the formula starts like an amount ($5, $.50)
    and holds no TeX command, or what follows could start a word or a formula (`$HOME and
    $PATH`, `${A} and ${B}` are not math): a space, the end or punctuation must follow,
    and words of prose need TeX beside them (`$PATH and $ cd`)."""
    after = src[close + 1] if close + 1 < end else ""
    if after.isdigit():
        return False
    if not src[close - 1].isspace():
        return True
    if after.isalnum() or after in _OPENING:
        return False
    if close - start > SPACED_LIMIT:
        return not _AMOUNT.match(src, start)  # (bounded: short formulas are read closer)
    content = src[start:close]
    if _AMOUNT.match(src, start):  # `$10 and $`: a price, but `$10 \\times 24 $` is TeX
        return _TEX_COMMAND.search(content) is not None
    # `$PATH and $ cd`: words and no TeX, a shell variable and a prompt.
    return _TEX_EVIDENCE.search(content) is not None or not _WORD.search(
        _outside_braces(content))


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


def _has_tex(content: str) -> bool:
    # `\[\\\]` and `\(\)` are CommonMark backslash escapes (spec example 12), not math.
    return bool(content.strip().replace("\\", ""))


def _push(state: StateInline, kind: str, start: int, open_: str, raw: str, close: str,
          *, unescape: bool = False) -> None:
    token = state.push(kind, "math", 0)
    token.markup = open_
    token.meta = {"src": state.src, "start": start, "open": open_, "close": close}
    token.content = raw
    if unescape:
        token.content, token.meta["origin"] = kramdown_unescape(raw)
        token.meta["raw"] = raw


def _unclosed(state: StateInline, pos: int, opener: str) -> None:
    """Note an opener that nothing closes, the first of its kind in the paragraph (a line
    of `\begin{align}` after another is one mistake); the core rule reports it."""
    seen = state.env.setdefault("math_unclosed_seen", set())
    if (state.src, opener) not in seen:
        seen.add((state.src, opener))
        state.env.setdefault("math_unclosed", []).append((state.src, pos, opener))


class InlineRule:
    """The inline rule; `dollar`: $…$ is math; `double_inline`: $$…$$ in text is inline."""

    def __init__(self, *, dollar: bool, double_inline: bool) -> None:
        self.dollar = dollar
        self.double_kind = "math_inline" if double_inline else "math_inline_double"

    def __call__(self, state: StateInline, silent: bool) -> bool:
        char = state.src[state.pos]
        if char == "$":
            if state.src.startswith("$$", state.pos):
                return self._double(state, silent)
            return self.dollar and _single(state, silent)
        if char != "\\" or state.pos + 1 >= state.posMax:
            return False
        return (_delimited(state, silent) or _environment(state, silent)
                or _reference(state, silent))

    def _double(self, state: StateInline, silent: bool) -> bool:
        src, pos = state.src, state.pos
        close = find_close_indexed(state.env, src, pos + 2, state.posMax, "$$")
        if close < 0:
            # Text; both dollars are consumed so the second is not an opener.
            if not silent:
                state.pending += "$$"
                _unclosed(state, pos, "$$")
            state.pos += 2
            return True
        content = src[pos + 2 : close]
        if not content.strip():  # `$$ $$` is text, the pair together
            if not silent:
                state.pending += src[pos : close + 2]
            state.pos = close + 2
            return True
        if not silent:
            kind = "math_inline_double" if _display(state.env, src, pos, close,
                                                    state.posMax) else self.double_kind
            _push(state, kind, pos, "$$", content, "$$")
        state.pos = close + 2
        return True


def _display(env: Env, src: str, pos: int, close: int, end: int) -> bool:
    """Display math though inside a paragraph: a `$$` that opens a line and a `$$` that ends
    a later one (lines the block rule could not take, as lazy lines of a list item) unless
    the formula shares its first or last line with TeX and the paragraph writes `$$…$$`
    beside text (math/beside.py), or an environment that exists only in display mode."""
    starts_line = pos == 0 or src[pos - 1] == "\n"
    ends_line = close + 2 >= end or src[close + 2] == "\n"
    first_end = src.find("\n", pos, close)
    if starts_line and ends_line and first_end >= 0:
        own_lines = not src[pos + 2 : first_end].strip() and not src[
            src.rfind("\n", pos, close) + 1 : close].strip()
        if own_lines or not paragraph_beside_text(env, src):
            return True
    return bool(_DISPLAY_ONLY.match(src, pos + 2, close))


def _note_as_text(state: StateInline, start: int, markup: str, why: str) -> None:
    """Note TeX that stays text beside a `$` (the core rule warns with its line): a
    `$ … $` that looks like math, or a `$` with a TeX command right after it that nothing
    closes ("open"), or right before it that nothing opened ("close")."""
    state.env.setdefault("math_as_text", []).append((state.src, start, markup, why))


def _opened(src: str, pos: int, end: int) -> str:
    """What a `$` at `pos` that nothing closes opens: up to the next `$` or the line's end."""
    stop = _OPENED_END.search(src, pos + 1, min(end, pos + _LOOKBACK))
    return src[pos : stop.start() if stop else min(end, pos + _LOOKBACK)].rstrip()


def _stray_closer(state: StateInline, silent: bool) -> None:
    """`\\frac{a}{b}$` where this `$` opens nothing: its formula has lost its opening `$`
    (a TeX command within the few characters before, none of them a `$`)."""
    src, pos = state.src, state.pos
    if silent:
        return
    noted = state.env.get("math_as_text_closer")
    if noted is not None and noted[0] is src and noted[1] == pos:
        return  # noted with its opener
    if src[pos + 1 : pos + 2].isdigit() and (pos == 0 or not (src[pos - 1] == "}"
                                                               or src[pos - 1].isalpha())):
        return  # a price: `the \\LaTeX book costs $5`
    found = _TEX_BEFORE.search(src, max(0, pos - _LOOKBACK), pos + 1)
    if found is not None:
        _note_as_text(state, found.start(), src[found.start() : pos + 1], "close")


def _single(state: StateInline, silent: bool) -> bool:
    src, pos, end = state.src, state.pos, state.posMax
    if pos + 1 >= end or src[pos + 1].isspace():
        if pos + 1 >= end or not _spaced(state, silent):
            _stray_closer(state, silent)
            return False
        return True
    close = find_dollar(state.env, src, pos + 1, end)
    if close < 0 or not _dollar_closes(src, pos + 1, close, end):
        if not _TEX_AHEAD.match(src, pos, end):
            _stray_closer(state, silent)
        elif not silent:
            _note_as_text(state, pos, _opened(src, pos, end), "open")
        return False
    if _code_span_crosses(src, pos + 1, close, end):
        return False
    if not silent:
        _push(state, "math_inline", pos, "$", src[pos + 1 : close], "$")
    state.pos = close + 1
    return True


def _outside_braces(content: str) -> str:
    """`content` without its brace groups (`\\text{for all}` holds words, not prose)."""
    out: list[str] = []
    depth = 0
    last = 0
    for match in BRACE_OR_ESCAPE.finditer(content):
        char = match.group(0)
        if char not in "{}":
            continue
        if depth == 0:
            out.append(content[last : match.start()])
        depth = depth + 1 if char == "{" else max(depth - 1, 0)
        last = match.end()
    if depth == 0:
        out.append(content[last:])
    return " ".join(out)


def spaced_verdict(src: str, start: int, close: int, end: int) -> tuple[bool, str]:
    """Whether `$ … $` from the space at `start` to the `$` at `close` is math, and if not
    but it holds a TeX command, why not ("line", or what follows the closing `$`; the
    warning says it), "" otherwise.

    MathJax reads `$ x = 1 $`; Pandoc does not, to keep prices text. It is math here
    when it closes on its line, the closing `$` is followed by what may follow a formula
    (not a digit, a letter or an opening bracket: `$ ls -la $HOME` is a shell prompt) and
    it has TeX in it: a command, a script or a brace group (`$ 2^n $`), or, when it
    does not start like an amount (`$ 5 or $ 10`), a relation between two operands with
    no word of prose or shell beside it (`$ x = 1 $`, not `$ export A=1 $`)."""
    content = src[start:close]
    if close - start > SPACED_LIMIT or not content.strip():
        return False, ""
    looks = _TEX_COMMAND.search(content) is not None
    if "\n" in content:
        return False, "line" if looks else ""
    after = src[close + 1] if close + 1 < end else ""
    if after.isdigit() or after.isalpha() or after in _OPENING:
        kind = "a digit" if after.isdigit() else "a letter" if after.isalpha() else f"'{after}'"
        return False, kind if looks else ""
    words = _WORD.findall(_outside_braces(content))
    if looks or (_TEX_EVIDENCE.search(content) and not words):
        return True, ""
    amount = _AMOUNT.match(content.lstrip()) is not None
    return bool(_OPERATOR.search(content) and not words and not amount), ""


def _spaced(state: StateInline, silent: bool) -> bool:
    """`$ x = 1 $`: see `spaced_verdict`. One that looks like math but is not read as math
    is noted (the core rule warns: raw TeX is never left on the page without a word)."""
    src, pos, end = state.src, state.pos, state.posMax
    close = find_dollar(state.env, src, pos + 1, min(end, pos + 1 + SPACED_LIMIT))
    if close < 0:
        if _TEX_AHEAD.match(src, pos, end) and not silent:  # `$ \\frac{a}{b}` and no `$`
            _note_as_text(state, pos, _opened(src, pos, end), "open")
            state.env["math_as_text_closer"] = (src, pos)  # this `$` closes nothing either
        return False
    math, why = spaced_verdict(src, pos + 1, close, end)
    if math and _code_span_crosses(src, pos + 1, close, end):
        return False
    if not math:
        if why and not silent:
            _note_as_text(state, pos, src[pos : close + 1], why)
            state.env["math_as_text_closer"] = (src, close)  # one note for the pair
        return False
    if not silent:
        _push(state, "math_inline", pos, "$", src[pos + 1 : close], "$")
    state.pos = close + 1
    return True


def _delimited(state: StateInline, silent: bool) -> bool:
    """\\(…\\) and \\[…\\]; also \\\\(…\\\\) and \\\\[…\\\\], which kramdown turns into the
    former for MathJax: their TeX is read with kramdown's escapes resolved (`\\\\{` is `\\{`)."""
    src, pos, end = state.src, state.pos, state.posMax
    doubled = src.startswith("\\\\", pos)
    width = 3 if doubled else 2
    opener = src[pos + width - 1] if pos + width - 1 < end else ""
    if opener not in ("(", "["):
        return False
    if opener == "[" and not doubled and (src.startswith("\\[", pos + 2)
                                          or src.startswith("\\[", max(pos - 2, 0), pos)):
        return False  # `\[\[Note\]\]`: an escaped wiki link, as Obsidian's docs write it
    open_ = src[pos : pos + width]
    close_mark = open_[:-1] + (")" if opener == "(" else "]")
    close = find_close_indexed(state.env, src, pos + width, end, close_mark)
    if close < 0 or not _has_tex(src[pos + width : close]):
        return False
    if not silent:
        kind = "math_inline" if opener == "(" else "math_inline_double"
        _push(state, kind, pos, open_, src[pos + width : close], close_mark, unescape=doubled)
    state.pos = close + len(close_mark)
    return True


def _environment(state: StateInline, silent: bool) -> bool:
    """`\\begin{align}…\\end{align}` inside a paragraph: display math, as MathJax has it."""
    src, pos, end = state.src, state.pos, state.posMax
    match = _BEGIN_RE.match(src, pos, end)
    if match is None:
        return False
    close_mark = f"\\end{{{match.group(1)}{match.group(2)}}}"
    close = find_close_indexed(state.env, src, match.end(), end, close_mark)
    if close < 0:
        if not silent:
            _unclosed(state, pos, match.group(0))
        return False
    if not silent:
        _push(state, "math_inline_double", pos, "", src[pos : close + len(close_mark)], "")
    state.pos = close + len(close_mark)
    return True


def _reference(state: StateInline, silent: bool) -> bool:
    """\\eqref{…} and \\ref{…} written in text."""
    match = REF_RE.match(state.src, state.pos, state.posMax)
    if match is None:
        return False
    if not silent:
        token = state.push("math_ref", "a", 0)
        token.content = match.group(0)
        token.meta = {
            "kind": match.group(1),
            "label": match.group(2).strip(),
            "src": state.src,
            "start": state.pos,
            "open": "",
            "close": "",
        }
    state.pos = match.end()
    return True
