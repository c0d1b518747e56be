"""Line numbers beside code: what a fence's numbering words mean, and the gutter's markup.

MkDocs writes ``linenums="1"`` (``linenums="100"`` to start elsewhere, ``linenums="1 5"``
to number every fifth line), Hugo ``{linenos=true}`` (``table`` and ``inline`` too, the
same here; ``false`` turns them off) with ``linenostart=199``, Pandoc
``{.python .numberLines startFrom="100"}``, and a bare ``linenos`` is Jekyll's. A first
line's number alone (``linenostart``, ``startFrom``) asks for numbers too. A value that
is no number is a warning, and the lines are numbered from 1.

Each line starts with an empty ``<span class="ln" data-n=" 9">``: the stylesheet shows
the number from the attribute (``::before``), so that neither the copy button, which
copies the code's text, nor a reader's selection takes it, and screen readers skip it
(``aria-hidden``). The numbers of a block are padded to one width with spaces, so that
they line up in the monospace font without a width per block.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass

#: The largest first line's number: the gutter of a longer file would crowd its code.
MAX_START = 1_000_000
#: Hugo's values of `linenos` that show numbers (`false` turns them off).
_HUGO_ON = frozenset({"true", "table", "inline", ""})


@dataclass(frozen=True)
class LineNumbers:
    """The first line's number, and every how many lines a number is shown."""

    start: int = 1
    step: int = 1


def _number(text: str, lowest: int) -> int | None:
    text = text.strip()
    if not text.isascii() or not text.isdigit() or not lowest <= int(text) <= MAX_START:
        return None
    return int(text)


def _start_and_step(value: str) -> tuple[int, int] | None:
    """MkDocs' `linenums` value: the first line's number, and maybe a step."""
    parts = value.split()
    if not 1 <= len(parts) <= 2:
        return None
    start = _number(parts[0], 0)
    step = _number(parts[1], 1) if len(parts) == 2 else 1
    return None if start is None or step is None else (start, step)


def _problem(word: str, example: str) -> str:
    return (f"{word} is not a line number from 0 to {MAX_START}; write {example}; "
            "the lines are numbered from 1")


def line_numbers(numbering: Mapping[str, tuple[str, str]]) -> tuple[LineNumbers | None,
                                                                       list[str]]:
    """What the numbering words of a fence (`FenceInfo.numbering`) ask for, and what is
    wrong with them: (None when they ask for no numbers, the messages)."""
    if not numbering or numbering.get("linenos", ("", ""))[0].lower() == "false":
        return None, []
    problems: list[str] = []
    start, step = 1, 1
    if "linenums" in numbering:
        value, word = numbering["linenums"]
        pair = _start_and_step(value)
        if pair is None:
            problems.append(_problem(word, 'linenums="1", or "1 5" to number every fifth line'))
        else:
            start, step = pair
    for key in ("linenostart", "startfrom"):
        if key in numbering:
            value, word = numbering[key]
            given = _number(value, 0)
            if given is None:
                example = ("linenostart=199 for code whose first line is line 199"
                           if key == "linenostart" else
                           'startFrom="100" for code whose first line is line 100')
                problems.append(_problem(word, example))
            else:
                start = given
    if "linenos" in numbering:
        value, word = numbering["linenos"]
        if value.lower() not in _HUGO_ON:
            problems.append(f"{word} is not one of true, false, table or inline; write "
                            "linenos=true for line numbers, or leave it out; the lines are "
                            "numbered as with linenos=true")
    return LineNumbers(start, step), problems


def numbered(lines: Iterable[str], numbers: LineNumbers, count: int) -> Iterator[str]:
    """`lines` (of HTML, each a whole line; `count` of them at most) with their numbers
    in front."""
    width = len(str(numbers.start + max(count, 1) - 1))
    for number, line in enumerate(lines, numbers.start):
        shown = str(number) if number % numbers.step == 0 else ""
        yield f'<span class="ln" data-n="{shown:>{width}}" aria-hidden="true"></span>{line}'
