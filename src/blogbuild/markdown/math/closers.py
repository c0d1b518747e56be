"""Finding where inline math closes, in time linear in the paragraph whatever the input: the
closers of each kind found through an index built once per paragraph, and the brace
groups a `$` formula skips through a table of matching braces (both kept in the render's
environment for the paragraph)."""

from __future__ import annotations

import bisect
import re
import typing

from blogbuild.markdown.env import Env

#: What a `$` formula's scan stops at: an escape, a brace, a dollar.
_SPECIAL = re.compile(r"[\\{}$]")
BRACE_OR_ESCAPE = re.compile(r"\\[\s\S]|[{}]")


def _closer_index(src: str, close: str) -> tuple[list[int], list[int], list[int]]:
    """Where `close` occurs in `src`, the backslashes right before each occurrence, and for
    each occurrence the first one at or after it with an even number of them (one that a
    `find_close` scan reaches whatever its start before the backslashes)."""
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


def find_close_indexed(env: Env, src: str, start: int, end: int, close: str) -> int:
    """`find_close` (math/tex.py) in constant time per call after one pass over `src` per closer.

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


def brace_partners(env: Env, src: str) -> dict[int, int]:
    """Each matched `{` and `}` of `src` (escapes skipped) mapped to its partner."""
    entry = env.get("math_braces")
    if entry is not None and entry[0] is src:
        return typing.cast(dict[int, int], entry[1])
    partners: dict[int, int] = {}
    stack: list[int] = []
    for match in BRACE_OR_ESCAPE.finditer(src):
        at, char = match.start(), match.group(0)
        if char == "{":
            stack.append(at)
        elif char == "}" and stack:
            opened = stack.pop()
            partners[opened], partners[at] = at, opened
    env["math_braces"] = (src, partners)
    return partners


def find_dollar(env: Env, src: str, start: int, end: int) -> int:
    """The first `$` after an opener at start-1 outside the brace groups the formula opens
    (`$\\text{if $x$ holds}$`), or -1; a `}` closing a group opened before the formula
    ends the search. Each group is jumped over, so all scans together stay linear."""
    partners = brace_partners(env, src)
    match = _SPECIAL.search(src, start, end)
    while match is not None:
        i, char = match.start(), match.group(0)
        if char == "$":
            return i
        nxt = i + (2 if char == "\\" else 1)
        partner = partners.get(i)
        if char == "{" and partner is not None:
            if partner >= end:
                return -1
            nxt = partner + 1
        elif char == "}" and partner is not None and partner < start:
            return -1
        match = _SPECIAL.search(src, nxt, end)
    return -1
