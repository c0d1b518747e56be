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
from blogbuild.markdown.images import drawn_picture, picture_html
from blogbuild.urls import encode_path

if TYPE_CHECKING:  # a page without a notebook never loads the notebook modules
    from blogbuild.images.process import ImageInfo
    from blogbuild.markdown.notebook.document import NotebookPage, OutputPart, Part

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
            _code_cell(block, part, page)


def _tokenize(block: StateBlock, start: int, end: int) -> None:
    """Parse the lines start..end as a document of their own (a paragraph's rule reads up
    to `lineMax`, not to the end it is given: the end is set there too)."""
    last = block.lineMax
    block.line, block.lineMax = start, end
    try:
        block.md.block.tokenize(block, start, end)
    finally:
        block.lineMax = last


def _code_cell(block: StateBlock, part: Part, page: NotebookPage) -> None:
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
                                                  if o.choice.mime in _FIGURES)}
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
    if found.end > found.start:  # Markdown of the page, parsed where it stands
        first = len(block.tokens)
        opener = block.push("nb_output", "div", 0)
        opener.meta = {"html": '<div class="nb-markdown">\n'}
        # What code printed is not the author's: its HTML is cleaned (_output_html), and
        # no widget of it runs code or loads a page (the div widgets stay HTML).
        block.env["nb_output_parse"] = True
        try:
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
    token.meta = _prepare(block.env, part, found, page, figure, bare=frame is not None)
    if frame is not None:
        closer = block.push("figure_close", "figure", -1)
        closer.meta = frame.meta


def _warn(env: Env, part: Part, message: str) -> None:
    """A warning about an output of `part`'s cell (at the line that stands for them)."""
    report(env, part.outputs_line + 1, message)


def _prepare(env: Env, part: Part, found: OutputPart, page: NotebookPage,
             figure: int | None = None, *, bare: bool = False) -> dict[str, Any]:
    """What the render rule shows for one output: its HTML, or a picture to place
    (`bare`: inside a figure of the page, which has the caption)."""
    from blogbuild.markdown.notebook import outputs as shown

    output, choice = found.output, found.choice
    note = (f'<p class="nb-note" role="note">{escapeHtml(choice.note)}</p>\n'
            if choice.note else "")
    if output.kind == "stream":
        html, cut = shown.stream_html(output)
    elif output.kind == "error":
        html, cut = shown.error_html(output)
    elif choice.mime == "":
        return {"html": note}
    elif choice.mime == "text/html":
        html, cut, removed = shown.html_output(str(output.data["text/html"]), page.scripts)
        removed = tuple(r for r in removed if r != "a style sheet")  # only looks: no word
        if removed and not choice.note:
            note = ('<p class="nb-note" role="note">Left out of this output: '
                    f'{escapeHtml(", ".join(removed))}.</p>\n')
        active = [r for r in removed if not r.startswith("all markup")]
        if active:
            _warn(env, part, f"an HTML output held {', '.join(active)}, which the page "
                  "leaves out (set 'notebooks.scripts: true' in site.yaml to let outputs "
                  "run scripts)")
        if len(active) < len(removed):
            _warn(env, part, "an HTML output is nested too deeply to show as HTML; its "
                  "text is shown instead")
    elif choice.mime == "application/javascript":
        html, cut = shown.script_html(str(output.data[choice.mime])), False
    elif choice.mime == "image/svg+xml":
        html, cut = _svg(env, part, output, bare=bare), False
    elif choice.mime in shown.PICTURES:
        return {**_picture(env, part, found, figure), "bare": bare}
    elif choice.mime == "application/json" or choice.mime.endswith("+json"):
        from blogbuild.markdown.highlight import render_codeblock

        text, cut = shown.cut_text(shown.json_text(output.data[choice.mime]))
        html = render_codeblock(text + "\n", "json")
    else:
        html, cut = shown.plain_html(str(output.data.get(choice.mime, "")),
                                     "nb-result" if output.kind == "execute_result"
                                     else "nb-text")
    if cut:
        _warn(env, part, "an output is longer than the page shows; "
              "it is cut, with a note (clear or shorten the output in the notebook)")
    return {"html": html + note}


