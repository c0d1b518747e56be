"""Chart data that libraries wrote into HTML or a notebook's output, read as data, and
written back into a page as data.

Plotly and Bokeh put their figure's JSON into a `<script>` (as the arguments of a call, or
as a JavaScript string). This module reads it without running anything: the HTML through
`html.parser`, the JSON through `json.JSONDecoder.raw_decode` at the place the call's
arguments start. JSON's NaN and Infinity (which Python reads and a browser's JSON.parse
does not) become null, as the libraries draw a gap for either.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from html.parser import HTMLParser
from typing import Any

#: Characters of a chart's JSON a page carries at most (the data travels with the page,
#: drawn in the reader's browser): a scatter plot of some 100,000 points. A larger figure is
#: refused with a message, and the output's static form, if any, is shown.
INLINE_LIMIT = 5_000_000
#: Nesting of a chart's JSON (figures are shallow; Bokeh's documents reach some 20 levels).
DEPTH_LIMIT = 64

_DECODER = json.JSONDecoder(parse_constant=lambda _name: None)


@dataclass(frozen=True)
class Problem:
    """Why a chart cannot be shown live, in words for the author (the caller reports it
    at the cell's or fence's line and shows the static form)."""

    message: str


@dataclass(frozen=True)
class Script:
    """A `<script>` element of some HTML: its type (lower case, "" when none), id, text."""

    type: str
    id: str
    text: str


class TooDeep(ValueError):
    """JSON nested more than DEPTH_LIMIT levels."""


def script_json(value: Any) -> str:
    """`value` as JSON inside a <script> element: no `<`, `>` or `&` that could end it."""
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def merged(base: Any, over: Any) -> Any:
    """`over` merged into `base`, object by object (anything else in `over` replaces what
    `base` has: a list a list)."""
    if not isinstance(base, dict) or not isinstance(over, dict):
        return over
    out = dict(base)
    for key, value in over.items():
        out[key] = merged(out[key], value) if key in out else value
    return out


def compact_size(value: Any) -> int:
    """Characters of `value`'s JSON as a page carries it."""
    return len(json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=False))


def too_large(what: str, size: int, fix: str) -> Problem:
    return Problem(f"{what} holds {size / 1e6:.1f} MB of data, over the {INLINE_LIMIT / 1e6:.0f}"
                   f" MB a page carries for a chart drawn in the reader's browser; {fix}")


def loads(text: str) -> Any:
    """The JSON of `text`, NaN and Infinity read as null; raises ValueError."""
    value, end = decode_at(text, 0)
    if text[end:].strip():
        raise ValueError("extra data after the JSON value")
    return value


def decode_at(text: str, index: int) -> tuple[Any, int]:
    """The JSON value that starts at `index` (after any white space), and where it ends;
    raises ValueError (RecursionError, for JSON nested too deeply, becomes one)."""
    while index < len(text) and text[index].isspace():
        index += 1
    try:
        value, end = _DECODER.raw_decode(text, index)
    except RecursionError:
        raise ValueError("the JSON is nested too deeply to read") from None
    return finite(value), end


def finite(value: Any, depth: int = 0) -> Any:
    """`value` with every NaN and infinite number made None; raises TooDeep."""
    if depth > DEPTH_LIMIT:
        raise TooDeep(f"the JSON is nested more than {DEPTH_LIMIT} levels deep")
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {str(k): finite(v, depth + 1) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [finite(v, depth + 1) for v in value]
    return value


def skip_to(text: str, index: int, char: str) -> int:
    """The index just past `char` when it is the next character after white space, else
    -1 (a call's arguments are separated by commas and end with a parenthesis)."""
    while index < len(text) and text[index].isspace():
        index += 1
    return index + 1 if text.startswith(char, index) else -1


class _Scripts(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.scripts: list[Script] = []
        self.ids: list[str] = []
        self._open: tuple[str, str] | None = None
        self._text: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = {name: value or "" for name, value in attrs}
        if found.get("id"):
            self.ids.append(found["id"])
        if tag == "script":
            self._open = (found.get("type", "").strip().lower(), found.get("id", ""))
            self._text = []

    def handle_data(self, data: str) -> None:
        if self._open is not None:
            self._text.append(data)

    def handle_endtag(self, tag: str) -> None:
        if tag == "script" and self._open is not None:
            self.scripts.append(Script(*self._open, "".join(self._text)))
            self._open = None


def scripts_of(html: str) -> tuple[list[Script], list[str]]:
    """The <script> elements of `html` as a browser splits them (a `</script>` anywhere
    ends one), and the ids of its elements, in order."""
    parser = _Scripts()
    parser.feed(html)
    parser.close()
    return parser.scripts, parser.ids
