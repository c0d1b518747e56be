"""Which form of a stored output a page shows, and its HTML.

An output of a code cell holds one value in several forms (MIME types), richest first in
what Jupyter shows. A page shows one, chosen as nbconvert's HTML export does (HTML, then
LaTeX, SVG, PNG, JPEG, Markdown, JSON, plain text), except that:

- HTML that would run something (a script, an event handler: interactive plots) is used
  only when the site allows it (`notebooks.scripts: true`); otherwise the static form the
  notebook stored beside it is shown (a plot's PNG), else the HTML cleaned, with a note;
- forms that only JavaScript can show (a widget, Plotly's or Vega's JSON) give a note
  saying what was left out when no static form was stored beside them;
- text forms longer than the limits below are cut, with a note and a warning.

Markdown and LaTeX are shown by the page's own Markdown pipeline (the notebook plugin
parses them in place, blogbuild.markdown.notebook); this module makes the HTML of the
others. Text is escaped here, once.
"""

from __future__ import annotations

import base64
import binascii
import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from markdown_it.common.utils import escapeHtml

from blogbuild.content.notebooks.read import Output
from blogbuild.markdown.notebook.ansi import ansi_html
from blogbuild.markdown.notebook.clean import clean_html, has_active_content

#: Characters of a text output (a stream, a traceback, plain text, JSON) shown; the rest
#: is cut with a note (a loop that printed a million lines is not read on a page).
TEXT_LIMIT = 100_000
#: Characters of an HTML or SVG output kept (cut HTML is mended by the cleaning parser).
HTML_LIMIT = 2_000_000
#: Bytes of a picture output published (a larger one is left out with a note).
IMAGE_LIMIT = 20_000_000

#: Forms a page shows, in the order they are preferred.
SHOWN = ("text/html", "text/latex", "image/svg+xml", "image/png", "image/jpeg", "image/gif",
         "text/markdown", "application/json", "text/plain")
PICTURES = ("image/png", "image/jpeg", "image/gif")
#: Static forms that stand in for HTML whose scripts are not run.
_STATIC = ("image/svg+xml", "image/png", "image/jpeg", "image/gif", "text/latex",
           "text/markdown")
#: What interactive forms are called in the note that says they were left out.
_INTERACTIVE = {
    "application/vnd.jupyter.widget-view+json": "a Jupyter widget",
    "application/vnd.plotly.v1+json": "a Plotly chart",
    "application/vnd.bokehjs_exec.v0+json": "a Bokeh plot",
    "application/vnd.bokehjs_load.v0+json": "a Bokeh plot",
    "application/vnd.holoviews_exec.v0+json": "a HoloViews plot",
    "application/javascript": "a script",
    "text/javascript": "a script",
}
_VEGA = re.compile(r"application/vnd\.vega(?:lite)?\.v\d+\+json")
_JSON_MIME = re.compile(r"application/(?:[\w.+-]+\+)?json")
#: The repr of an object that only says what it is (`<Figure size 640x480 with 1 Axes>`,
#: `<IPython.core.display.HTML object>`): not worth showing, nor an alt text.
_BARE_REPR = re.compile(r"<[\w.]+(?: [^<>\n]*)?(?: at 0x[0-9a-f]+)?>|<Figure size [^<>\n]*>|"
                        r"(?:HBox|VBox|[A-Z]\w*)\(children=.*\)|[A-Z]\w*\(value=.*\)", re.S)


@dataclass(frozen=True)
class Choice:
    """What a page shows of one output: its `mime` ("" for a note only), and a note."""

    mime: str
    note: str = ""
    #: The output's text was cut (a warning says so, once per output).
    cut: bool = False
    #: A chart the page draws (mime CHART): (kind, what the chart stage reads: a Vega
    #: spec, a Plotly figure's or Bokeh document's output data).
    chart: tuple[str, Any] | None = None


#: The `mime` of a Choice that is a chart (blogbuild.stages.charts draws it).
CHART = "chart"


def interactive_kind(data: Mapping[str, Any]) -> str | None:
    """What the output's interactive form is called, or None when it has none."""
    for mime in data:
        if mime in _INTERACTIVE:
            return _INTERACTIVE[mime]
        if _VEGA.fullmatch(mime):
            return "a Vega chart"
    return None


