"""Quarto's layout grids: `layout-ncol`, `layout-nrow`, `layout="[[1,1],[1]]"`, `layout-valign`.

    ::: {layout="[[1,-0.2,1],[1]]"}      ->  <div class="layout layout-valign-top">
    ![A](a.png)                                <div class="layout-row" style="grid-template-
                                                  columns: 1fr 0.2fr 1fr">
    ![B](b.png)                                  <div class="layout-cell">…A…</div>
                                                  <div class="layout-cell layout-gap"></div>
    ![C](c.png)                                  <div class="layout-cell">…B…</div></div>
    :::                                          <div class="layout-row" …>…C…</div></div>

Each top-level block of the div is a cell; the rows take the cells in order, a negative
width is an empty cell (a gap). The widths go into a style built here from numbers only;
css/divs.css stacks the cells in one column on a narrow screen.
"""

from __future__ import annotations

import json
import math

from markdown_it.token import Token

from blogbuild.markdown.env import Env, need, report
from blogbuild.markdown.quarto.attributes import PandocAttrs
from blogbuild.markdown.quarto.blocks import blocks, shift, wrapper

__all__ = ["KEYS", "has_layout", "lay_out"]

KEYS = frozenset({"layout", "layout-ncol", "layout-nrow", "layout-valign", "layout-align"})
#: More columns or cells than this in a row is no layout an author means: it is capped.
MAX_COLUMNS = 12
_VALIGN = {"top": "top", "center": "center", "bottom": "bottom"}


def has_layout(attrs: PandocAttrs) -> bool:
    return any(key in attrs.pairs for key in ("layout", "layout-ncol", "layout-nrow"))


def _count(env: Env, line: int, attrs: PandocAttrs, key: str) -> int | None:
    value = attrs.get(key)
    if value is None:
        return None
    if value.strip().isdigit() and 0 < int(value) <= MAX_COLUMNS:
        return int(value)
    report(env, line, f"{key}={value!r} is not a number of columns from 1 to {MAX_COLUMNS}: "
           "the div is laid out in one column")
    return 1


def _rows_of(env: Env, line: int, value: str) -> list[list[float]]:
    """The rows of widths `layout="…"` writes, or one column when it cannot be read."""
    try:
        rows = json.loads(value)
    except ValueError:
        rows = None
    if isinstance(rows, list) and rows and all(isinstance(w, (int, float)) for w in rows):
        rows = [rows]  # `[1,1]`: one row
    if (isinstance(rows, list) and rows and len(rows) <= MAX_COLUMNS * 4 and all(
            isinstance(row, list) and 0 < len(row) <= MAX_COLUMNS and all(
                isinstance(w, (int, float)) and not isinstance(w, bool) and math.isfinite(w)
                and w != 0 for w in row) for row in rows)):
        return [[float(w) for w in row] for row in rows]
    report(env, line, f"layout={value!r} cannot be read: write rows of widths such as "
           "layout=\"[[1,1],[1]]\" (a negative width is a gap); the div is laid out in one "
           "column")
    return [[1.0]]


def _plan(env: Env, line: int, attrs: PandocAttrs, cells: int) -> list[list[float]]:
    """The rows (widths, a negative one a gap) that hold `cells` cells."""
    if "layout" in attrs.pairs:
        rows = _rows_of(env, line, attrs.pairs["layout"])
    else:
        ncol = _count(env, line, attrs, "layout-ncol")
        nrow = _count(env, line, attrs, "layout-nrow")
        if ncol is None:
            ncol = max(1, min(MAX_COLUMNS, math.ceil(cells / (nrow or 1))))
        rows = [[1.0] * ncol]
    plan: list[list[float]] = []
    taken = 0
    while taken < cells:  # the last row's pattern repeats for the cells left over
        row = rows[min(len(plan), len(rows) - 1)]
        plan.append(row)
        taken += sum(1 for width in row if width > 0) or cells
    return plan


def _style(row: list[float]) -> str:
    return "grid-template-columns: " + " ".join(f"minmax(0, {abs(w):g}fr)" for w in row)


def lay_out(env: Env, line: int, attrs: PandocAttrs, body: list[Token], level: int,
            ) -> list[Token]:
    """`body` (block tokens at `level`) as a grid: its top-level blocks are the cells."""
    need(env, "divs")
    cells = blocks(body, level)
    valign = _VALIGN.get((attrs.get("layout-valign") or "top").lower(), "top")
    grid_open, grid_close = wrapper("layout", "div", level,
                                    {"class": f"layout layout-valign-{valign}"})
    out = [grid_open]
    queue = list(cells)
    for row in _plan(env, line, attrs, len(cells)):
        row_open, row_close = wrapper("layout_row", "div", level + 1,
                                      {"class": "layout-row", "style": _style(row)})
        out.append(row_open)
        for width in row:
            gap = width < 0 or not queue
            cell_open, cell_close = wrapper(
                "layout_cell", "div", level + 2,
                {"class": "layout-cell layout-gap" if gap else "layout-cell"})
            out.append(cell_open)
            if not gap:
                out += shift(queue.pop(0), 3)
            out.append(cell_close)
        out.append(row_close)
    out.append(grid_close)
    return out
