"""Plotly figures as a page carries them: read from a notebook's
`application/vnd.plotly.v1+json` output or from the HTML Plotly writes (`fig.to_html()`,
`plotly.offline.plot(..., output_type="div")`, the notebook renderers' `text/html`), never
by running that HTML's script; the partial plotly.js bundle that draws them; the stand-in
a reader sees before the library loads (or without JavaScript); the JSON the page carries.

A figure is data. What would make the reader's browser ask another site for something is
dropped and named in `Figure.dropped`, so the caller can say so: the config's
`plotlyServerURL`, `showLink`, `linkText`, `sendData` (Chart Studio's links),
`topojsonURL` and `mapboxAccessToken` when set, any other key whose value is a URL with a
scheme (`https:`, `//host`, `data:` other than a PNG, JPEG, GIF or WebP picture), and a
layout picture (`layout.images`) whose source is such a URL. Map traces (scattermap,
choroplethmap, densitymap and their mapbox forms) draw over tiles from a map server, and
are refused. Geographic traces (scattergeo, choropleth) load their outlines from
`config.topojsonURL`, which charts.js points at the site's copy.

Titles written as strings and `titlefont` (plotly.py before 4 wrote them; plotly.js 3
dropped them) become `title: {text, font}`, so older notebooks draw with their titles.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from blogbuild.charts.embedded import (
    INLINE_LIMIT,
    Problem,
    TooDeep,
    compact_size,
    decode_at,
    finite,
    loads,
    merged,
    script_json,
    scripts_of,
    skip_to,
    too_large,
)
from blogbuild.charts.plotly_table import plain_text, table_html
from blogbuild.urls import has_scheme, is_safe_url, scheme_of

__all__ = ["MIME", "Bundle", "Figure", "bundle_for", "data_json", "figure_from_bundle",
           "figure_from_html", "layout_themes", "static_html"]

MIME = "application/vnd.plotly.v1+json"
Bundle = Literal["basic", "cartesian", "full"]

# The trace types of plotly.js's partial bundles, as the README of each dist package says
# ("Contains trace modules …"): plotly.js-basic-dist-min and
# plotly.js-cartesian-dist-min 4.1.1, plotly.js-dist-min 4.1.2 (npm). Every other
# type is drawn by the full bundle; a type none of them has cannot be drawn.
BASIC = frozenset({"bar", "pie", "scatter"})
CARTESIAN = BASIC | {"box", "contour", "heatmap", "histogram", "histogram2d",
                     "histogram2dcontour", "image", "scatterternary", "violin"}
FULL = CARTESIAN | {
    "barpolar", "candlestick", "carpet", "choropleth", "choroplethmap", "cone",
    "contourcarpet", "densitymap", "funnel", "funnelarea", "icicle", "indicator",
    "isosurface", "mesh3d", "ohlc", "parcats", "parcoords", "quiver", "sankey", "scatter3d",
    "scattercarpet", "scattergeo", "scattergl", "scattermap", "scatterpolar",
    "scatterpolargl", "scattersmith", "splom", "streamtube", "sunburst", "surface",
    "table", "treemap", "volume", "waterfall"}
#: Traces drawn over a map server's tiles (the mapbox forms are plotly.js 2's).
MAPS = frozenset({"scattermap", "choroplethmap", "densitymap", "scattermapbox",
                  "choroplethmapbox", "densitymapbox"})

#: Plotly's default height (plotly.js's layout.height), when a figure sets none.
DEFAULT_HEIGHT = 450
_SIZE_LIMIT = 100_000  # px: a larger width or height is taken as not set

#: Config keys dropped without a word: Chart Studio's links and upload, and what charts.js
#: sets itself (the site's copy of the geographic outlines) or maps need (refused).
_DROPPED_CONFIG = frozenset({"plotlyServerURL", "showLink", "linkText", "sendData",
                             "showSources", "topojsonURL", "mapboxAccessToken"})
#: Keys whose string value is text a reader sees (a URL there is shown, not loaded).
_TEXT_KEYS = frozenset({"text", "hovertext", "hovertemplate", "texttemplate", "name", "meta",
                        "ticktext", "label", "legendgroup", "uid", "customdata"})
#: Schemes that, with no "//" after them, still make a browser load or run something.
_LOADING_SCHEMES = frozenset({"data", "javascript", "vbscript", "file", "blob"})
#: Where the HTML Plotly writes draws its figure (older versions called Plotly.plot).
_CALL = re.compile(r"\bPlotly\s*\.\s*(?:newPlot|plot|react)\s*\(")

_FONT = ('system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, '
         'sans-serif')
_CLEAR = "rgba(0,0,0,0)"
# The theme's colours (static/css/main.css), and grid lines a step off the background.
_LIGHT = {"fg": "#1d1f23", "muted": "#5b616e", "line": "#e2e4e8", "grid": "#eceef1",
          "bg": "#fdfdfc", "cell": "#f4f5f7"}
_DARK = {"fg": "#e4e6ea", "muted": "#a0a6b2", "line": "#3a3f49", "grid": "#2d3139",
         "bg": "#16181c", "cell": "#1e2127"}
_DARK_COLOURS = ["#7cb7ff", "#ffb454", "#ff7b72", "#7ee0c3", "#d2a8ff", "#f2cc60",
                 "#ff9bce", "#a5d6ff", "#c9d1d9", "#8ddb8c"]


@dataclass(frozen=True)
class Figure:
    """A Plotly figure ready for a page: its traces, layout and config (cleaned as the
    module's docstring says), animation frames if any, its size in CSS px (width 0 when
    it takes its column's width), its title as plain text, and what was dropped from it."""

    data: list[dict[str, Any]]
    layout: dict[str, Any]
    config: dict[str, Any]
    width: int = 0
    height: int = DEFAULT_HEIGHT
    title: str = ""
    frames: list[dict[str, Any]] = field(default_factory=list)
    #: What was left out, each as "where: what" (`layout.images[0]: the picture at …`).
    dropped: tuple[str, ...] = ()


def figure_from_bundle(data: Mapping[str, Any]) -> Figure | Problem | None:
    """The figure of a notebook output's MIME bundle (its Plotly form a dict, or the JSON
    of one), a Problem when it cannot be shown, None when the bundle has no Plotly form."""
    value = data.get(MIME)
    if value is None:
        return None
    if isinstance(value, list) and all(isinstance(line, str) for line in value):
        value = "".join(value)  # a notebook may keep JSON text as a list of lines
    if isinstance(value, str):
        try:
            value = loads(value)
        except ValueError as exc:
            return Problem(f"the Plotly figure's JSON cannot be read ({exc}); run the cell "
                           "again and save the notebook")
    return _figure(value, {})


def figure_from_html(html: str) -> Figure | Problem | None:
    """The figure of the HTML Plotly writes: the arguments of the `Plotly.newPlot(id,
    data, layout, config)` call in one of its scripts, read as JSON; None when no script
    calls Plotly, a Problem when the call's arguments are not JSON or there are several."""
    scripts, _ = scripts_of(html)
    found: list[Figure | Problem] = []
    for script in scripts:
        if script.type not in ("", "text/javascript", "application/javascript", "module"):
            continue
        for match in _CALL.finditer(script.text):
            found.append(_from_call(script.text, match.end()))
    if not found:
        return None
    if len(found) > 1:
        return Problem(f"the output draws {len(found)} Plotly figures and a page shows one "
                       "per output; show each figure in a cell of its own")
    return found[0]


def _from_call(text: str, index: int) -> Figure | Problem:
    """The figure whose call's arguments start at `index`: an element id (or any value
    before the first comma), the traces, then the layout and config when given."""
    args: list[Any] = []
    try:
        _target, index = decode_at(text, index)
        while len(args) < 3:
            after = skip_to(text, index, ",")
            if after < 0:
                break
            value, index = decode_at(text, after)
            args.append(value)
    except ValueError as exc:
        return Problem(f"the Plotly figure in the output's HTML cannot be read as data "
                       f"({exc}); save the figure with fig.to_json() or show it with the "
                       "renderer 'plotly_mimetype+notebook'")
    if not args:
        return Problem("the output calls Plotly.newPlot with no figure data")
    layout = args[1] if len(args) > 1 else {}
    config = args[2] if len(args) > 2 else {}
    if isinstance(args[0], dict):  # Plotly.newPlot(id, {data, layout, config, frames})
        return _figure(args[0], {})
    return _figure({"data": args[0], "layout": layout}, config)


def _figure(value: Any, config: Any) -> Figure | Problem:
    """`value` ({data, layout, config, frames}) as a Figure, or why it cannot be."""
    if not isinstance(value, dict) or not isinstance(value.get("data", []), list):
        return Problem("the Plotly figure is not an object with a 'data' list of traces")
    try:
        value = finite(value)
        config = finite(value.get("config", config))
    except TooDeep as exc:
        return Problem(f"the Plotly figure cannot be shown: {exc}")
    traces = [t for t in value.get("data", []) if isinstance(t, dict)]
    frames = [f for f in value.get("frames", []) or [] if isinstance(f, dict)]
    layout = value.get("layout") if isinstance(value.get("layout"), dict) else {}
    config = config if isinstance(config, dict) else {}
    types = {_type(t) for t in _all_traces(traces, frames)}
    if maps := sorted(types & MAPS):
        return Problem(f"the Plotly figure draws a map ({', '.join(maps)}) over tiles from "
                       "a map server, which a page of this site never asks; show the data "
                       "with scattergeo or choropleth, or save a picture with fig.write_image")
    if unknown := sorted(types - FULL):
        return Problem(f"the Plotly figure has traces of type {', '.join(unknown)}, which "
                       "plotly.js 4 cannot draw; use a trace type plotly.js has")
    dropped: list[str] = []
    config = {k: v for k, v in config.items() if k not in _DROPPED_CONFIG}
    layout = _cleaned(layout, "layout", dropped)
    traces = [_cleaned(t, f"data[{i}]", dropped) for i, t in enumerate(traces)]
    frames = [_cleaned(f, f"frames[{i}]", dropped) for i, f in enumerate(frames)]
    config = _cleaned(config, "config", dropped)
    size = compact_size({"data": traces, "layout": layout, "config": config, "frames": frames})
    if size > INLINE_LIMIT:
        return too_large("the Plotly figure", size, "plot a sample or an aggregate of the "
                         "data (df.sample(50_000)), or save a picture with fig.write_image")
    return Figure(traces, layout, config, width=_width(layout),
                  height=_dimension(layout.get("height")) or DEFAULT_HEIGHT,
                  title=plain_text(_title_text(layout.get("title"))), frames=frames,
                  dropped=tuple(dropped))


def _type(trace: dict[str, Any]) -> str:
    kind = trace.get("type", "scatter")
    return kind if isinstance(kind, str) else "scatter"


def _all_traces(traces: list[dict[str, Any]],
                frames: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return traces + [t for f in frames if isinstance(f.get("data"), list)
                     for t in f["data"] if isinstance(t, dict)]


def _dimension(value: Any) -> int:
    if isinstance(value, int | float) and not isinstance(value, bool) and \
            10 <= value <= _SIZE_LIMIT:
        return round(value)
    return 0


def _width(layout: dict[str, Any]) -> int:
    return 0 if layout.get("autosize") is True else _dimension(layout.get("width"))


def _title_text(value: Any) -> str:
    if isinstance(value, dict):
        value = value.get("text")
    return value if isinstance(value, str) else ""


def _loads_url(value: str) -> bool:
    """Whether a browser given `value` as a URL would load it from elsewhere (or run it)."""
    value = value.strip()
    if not has_scheme(value):
        return False
    if value.startswith("//"):
        return True
    scheme = scheme_of(value)
    rest = value[len(scheme) + 1:].lstrip()
    if scheme == "data" and is_safe_url(value):
        return False  # a picture inline
    return rest.startswith("//") or scheme in _LOADING_SCHEMES


def _cleaned(value: dict[str, Any], where: str, dropped: list[str]) -> dict[str, Any]:
    """`value` without URLs that load (see the module's docstring), old titles upgraded."""
    out: dict[str, Any] = {}
    for key, item in value.items():
        path = f"{where}.{key}"
        if isinstance(item, str) and key not in _TEXT_KEYS and _loads_url(item):
            dropped.append(f"{path}: {item[:80]}")
        elif key == "images" and isinstance(item, list):
            images = [_cleaned(image, f"{path}[{i}]", dropped)
                      for i, image in enumerate(item) if isinstance(image, dict)]
            out[key] = [image for image in images if "source" in image]  # none: nothing
        elif isinstance(item, dict):
            out[key] = _cleaned(item, path, dropped)
        elif isinstance(item, list) and any(isinstance(i, dict) for i in item):
            out[key] = [_cleaned(i, f"{path}[{n}]", dropped) if isinstance(i, dict) else i
                        for n, i in enumerate(item)]
        else:
            out[key] = item
    _upgrade_title(out)
    return out


def _upgrade_title(container: dict[str, Any]) -> None:
    """plotly.js 2's `title: "…"`, `titlefont`, `titleside` as plotly.js 3 takes them."""
    title = container.get("title")
    if isinstance(title, str):
        container["title"] = title = {"text": title}
    for old, new in (("titlefont", "font"), ("titleside", "side"),
                     ("titleposition", "position")):
        if old in container:
            moved = container.pop(old)
            if not isinstance(title, dict):
                container["title"] = title = {}
            title.setdefault(new, moved)


def bundle_for(figure: Figure) -> Bundle:
    """The smallest plotly.js bundle that draws every trace of `figure` (its frames too)."""
    types = {_type(t) for t in _all_traces(figure.data, figure.frames)}
    if types <= BASIC:
        return "basic"
    return "cartesian" if types <= CARTESIAN else "full"


def _theme(c: dict[str, str], *, dark: bool) -> dict[str, Any]:
    axis = {"gridcolor": c["grid"], "linecolor": c["line"], "zerolinecolor": c["line"],
            "tickcolor": c["line"], "tickfont": {"color": c["muted"]}}
    axis3d = {**axis, "backgroundcolor": _CLEAR, "showbackground": False}
    layout: dict[str, Any] = {
        "paper_bgcolor": _CLEAR, "plot_bgcolor": _CLEAR,
        "font": {"family": _FONT, "color": c["fg"]},
        "title": {"font": {"color": c["fg"]}},
        "xaxis": axis, "yaxis": axis,
        "scene": {"xaxis": axis3d, "yaxis": axis3d, "zaxis": axis3d},
        "polar": {"bgcolor": _CLEAR, "angularaxis": axis, "radialaxis": axis},
        "ternary": {"bgcolor": _CLEAR, "aaxis": axis, "baxis": axis, "caxis": axis},
        "geo": {"bgcolor": _CLEAR, "subunitcolor": c["line"], "countrycolor": c["line"],
                "coastlinecolor": c["muted"], "lakecolor": _CLEAR},
        "legend": {"bgcolor": _CLEAR, "font": {"color": c["fg"]}},
        "coloraxis": {"colorbar": {"outlinewidth": 0, "tickfont": {"color": c["muted"]}}},
        "hoverlabel": {"font": {"family": _FONT}},
    }
    traces: dict[str, Any] = {
        "table": [{"type": "table",
                   "header": {"fill": {"color": c["grid"]}, "line": {"color": c["line"]}},
                   "cells": {"fill": {"color": c["cell"]}, "line": {"color": c["line"]}}}],
        "bar": [{"type": "bar", "marker": {"line": {"color": c["bg"], "width": 0.5}}}],
    }
    if dark:  # traces with no colour of their own: light enough on the dark page
        layout["colorway"] = _DARK_COLOURS
    return {"template": {"layout": layout, "data": traces}}


def layout_themes() -> tuple[dict[str, Any], dict[str, Any]]:
    """The layout overrides of the light and the dark theme: `{"template": {...}}`, whose
    defaults the figure's own layout settings still beat (data_json merges each over the
    figure's template: Plotly's own template gives way, key by key)."""
    return _theme(_LIGHT, dark=False), _theme(_DARK, dark=True)


def data_json(figure: Figure, light: dict[str, Any], dark: dict[str, Any]) -> str:
    """The JSON a page carries for `figure`, escaped for a <script> element:
    `{"kind": "plotly", "data", "layout", "config", "light", "dark"}` and `frames` when the
    figure is animated. `light` and `dark` (layout_themes()) are each merged over the
    figure's own value of every key they set, so the page applies one with
    `{...layout, ...light}`; the layout leaves out what both replace."""
    themes = {name: {key: merged(figure.layout.get(key), value)
                     for key, value in over.items()}
              for name, over in (("light", light), ("dark", dark))}
    replaced = set(light) & set(dark)
    layout = {k: v for k, v in figure.layout.items() if k not in replaced}
    value: dict[str, Any] = {"kind": "plotly", "data": figure.data, "layout": layout,
                             "config": figure.config, **themes}
    if figure.frames:
        value["frames"] = figure.frames
    return script_json(value)


def static_html(figure: Figure) -> str:
    """What a reader sees of `figure` before plotly.js draws it, or without JavaScript:
    its title, its data as tables in a <details>, and a note (plotly_table)."""
    return table_html(figure.title, figure.data, figure.layout)