def choose(output: Output, scripts: bool) -> Choice:
    """The form of a display_data or execute_result output that the page shows: a chart
    the build draws whatever the site's `scripts` (its data, never its script), else as
    the module's docstring says."""
    data = output.data
    if "application/vnd.bokehjs_load.v0+json" in data or _plotly_loader(data):
        return Choice("")  # a library's loader: the page has its own, nothing to show
    chart = chart_of(data, output.metadata, scripts=scripts)
    if chart is not None:
        return Choice(CHART, chart=chart)
    interactive = interactive_kind(data)
    html = data.get("text/html")
    if isinstance(html, str) and html.strip():
        active = has_active_content(html[:HTML_LIMIT])
        if not active or scripts:
            return Choice("text/html")
        static = next((m for m in _STATIC if _usable(data, m)), None)
        if static is not None:
            return Choice(static)
        return Choice("text/html", _left_out(interactive or "its script"))
    if scripts and isinstance(data.get("application/javascript"), str):
        return Choice("application/javascript")
    for mime in SHOWN[1:]:
        if mime == "text/plain" and interactive is None:
            own = next((m for m in sorted(data) if _JSON_MIME.fullmatch(m)), None)
            if own is not None:  # a library's own JSON (`application/vnd.x+json`)
                return Choice(own)
        if not _usable(data, mime):
            continue
        if mime == "text/plain" and interactive is not None:
            break  # a widget's repr ("IntSlider(value=3)") says nothing to a reader
        return Choice(mime)
    if interactive is not None:
        return Choice("", _left_out(interactive, widget="widget" in interactive))
    other = sorted(m for m in data if m not in SHOWN)
    if other:
        return Choice("", f"An output in a form this page cannot show ({', '.join(other)}) "
                          "was left out.")
    return Choice("")


def _plotly_loader(data: Mapping[str, Any]) -> bool:
    """Whether the output is plotly.py's notebook loader: plotly.js itself in a <script>
    (some 4.8 MB), which its notebook renderer writes before the first figure."""
    html = data.get("text/html")
    return isinstance(html, str) and "window.PlotlyConfig" in html[:1000] \
        and "Plotly.newPlot" not in html[-100_000:]


def chart_of(data: Mapping[str, Any], metadata: Mapping[str, Any] | None = None, *,
             scripts: bool = False) -> tuple[str, Any] | None:
    """(kind, value) of a chart in an output: a Vega or Vega-Lite spec (its MIME type, or
    the classic HTML that draws it with vega-embed), a Plotly figure or a Bokeh document
    (blogbuild.charts.plotly, .bokeh: the figure, or the Problem that keeps it off the
    page); None when the output holds no chart."""
    for mime, value in data.items():
        if _VEGA.fullmatch(mime):
            if isinstance(value, str):
                try:
                    value = json.loads(value)
                except (ValueError, RecursionError):
                    continue
            return ("vega-lite" if "vegalite" in mime else "vega"), value
    if "application/vnd.plotly.v1+json" in data:
        from blogbuild.charts.plotly import figure_from_bundle

        return "plotly", figure_from_bundle(data)
    if "application/vnd.bokehjs_exec.v0+json" in data:
        from blogbuild.charts.bokeh import document_from_bundle

        found = document_from_bundle(data, metadata or {}, scripts=scripts)
        return ("bokeh", found) if found is not None else None
    html = data.get("text/html")
    return _chart_in_html(html[:HTML_LIMIT], scripts) if isinstance(html, str) else None


def _chart_in_html(html: str, scripts: bool) -> tuple[str, Any] | None:
    """A chart in the HTML a library wrote for a page (its scripts read, never run)."""
    if "vegaEmbed" in html or "vega-embed" in html:
        from blogbuild.charts.classic import vega_in_html

        return vega_in_html(html)
    if "Plotly." in html:
        from blogbuild.charts.plotly import figure_from_html

        figure = figure_from_html(html)
        return ("plotly", figure) if figure is not None else None
    if "docs_json" in html:
        from blogbuild.charts.bokeh import document_from_html

        document = document_from_html(html, scripts=scripts)
        return ("bokeh", document) if document is not None else None
    return None


def _usable(data: Mapping[str, Any], mime: str) -> bool:
    value = data.get(mime)
    if mime == "application/json":
        return mime in data
    return isinstance(value, str) and bool(value.strip()) and not (
        mime == "text/plain" and _BARE_REPR.fullmatch(value.strip()) and len(data) > 1)


def _left_out(what: str, *, widget: bool = False) -> str:
    if widget:
        return (f"Interactive output left out: {what} needs the notebook's running kernel. "
                "Open the notebook in Jupyter to use it.")
    return (f"Interactive output left out: {what} needs JavaScript from the notebook, which "
            "this site does not run. Open the notebook in Jupyter to see it.")


