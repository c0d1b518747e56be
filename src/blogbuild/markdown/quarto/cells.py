"""Quarto's executable cells on a Quarto page (blogbuild.quarto.cells reads them).

A cell's fence (```` ```{python} ````, ```` ```{r} ````, …) stays where it is among the
page's blocks (in a div, a callout, a list) and becomes a code cell as a notebook's is
(blogbuild.markdown.notebook.code_cell): its code without the `#|` option lines,
highlighted in its language (a `filename=` as the block's title), folded, hidden or shown
with its fence as its options say, and its outputs after it (a captioned figure numbered
with the page's). ```` ```{{python}} ```` is shown as the code it is, fence lines and all.
An inline `` `{python} expr` `` shows its value, else its code (one warning per page).
"""

from __future__ import annotations

import dataclasses
import re
from typing import TYPE_CHECKING

from markdown_it import MarkdownIt
from markdown_it.rules_block import StateBlock
from markdown_it.rules_core import StateCore
from markdown_it.token import Token

from blogbuild.markdown.env import Env, is_quarto, need, report, source_line
from blogbuild.markdown.quarto.figdivs import number_table

if TYPE_CHECKING:
    from blogbuild.markdown.notebook.document import OutputPart
    from blogbuild.markdown.notebook.options import CellOptions
    from blogbuild.quarto.model import PageCells, SourceCell

#: A code span of an inline expression: `{python} expr`.
_INLINE = re.compile(r"\{(python|r|julia)\}[ \t]+(.+?)[ \t]*")
_FILENAME = re.compile(r"""filename\s*=\s*(?:"([^"]*)"|'([^']*)'|(\S+))""")
#: The code languages shown for languages Pygments calls otherwise.
_LEXER = {"ojs": "javascript", "dot": "text", "sql": "sql", "bash": "bash"}
#: An id a cell's table or listing may have.
_ID = re.compile(r"[A-Za-z][\w.:-]*")
#: Option lines of the cells that are not run (Mermaid's `%%|`).
_NOT_RUN_OPTION = re.compile(r"(?:%%|//|#)\|.*")


def cells_plugin(md: MarkdownIt) -> None:
    md.core.ruler.after("block", "quarto_cells", _cells)
    md.core.ruler.after("inline", "quarto_inline", _inline)


def _quarto_cells(env: Env) -> PageCells | None:
    """The page's cells; None on a page that is not Quarto's."""
    return env["quarto"].cells if is_quarto(env) else None


def _cells(state: StateCore) -> None:
    if _quarto_cells(state.env) is None:
        return
    from blogbuild.markdown.notebook import OUTPUT_SCRIPTS

    env = state.env
    page = env["quarto"].cells
    env[OUTPUT_SCRIPTS] = page.scripts
    for line, message, severity in page.problems:
        report(env, source_line(env, line) if line is not None else 0, message,
               severity=severity)
    numbers = {line: n for n, line in enumerate(sorted(page.cells), 1)}
    out: list[Token] = []
    for token in state.tokens:
        cell = page.cells.get(token.map[0]) if token.type == "fence" and token.map else None
        if cell is None or not token.info.lstrip().startswith("{"):
            out.append(token)
        elif cell.shown or not cell.runs:
            out.append(_as_code(token, cell))
        else:
            out.extend(_cell(state, token, cell, numbers[cell.line]))
    state.tokens[:] = out


def _as_code(token: Token, cell: SourceCell) -> Token:
    """A cell shown as code: ```{{python}} with its fence lines, as Quarto shows it; a
    fence Quarto does not run (`{ojs}`, `{mermaid}`) as code of its language."""
    if cell.shown:
        opening = cell.fence.replace("{{", "{", 1).replace("}}", "}", 1)
        marker = opening[:len(opening) - len(opening.lstrip("`~"))]
        token.content = f"{opening}\n{token.content}{marker}\n"
        token.info = "markdown"
    else:
        lines = token.content.split("\n")
        while lines and _NOT_RUN_OPTION.fullmatch(lines[0].strip()):
            lines.pop(0)
        token.content = "\n".join(lines)
        token.info = _LEXER.get(cell.language, cell.language)
    return token


def _cell(state: StateCore, token: Token, cell: SourceCell, number: int) -> list[Token]:
    """The tokens of one executed cell (blogbuild.markdown.notebook.code_cell's)."""
    from blogbuild.content.notebooks.model import Cell
    from blogbuild.markdown.notebook import code_cell
    from blogbuild.markdown.notebook.document import NotebookPage, Part, code_language

    env = state.env
    page: PageCells = env["quarto"].cells
    options = page.options[cell.line]
    if not options.show:
        return []
    need(env, "notebook")
    language = code_language(_LEXER.get(cell.language, cell.language))
    if options.fenced:  # the cell as written, but for the option that asks for it
        lines = [line for line in cell.source.split("\n")[:options.skipped]
                 if not re.fullmatch(r"#\|\s*echo:\s*fenced\s*", line.strip())]
        code = "\n".join([cell.fence, *lines, options.code.strip("\n"),
                          cell.fence[:len(cell.fence) - len(cell.fence.lstrip("`~"))]])
        options, language = dataclasses.replace(options, code=code), "markdown"
    outputs = _outputs(page, cell.line, options) if options.output and options.evaluate \
        else ()
    part = Part("code", Cell("code", cell.source, number, {}, ()), cell.line + 1 +
                options.skipped, cell.end - 1, options, outputs,
                source_line(env, cell.end - 1) - 1)
    block = StateBlock("", state.md, env, [])
    block.level = token.level
    code_cell(block, part, NotebookPage("", (), language, (), page.scripts))
    name = _FILENAME.search(cell.attrs)
    title = next((group for group in name.groups() if group), "") if name else ""
    listing = f' #{options.lst_label} lst-cap="{options.lst_cap}"' \
        if options.lst_label.startswith("lst-") and _ID.fullmatch(options.lst_label) \
        and options.lst_cap and '"' not in options.lst_cap else ""
    for made in block.tokens:
        if made.type == "fence" and title and '"' not in title:
            made.info = f'{language} title="{title}"'
        if made.type == "fence" and listing:  # numbered as a `{#lst-x}` block is (labels)
            made.info += listing
    if options.label.startswith("tbl-") and options.tbl_cap:
        _table(env, block.tokens, options, cell.line)
    _figure_captions(block.tokens, cell.line)
    return block.tokens


