"""```math fences (GitHub, GitLab): display math, as `$$…$$` on lines of their own is.

The fence becomes a math block before the formulas are numbered and rendered, so it is
numbered (with `math.numbering`, or by a `\\label`), referable (`\\eqref`, `[](#eq-…)`)
and reported at its lines like any display formula. An empty fence stays code.
"""

from __future__ import annotations

from markdown_it.rules_core import StateCore


def _is_math(info: str) -> bool:
    words = info.strip().split(maxsplit=1)
    return bool(words) and words[0].strip("{}.").lower() == "math"


def math_fences(state: StateCore) -> None:
    lines = state.src.split("\n")
    for token in state.tokens:
        if token.type != "fence" or not _is_math(token.info) or not token.content.strip():
            continue
        if token.map is None:
            continue
        first = token.map[0] + 1  # the line after the opening fence
        content = token.content[:-1] if token.content.endswith("\n") else token.content
        count = content.count("\n") + 1
        places = []
        for number in range(first, first + count):
            raw = lines[number] if number < len(lines) else ""
            # The fence's indent is taken off each line (up to as much as the fence had).
            written = content.split("\n")[number - first]
            places.append((number, max(0, len(raw) - len(written))))
        token.type, token.tag, token.nesting = "math_block", "div", 0
        token.content = content
        token.meta = {"lines": places, "open": "", "close": "", "fence": token.markup}
