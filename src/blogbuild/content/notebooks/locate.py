"""Where a part of a notebook is in its .ipynb file: a line for messages, found only when
one is needed (reading a notebook does not pay for it)."""

from __future__ import annotations

import json
import re
from bisect import bisect_right

# A path into the JSON document: keys and list indexes. Cells are ("cells", index) with
# index 0-based across all of a version 3 notebook's worksheets.
Path = tuple[str | int, ...]

# One JSON token with the white space before it: a whole string (group 1, the unrolled
# form so that a long base64 string is one fast scan), punctuation (2), a number or literal
# (3), or any other byte (4), so that the scan never stops on a broken file.
_TOKEN = re.compile(rb'\s*(?:("[^"\\]*(?:\\.[^"\\]*)*")|([][{}:,])|([-+.0-9A-Za-z]+)|(.))', re.S)
_STRING = re.compile(rb'"[^"\\]*(?:\\.[^"\\]*)*"')
_LINE_BREAK = re.compile(r"\r\n|\r|\n")
# Values deeper than this (below "cells") are not indexed: a message names at most an item
# of a field of an output, ("cells", i, "outputs", j, "data", mime).
_DEPTH = 6


class Locator:
    """Where a cell's lines are in the .ipynb file, found only when asked (a message)."""

    def __init__(self, data: bytes) -> None:
        self._data = data
        self._starts: dict[Path, int] | None = None
        self._line_starts: list[int] = []
        self._v3 = False

    def line(self, cell_number: int, line_in_cell: int) -> int:
        """The 1-based file line of line `line_in_cell` (1-based) of the source of cell
        `cell_number`; 0 when unknown."""
        starts = self._index()
        cell: Path = ("cells", cell_number - 1)
        key = "input" if self._v3 and (*cell, "input") in starts else "source"
        if line_in_cell < 1 or (*cell, key) not in starts:
            return 0
        items: list[tuple[int, str]] = []
        if _STRING.match(self._data, starts[(*cell, key)]):
            items.append((starts[(*cell, key)], self._string_at(starts[(*cell, key)])))
        else:
            while (item := starts.get((*cell, key, len(items)))) is not None:
                items.append((item, self._string_at(item)))
        if not items:
            return 0
        texts = [text for _, text in items]
        # Version 3 joins lines written without their line ends with "\n" (`_join_lines`).
        separator = "\n" if self._v3 and not texts[0].endswith(("\n", "\r")) else ""
        item_starts, position = [], 0
        for text in texts:
            item_starts.append(position)
            position += len(text) + len(separator)
        joined = separator.join(texts)
        line_starts = [0, *(m.end() for m in _LINE_BREAK.finditer(joined))]
        if line_in_cell > len(line_starts):
            return 0
        item = bisect_right(item_starts, line_starts[line_in_cell - 1]) - 1
        return self._line_of_offset(items[max(item, 0)][0])

    def line_at(self, path: Path) -> int:
        """The 1-based file line where the value at `path` begins, or where the nearest
        enclosing value does when `path` is missing or too deep to be indexed; 0 if none."""
        starts = self._index()
        for end in range(len(path), 0, -1):
            if (offset := starts.get(path[:end])) is not None:
                return self._line_of_offset(offset)
        return 0

    def _line_of_offset(self, offset: int) -> int:
        return bisect_right(self._line_starts, offset) + 1

    def _string_at(self, offset: int) -> str:
        token = _STRING.match(self._data, offset)
        if token is None:
            return ""
        try:
            value = json.loads(token.group().decode("utf-8", "replace"))
        except ValueError:
            return ""
        return value if isinstance(value, str) else ""

    def _index(self) -> dict[Path, int]:
        if self._starts is None:
            self._line_starts = _line_starts(self._data)
            self._starts = self._scan()
        return self._starts

    def _scan(self) -> dict[Path, int]:
        """The offset where each value (down to `_DEPTH`) begins, by its path."""
        starts: dict[Path, int] = {}
        keys: list[str | int] = []  # the key or index of the current member of each open value
        in_object: list[bool] = []
        want_key = False
        v3_cells: dict[tuple[str | int, str | int], int] = {}  # (worksheet, index) -> index
        for token in _TOKEN.finditer(self._data, 3 if self._data[:3] == b"\xef\xbb\xbf" else 0):
            string, punctuation, literal = token.group(1, 2, 3)
            if string is not None and want_key:
                keys[-1] = _key(string)
                want_key = False
            elif string is not None or literal is not None or punctuation in (b"{", b"["):
                path: Path = tuple(keys)
                if len(keys) > 3 and keys[0] == "worksheets" and keys[2] == "cells":
                    self._v3 = True
                    cell = v3_cells.setdefault((keys[1], keys[3]), len(v3_cells))
                    path = ("cells", cell, *keys[4:])
                if len(path) <= _DEPTH:
                    starts[path] = token.start(token.lastindex or 0)
                if punctuation is not None:
                    in_object.append(punctuation == b"{")
                    keys.append("" if punctuation == b"{" else 0)
                    want_key = punctuation == b"{"
            elif punctuation in (b"}", b"]"):
                if keys:
                    keys.pop()
                    in_object.pop()
                want_key = False
            elif punctuation == b"," and keys:
                if in_object[-1]:
                    want_key = True
                elif isinstance(keys[-1], int):
                    keys[-1] += 1
        return starts


def _key(token: bytes) -> str:
    if b"\\" not in token:
        return token[1:-1].decode("utf-8", "replace")
    try:
        value = json.loads(token.decode("utf-8", "replace"))
    except ValueError:
        return ""
    return value if isinstance(value, str) else ""


def _line_starts(data: bytes) -> list[int]:
    """The offsets where lines 2, 3, … begin; line ends as `decode_source` counts them."""
    if b"\r" in data:
        return [m.end() for m in re.finditer(rb"\r\n|\r|\n", data)]
    starts, found = [], data.find(b"\n")
    while found >= 0:
        starts.append(found + 1)
        found = data.find(b"\n", found + 1)
    return starts
