"""A Plotly figure's stand-in: what a reader sees before plotly.js draws the chart, and
what one sees without JavaScript (or in a reader that keeps no script): the title, the
data of each trace as a table in a <details> (its first rows; a table of thousands of rows
helps no one), and a note that the chart is drawn when it comes into view.

The columns are what a trace plots: `labels` and `values` (pies, treemaps), a 2-D `z` as
rows of x, y and z (heatmaps, surfaces), else the 1-D arrays it has among x, y, z and
their kin (r and theta, lat and lon, open, high, low, close). Arrays may be plain JSON or
plotly.py's typed arrays (`{"dtype": "f8", "bdata": BASE64, "shape": "R, C"}`), of which
only the rows shown are decoded. Every value is escaped here, once.
"""

from __future__ import annotations

import array
import base64
import binascii
import sys
from collections.abc import Iterator
from html.parser import HTMLParser
from typing import Any

from markdown_it.common.utils import escapeHtml

#: Rows of each trace's table, and traces, shown in the stand-in.
ROWS = 50
TRACES = 20
#: What a trace plots, in the order of the columns.
_PAIRS = ("labels", "values", "parents")
_COLUMNS = ("x", "y", "z", "r", "theta", "a", "b", "c", "lat", "lon", "locations", "open",
            "high", "low", "close", "u", "v", "w")
#: plotly.js's typed array types, as Python's array module names them.
_DTYPES = {"i1": "b", "u1": "B", "u1c": "B", "i2": "h", "u2": "H", "i4": "i", "u4": "I",
           "f4": "f", "f8": "d"}


