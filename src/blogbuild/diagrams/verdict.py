"""Mermaid's own verdict on the diagrams mmdr refused: its parser (the vendored bundle, in a
process the drawer starts the first time it is needed: blogbuild.diagrams.checker) is asked
whether it accepts each text. A diagram Mermaid accepts is drawn by Mermaid's script in the
reader's browser; one it refuses too is an error, with what Mermaid said and the line of the
author's text it names.
"""

from __future__ import annotations

import re

from blogbuild.diagrams import drawer

ACCEPTS = "accepts"
REFUSES = "refuses"
NONE = "none"  # asked, and gave no verdict
#: What Mermaid said, at most so long in a message.
_SAID = 160

#: A verdict: ACCEPTS or REFUSES, what Mermaid said, the line of the author's text it names
#: (0: none).
Verdict = tuple[str, str, int]


def verdicts(texts: list[str], *, timeout: float) -> dict[str, Verdict]:
    """Mermaid's verdict on each of `texts`; a text it gave none on (it took too long, ran
    out of memory, its process could not start) is left out."""
    found: dict[str, Verdict] = {}
    for text, (code, _, said) in zip(texts, drawer.check(texts, timeout=timeout), strict=True):
        if code == 0:
            found[text] = (ACCEPTS, "", 0)
        elif code == 1 and said != drawer.STOPPED and not said.startswith("MemoryError"):
            found[text] = (REFUSES, condensed(said), author_line(text, drawer.line_of(said)))
    return found


def condensed(said: str) -> str:
    """What Mermaid said, on one line and short: a parser's expectations rather than its
    picture of the line (which the message's line number points at)."""
    lines = [line.strip() for line in said.strip().splitlines() if line.strip()]
    expecting = next((line for line in lines if line.startswith("Expecting ")), None)
    if expecting is not None and lines[0].startswith("Parse error on line"):
        wanted, _, got = expecting.removeprefix("Expecting ").partition(", got ")
        names = [name.strip() for name in wanted.split(",")]
        shown = ", ".join(names[:4]) + (f" or {len(names) - 4} more" if len(names) > 4 else "")
        text = f"expecting {shown}" + (f", got {got}" if got else "")
    else:
        text = " ".join(" ".join(lines).split()).removeprefix("Parsing failed: ")
        text = _AT.sub(r"at column \1", text)  # the line is the message's own, counted as ours
    return text if len(text) <= _SAID else text[:_SAID - 1].rstrip() + "…"


_AT = re.compile(r"on line \d+, column (\d+)")


# Mermaid's preprocessing (mermaid's preprocessDiagram), whose result its parsers number
# the lines of: the front matter goes with the blank lines after it, then the directives,
# then the comment lines, then the blank lines at the start.
_FRONT_MATTER = re.compile(r"\A-{3}\s*[\n\r](.*?)[\n\r]-{3}\s*[\n\r]+", re.DOTALL)
_DIRECTIVE = re.compile(r"%{2}{\s*(?:(\w+)\s*:|(\w+))\s*(?:(\w+)|((?:(?!}%{2}).|\r?\n)*))?"
                        r"\s*(?:}%{2})?", re.IGNORECASE)
_COMMENT = re.compile(r"^\s*%%(?!{)[^\n]+\n?", re.MULTILINE)
_LEADING = re.compile(r"\A\s+")


def author_line(text: str, line: int) -> int:
    """The line of `text` that Mermaid's `line` of it (0: none) is: Mermaid numbers the lines
    of the text its preprocessing leaves (see above). A line past its end (the end of the
    input) is its last line."""
    if line <= 0:
        return 0
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    numbers: list[int] = []  # the line of each character
    number = 1
    for char in text:
        numbers.append(number)
        number += char == "\n"
    for pattern in (_FRONT_MATTER, _DIRECTIVE, _COMMENT, _LEADING):
        kept_text: list[str] = []
        kept: list[int] = []
        at = 0
        for match in pattern.finditer(text):
            kept_text.append(text[at:match.start()])
            kept += numbers[at:match.start()]
            at = match.end()
            if pattern is _FRONT_MATTER or pattern is _LEADING:
                break
        kept_text.append(text[at:])
        kept += numbers[at:]
        text, numbers = "".join(kept_text), kept
    starts = [0] + [at + 1 for at, char in enumerate(text) if char == "\n" and at + 1 < len(text)]
    if line <= len(starts) and numbers:
        return numbers[starts[line - 1]]
    shown = [number for number, char in zip(numbers, text, strict=True) if not char.isspace()]
    return shown[-1] if shown else 0
