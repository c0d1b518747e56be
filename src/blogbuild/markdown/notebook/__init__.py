"""Jupyter notebooks: the cells of a notebook as one page (see .document).

For a notebook, `env["notebook"]` holds its page (a NotebookPage); the parser's block
rule then reads the Markdown parts one by one (each a block of its own) and puts the code
cells between them:

    <div class="nb-cell" data-cell="4">
      the code, highlighted as a fence of the notebook's language is (folded in our
      collapsible for hide-input / code-fold), or a runnable block (runnable: true)
      <div class="nb-outputs">  (folded for hide-output)
        <pre class="nb-stream nb-stdout">…</pre>, <figure class="nb-figure">…</figure>, …
      </div>
    </div>

Markdown and LaTeX outputs are parsed in place from their lines of the text, so they get
the page's math and links. Raw HTML in an output's Markdown is cleaned as HTML outputs
are (unless the site allows scripts). Pictures become files beside the page through the
image stage's copies, as build-time figures do (blogbuild.images.outputs), and
`attachment:` pictures of Markdown cells too.
"""

from __future__ import annotations

import base64
import re
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any
from urllib.parse import unquote

from markdown_it import MarkdownIt
from markdown_it.common.utils import escapeHtml
from markdown_it.rules_block import StateBlock
from markdown_it.rules_core import StateCore
from markdown_it.rules_core import block as core_block
from markdown_it.token import Token
from markdown_it.utils import OptionsDict

from blogbuild.markdown.env import Env, need, report, token_line
from blogbuild.markdown.images import picture_html
from blogbuild.markdown.notebook.prepare import made_picture, prepare
from blogbuild.urls import encode_path

if TYPE_CHECKING:  # a page without a notebook never loads the notebook modules
    from blogbuild.images.process import ImageInfo
    from blogbuild.markdown.notebook.document import NotebookPage, OutputPart, Part

#: The env's key that says, on a page that is no notebook, whether the Markdown of its
#: outputs may run scripts (`notebooks.scripts`).
OUTPUT_SCRIPTS = "nb_output_scripts"
#: Figures of outputs are as wide as the column at most, their own width otherwise.
_FIGURE_SIZES = "(max-width: 44rem) calc(100vw - 2.5rem), 41.5rem"


def notebook_plugin(md: MarkdownIt) -> None:
    md.core.ruler.at("block", _block)
    md.core.ruler.after("inline", "notebook_output_html", _output_html)
    md.core.ruler.after("site_images", "notebook_attachments", _attachments)
    md.add_render_rule("nb_cell_open", _cell_open)
    md.add_render_rule("nb_cell_close", _static("</div>\n"))
    md.add_render_rule("nb_outputs_open", _static('<div class="nb-outputs">\n'))
    md.add_render_rule("nb_outputs_close", _static("</div>\n"))
    md.add_render_rule("nb_output", _output)


def _static(html: str) -> Any:
    def render(self: Any, tokens: Sequence[Token], idx: int, options: OptionsDict,
               env: Env) -> str:
        return html
    return render


# --- parsing --------------------------------------------------------------------------


def _block(state: StateCore) -> None:
    page: NotebookPage | None = state.env.get("notebook")
    if page is None or state.inlineMode:
        core_block(state)
        return
    need(state.env, "notebook")
    block = StateBlock(state.src, state.md, state.env, state.tokens)
    for part in page.parts:
        if part.kind == "markdown":
            _tokenize(block, part.start, part.end)
        elif part.kind == "html":
            token = block.push("html_block", "", 0)
            token.content = part.cell.source.rstrip("\n") + "\n"
            token.map = [part.start, part.end]
        else:
            code_cell(block, part, page)


def _tokenize(block: StateBlock, start: int, end: int) -> None:
    """Parse the lines start..end as a document of their own (a paragraph's rule reads up
    to `lineMax`, not to the end it is given: the end is set there too)."""
    last = block.lineMax
    block.line, block.lineMax = start, end
    try:
        block.md.block.tokenize(block, start, end)
    finally:
        block.lineMax = last