class _Text(HTMLParser):
    """The text of Plotly's pseudo-HTML (`<b>`, `<br>`, `<a href>`), tags dropped."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "br":
            self.parts.append(" ")

    def handle_data(self, data: str) -> None:
        self.parts.append(data)


def plain_text(text: str) -> str:
    """`text` (a title, a trace's name) without Plotly's tags, its spaces collapsed."""
    if "<" not in text and "&" not in text:
        return " ".join(text.split())
    parser = _Text()
    parser.feed(text)
    parser.close()
    return " ".join("".join(parser.parts).split())


def _typed(value: dict[str, Any], count: int) -> tuple[list[Any], list[int]] | None:
    """The first `count` numbers of a typed array, and its shape; None if it is none."""
    code = _DTYPES.get(str(value.get("dtype")))
    data = value.get("bdata")
    if code is None or not isinstance(data, str):
        return None
    numbers = array.array(code)
    try:
        raw = base64.b64decode(data, validate=False)
    except (binascii.Error, ValueError):
        return None
    total = len(raw) // numbers.itemsize
    numbers.frombytes(raw[:count * numbers.itemsize])
    if sys.byteorder == "big":  # plotly.js's typed arrays are little-endian
        numbers.byteswap()
    shape = [total]
    spec = value.get("shape")
    parts = str(spec).replace("[", "").replace("]", "").split(",") if spec is not None else []
    if len(parts) == 2 and all(p.strip().isdigit() for p in parts):
        shape = [int(p) for p in parts]
    return numbers.tolist(), shape


def _column(value: Any) -> tuple[list[Any], int] | None:
    """A 1-D array's first ROWS values and its length; None if `value` is no such array."""
    if isinstance(value, list) and not any(isinstance(v, list | dict) for v in value[:ROWS]):
        return value[:ROWS], len(value)
    if isinstance(value, dict):
        typed = _typed(value, ROWS)
        if typed is not None and len(typed[1]) == 1:
            return typed[0], typed[1][0]
    return None


def _grid(value: Any) -> tuple[list[tuple[int, int, Any]], int] | None:
    """A 2-D array's first ROWS cells as (row, column, value), and its number of cells."""
    if isinstance(value, dict):
        typed = _typed(value, ROWS)
        if typed is None or len(typed[1]) != 2 or typed[1][1] == 0:
            return None
        columns = typed[1][1]
        cells = [(*divmod(k, columns), v) for k, v in enumerate(typed[0])]
        return cells, typed[1][0] * columns
    if not isinstance(value, list) or not value or not all(isinstance(r, list) for r in value):
        return None
    shown = [(i, j, v) for i, row in enumerate(value[:ROWS]) for j, v in enumerate(row[:ROWS])]
    return shown[:ROWS], sum(len(row) for row in value)


def _cell(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, float):
        return str(int(value)) if value.is_integer() and abs(value) < 1e15 else f"{value:.10g}"
    return escapeHtml(plain_text(str(value)))


def _heading(key: str, trace: dict[str, Any], layout: dict[str, Any]) -> str:
    """A column's heading: the axis title when the trace's axis has one, else the key."""
    if key in ("x", "y"):
        axis = str(trace.get(f"{key}axis") or key)
        container = layout.get(f"{key}axis{axis[1:]}")
        title = container.get("title") if isinstance(container, dict) else None
        text = title.get("text") if isinstance(title, dict) else title
        if isinstance(text, str) and plain_text(text):
            return escapeHtml(plain_text(text))
    return escapeHtml(key)


def _rows(trace: dict[str, Any]) -> tuple[list[str], list[list[Any]], int]:
    """The keys of a trace's columns, its first rows, and how many rows it has."""
    grid = _grid(trace.get("z")) if trace.get("z") is not None else None
    if grid is not None:
        xs, ys = _column(trace.get("x")), _column(trace.get("y"))
        rows = [[_at(xs, j), _at(ys, i), v] for i, j, v in grid[0]]
        return ["x", "y", "z"], rows, grid[1]
    keys = _PAIRS if any(k in trace for k in _PAIRS) else _COLUMNS
    columns = {k: c for k in keys if (c := _column(trace.get(k))) is not None}
    length = max((total for _values, total in columns.values()), default=0)
    rows = [[_at(c, i) for c in columns.values()] for i in range(min(length, ROWS))]
    return list(columns), rows, length


def _at(column: tuple[list[Any], int] | None, index: int) -> Any:
    """Item `index` of a column; its place when there is no column (a heatmap's rows)."""
    if column is None:
        return index
    return column[0][index] if index < len(column[0]) else None


def _table(number: int, trace: dict[str, Any], layout: dict[str, Any]) -> Iterator[str]:
    name = trace.get("name")
    caption = plain_text(name) if isinstance(name, str) and name.strip() else \
        f"Trace {number}"
    keys, rows, length = _rows(trace)
    if not keys:
        yield f"<p>{escapeHtml(caption)}: no data this table can show.</p>\n"
        return
    yield f"<table>\n<caption>{escapeHtml(caption)}</caption>\n<thead><tr>"
    yield "".join(f'<th scope="col">{_heading(k, trace, layout)}</th>' for k in keys)
    yield "</tr></thead>\n<tbody>\n"
    for row in rows:
        yield "<tr>" + "".join(f"<td>{_cell(v)}</td>" for v in row) + "</tr>\n"
    yield "</tbody>\n</table>\n"
    if length > len(rows):
        yield f"<p>and {length - len(rows):,} more rows</p>\n"


def table_html(title: str, traces: list[dict[str, Any]], layout: dict[str, Any]) -> str:
    """The stand-in's HTML (see the module's docstring)."""
    parts = ['<div class="chart-static">\n']
    if title:
        parts.append(f'<p class="chart-title">{escapeHtml(title)}</p>\n')
    parts.append("<details><summary>Data</summary>\n")
    for number, trace in enumerate(traces[:TRACES], 1):
        parts.extend(_table(number, trace, layout))
    if len(traces) > TRACES:
        parts.append(f"<p>and {len(traces) - TRACES:,} more traces</p>\n")
    parts.append("</details>\n<p class=\"chart-note\">The chart is drawn when it comes into "
                 "view.</p>\n</div>\n")
    return "".join(parts)