def _svg(env: Env, part: Part, output: Any, *, bare: bool = False) -> str:
    from blogbuild.diagrams.svg import BadSvg, adapt
    from blogbuild.markdown.notebook import outputs as shown
    from blogbuild.markdown.notebook.clean import has_active_content

    number = env.setdefault("nb_svgs", [0])
    number[0] += 1
    svg = str(output.data["image/svg+xml"])
    if len(svg) > shown.HTML_LIMIT:
        _warn(env, part, f"an SVG output of {len(svg):,} characters "
              "is too large to show; it is left out")
        return ('<p class="nb-note" role="note">A picture too large to show here was left '
                "out. It is in the notebook.</p>\n")
    try:
        if _depth(svg) > _SVG_DEPTH:
            raise RecursionError
        inline = adapt(svg, f"nb{part.cell.number}-{number[0]}",
                       title=shown.alt_text(output, ""))
    except RecursionError:
        _warn(env, part, "an SVG output is nested too deeply to show; it is left out")
        return ('<p class="nb-note" role="note">A picture nested too deeply to show was '
                "left out. It is in the notebook.</p>\n")
    except BadSvg:
        _warn(env, part, "an SVG output is not valid SVG; it is "
              "left out")
        return '<p class="nb-note" role="note">An output that is not valid SVG was left out.</p>\n'
    if has_active_content(svg):
        _warn(env, part, "an SVG output held a script or an event handler, which the page "
              "leaves out (SVG outputs are always cleaned)")
    if bare:
        return f'<div class="nb-svg">{inline}</div>\n'
    return f'<figure class="nb-figure nb-svg">{inline}</figure>\n'


#: Elements nested deeper in an SVG output are not shown (what draws a plot is shallow;
#: the writer of the page's SVG recurses once per level).
_SVG_DEPTH = 100


def _depth(svg: str) -> int:
    """How deep the elements of `svg` nest, read without recursion (0: not XML)."""
    import io
    import xml.etree.ElementTree as ET

    depth = deepest = 0
    try:
        for event, _ in ET.iterparse(io.StringIO(svg), events=("start", "end")):
            depth += 1 if event == "start" else -1
            deepest = max(deepest, depth)
    except ET.ParseError:
        return 0
    return deepest


def _picture(env: Env, part: Part, found: OutputPart, figure: int | None) -> dict[str, Any]:
    from blogbuild.markdown.notebook import outputs as shown

    output, mime = found.output, found.choice.mime
    options = part.options
    data = shown.picture_bytes(output.data, mime)
    number = env.setdefault("nb_figures", [0])
    number[0] += 1
    fallback = f"Figure {number[0]} of the notebook, drawn by cell {part.cell.number}"
    index = figure or 0
    alt = ((options.alt(index) or options.caption(index, index + 1)) if options else "") \
        or shown.alt_text(output, fallback)
    width, height = shown.shown_size(output, mime)
    if data is None:
        _warn(env, part, f"an {mime} output is not base64; it is "
              "left out")
        return {"html": '<p class="nb-note" role="note">A picture that could not be read was '
                        "left out.</p>\n"}
    if len(data) > shown.IMAGE_LIMIT:
        _warn(env, part, f"a picture output of {len(data):,} bytes "
              "is too large to publish; it is left out (save it smaller in the notebook)")
        return {"html": '<p class="nb-note" role="note">A picture too large to publish was '
                        "left out. It is in the notebook.</p>\n"}
    meta: dict[str, Any] = {"alt": alt, "width": width, "height": height, "mime": mime}
    made = _made(env, data, mime)
    if made is not None:
        meta["picture"] = made
    else:
        meta["data"] = base64.b64encode(data).decode("ascii")
    return meta


def _made(env: Env, data: bytes, mime: str) -> ImageInfo | None:
    """The copies of an output's picture beside the page (None: a data: URL; a GIF may be
    an animation, kept as it is)."""
    if mime == "image/gif":
        return None
    return drawn_picture(env, data, ".jpg" if mime == "image/jpeg" else ".png")


def _output_html(state: StateCore) -> None:
    """Raw HTML in the Markdown of an output is cleaned as HTML outputs are (an output is
    what code printed, not what the author wrote), unless the site allows scripts."""
    page: NotebookPage | None = state.env.get("notebook")
    if page is None or page.scripts:
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
            info = _made(env, data, mime or "")
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
    meta = tokens[idx].meta
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
