"""The HTML of a chart on a page (what static/js/charts.js makes live):

    <figure class="chart chart-KIND" [id]>
    <div class="chart-scroll" tabindex="0" role="group" aria-label="Chart: …">
    <div class="chart-box" data-chart="KIND" data-width="W" data-height="H">
      what the reader sees before the library loads: Vega's drawings in the light and dark
      looks, or a Plotly or Bokeh chart's stand-in
    </div></div>
    <p class="chart-words" id="…" hidden>its title, description and axes, in words</p>
    <script type="application/json" class="chart-data">what the library draws</script>
    [<figcaption>…</figcaption>]
    </figure>

A feed gets the light drawing alone. The words are the drawing's accessible description
(`aria-describedby`) and what search finds of the chart: the SVG's own text is not indexed.
"""

from __future__ import annotations

from typing import Any

from markdown_it.common.utils import escapeHtml

from blogbuild.markdown.diagrams import caption_html


def chart_html(meta: dict[str, Any], *, feed: bool) -> str:
    """A chart token's HTML (blogbuild.markdown.charts renders it); `meta` holds what the
    chart stage made: kind, body (the inside of the box), data (the JSON), width, height,
    words, label, number and figure_id when it is a numbered figure, caption."""
    kind = str(meta["kind"])
    family = "vega" if kind in ("vega", "vega-lite") else kind
    words_id = f'{meta["prefix"]}-words'
    label = escapeHtml(str(meta.get("label") or "Chart"))
    bundle = f' data-bundle="{escapeHtml(str(meta["bundle"]))}"' if meta.get("bundle") else ""
    if feed:
        inner = str(meta.get("feed_body", meta["body"]))
    else:
        inner = (f'<div class="chart-scroll" tabindex="0" role="group" aria-label="{label}">'
                 f'<div class="chart-box" data-chart="{escapeHtml(kind)}"{bundle} '
                 f'data-width="{int(meta.get("width", 0))}" '
                 f'data-height="{int(meta.get("height", 0))}">{meta["body"]}</div></div>\n')
    words = str(meta.get("words") or "")
    if words and not feed:
        inner += f'<p class="chart-words" id="{words_id}" hidden>{escapeHtml(words)}</p>\n'
    if not feed and meta.get("data"):
        inner += f'<script type="application/json" class="chart-data">{meta["data"]}</script>\n'
    ident = f' id="{escapeHtml(str(meta["figure_id"]))}"' if meta.get("number") else ""
    caption = f"<figcaption>{caption_html(meta)}</figcaption>\n" if meta.get("number") else ""
    if meta.get("bare"):  # inside a notebook's figure, which has the caption
        return f'<div class="chart chart-{family}">\n{inner}</div>\n'
    return f'<figure class="chart chart-{family}"{ident}>\n{inner}{caption}</figure>\n'


def words_of(title: str, description: str, words: tuple[str, ...]) -> str:
    """A chart in words: its title, description, and what its axes and legends show."""
    parts = [p.rstrip(".") + "." for p in (title, description) if p]
    if words:
        parts.append("Shows " + ", ".join(words) + ".")
    return " ".join(parts)
