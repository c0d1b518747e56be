"""A notebook as one Markdown document: the text the parser reads, and what each part is.

The Markdown cells of a notebook are Markdown of one page: a footnote, a citation, a
numbered equation or a link reference of one cell is known to the others, as in a `.md`
post. So the parser reads one text, made of the notebook's Markdown (its Markdown cells,
and the Markdown and LaTeX its outputs hold) and its code, each part on lines of its own;
the notebook plugin (blogbuild.markdown.notebook) parses each Markdown part as a block of
its own (a fence left open in one cell never swallows the next, as in Jupyter) and puts
the code cells and their outputs between them.

`origins` says where each line of that text came from (cell and line), so a message
about it points at the cell, and at the line of the .ipynb file.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from blogbuild.content.notebooks.frontmatter import NotebookFront
from blogbuild.content.notebooks.read import Cell, Notebook, Output
from blogbuild.markdown.notebook.options import CellOptions, cell_options
from blogbuild.markdown.notebook.outputs import Choice, choose

#: Raw cells shown, by the format their metadata names (others are for other converters).
RAW_SHOWN = {"text/html": "html", "html": "html", "text/markdown": "markdown",
             "markdown": "markdown", "text/x-markdown": "markdown"}


@dataclass(frozen=True)
class OutputPart:
    """One output of a code cell, the form of it shown, and where it is in the text."""

    output: Output
    choice: Choice
    #: The lines of the page's text that hold this output as Markdown (a Markdown or
    #: LaTeX form, or printed text of an `output: asis` cell); (0, 0) when none do.
    start: int = 0
    end: int = 0
    #: Markdown the output holds that is not on lines of the text (a Quarto cell's frozen
    #: or `output: asis` output), parsed on its own.
    markdown: str = ""


@dataclass(frozen=True)
class Part:
    """One cell as the page shows it. `kind`: "markdown" (parsed from the lines
    start..end of the text), "code" (its code on those lines; its outputs after it) or
    "html" (a raw cell of HTML, passed through as raw HTML in a post is)."""

    kind: str
    cell: Cell
    start: int
    end: int
    options: CellOptions | None = None
    outputs: tuple[OutputPart, ...] = ()
    #: The line of the text that stands for its outputs (an empty line, never parsed).
    outputs_line: int = 0


@dataclass(frozen=True)
class NotebookPage:
    """A notebook as the text the Markdown pipeline parses, and what it came from."""

    text: str
    parts: tuple[Part, ...]
    language: str
    #: For each line of `text`: (cell number, line of the cell, 1-based; 0 for a line of
    #: one of the cell's outputs).
    origins: tuple[tuple[int, int], ...]
    scripts: bool
    #: Warnings found while making the page: (cell number, line of the cell, message).
    problems: tuple[tuple[int, int, str], ...] = ()
    #: The options of every code cell, by cell number (what execution reads too).
    options: dict[int, CellOptions] = field(default_factory=dict)


class _Text:
    def __init__(self) -> None:
        self.lines: list[str] = []
        self.origins: list[tuple[int, int]] = []

    def add(self, text: str, cell: int, first: int | None) -> tuple[int, int]:
        """Append `text` as lines of its own; `first`: the cell line of its first line
        (None: an output, line 0). Returns its (start, end) lines."""
        start = len(self.lines)
        for i, line in enumerate(text.split("\n")):
            self.lines.append(line)
            self.origins.append((cell, first + i if first is not None else 0))
        return start, len(self.lines)


def latex_markdown(latex: str) -> str:
    """A text/latex output as Markdown math: as it is when it has its delimiters
    (`$$…$$`, `$…$`, `\\[…\\]`), else as display math."""
    stripped = latex.strip()
    if "$" in stripped or stripped.startswith(("\\[", "\\(")):
        return stripped
    return f"$$\n{stripped}\n$$"


_LANGUAGE = re.compile(r"[A-Za-z][\w+#.-]*")


def code_language(language: str) -> str:
    """The name a code block of the notebook's language is highlighted as: the first word
    of what the kernel says ("Wolfram Language" is "wolfram"), "" when it says nothing of
    use; never text that a fence's info string would read as options."""
    found = _LANGUAGE.match(language.strip())
    return found[0].lower() if found else ""


def code_options(cell: Cell) -> CellOptions:
    return cell_options(cell.source, cell.tags)


def notebook_page(notebook: Notebook, front: NotebookFront, *, scripts: bool) -> NotebookPage:
    """The page of `notebook` (its front matter cell left out, but for its body)."""
    text = _Text()
    parts: list[Part] = []
    problems: list[tuple[int, int, str]] = []
    options_of: dict[int, CellOptions] = {}
    for cell in notebook.cells:
        if cell.number == front.cell:
            if front.body is not None:
                start, end = text.add(front.body, cell.number, front.body_line)
                parts.append(Part("markdown", cell, start, end))
            continue
        if cell.kind == "markdown":
            start, end = text.add(cell.source, cell.number, 1)
            parts.append(Part("markdown", cell, start, end))
        elif cell.kind == "raw":
            part = _raw(cell, text, problems)
            if part is not None:
                parts.append(part)
        elif cell.kind == "code":
            options = options_of[cell.number] = code_options(cell)
            problems.extend((cell.number, line, message) for line, message in options.problems)
            if not options.show:
                continue
            start, end = text.add(options.code, cell.number, options.skipped + 1)
            # One line that stands for the cell's outputs (messages about them point there).
            outputs_line, _ = text.add("", cell.number, None)
            outputs = _outputs(cell, options, text, scripts) \
                if options.output and options.evaluate else ()
            parts.append(Part("code", cell, start, end, options, outputs, outputs_line))
    return NotebookPage("\n".join(text.lines), tuple(parts), code_language(notebook.language),
                        tuple(text.origins), scripts, tuple(problems), options_of)


def _raw(cell: Cell, text: _Text, problems: list[tuple[int, int, str]]) -> Part | None:
    if not cell.source.strip():
        return None
    fmt = cell.metadata.get("format") or cell.metadata.get("raw_mimetype") or ""
    kind = RAW_SHOWN.get(str(fmt).strip().lower())
    if kind is None:
        what = f"for {fmt}" if fmt else "without a format"
        problems.append((cell.number, 1, f"a raw cell {what} is not shown (raw cells are "
                         "passed to other converters as they are); to show it, make it a "
                         "Markdown cell, or set its format to text/html or text/markdown"))
        return None
    start, end = text.add(cell.source, cell.number, 1)
    return Part(kind, cell, start, end)


def _outputs(cell: Cell, options: CellOptions, text: _Text,
             scripts: bool) -> tuple[OutputPart, ...]:
    found = []
    for output in cell.outputs:
        if output.kind in ("stream", "error"):
            if output.kind == "stream" and options.asis:
                start, end = text.add(output.text, cell.number, None)
                found.append(OutputPart(output, Choice("text/markdown"), start, end))
            else:
                found.append(OutputPart(output, Choice(output.kind)))
            continue
        choice = choose(output, scripts)
        if choice.mime in ("text/markdown", "text/latex"):
            value = str(output.data[choice.mime])
            markdown = latex_markdown(value) if choice.mime == "text/latex" else value
            start, end = text.add(markdown, cell.number, None)
            found.append(OutputPart(output, choice, start, end))
        else:
            found.append(OutputPart(output, choice))
    return tuple(found)
