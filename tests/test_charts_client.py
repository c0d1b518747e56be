"""What a page with a chart gets for the reader's browser: the chart libraries each need
publishes, the live Vega at the build's own version (so the chart does not change when it
wakes), and in a real build the script tag, the widget loader and the stylesheet."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from blogbuild.commands.build import build
from blogbuild.output.writer import bundle_files

CHART = """```vega-lite
{"data": {"values": [{"a": 1, "b": 2}, {"a": 2, "b": 3}]}, "mark": "point",
 "encoding": {"x": {"field": "a", "type": "quantitative"},
              "y": {"field": "b", "type": "quantitative"}}}
```
"""


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


def _site(tmp_path: Path, posts: dict[str, str]) -> Path:
    (tmp_path / "content" / "posts").mkdir(parents=True)
    (tmp_path / "site.yaml").write_text("title: C\nsearch: false\nsocial_cards: false\n")
    for name, body in posts.items():
        (tmp_path / "content" / "posts" / f"{name}.md").write_text(
            f"---\ntitle: {name}\ndate: 2026-01-02\n---\nText.\n\n{body}")
    return tmp_path / "site.yaml"


def test_a_page_with_a_chart_loads_charts_js_when_it_comes_near(tmp_path: Path) -> None:
    pytest.importorskip("vl_convert")
    build(_site(tmp_path, {"chart": CHART, "plain": ""}),
          base_url="https://example.org/blog/")
    out = tmp_path / "_site"
    page = (out / "posts" / "chart" / "index.html").read_text()
    assert ('<script type="text/plain" data-widget-script="/blog/js/charts.js" '
            'data-near=".chart-box" data-vendor-url="/blog/vendor/"></script>') in page
    assert '<script type="module" src="/blog/js/widgets.js"></script>' in page
    [stylesheet] = re.findall(r'href="/blog/(css/bundle\.[0-9a-f]+\.css)"', page)
    assert ".chart-scroll" in (out / stylesheet).read_text()
    assert (out / "js" / "charts.js").is_file()
    assert sorted(p.name for p in (out / "vendor" / "vega").iterdir()) == [
        "LICENSE", "vega-embed.min.js", "vega-lite.min.js", "vega.min.js"]
    assert not (out / "vendor" / "plotly").exists() and not (out / "vendor" / "bokeh").exists()
    plain = (out / "posts" / "plain" / "index.html").read_text()
    assert "charts.js" not in plain and "widgets.js" not in plain