def cut_text(text: str, limit: int = TEXT_LIMIT) -> tuple[str, bool]:
    """`text` up to `limit` characters (cut at a line end when one is near), and whether it
    was cut."""
    if len(text) <= limit:
        return text, False
    end = text.rfind("\n", limit - 2000, limit)
    return text[: end if end > 0 else limit], True


def cut_note(text: str, shown: int) -> str:
    return (f'<p class="nb-note" role="note">Output cut: {len(text):,} characters, the first '
            f"{shown:,} shown. The whole output is in the notebook.</p>\n")


def stream_html(output: Output) -> tuple[str, bool]:
    """A stream's HTML (stderr set apart), and whether it was cut."""
    text, cut = cut_text(output.text)
    name = "stderr" if output.name == "stderr" else "stdout"
    label = '<span class="nb-label">stderr</span>' if name == "stderr" else ""
    html = f'<pre class="nb-stream nb-{name}">{label}{ansi_html(text)}</pre>\n'
    return html + (cut_note(output.text, len(text)) if cut else ""), cut


def error_html(output: Output) -> tuple[str, bool]:
    """An exception's traceback, in the colours IPython gave it."""
    whole = "\n".join(output.traceback) or f"{output.ename}: {output.evalue}"
    text, cut = cut_text(whole)
    html = (f'<pre class="nb-error" tabindex="0" role="group" aria-label="Error: '
            f'{escapeHtml(output.ename or "exception")}">{ansi_html(text)}</pre>\n')
    return html + (cut_note(whole, len(text)) if cut else ""), cut


def plain_html(text: str, css: str = "nb-text") -> tuple[str, bool]:
    shown, cut = cut_text(text)
    html = f'<pre class="{css}">{ansi_html(shown)}</pre>\n'
    return html + (cut_note(text, len(shown)) if cut else ""), cut


def json_text(value: Any) -> str:
    """A JSON output pretty-printed (a string that holds JSON is parsed first)."""
    if isinstance(value, str):
        text: str = value
        try:
            value = json.loads(text)
        except (ValueError, RecursionError):
            return text
    try:
        return json.dumps(value, indent=2, ensure_ascii=False, sort_keys=False)
    except (TypeError, ValueError, RecursionError):
        return str(value)


def html_output(html: str, scripts: bool) -> tuple[str, bool, tuple[str, ...]]:
    """An HTML output for the page: cleaned unless `scripts`; (HTML, cut, what was
    removed). A pandas table gets the page's table style (its own was removed)."""
    shown, cut = cut_text(html, HTML_LIMIT)
    # A wide table scrolls in its box, which a keyboard reaches too (tabindex).
    box = '<div class="nb-html" tabindex="0" role="group" aria-label="Output">'
    if scripts and not cut:
        return f"{box}\n{shown}\n</div>\n", False, ()
    cleaned = clean_html(shown)
    body = f"{box}\n{cleaned.html}\n</div>\n" if cleaned.html.strip() else ""
    if cut:
        body += cut_note(html, len(shown))
    return body, cut, cleaned.removed


def script_html(code: str) -> str:
    """A JavaScript output, run as the notebook ran it (only with `notebooks.scripts`)."""
    safe = code.replace("</", "<\\/")
    return f"<script>\n{safe}\n</script>\n"


def picture_bytes(data: Mapping[str, Any], mime: str) -> bytes | None:
    """The bytes of a base64 picture form, or None when they are not base64."""
    value = data.get(mime)
    if not isinstance(value, str):
        return None
    try:
        return base64.b64decode("".join(value.split()), validate=True)
    except (binascii.Error, ValueError):
        return None


def alt_text(output: Output, fallback: str) -> str:
    """What a picture output shows, in words: the text form stored beside it unless that
    is only a repr, else `fallback`."""
    plain = output.data.get("text/plain")
    if isinstance(plain, str) and plain.strip() and not _BARE_REPR.fullmatch(plain.strip()):
        return " ".join(plain.split())[:500]
    return fallback


def shown_size(output: Output, mime: str) -> tuple[int | None, int | None]:
    """The width and height the notebook asked for (`metadata: {"image/png": {"width":
    …}}`: a retina figure shown at half its pixels)."""
    meta = output.metadata.get(mime) if isinstance(output.metadata, Mapping) else None
    if not isinstance(meta, Mapping):
        return None, None

    def size(key: str) -> int | None:
        value = meta.get(key)
        if isinstance(value, bool) or not isinstance(value, int | float):
            return None  # `true` is no width
        return int(value) if 0 < value < 100_000 else None

    return size("width"), size("height")