def _figure_captions(tokens: list[Token], line: int) -> None:
    """The captions of the cell's figures (`fig-cap`) as Markdown, as Quarto reads them
    (`@fig-a` or *emphasis* in one), in tokens of their own as a figure div's are."""
    for index in range(len(tokens) - 1, -1, -1):
        closing = tokens[index]
        if closing.type != "figure_close" or closing.meta.get("quarto"):
            continue
        meta = closing.meta
        meta["quarto"] = True
        level = closing.level + 1
        tokens[index:index] = [
            Token("figure_caption_open", "figcaption", 1, level=level, block=True, meta=meta),
            Token("inline", "", 0, level=level + 1, content=str(meta.get("caption", "")),
                  children=[], map=[line, line + 1]),
            Token("figure_caption_close", "figcaption", -1, level=level, block=True)]


def _table(env: Env, tokens: list[Token], options: CellOptions, line: int) -> None:
    """A cell labelled `tbl-x` with a `tbl-cap`: its outputs are a numbered table, the
    caption above them, as a `::: {#tbl-x}` div's (Quarto's float of a cell's table)."""
    start = next((i for i, t in enumerate(tokens) if t.type == "nb_outputs_open"), None)
    if start is None or not _ID.fullmatch(options.label):
        return  # nothing shown, or an id no page may have
    end = next(i for i in range(len(tokens) - 1, start, -1)
               if tokens[i].type == "nb_outputs_close")
    level = tokens[start].level + 1
    opening = Token("table_figure_open", "figure", 1, level=level, block=True)
    number_table(env, opening, {"id": options.label})
    caption = Token("inline", "", 0, level=level + 2, content=options.tbl_cap, children=[],
                    map=[line, line + 1])
    made = [opening,
            Token("figure_caption_open", "figcaption", 1, level=level + 1, block=True,
                  meta=opening.meta), caption,
            Token("figure_caption_close", "figcaption", -1, level=level + 1, block=True)]
    for token in tokens[start + 1:end]:
        token.level += 1
    closing = Token("table_figure_close", "figure", -1, level=level, block=True,
                    meta=opening.meta)
    tokens[start + 1:end] = [*made, *tokens[start + 1:end], closing]


def _outputs(page: PageCells, line: int, options: CellOptions) -> tuple[OutputPart, ...]:
    """The outputs of the cell at `line` as the notebook plugin shows them."""
    from blogbuild.content.notebooks.model import Output
    from blogbuild.markdown.notebook.document import OutputPart, latex_markdown
    from blogbuild.markdown.notebook.outputs import Choice, choose
    asis = options.asis
    found: list[OutputPart] = []
    for output in page.outputs.get(line, ()):
        if output.kind == "stream" and asis:
            found.append(OutputPart(output, Choice("text/markdown"), markdown=output.text))
        elif output.kind in ("stream", "error"):
            found.append(OutputPart(output, Choice(output.kind)))
        else:
            choice = choose(output, page.scripts)
            value = str(output.data.get(choice.mime, ""))
            markdown = value if choice.mime == "text/markdown" else \
                latex_markdown(value) if choice.mime == "text/latex" else ""
            found.append(OutputPart(output, choice, markdown=markdown))
    note = page.notes.get(line)
    if note:
        found.append(OutputPart(Output("display_data"), Choice("", note=note)))
    return tuple(found)


def _inline(state: StateCore) -> None:
    """`{python} expr` code spans: the value the cells' run or freeze gave, else the code
    with one warning for the page."""
    if _quarto_cells(state.env) is None:
        return
    from blogbuild.quarto.inline import key

    env = state.env
    values = env["quarto"].cells.inline
    seen: dict[tuple[str, str], int] = {}
    unknown = 0
    for token in state.tokens:
        for child in token.children or ():
            match = _INLINE.fullmatch(child.content) if child.type == "code_inline" else None
            if match is None:
                continue
            value = values.get(key(match[1], match[2], seen))
            if value is None:
                child.content = match[2]
                unknown = unknown or source_line(env, token.map[0] if token.map else 0)
            else:
                child.type, child.content, child.markup = "text", value, ""
    if unknown:
        report(env, unknown, "the inline expressions of the page are shown as code, without "
               "their values: nothing ran them (only Python runs at build time, under "
               "'notebooks.execute'), and no freeze file holds them; render the file with "
               "Quarto to freeze them")
