"""The theme's look for charts: Vega configurations for light and dark, in the colours of
static/css/main.css. The page's text face is the reader's system face, which the build
cannot measure: charts are laid out in DejaVu Sans (vendored, so a build measures text the
same on every machine; wider than most faces, so labels keep their room) and
css/chart.css draws their text in the theme's face."""

from __future__ import annotations

from typing import Any

#: The face charts are measured in (vendor/fonts).
FONT = "DejaVu Sans"

_LIGHT = {"fg": "#1d1f23", "muted": "#5b616e", "border": "#e2e4e8", "grid": "#eceef1"}
_DARK = {"fg": "#e4e6ea", "muted": "#a0a6b2", "border": "#3a3f49", "grid": "#2d3139"}


def _config(colours: dict[str, str], *, dark: bool) -> dict[str, Any]:
    axis = {"labelColor": colours["muted"], "titleColor": colours["fg"],
            "gridColor": colours["grid"], "domainColor": colours["border"],
            "tickColor": colours["border"]}
    config: dict[str, Any] = {
        "background": None,  # the page's own
        "font": FONT,
        "title": {"color": colours["fg"], "subtitleColor": colours["muted"]},
        "axis": axis,
        "legend": {"labelColor": colours["muted"], "titleColor": colours["fg"]},
        "header": {"labelColor": colours["muted"], "titleColor": colours["fg"]},
        "view": {"stroke": colours["border"]},
        "style": {"guide-label": {"fill": colours["muted"]},
                  "guide-title": {"fill": colours["fg"]}},
    }
    if dark:  # marks with no colour of their own: light enough on the dark page
        config["mark"] = {"color": "#7cb7ff"}
        config["range"] = {"category": ["#7cb7ff", "#ffb454", "#ff7b72", "#7ee0c3",
                                        "#d2a8ff", "#f2cc60", "#ff9bce", "#a5d6ff",
                                        "#c9d1d9", "#8ddb8c"]}
    return config


LIGHT = _config(_LIGHT, dark=False)
DARK = _config(_DARK, dark=True)
THEMES = (("light", LIGHT), ("dark", DARK))