def code_cell(block: StateBlock, part: Part, page: NotebookPage) -> None:
    """The tokens of a code cell and its outputs (a Quarto page's cells too:
    blogbuild.markdown.quarto.cells)."""
    options = part.options
    assert options is not None
    env = block.env
    visible = [o for o in part.outputs if o.choice.mime or o.choice.note
               or o.output.kind in ("stream", "error")]
    show_input = options.input and options.code.strip() != ""
    if not show_input and not visible:
        return
    opener = block.push("nb_cell_open", "div", 1)
    opener.meta = {"cell": part.cell.number}
    opener.map = [part.start, part.end]
    if show_input:
        if options.fold_input:
            _fold_open(block, options.code_summary, options.fold_input == "open")
        runnable = env.get("notebook_runnable") and page.language == "python"
        if runnable:
            need(env, "runnable")
            token = block.push("runnable_open", "div", 1)
            token.meta = {"id": "", "classes": ["nb-runnable"], "lang": "python",
                          "isolated": False, "execute": "browser", "allow_error": False,
                          "line": 0, "data": {}}
        fence = block.push("fence", "code", 0)
        fence.info = page.language  # one word (NotebookPage.language), never options
        fence.markup = "```"
        code = options.code.strip("\n")
        fence.content = code + "\n"
        first = part.start + len(options.code) - len(options.code.lstrip("\n"))
        fence.map = [first, first + code.count("\n") + 1]  # the lines of the code shown
        if runnable:
            block.push("runnable_close", "div", -1)
        if options.fold_input:
            block.push("collapsible_close", "details", -1)
    if visible:
        if options.fold_output:
            _fold_open(block, "Output", False)
        block.push("nb_outputs_open", "div", 1)
        # Outputs are compared by identity: two outputs may hold the same picture.
        figures = {id(o): i for i, o in enumerate(o for o in visible
                                                  if o.choice.mime in _FIGURES
                                                  or o.choice.chart is not None)}
        for found in visible:
            _output_tokens(block, part, found, page, figures.get(id(found)), len(figures))
        block.push("nb_outputs_close", "div", -1)
        if options.fold_output:
            block.push("collapsible_close", "details", -1)
    block.push("nb_cell_close", "div", -1)


def _fold_open(block: StateBlock, label: str, opened: bool) -> None:
    need(block.env, "collapsible")
    token = block.push("collapsible_open", "details", 1)
    token.meta = {"id": "", "classes": ["nb-fold"], "label": label, "open": opened}


#: Outputs that are figures: a caption (`#| fig-cap`) numbers them with the page's figures.
_FIGURES = ("image/png", "image/jpeg", "image/gif", "image/svg+xml")
_FIGURE_ID = re.compile(r"[A-Za-z][\w.:-]*")


def _output_tokens(block: StateBlock, part: Part, found: OutputPart, page: NotebookPage,
                   figure: int | None, figures: int) -> None:
    if found.end > found.start or found.markdown:  # Markdown, parsed where it stands
        first = len(block.tokens)
        opener = block.push("nb_output", "div", 0)
        opener.meta = {"html": '<div class="nb-markdown">\n'}
        # What code printed is not the author's: its HTML is cleaned (_output_html), and
        # no widget of it runs code or loads a page (the div widgets stay HTML).
        block.env["nb_output_parse"] = True
        try:
            if found.markdown:  # not a part of the page's text: parsed on its own
                block.md.block.parse(found.markdown, block.md, block.env, block.tokens)
                for token in block.tokens[first + 1:]:
                    token.map = [part.start, part.end]
            else:
                _tokenize(block, found.start, found.end)
        finally:
            block.env["nb_output_parse"] = False
        for token in block.tokens[first + 1:]:
            token.meta = {**(token.meta or {}), "nb_output": True}
        closer = block.push("nb_output", "div", 0)
        closer.meta = {"html": "</div>\n"}
        return
    options = part.options
    caption = options.caption(figure, figures) if options and figure is not None else ""
    frame = None
    if caption:  # a numbered figure of the page (blogbuild.markdown.figures numbers it)
        frame = block.push("figure_open", "figure", 1)
        frame.meta = {"caption": caption}
        label = options.label if options else ""
        if label and figure == figures - 1 and _FIGURE_ID.fullmatch(label):
            frame.attrSet("id", label)
    token = block.push("nb_output", "div", 0)
    token.map = [part.start, part.end]
    token.meta = prepare(block.env, part, found, page, figure, bare=frame is not None)
    if "chart" in token.meta:  # drawn by the chart stage (blogbuild.stages.charts)
        token.type, token.tag, token.meta = "chart", "figure", token.meta["chart"]
        block.env.setdefault("charts", []).append(token)
    if frame is not None:
        closer = block.push("figure_close", "figure", -1)
        closer.meta = frame.meta


