"""Inline expressions of a Quarto document (`` `{python} len(items)` ``): where they are,
and the values Quarto froze for them.

An expression is known by its language, its code and which occurrence of that code it is
(`key`): the Markdown plugin counts them the same way in the parsed page.
"""

from __future__ import annotations

import re

from blogbuild.quarto.model import FENCE

#: An inline expression: `` `{python} len(items)` ``.
INLINE = re.compile(r"(?<!`)`\{(python|r|julia)\}[ \t]+([^`\n]+?)[ \t]*`(?!`)")


def key(language: str, code: str, seen: dict[tuple[str, str], int]) -> tuple[str, str, int]:
    """The key of the next occurrence of (language, code); `seen` counts them."""
    n = seen.get((language, code), 0)
    seen[(language, code)] = n + 1
    return language, code, n


def prose_lines(text: str) -> list[tuple[int, str]]:
    """The lines of `text` outside code fences, with their 0-based numbers."""
    out: list[tuple[int, str]] = []
    fence = ""
    for number, line in enumerate(text.split("\n")):
        if fence:
            close = line.strip(" \t>")
            if close.startswith(fence) and not close.strip(fence[0]):
                fence = ""
            continue
        match = FENCE.fullmatch(line)
        if match is not None and not (match[2][0] == "`" and "`" in match[3]):
            fence = match[2]
            continue
        out.append((number, line))
    return out


def expressions(text: str) -> list[tuple[int, tuple[str, str, int]]]:
    """Every inline expression of `text` in order: (its 0-based line, its key)."""
    seen: dict[tuple[str, str], int] = {}
    return [(number, key(match[1], match[2], seen)) for number, line in prose_lines(text)
            for match in INLINE.finditer(line)]


#: How many lines of the frozen Markdown past the last one found a line of the source is
#: looked for in (they come in the same order; what lies between is a cell's outputs).
WINDOW = 1000


def frozen_values(text: str, markdown: str) -> dict[tuple[str, str, int], str]:
    """The values of the expressions of `text` that Quarto wrote in their place in the
    frozen `markdown`: a line of the source with expressions is found there whole, the
    text around them the same (a line Quarto changed otherwise finds none)."""
    frozen = [line for _, line in prose_lines(markdown) if line.strip()]
    start = 0
    seen: dict[tuple[str, str], int] = {}
    values: dict[tuple[str, str, int], str] = {}
    for _, line in prose_lines(text):
        found = list(INLINE.finditer(line))
        if not found:
            continue
        keys = [key(match[1], match[2], seen) for match in found]
        pieces, last = [], 0
        for match in found:
            pieces.append(line[last:match.start()])
            last = match.end()
        pieces.append(line[last:])
        for index in range(start, min(len(frozen), start + WINDOW)):
            filled = _fill(pieces, frozen[index])
            if filled is not None:
                start = index + 1
                values.update(zip(keys, filled, strict=True))
                break
    return values


def _fill(pieces: list[str], candidate: str) -> list[str] | None:
    """The texts of `candidate` between `pieces` (the source line's text around its
    expressions), each found at its first place (never backtracking: linear); None when
    the line is not that one."""
    if not candidate.startswith(pieces[0]) or not candidate.endswith(pieces[-1]):
        return None
    end = len(candidate) - len(pieces[-1])
    at, values = len(pieces[0]), []
    for piece in pieces[1:-1]:
        found = candidate.find(piece, at + 1) if piece else -1
        if found < 0 or found >= end:
            return None  # two expressions side by side: where one ends is unknown
        values.append(candidate[at:found])
        at = found + len(piece)
    if end <= at:
        return None
    values.append(candidate[at:end])
    return values
