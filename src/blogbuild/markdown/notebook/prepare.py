"""What a notebook's output shows (blogbuild.markdown.notebook): its HTML, made safe, or a
picture to place beside the page; a warning at the cell's outputs for what is left out."""

from __future__ import annotations

import base64
from typing import TYPE_CHECKING, Any

from markdown_it.common.utils import escapeHtml

from blogbuild.markdown.env import Env, report
from blogbuild.markdown.images import drawn_picture

if TYPE_CHECKING:  # a page without a notebook never loads the notebook modules
    from blogbuild.images.process import ImageInfo
    from blogbuild.markdown.notebook.document import NotebookPage, OutputPart, Part


def warn(env: Env, part: Part, message: str) -> None:
    """A warning about an output of `part`'s cell (at the line that stands for them)."""
    report(env, part.outputs_line + 1, message)


def prepare(env: Env, part: Part, found: OutputPart, page: NotebookPage,
             figure: int | None = None, *, bare: bool = False) -> dict[str, Any]:
    """What the render rule shows for one output: its HTML, or a picture to place
    (`bare`: inside a figure of the page, which has the caption)."""
    import blogbuild.markdown.notebook.outputs as shown

    output, choice = found.output, found.choice
    note = (f'<p class="nb-note" role="note">{escapeHtml(choice.note)}</p>\n'
            if choice.note else "")
    if output.kind == "stream":
        html, cut = shown.stream_html(output)
    elif output.kind == "error":
        html, cut = shown.error_html(output)
    elif choice.mime == "":
        return {"html": note}
    elif choice.mime == shown.CHART and choice.chart is not None:
        return {"chart": _chart(env, part, found, figure, bare=bare)}
    elif choice.mime == "text/html":
        html, cut, removed = shown.html_output(str(output.data["text/html"]), page.scripts)
        removed = tuple(r for r in removed if r != "a style sheet")  # only looks: no word
        if removed and not choice.note:
            note = ('<p class="nb-note" role="note">Left out of this output: '
                    f'{escapeHtml(", ".join(removed))}.</p>\n')
        active = [r for r in removed if not r.startswith("all markup")]
        if active:
            warn(env, part, f"an HTML output held {', '.join(active)}, which the page "
                  "leaves out (set 'notebooks.scripts: true' in site.yaml to let outputs "
                  "run scripts)")
        if len(active) < len(removed):
            warn(env, part, "an HTML output is nested too deeply to show as HTML; its "
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
        warn(env, part, "an output is longer than the page shows; "
              "it is cut, with a note (clear or shorten the output in the notebook)")
    return {"html": html + note}


def _chart(env: Env, part: Part, found: OutputPart, figure: int | None, *,
           bare: bool) -> dict[str, Any]:
    """A chart's meta for the chart stage: its kind and value, and, for a library the
    build cannot draw with (Plotly, Bokeh), the picture the notebook stored beside it,
    which the page shows until the library draws the chart."""
    import blogbuild.markdown.notebook.outputs as shown
    from blogbuild.markdown.notebook.document import OutputPart

    assert found.choice.chart is not None
    kind, value = found.choice.chart
    alt = (options.alt(figure or 0) if (options := part.options) else "") or ""
    meta: dict[str, Any] = {"kind": kind, "value": value, "alt": alt,
                            "outputs_line": part.outputs_line + 1, "bare": bare}
    stored = next((m for m in shown.PICTURES if shown.picture_bytes(found.output.data, m)),
                  None)
    if kind in ("plotly", "bokeh") and stored is not None:
        picture = _picture(env, part, OutputPart(found.output, shown.Choice(stored)), figure)
        if "html" not in picture:  # a picture that could be read
            meta["stand_in"] = {**picture, "bare": True}
    return meta


def _svg(env: Env, part: Part, output: Any, *, bare: bool = False) -> str:
    import blogbuild.markdown.notebook.outputs as shown
    from blogbuild.diagrams.svg import BadSvg, adapt
    from blogbuild.markdown.notebook.clean import has_active_content

    number = env.setdefault("nb_svgs", [0])
    number[0] += 1
    svg = str(output.data["image/svg+xml"])
    if len(svg) > shown.HTML_LIMIT:
        warn(env, part, f"an SVG output of {len(svg):,} characters "
              "is too large to show; it is left out")
        return ('<p class="nb-note" role="note">A picture too large to show here was left '
                "out. It is in the notebook.</p>\n")
    try:
        if _depth(svg) > _SVG_DEPTH:
            raise RecursionError
        inline = adapt(svg, f"nb{part.cell.number}-{number[0]}",
                       title=shown.alt_text(output, ""))
    except RecursionError:
        warn(env, part, "an SVG output is nested too deeply to show; it is left out")
        return ('<p class="nb-note" role="note">A picture nested too deeply to show was '
                "left out. It is in the notebook.</p>\n")
    except BadSvg:
        warn(env, part, "an SVG output is not valid SVG; it is "
              "left out")
        return '<p class="nb-note" role="note">An output that is not valid SVG was left out.</p>\n'
    if has_active_content(svg):
        warn(env, part, "an SVG output held a script or an event handler, which the page "
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
    import blogbuild.markdown.notebook.outputs as shown

    output, mime = found.output, found.choice.mime
    options = part.options
    data = shown.picture_bytes(output.data, mime)
    number = env.setdefault("nb_figures", [0])
    number[0] += 1
    page = "post" if env.get("quarto") is not None else "notebook"  # a Quarto page's cell
    fallback = f"Figure {number[0]} of the {page}, drawn by cell {part.cell.number}"
    index = figure or 0
    alt = ((options.alt(index) or options.caption(index, index + 1)) if options else "") \
        or shown.alt_text(output, fallback)
    width, height = shown.shown_size(output, mime)
    if data is None:
        warn(env, part, f"an {mime} output is not base64; it is "
              "left out")
        return {"html": '<p class="nb-note" role="note">A picture that could not be read was '
                        "left out.</p>\n"}
    if len(data) > shown.IMAGE_LIMIT:
        warn(env, part, f"a picture output of {len(data):,} bytes "
              "is too large to publish; it is left out (save it smaller in the notebook)")
        return {"html": '<p class="nb-note" role="note">A picture too large to publish was '
                        "left out. It is in the notebook.</p>\n"}
    meta: dict[str, Any] = {"alt": alt, "width": width, "height": height, "mime": mime}
    made = made_picture(env, data, mime)
    if made is not None:
        meta["picture"] = made
    else:
        meta["data"] = base64.b64encode(data).decode("ascii")
    return meta


def made_picture(env: Env, data: bytes, mime: str) -> ImageInfo | None:
    """The copies of an output's picture beside the page (None: a data: URL; a GIF may be
    an animation, kept as it is)."""
    if mime == "image/gif":
        return None
    return drawn_picture(env, data, ".jpg" if mime == "image/jpeg" else ".png")
