"""The charts the build does not draw: Plotly figures and Bokeh documents, read from their
JSON (blogbuild.charts.plotly, .bokeh). Drawing either needs a browser (Plotly's own static
export, Kaleido, drives Chrome; Bokeh's export drives a browser through Selenium), so the
page shows a stand-in until the library, self-hosted and loaded when the chart comes into
view, draws it: a Plotly figure's title and data as tables, a Bokeh plot's title."""

from __future__ import annotations

from typing import Any

from markdown_it.token import Token

from blogbuild.charts import markup
from blogbuild.charts.embedded import Problem
from blogbuild.charts.specs import SpecError
from blogbuild.markdown.env import Env, need, report


def made(env: Env, token: Token, number: int, line: int) -> None:
    """Make a Plotly or Bokeh chart token ready to render; raises SpecError when it cannot
    be shown; a warning at `line` for each thing left out of it."""
    meta, value = token.meta, token.meta["value"]
    if isinstance(value, Problem):
        raise SpecError(value.message)
    if meta["kind"] == "plotly":
        from blogbuild.charts import plotly

        for dropped in value.dropped:
            report(env, line, f"a Plotly chart's {dropped} is left out: the page loads "
                   "nothing from other sites (put the picture beside the post and name it)")
        geo = sorted({str(t.get("type")) for t in value.data if isinstance(t, dict)
                      and t.get("type") in _GEO})
        if geo:
            report(env, line, f"a Plotly chart draws {', '.join(geo)} traces without the "
                   "outlines of countries and coasts, which Plotly loads from its own site "
                   "(this site loads nothing from elsewhere); draw the map with Vega-Lite "
                   "(its data beside the post), or save the figure as a picture")
        light, dark = plotly.layout_themes()
        body, data = plotly.static_html(value), plotly.data_json(value, light, dark)
        meta["bundle"] = plotly.bundle_for(value)
        words = _plotly_words(value.layout)
    else:
        from blogbuild.charts import bokeh

        body, data, words = bokeh.note_html(value), bokeh.data_json(value), []
    title = value.title or meta.get("alt") or meta.get("title") or ""
    meta.update(prefix=f"chart-{number}", width=value.width, height=value.height,
                words=markup.words_of(title, "", tuple(words)),
                label=f"Chart: {title}" if title else "Chart", body=body, feed_body=body,
                data=data)
    need(env, "chart")
    need(env, f"chart-{meta['kind']}")


#: Plotly's traces on a map of the world, whose outlines plotly.js loads from its CDN.
_GEO = ("scattergeo", "choropleth")


def _plotly_words(layout: dict[str, Any]) -> list[str]:
    """The titles of a Plotly figure's axes."""
    found = []
    for key, axis in sorted(layout.items()):
        if key.startswith(("xaxis", "yaxis", "zaxis")) and isinstance(axis, dict):
            title = axis.get("title")
            text = title.get("text") if isinstance(title, dict) else title
            if isinstance(text, str) and text.strip():
                found.append(" ".join(text.split()))
    return found
