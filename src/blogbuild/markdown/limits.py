"""Guards that keep hostile Markdown bounded in time and its text visible.

markdown-it stops parsing blocks nested deeper than ``maxNesting`` and silently drops the
rest of the container; this plugin stops earlier, at `BLOCK_DEPTH`, and shows what is left
as a plain paragraph with a warning. It also turns a ``[`` or ``![`` that no ``]`` follows,
or that is nested deeper than any link text, into text at once: markdown-it would
otherwise scan the rest of the paragraph for a link label from every such bracket. A code
fence or an HTML comment that is never closed gets a warning: the text after it would not
show as text.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Callable

from markdown_it import MarkdownIt
from markdown_it.rules_block import StateBlock
from markdown_it.rules_core import StateCore
from markdown_it.rules_inline import StateInline

from blogbuild.markdown.env import report, source_line, token_line

__all__ = ["BLOCK_DEPTH", "limits_plugin"]

#: Token depth at which nested blocks are flattened into text. A container opens at most a
#: few levels before parsing its content (a list: list and item; a callout: box and body),
#: so markdown-it's own limit, `_MAX_NESTING`, is never reached.
BLOCK_DEPTH = 40
_MAX_NESTING = 50
#: Unclosed `[` deeper than this open no link: real link text never nests so deep.
BRACKET_DEPTH = 8
#: A bare URL (`www.…`, `https://…`) is linked up to this many characters.
MAX_AUTOLINK = 4096
_URL_END = re.compile(r"[\s<]")
_PROTOCOLS = ("http", "https", "mailto", "xmpp")
_PENDING_LIMIT = 4096
_ROW_PREFIX = re.compile(r"^[ \t>]*")
_CELL_SPLIT = re.compile(r"(?<!\\)\|")
#: A bracket that is not backslash-escaped (an even run of backslashes before it).
_BRACKET = re.compile(r"(?<!\\)(?:\\\\)*([\[\]])")


def block_depth_guard(state: StateBlock, start_line: int, end_line: int, silent: bool) -> bool:
    """At `BLOCK_DEPTH`, the rest of the container becomes one paragraph of plain text."""
    if silent or state.level < BLOCK_DEPTH:
        return False
    lines = [
        state.src[state.bMarks[line] + state.tShift[line] : state.eMarks[line]]
        for line in range(start_line, end_line)
    ]
    text = "\n".join(line for line in lines if line.strip())
    token = state.push("paragraph_open", "p", 1)
    token.map = [start_line, end_line]
    token = state.push("text", "", 0)
    token.content = text
    token.map = [start_line, end_line]
    state.push("paragraph_close", "p", -1)
    report(state.env, source_line(state.env, start_line),
           f"blocks nested more than {BLOCK_DEPTH} levels deep (blockquotes, lists, callouts, "
           "widget divs) are shown as plain text from here; nest less deeply")
    state.line = end_line
    return True


def _brackets(state: StateInline) -> tuple[int, frozenset[int]]:
    """The offset of the last `]` in the inline source and the `[`s nested more than
    `BRACKET_DEPTH` deep (computed once per source: an inline footnote's text is a source
    of its own, parsed in the middle of its paragraph's, which keeps its answer)."""
    src = state.src
    known: dict[str, tuple[int, frozenset[int]]] = state.env.setdefault("limits_brackets", {})
    cached = known.get(src)
    if cached is not None:
        return cached
    depth, last, deep = 0, -1, set()
    for match in _BRACKET.finditer(src):
        at = match.start(1)
        if match.group(1) == "]":
            depth, last = max(depth - 1, 0), at
        else:
            depth += 1
            if depth > BRACKET_DEPTH:
                deep.add(at)
    found = known[src] = (last, frozenset(deep))
    return found


def lone_bracket(state: StateInline, silent: bool) -> bool:
    """A `[` or `![` that cannot open a link is text: no `]` follows it, or it is nested
    more than `BRACKET_DEPTH` deep (markdown-it would scan to the end of the paragraph
    from each of them)."""
    pos = state.pos
    char = state.src[pos]
    if char == "!":
        if not state.src.startswith("[", pos + 1):
            return False
        width = 2
    elif char == "[":
        width = 1
    else:
        return False
    last, deep = _brackets(state)
    if last > pos and pos + width - 1 not in deep:
        return False
    end = pos + width
    # The whole run at once: one append to the pending text, not one per bracket.
    while end < state.posMax and state.src[end] == "[" and (last < end or end in deep):
        end += 1
    if not silent:
        state.pending += state.src[pos:end]
    state.pos = end
    return True


def flush_pending(state: StateInline, silent: bool) -> bool:
    """Turn long pending text into a token: markdown-it appends to one string character by
    character, which copies it each time (quadratic time in a long paragraph of markup)."""
    # Not right after a word: the autolink rules read a protocol or an e-mail user from it.
    if not silent and len(state.pending) > _PENDING_LIMIT and not state.pending[-1].isalnum():
        state.pushPending()
    return False


def _cells(line: str) -> int:
    """How many cells a table row's source line has (GFM: split at unescaped pipes)."""
    row = _ROW_PREFIX.sub("", line).strip()
    row = row[1:] if row.startswith("|") else row
    row = row[:-1] if row.endswith("|") and not row.endswith("\\|") else row
    return len(_CELL_SPLIT.split(row))


def unclosed_blocks(state: StateCore) -> None:
    """Warn about text that Markdown accepts but does not show as the author meant.

    A code fence or an HTML comment that runs to the end of its container (the text after
    it is shown as code or hidden by the browser), and table cells past the header's
    columns (GFM drops them)."""
    lines: list[str] | None = None
    columns = 0
    for token in state.tokens:
        if token.type == "table_open":
            columns = 0
        elif token.type == "th_open":
            columns += 1
        elif token.type == "tr_open" and token.map and token.level > 0 and columns:
            lines = lines if lines is not None else state.src.split("\n")
            row = token.map[0]
            if row < len(lines) and _cells(lines[row]) > columns and lines[row].count("|"):
                report(state.env, token_line(state.env, token),
                       f"this table row has more cells than the {columns} of the header row; "
                       "GFM drops the extra cells: add header cells or escape the | as \\|")
        if token.map is None:
            continue
        if token.type == "fence":
            if token.content.count("\n") == token.map[1] - token.map[0] - 1:
                after = "the rest of the cell" if state.env.get("notebook") else \
                    "everything after it"
                report(state.env, token_line(state.env, token),
                       f"this code fence ({token.markup}) is never closed, so {after} is "
                       f"shown as code; close it with a line of {token.markup}")
        elif (token.type == "html_block" and token.content.startswith("<!--")
              and "-->" not in token.content):
            report(state.env, token_line(state.env, token),
                   "this HTML comment is never closed, so browsers hide everything after it; "
                   "close it with -->")


def _url_end(state: StateInline) -> int:
    """Where a bare URL starting at `state.pos` must end: whitespace, `<`, or a cap."""
    cached = state.env.get("limits_url_ends")
    if cached is None or cached[0] is not state.src:
        cached = (state.src, [m.start() for m in _URL_END.finditer(state.src)])
        state.env["limits_url_ends"] = cached
    ends: list[int] = cached[1]
    at = bisect.bisect_left(ends, state.pos)
    end = ends[at] if at < len(ends) else len(state.src)
    return min(end, state.posMax, state.pos + MAX_AUTOLINK)


def _autolink_triggers() -> dict[str, Callable[[StateInline], bool]]:
    def www(state: StateInline) -> bool:
        return state.src.startswith("www.", state.pos)

    def protocol(state: StateInline) -> bool:
        return state.src[state.pos] == ":" and state.pending.endswith(_PROTOCOLS)

    def email(state: StateInline) -> bool:
        return state.src[state.pos] == "@" and state.pending[-1:].isalnum()

    return {"gfm_autolink_www": www, "gfm_autolink_protocol": protocol,
            "gfm_autolink_email": email}


def _bounded(rule: Callable[[StateInline, bool], bool],
             trigger: Callable[[StateInline], bool]) -> Callable[[StateInline, bool], bool]:
    """`rule` only where it can match, and reading only up to where a URL can end.

    mdit-py-plugins' autolink rules copy the rest of the paragraph on every call (and
    search all pending text for a protocol name), which takes quadratic time."""
    def guarded(state: StateInline, silent: bool) -> bool:
        if not trigger(state):
            return False
        saved = state.posMax
        state.posMax = _url_end(state)
        try:
            return rule(state, silent)
        finally:
            state.posMax = saved

    return guarded


def limits_plugin(md: MarkdownIt) -> None:
    """Register the guards first, so they run before every other rule."""
    md.options["maxNesting"] = max(int(md.options.get("maxNesting", 20)), _MAX_NESTING)
    md.block.ruler.before(md.block.ruler.get_all_rules()[0], "block_depth_guard",
                          block_depth_guard)
    md.inline.ruler.before("link", "lone_bracket", lone_bracket)
    md.inline.ruler.before(md.inline.ruler.get_all_rules()[0], "flush_pending", flush_pending)
    md.core.ruler.push("unclosed_blocks", unclosed_blocks)
    rules = {rule.name: rule.fn for rule in md.inline.ruler.__rules__}
    for name, trigger in _autolink_triggers().items():
        if name in rules:
            md.inline.ruler.at(name, _bounded(rules[name], trigger))
