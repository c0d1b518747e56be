"""The chart libraries readers' browsers run (js/charts.js loads one when a chart comes
near): vendored by scripts/vendor_charts.py into vendor/vega/, vendor/plotly/ and
vendor/bokeh/, each published only for the pages with a chart of its kind (the writer's
BUNDLES names one function here per need)."""

from __future__ import annotations

from pathlib import Path

VENDOR_DIR = Path(__file__).resolve().parent.parent / "vendor"


def _files(library: str) -> list[tuple[Path, str]]:
    """(source file, path relative to the bundle folder): the library's scripts and its
    LICENSE (VERSION stays behind: it is for whoever re-vendors)."""
    folder = VENDOR_DIR / library
    return [(path, path.name) for path in sorted(folder.glob("*.min.js"))] + [
        (folder / "LICENSE", "LICENSE")]


def vega_files() -> list[tuple[Path, str]]:
    """vega, vega-lite and vega-embed (which carries vega-interpreter and vega-tooltip)."""
    return _files("vega")


def plotly_files() -> list[tuple[Path, str]]:
    """plotly.js's basic, cartesian and full bundles; a page loads the one its figure needs."""
    return _files("plotly")


def bokeh_files() -> list[tuple[Path, str]]:
    """BokehJS, and its widgets and tables builds for documents with a widget."""
    return _files("bokeh")
