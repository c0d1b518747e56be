"""A Quarto document's executable cells as the reader finds them in its text, and what
the page shows of them (`PageCells`, the page's `QuartoPage.cells`): the model that
blogbuild.quarto.cells fills and blogbuild.markdown.quarto.cells shows."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from blogbuild.content.notebooks.model import Output
from blogbuild.diagnostics import Severity
from blogbuild.markdown.notebook.options import CellOptions

#: An opening code fence, its indentation (a list's, a quote's `>`) and its info.
FENCE = re.compile(r"([ \t>]*)(`{3,}|~{3,})[ \t]*(.*)")
#: A cell's info: `{python}`, `{python filename="x.py"}`, `{{python}}` (shown, not run).
_CELL = re.compile(r"(\{\{?)[ \t]*([A-Za-z][\w+-]*)[ \t,]*([^{}]*?)[ \t]*(\}\}?)[ \t]*")
#: Languages whose fences are no cells Quarto runs (OJS runs in the reader's browser;
#: Mermaid and Graphviz are drawn).
NOT_RUN = frozenset({"ojs", "mermaid", "dot"})


@dataclass(frozen=True)
class SourceCell:
    """One cell of the text: its fence's lines (0-based, `end` after the closing one)."""

    line: int
    end: int
    language: str  # lower case
    attrs: str  # what follows the language in the braces (`filename="x.py"`)
    shown: bool  # ```{{python}}: shown as code, fence and all, never run
    source: str  # its lines, option lines included, without the fence's indentation
    fence: str  # the opening fence's line as written (for `echo: fenced`)

    @property
    def runs(self) -> bool:
        return not self.shown and self.language not in NOT_RUN


@dataclass
class PageCells:
    """What the Markdown plugin shows of a page's cells, by the line of their fence."""

    cells: dict[int, SourceCell] = field(default_factory=dict)
    options: dict[int, CellOptions] = field(default_factory=dict)
    outputs: dict[int, tuple[Output, ...]] = field(default_factory=dict)
    #: Cells that get a note instead of outputs (not Python, not run), by line: the note.
    notes: dict[int, str] = field(default_factory=dict)
    #: Inline expressions' values: (language, code, n-th of that code) -> value.
    inline: dict[tuple[str, str, int], str] = field(default_factory=dict)
    #: Whether outputs may run their scripts (the site's `notebooks.scripts`).
    scripts: bool = False
    #: Messages, at 0-based lines of the text (None: about the file).
    problems: list[tuple[int | None, str, Severity]] = field(default_factory=list)


def scan(text: str) -> list[SourceCell]:
    """The cells of `text`, in order (fences inside other fences are code, not cells)."""
    lines = text.split("\n")
    found: list[SourceCell] = []
    i = 0
    while i < len(lines):
        match = FENCE.fullmatch(lines[i])
        if match is None or (match[2][0] == "`" and "`" in match[3]):
            i += 1
            continue
        indent, marker, info = len(match[1]), match[2], match[3]
        end = i + 1
        while end < len(lines):
            close = lines[end].strip(" \t>")  # a list's or a quote's closing fence too
            if close.startswith(marker) and not close.strip(marker[0]):
                break
            end += 1
        cell = _CELL.fullmatch(info)
        if cell is not None and len(cell[1]) == len(cell[4]):
            body = [_dedent(line, indent) for line in lines[i + 1:end]]
            found.append(SourceCell(i, min(end + 1, len(lines)), cell[2].lower(), cell[3],
                                    len(cell[1]) == 2, "\n".join(body), lines[i].strip()))
        i = end + 1
    return found


def _dedent(line: str, indent: int) -> str:
    """A line of a fence's body without the fence's own indentation (or quote marks)."""
    head = line[:indent]
    return line[indent:] if not head.strip(" \t>") else line.lstrip(" \t>")
