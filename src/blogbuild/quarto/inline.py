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


def frozen_values(text: str, markdown: str) -> dict[tuple[str, str, int], str]:
    """The values of the expressions of `text` that Quarto wrote in their place in the
    frozen `markdown`: a line of the source with expressions is found there whole, the
    text around them the same (a line Quarto changed otherwise finds none)."""
    frozen = [line for _, line in prose_lines(markdown) if line.strip()]
    used: set[int] = set()
    seen: dict[tuple[str, str], int] = {}
    values: dict[tuple[str, str, int], str] = {}
    for _, line in prose_lines(text):
        found = list(INLINE.finditer(line))
        if not found:
            continue
        keys = [key(match[1], match[2], seen) for match in found]
        pieces, last = [], 0
        for match in found:
            pieces.append(re.escape(line[last:match.start()]))
            last = match.end()
        pattern = re.compile("(.+?)".join(pieces) + "(.+?)" + re.escape(line[last:]))
        for index, candidate in enumerate(frozen):
            same = pattern.fullmatch(candidate) if index not in used else None
            if same is not None:
                used.add(index)
                values.update(zip(keys, same.groups(), strict=True))
                break
    return values
