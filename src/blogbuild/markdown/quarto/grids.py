"""Pandoc's grid tables on a Quarto page: a table drawn with `+`, `-`, `=` and `|`.

    +-----------+---------------------+      the first line gives the columns (its `+`s)
    | Fruit     | Advantages          |
    +===========+=====================+      a `=` line ends the header (none: no header)
    | Bananas   | - built-in wrapper  |      a cell holds block Markdown: lists, code,
    |           | - bright color      |      math, several paragraphs
    +-----------+---------------------+

A colon at either end of a column's dashes (`+:---+`, `+---:+`, `+:---:+`, in the header's
`=` line, or in the first line when there is no header) aligns the column. The tokens are
those of a pipe table (`table_open`, `thead_open`, `th_open` with its `text-align`), so the
theme, the captions (blogbuild.markdown.quarto.tables), the table divs and the numbering
take a grid table as they take a pipe table. Each cell's text is parsed as blocks with the
page's parser and environment: math, links, citations and `@tbl-x` work in it. A cell of
one paragraph is written without its `<p>`, as Pandoc writes it. A table wider than
Pandoc's 72 columns gets Pandoc's relative column widths (a `<colgroup>`), so its long
text wraps where the author's columns say.

What is not a grid table stays what Pandoc makes of it, a paragraph: lines of different
widths, a line that does not start with `|` or `+`, no closing `+---+` line. A table with
Pandoc 3's row or column spans (a missing `|` or `+` inside the grid) is shown as written,
preformatted, with a warning: its text is all there, in the shape the author drew.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from markdown_it import MarkdownIt
from markdown_it.common.utils import escapeHtml
from markdown_it.rules_block import StateBlock
from markdown_it.token import Token
from markdown_it.utils import OptionsDict

from blogbuild.markdown.env import Env, is_quarto, report, source_line

__all__ = ["grids_plugin"]

#: The first line: `+`, then each column's dashes (maybe with colons at their ends) and `+`.
_TOP = re.compile(r"\+(?::?-+:?\+)+")
#: A line between rows that crosses the whole table.
_RULE = re.compile(r"\+(?::?[-=]+:?\+)+")
#: Pandoc's text width: a table wider than this gets relative column widths.
COLUMNS = 72
_WIDE = frozenset("WF")
#: Characters that take no column of their own: combining marks, joiners, variation
#: selectors (as Pandoc counts them, in doclayout's charWidth).
_ZERO_WIDTH = frozenset(("Mn", "Me", "Cf"))

#: A line of a grid table, one item per screen column: the line itself when it is ASCII,
#: else its characters with what takes no column joined to the one before, and "" after a
#: wide character (CJK) for its second column.
Columns = Sequence[str]


def _cells_of(text: str) -> Columns:
    """`text` as screen columns, so that an index is a column as the author lined the table
    up."""
    if text.isascii():
        return text
    columns: list[str] = []
    for char in text:
        if columns and unicodedata.category(char) in _ZERO_WIDTH:
            columns[-1] += char
        elif unicodedata.east_asian_width(char) in _WIDE:
            columns += (char, "")
        else:
            columns.append(char)
    return columns


@dataclass
class _Grid:
    """A grid table read from its lines (in screen columns, wide characters padded)."""

    lines: list[Columns]
    bounds: list[int]  # the column of each `+` of the first line

    def segment(self, line: Columns, column: int) -> str:
        return "".join(line[self.bounds[column] + 1:self.bounds[column + 1]])

    def is_rule(self, line: Columns) -> bool:
        return line[0] == "+" and _is_rule(line) and all(line[b] == "+" for b in self.bounds)

    def has_spans(self) -> bool:
        """Whether a row or a column is spanned: a missing `|` or `+` inside the grid."""
        inner = self.bounds[1:-1]
        for line in self.lines[1:]:
            if line[0] == "|" and any(line[b] != "|" for b in inner):
                return True
            if line[0] == "+" and not self.is_rule(line):
                return True
        return False


def _read(state: StateBlock, start: int, end: int) -> _Grid | None:
    """The grid table starting at line `start`, or None: these lines are not one."""
    indent = state.sCount[start]
    first = _cells_of(_line(state, start))
    if not isinstance(first, str) or _TOP.fullmatch(first) is None:
        return None
    bounds = [at for at, char in enumerate(first) if char == "+"]
    lines: list[Columns] = [first]
    line = start + 1
    while line < end and state.sCount[line] == indent and not state.isEmpty(line):
        text = _cells_of(_line(state, line))
        if text[0] not in ("|", "+") or len(text) != len(first):
            break  # a ragged line: the table, if any, ends at the last rule above it
        lines.append(text)
        line += 1
    grid = _Grid(lines, bounds)
    # The table ends at its last line of `+` and dashes (under a spanned cell it has no
    # `+` where the spanned columns meet: has_spans finds that).
    last = max((i for i, text in enumerate(lines) if i and _is_rule(text)), default=0)
    grid.lines = lines[:last + 1]
    if all(text[0] == "+" for text in grid.lines) \
            or any(text[-1] not in ("|", "+") for text in grid.lines):
        return None  # no row, or a row not closed by its `|`
    return grid


def _is_rule(line: Columns) -> bool:
    """A line of `+` and dashes (or `=`) across the table (such a line is ASCII)."""
    return isinstance(line, str) and _RULE.fullmatch(line) is not None


def _line(state: StateBlock, line: int) -> str:
    return state.src[state.bMarks[line] + state.tShift[line]:state.eMarks[line]].rstrip()


def _text(lines: list[str]) -> str:
    """A cell's Markdown: its lines without the trailing spaces, and one leading space less
    when every line has one (Pandoc's removeOneLeadingSpace)."""
    lines = [text.rstrip() for text in lines]
    if all(not text or text.startswith(" ") for text in lines):
        lines = [text[1:] for text in lines]
    return "\n".join(lines).rstrip("\n")  # leading blank lines keep the lines counted


def _parts(grid: _Grid) -> tuple[int | None, int | None]:
    """(the index of the `+===+` line that ends the header, or None: no header; the index
    of the `+===+` line that starts the foot, or None). As in Pandoc 3, a table whose last
    line is a `=` line has a foot when another `=` line, not the header's, comes before."""
    ruled = [i for i, text in enumerate(grid.lines) if text[0] == "+" and "=" in text]
    last = len(grid.lines) - 1
    header = ruled[0] if ruled and ruled[0] != last else None
    inner = [i for i in ruled if i not in (header, last)]
    return header, inner[-1] if inner and last in ruled else None


def _alignments(grid: _Grid, header: int | None) -> list[str]:
    line = grid.lines[header] if header is not None else grid.lines[0]
    found = []
    for column in range(len(grid.bounds) - 1):
        dashes = grid.segment(line, column)
        left, right = dashes.startswith(":"), dashes.endswith(":")
        found.append("center" if left and right else "left" if left
                     else "right" if right else "")
    return found


def _widths(grid: _Grid) -> list[int] | None:
    """Pandoc's relative widths in percent, when the table is wider than its text width
    (Text.Pandoc.Parsing.GridTable's fractionalColumnWidths; the HTML writer truncates)."""
    raw = [after - before for before, after in zip(grid.bounds, grid.bounds[1:], strict=False)]
    total = sum(raw) + len(raw) - 2
    if total <= COLUMNS:
        return None
    return [100 * width // total for width in raw]


Row = tuple[int, str, list[str]]


def _rows(grid: _Grid, header: int | None, foot: int | None) -> list[Row]:
    """Each row: (its first line in the grid, its part: "thead", "tbody" or "tfoot", its
    cells' text), the header and the foot ending and starting at those lines (`_parts`)."""
    rows: list[Row] = []
    begin = 1
    for index, text in enumerate(grid.lines[1:], start=1):
        if text[0] != "+":
            continue
        if index > begin:
            body = grid.lines[begin:index]
            cells = [_text([grid.segment(row, column) for row in body])
                     for column in range(len(grid.bounds) - 1)]
            part = "thead" if header is not None and index <= header else \
                "tfoot" if foot is not None and begin > foot else "tbody"
            rows.append((begin, part, cells))
        begin = index + 1
    return rows


def _cell(state: StateBlock, text: str, line: int, level: int) -> None:
    """The tokens of a cell's Markdown, parsed by the page's parser with the page's env."""
    first = len(state.tokens)
    inner = StateBlock(text, state.md, state.env, state.tokens)
    inner.level = level
    env = state.env
    offset = env.get("line_offset", 0)
    env["line_offset"] = int(offset) + line  # a message while parsing names its own line
    try:
        state.md.block.tokenize(inner, 0, inner.lineMax)
    finally:
        env["line_offset"] = offset
    made = state.tokens[first:]
    for token in made:
        if token.map:
            token.map = [token.map[0] + line, token.map[1] + line]
    if len(made) == 3 and made[0].type == "paragraph_open":
        made[0].hidden = made[2].hidden = True  # one paragraph: Pandoc's plain cell


def _section(state: StateBlock, start: int, rows: list[Row], kind: str,
             aligns: list[str]) -> None:
    tag = "th" if kind == "thead" else "td"  # Pandoc writes a foot's cells as td
    state.push(f"{kind}_open", kind, 1)
    for first, _, cells in rows:
        state.push("tr_open", "tr", 1)
        for text, align in zip(cells, aligns, strict=False):
            opening = state.push(f"{tag}_open", tag, 1)
            if align:
                opening.attrs["style"] = f"text-align:{align}"
            _cell(state, text, start + first, state.level)
            state.push(f"{tag}_close", tag, -1)
        state.push("tr_close", "tr", -1)
    state.push(f"{kind}_close", kind, -1)


def _table(state: StateBlock, start: int, grid: _Grid) -> None:
    header, foot = _parts(grid)
    rows = _rows(grid, header, foot)
    aligns = _alignments(grid, header)
    parts = {kind: [row for row in rows if row[1] == kind] for kind in ("thead", "tbody",
                                                                       "tfoot")}
    if all(not text for row in parts["thead"] for text in row[2]):
        parts["thead"] = []  # Pandoc drops a header of empty cells
    opening = state.push("table_open", "table", 1)
    opening.map = [start, start + len(grid.lines)]
    widths = _widths(grid)
    if widths is not None:
        state.push("grid_colgroup", "colgroup", 0).meta = {"widths": widths}
    for kind, found in parts.items():
        if found:
            _section(state, start, found, kind, aligns)
    state.push("table_close", "table", -1)


def _preformatted(state: StateBlock, start: int, grid: _Grid) -> None:
    """A table with spans: shown as the author drew it, with a warning."""
    report(state.env, source_line(state.env, start),
           "this grid table has a cell spanning rows or columns (a missing | or + inside "
           "it), which blogbuild does not read: it is shown as written; split the spanning "
           "cell into one per row and column, or write the table in HTML")
    token = state.push("code_block", "code", 0)
    token.content = "\n".join("".join(text) for text in grid.lines) + "\n"
    token.map = [start, start + len(grid.lines)]


def grid_table(state: StateBlock, start: int, end: int, silent: bool) -> bool:
    if not is_quarto(state.env) or state.sCount[start] - state.blkIndent >= 4:
        return False
    if not state.src.startswith("+", state.bMarks[start] + state.tShift[start]):
        return False
    grid = _read(state, start, end)
    if grid is None:
        return False
    if not silent:
        if grid.has_spans():
            _preformatted(state, start, grid)
        else:
            _table(state, start, grid)
    state.line = start + len(grid.lines)
    return True


def _colgroup(self: Any, tokens: Sequence[Token], idx: int, options: OptionsDict,
              env: Env) -> str:
    cols = "".join(f'<col style="width: {escapeHtml(str(width))}%" />\n'
                   for width in tokens[idx].meta["widths"])
    return f"<colgroup>\n{cols}</colgroup>\n"


def grids_plugin(md: MarkdownIt) -> None:
    md.block.ruler.before("table", "quarto_grid_table", grid_table)
    md.add_render_rule("grid_colgroup", _colgroup)
