"""A notebook's front matter: the YAML of its first cell, in the shapes notebook tools write.

- A raw cell (Quarto, Jupyter Book, nbsphinx) or a Markdown cell holding YAML between
  `---` lines. A Markdown cell keeps the text below the YAML as its body.
- fastpages' first Markdown cell: `# Title`, then `> summary`, then `- key: value` lines
  (its `categories` are tags, as in Jekyll's front matter).

Otherwise the notebook has no front matter: its date comes from the file name and its
title from its first heading, as for a Markdown file.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

from blogbuild.content.frontmatter import FrontMatter, split_front_matter
from blogbuild.content.notebooks.read import Cell
from blogbuild.diagnostics import ContentError

#: fastpages' `- key: value` lines (the key as Jekyll writes it).
_FASTPAGES_KEY = re.compile(r"-[ \t]+([A-Za-z_][\w-]*)[ \t]*:[ \t]?(.*)")
_FASTPAGES_TITLE = re.compile(r"#[ \t]+(.*?)[ \t]*#*[ \t]*")
_FASTPAGES_SUMMARY = re.compile(r">[ \t]?(.*)")


@dataclass(frozen=True)
class NotebookFront:
    """The front matter of a notebook and where it came from.

    `cell` is the number of the cell it was read from (None: there was none); `shift`
    turns a line of the front matter's text into a line of that cell (cell line = text
    line + shift); `body` is what is left of that cell to show (a Markdown cell's text
    below its YAML), None when nothing is."""

    fm: FrontMatter
    cell: int | None = None
    shift: int = 0
    body: str | None = None
    body_line: int = 0  # the cell line `body` starts at (1-based)


class CellError(ContentError):
    """Invalid front matter in cell `cell`; `line` is the line of that cell."""

    def __init__(self, message: str, *, file: str, cell: int, line: int) -> None:
        super().__init__(message, file=file, line=line)
        self.cell = cell


def notebook_front(cells: tuple[Cell, ...], file: str) -> NotebookFront:
    """The front matter of the notebook whose cells are `cells`; raises CellError when
    it is invalid."""
    first = next((c for c in cells if c.source.strip()), None)
    try:
        return _front(first, file)
    except ContentError as exc:
        assert first is not None  # no cell, no front matter to be wrong
        lines_above = len(first.source) - len(first.source.lstrip("\n"))
        shift = first.source[:lines_above].count("\n") if first.source.lstrip("\n").startswith(
            "---") else -1  # fastpages' YAML has a '---' line above the cell's first
        raise CellError(exc.message, file=file, cell=first.number,
                        line=max(1, exc.line + shift)) from None


def _front(first: Cell | None, file: str) -> NotebookFront:
    if first is None:
        return NotebookFront(FrontMatter({}, "", 0))
    text = first.source.lstrip("\n")
    above = len(first.source) - len(text)  # blank lines above the YAML
    lines_above = first.source[:above].count("\n")
    if first.kind in ("raw", "markdown") and text.split("\n", 1)[0].rstrip() == "---":
        fm = split_front_matter(text, file)
        body = fm.body if first.kind == "markdown" and fm.body.strip() else None
        return NotebookFront(fm, first.number, lines_above, body,
                             lines_above + fm.body_line_offset + 1)
    if first.kind == "markdown":
        found = _fastpages(first.source)
        if found is not None:
            return NotebookFront(split_front_matter(found, file), first.number, -1)
    return NotebookFront(FrontMatter({}, "", 0))


def _fastpages(source: str) -> str | None:
    """fastpages' header cell as YAML front matter (one line for each line of the cell),
    or None when the cell is not one: a title, and a summary or at least one key."""
    lines = source.split("\n")
    out = ["---"]
    title = summary = False
    keys = 0
    for number, line in enumerate(lines):
        if not line.strip():
            out.append("")
            continue
        heading = _FASTPAGES_TITLE.fullmatch(line)
        quote = _FASTPAGES_SUMMARY.fullmatch(line)
        key = _FASTPAGES_KEY.fullmatch(line)
        if number == 0 and heading is not None:
            title = True
            out.append(f"title: {json.dumps(_unquoted(heading[1]))}")
        elif title and quote is not None and not summary and not keys:
            summary = True
            out.append(f"description: {json.dumps(_unquoted(quote[1].strip()))}")
        elif title and key is not None:
            keys += 1
            out.append(f"{key[1]}: {key[2]}")
        else:
            return None
    if not title or not (summary or keys):
        return None
    return "\n".join([*out, "---", ""])


def _unquoted(text: str) -> str:
    """fastpages copied the title line into YAML, so authors quoted titles that hold a
    colon (`# "fastcore: a library"`): the quotes are YAML's, not the title's."""
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "\"'":
        return text[1:-1]
    return text
