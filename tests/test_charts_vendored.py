"""The chart libraries published for the pages with a chart: what each need copies, and that
the live Vega is the one the build draws with (so the chart does not change when it wakes)."""

from __future__ import annotations

import re

import pytest

from blogbuild.output.writer import bundle_files


@pytest.mark.parametrize(("need", "scripts"), [
    ("chart-vega", {"vega.min.js", "vega-lite.min.js", "vega-embed.min.js"}),
    ("chart-plotly", {"plotly-basic.min.js", "plotly-cartesian.min.js", "plotly-full.min.js"}),
    ("chart-bokeh", {"bokeh.min.js", "bokeh-widgets.min.js", "bokeh-tables.min.js"}),
])
def test_each_chart_need_publishes_its_library_and_licence(need: str, scripts: set[str]) -> None:
    files = bundle_files(need)
    folder = "vendor/" + need.removeprefix("chart-")
    assert {rel for _, rel in files} == {f"{folder}/{name}" for name in scripts | {"LICENSE"}}
    for source, _ in files:
        assert source.stat().st_size > 0
    licence = next(src for src, rel in files if rel.endswith("LICENSE")).read_text()
    assert "Redistribution and use" in licence or "Permission is hereby granted" in licence


def test_the_live_vega_is_the_one_the_build_draws_with() -> None:
    vl_convert = pytest.importorskip("vl_convert")
    files = dict((rel.rsplit("/", 1)[1], src) for src, rel in bundle_files("chart-vega"))
    vega = files["vega.min.js"].read_text(encoding="utf-8")
    embed = files["vega-embed.min.js"].read_text(encoding="utf-8")
    lite = files["vega-lite.min.js"].read_text(encoding="utf-8")
    # Each build holds its own version as a string literal.
    assert f'"{vl_convert.get_vega_version()}"' in vega
    assert f'"{vl_convert.get_vega_embed_version()}"' in embed
    minor = vl_convert.get_vegalite_versions()[-1]  # vl-convert names its newest by X.Y
    assert re.search(rf'"{re.escape(minor)}\.\d+"', lite)
    # No map is published, so none is asked for.
    assert all("sourceMappingURL" not in text[-300:] for text in (vega, embed, lite))
