"""Whether an author writes `$$…$$` as inline math: a `$$…$$` shares its line with text.

A `$$…$$` that fills a line of a paragraph (`We have` / `$$x = 1$$` / `for all x.`) is
display math, as MathJax and Pandoc show it. But in a paragraph where a `$$…$$` also
stands beside text on its line (`The norm $$\\|x\\|$$ and the inner product` /
`$$\\langle x, y\\rangle$$` / `are defined as…`), the author writes kramdown's inline
`$$`, and one that a line break left alone on its line is inline too. `$$` on lines of
its own (the delimiters alone) stays display math either way.
"""

from __future__ import annotations

import re

from blogbuild.markdown.env import Env

_TICKS = re.compile(r"`+")
_DOUBLE_OR_ESCAPE = re.compile(r"\\[\s\S]|\$\$")


def _without_code(line: str) -> str:
    """`line` with its code spans blanked (one line: a span across lines is missed)."""
    if "`" not in line:
        return line
    runs = [(m.start(), m.end()) for m in _TICKS.finditer(line)]
    following: list[int | None] = [None] * len(runs)
    last: dict[int, int] = {}
    for k in range(len(runs) - 1, -1, -1):
        width = runs[k][1] - runs[k][0]
        following[k] = last.get(width)
        last[width] = k
    out, pos, k = [], 0, 0
    while k < len(runs):
        closer = following[k]
        if closer is None:
            k += 1
            continue
        out.append(line[pos : runs[k][0]])
        out.append(" " * (runs[closer][1] - runs[k][0]))
        pos, k = runs[closer][1], closer + 1
    out.append(line[pos:])
    return "".join(out)


def beside_text(line: str) -> bool:
    """A `$$…$$` of this line (its first `$$` opening) has text before or after it."""
    if line.count("$$") < 2:
        return False
    line = _without_code(line)
    marks = [m.start() for m in _DOUBLE_OR_ESCAPE.finditer(line) if m.group(0) == "$$"]
    if len(marks) < 2:
        return False
    return bool(line[: marks[0]].strip() or line[marks[1] + 2 :].strip())


def paragraph_beside_text(env: Env, src: str) -> bool:
    """`beside_text` for some line of the paragraph `src`; once per paragraph."""
    entry = env.get("math_beside")
    if isinstance(entry, tuple) and entry[0] is src:
        return bool(entry[1])
    found = "$$" in src and any(beside_text(line) for line in src.split("\n"))
    env["math_beside"] = (src, found)
    return found