def _output_html(state: StateCore) -> None:
    """Raw HTML in the Markdown of an output is cleaned as HTML outputs are (an output is
    what code printed, not what the author wrote), unless the site allows scripts."""
    page: NotebookPage | None = state.env.get("notebook")
    # A Quarto page's cells: `OUTPUT_SCRIPTS` says whether their outputs may run scripts.
    scripts = page.scripts if page is not None else state.env.get(OUTPUT_SCRIPTS, True)
    if scripts:
        return
    from blogbuild.markdown.notebook.clean import clean_html
    from blogbuild.urls import is_safe_url

    for token in state.tokens:
        if not (token.meta or {}).get("nb_output"):
            continue
        if token.type == "html_block":
            token.content = clean_html(token.content).html + "\n"
        for child in token.children or ():
            if child.type == "html_inline":
                child.type = "text"
            attr = "href" if child.type == "link_open" else "src" if child.type == "image" \
                else ""
            if attr and not is_safe_url(str(child.attrGet(attr) or "")):
                # What code printed is not the author's link: a warning, never a script.
                child.attrSet(attr, "#")
                report(state.env, token_line(state.env, token), "a Markdown output holds a "
                       "link that would run a script (javascript: or the like); the page "
                       "leaves it out")


def _attachments(state: StateCore) -> None:
    """`![plot](attachment:plot.png)`: a picture pasted into a Markdown cell, kept in the
    notebook, published beside the page as the cell's other pictures are."""
    page: NotebookPage | None = state.env.get("notebook")
    if page is None:
        return
    from blogbuild.markdown.notebook import outputs as shown

    env = state.env
    cells = {part.cell.number: part.cell for part in page.parts}
    origins = page.origins
    for token in state.tokens:
        for child in token.children or ():
            src = str(child.attrGet("src") or "") if child.type == "image" else ""
            if not src.startswith("attachment:"):
                continue
            line = token.map[0] if token.map else 0
            cell = cells.get(origins[line][0]) if line < len(origins) else None
            name = unquote(src[len("attachment:"):])  # the link's URL is %-encoded
            bundle = cell.attachments.get(name) if cell is not None else None
            mime = next((m for m in shown.PICTURES if bundle and m in bundle), None)
            data = shown.picture_bytes(bundle, mime) if bundle and mime else None
            if data is None:
                report(env, line + 1, f"the picture 'attachment:{name}' is not attached to "
                       "this cell (or is not a PNG, JPEG or GIF); its alt text is shown: "
                       "paste the picture into the cell again in Jupyter")
                child.type, child.tag, child.attrs = "text", "", {}
                child.content = child.content or name  # its alt text, else its name
                child.children = None
                continue
            info = made_picture(env, data, mime or "")
            if info is None:
                child.attrSet("src", f"data:{mime};base64,{base64.b64encode(data).decode()}")
                continue
            base = str(env.get("page_url") or "")
            child.attrSet("src", base + encode_path(info.variants[-1].name))
            child.meta = {**(child.meta or {}), "picture": info, "eager": False}


# --- rendering ------------------------------------------------------------------------


def _cell_open(self: Any, tokens: Sequence[Token], idx: int, options: OptionsDict,
               env: Env) -> str:
    return f'<div class="nb-cell" data-cell="{int(tokens[idx].meta["cell"])}">\n'


def _output(self: Any, tokens: Sequence[Token], idx: int, options: OptionsDict,
            env: Env) -> str:
    return output_html(tokens[idx].meta, env)


def output_html(meta: dict[str, Any], env: Env) -> str:
    """The HTML of an output's meta (blogbuild.markdown.notebook.prepare): its HTML, or its
    picture (a chart's stored stand-in too: blogbuild.markdown.charts)."""
    if "html" in meta:
        return str(meta["html"])
    alt = escapeHtml(str(meta["alt"]))
    wrap = ("", "\n") if meta.get("bare") else ('<figure class="nb-figure">', "</figure>\n")
    info: ImageInfo | None = meta.get("picture")
    width, height = meta.get("width"), meta.get("height")
    if info is not None:
        if width is None:
            width, height = info.width, info.height
        elif height is None:
            height = max(1, round(info.height * int(width) / info.width))
        base = str(env.get("feed_base") if env.get("feed") else env.get("page_url") or "")
        attrs = f'alt="{alt}" width="{int(width)}" height="{int(height or 1)}"'
        if env.get("feed"):  # a feed reader gets one copy
            one = [v for v in info.variants if v.format == info.variants[-1].format][-1]
            img = (f'<img src="{escapeHtml(base + encode_path(one.name))}" {attrs} '
                   'loading="lazy" decoding="async">')
        else:
            sizes = _FIGURE_SIZES if width is None or int(width) > 600 else \
                f"(max-width: {int(width) + 40}px) calc(100vw - 2.5rem), {int(width)}px"
            img = picture_html(info, base, attrs, sizes)
        return f"{wrap[0]}{img}{wrap[1]}"
    size = "".join(f' {name}="{int(value)}"' for name, value in (("width", width),
                                                                  ("height", height))
                   if value is not None)
    src = f"data:{meta['mime']};base64,{meta['data']}"
    return (f'{wrap[0]}<img src="{src}" alt="{alt}"{size} loading="lazy" '
            f'decoding="async">{wrap[1]}')
