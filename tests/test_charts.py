"""Charts drawn at build time: Vega-Lite and Vega fences, notebook outputs (the MIME forms
and the classic vega-embed HTML), charts of build-time blocks; data files beside a post,
the limits, the messages, the page's markup and its data, the cache."""

from __future__ import annotations

import json
import re
import time
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import html5lib
import nbformat
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from blogbuild import diskcache
from blogbuild.charts import specs
from blogbuild.charts.classic import vega_in_html
from blogbuild.commands.build import build
from blogbuild.config import Config
from blogbuild.markdown import create_markdown
from blogbuild.pipeline.render import render_markdown

SVG = "{http://www.w3.org/2000/svg}"
H = "{http://www.w3.org/1999/xhtml}"

BARS = {"$schema": "https://vega.github.io/schema/vega-lite/v5.json",
        "description": "Monthly sales in 2025.",
        "data": {"values": [{"m": "Jan", "s": 3}, {"m": "Feb", "s": 5}]},
        "mark": {"type": "bar", "tooltip": True},
        "encoding": {"x": {"field": "m", "type": "nominal", "title": "Month"},
                     "y": {"field": "s", "type": "quantitative", "title": "Sales"}}}


def _render(source: str) -> tuple[str, list[tuple[int, str]]]:
    rendered = render_markdown(create_markdown(Config()), source, file="post.md")
    return rendered.html, [(d.line, d.message) for d in rendered.diagnostics]


def _fence(spec: Any, info: str = "vega-lite") -> str:
    return f"```{info}\n{json.dumps(spec, indent=1)}\n```\n"


def _figures(html: str) -> list[Any]:
    tree = html5lib.parse(html)
    return [f for f in tree.iter() if f.tag in (f"{H}figure", f"{H}div")
            and "chart" in (f.get("class") or "").split()]


def _data(figure: Any) -> dict[str, Any]:
    script = next(e for e in figure.iter(f"{H}script") if e.get("class") == "chart-data")
    assert script.get("type") == "application/json"
    return dict(json.loads(script.text))


def test_a_fence_becomes_an_svg_in_both_looks_with_its_data_for_the_live_chart() -> None:
    html, problems = _render("Text.\n\n" + _fence(BARS))
    assert problems == []
    [figure] = _figures(html)
    box = next(e for e in figure.iter() if e.get("class") == "chart-box")
    assert box.get("data-chart") == "vega-lite"
    svgs = list(figure.iter(f"{SVG}svg"))
    assert len(svgs) == 2  # light and dark
    width, height = int(box.get("data-width")), int(box.get("data-height"))
    assert 50 < width < 400 and 200 < height < 500
    for svg in svgs:  # drawn at its own size: the live chart takes the same room
        assert (svg.get("width"), svg.get("height")) == (str(width), str(height))
        assert svg.get("role") == "img"
        texts = " ".join(" ".join(t.itertext()) for t in svg.iter(f"{SVG}text"))
        assert "Month" in texts and "Sales" in texts and "Jan" in texts
    ids = [e.get("id") for e in figure.iter() if e.get("id")]
    assert len(ids) == len(set(ids))
    data = _data(figure)
    assert data["kind"] == "vega-lite" and data["spec"]["mark"]["type"] == "bar"
    assert data["light"]["font"] == data["dark"]["font"] == "DejaVu Sans"
    words = next(e for e in figure.iter() if e.get("class") == "chart-words")
    assert words.get("hidden") is not None
    assert words.text == "Monthly sales in 2025. Shows Month, Sales."


def test_the_dark_look_draws_in_the_dark_theme_colours() -> None:
    html, _ = _render(_fence(BARS))
    light, dark = list(_figures(html)[0].iter(f"{SVG}svg"))
    fills = [{t.get("fill") for t in svg.iter(f"{SVG}text")} for svg in (light, dark)]
    assert "#5b616e" in fills[0] and "#a0a6b2" in fills[1]


def test_a_title_or_id_makes_a_numbered_figure_that_a_link_can_name() -> None:
    html, problems = _render("See [](#fig-sales).\n\n" +
                             _fence(BARS, 'vega-lite {#fig-sales title="Sales by month"}'))
    assert problems == []
    [figure] = _figures(html)
    assert figure.tag == f"{H}figure" and figure.get("id") == "fig-sales"
    caption = next(figure.iter(f"{H}figcaption"))
    assert "".join(caption.itertext()) == "Figure 1. Sales by month"
    assert re.search(r'<a [^>]*href="#fig-sales"[^>]*>Figure\s*1</a>', html)


def test_the_kind_follows_the_schema_and_a_vega_spec_is_drawn() -> None:
    vega = {"$schema": "https://vega.github.io/schema/vega/v5.json", "width": 120,
            "height": 40, "marks": [{"type": "rect", "encode": {"enter": {
                "x": {"value": 0}, "width": {"value": 50}, "height": {"value": 20}}}}]}
    html, problems = _render(_fence(vega, "vega-lite"))
    assert problems == []
    assert _data(_figures(html)[0])["kind"] == "vega"


@pytest.mark.parametrize(("text", "line", "message"), [
    ('{"mark": "point",\n "data": {"values": [1, 2}\n}', 4,
     "this Vega-Lite chart cannot be drawn (line 2 of the spec): the spec is not valid JSON: "
     "Expecting ',' delimiter (line 2, column 26)"),
    ('{"mark": "lin", "data": {"values": []}}', 2,
     "this Vega-Lite chart cannot be drawn: Vega-Lite has no mark 'lin'; did you mean "
     "'line'?"),
    ('{"mark": "point", "data": {"url": "https://example.org/cars.json"}}', 2,
     "this Vega-Lite chart cannot be drawn: the chart loads its data from "
     "'https://example.org/cars.json', which the page cannot load"),
    ('{"mark": "point", "data": {"url": "cars.json"}}', 2,
     "this Vega-Lite chart cannot be drawn: the chart's data file 'cars.json' was not found "
     "beside the document"),
    ("[1, 2]", 2, "this Vega-Lite chart cannot be drawn: a chart's spec must be a JSON object"),
])
def test_a_spec_that_cannot_be_drawn_is_a_warning_at_its_line_and_shows_as_code(
        text: str, line: int, message: str) -> None:
    html, problems = _render(f"Text.\n```vega-lite\n{text}\n```\n")
    assert [(at, said[:len(message)]) for at, said in problems] == [(line, message)]
    assert _figures(html) == []
    assert 'data-lang="json"' in html  # nothing is lost: the spec is shown as code


def test_the_renderers_error_is_a_warning_without_its_javascript_stack() -> None:
    spec = {"mark": "point", "data": {"values": [{"a": 1}]},
            "transform": [{"calculate": "datum.a +* 2", "as": "b"}]}
    _html, problems = _render(_fence(spec))
    [(line, message)] = problems
    assert line == 1 and message.startswith("this Vega-Lite chart cannot be drawn: the "
                                            "renderer says: ")
    assert " at " not in message and "jsdelivr" not in message
    # The failure leaves nothing behind: the next chart is drawn (in a new drawer).
    html, problems = _render(_fence({**BARS, "mark": {"type": "line"}}))
    assert problems == [] and len(_figures(html)) == 1


def test_a_spec_over_the_limit_is_refused_with_what_to_do(monkeypatch: pytest.MonkeyPatch
                                                          ) -> None:
    monkeypatch.setattr(specs, "SPEC_LIMIT", 1_000)
    spec = {**BARS, "data": {"values": [{"m": str(i), "s": i} for i in range(200)]}}
    _html, problems = _render(_fence(spec))
    assert len(problems) == 1 and "over the limit of 1,000" in problems[0][1]
    assert "alt.Chart(df.sample(5000))" in problems[0][1]


def test_strings_in_a_spec_never_end_its_script_or_run() -> None:
    hostile = {**BARS, "title": "</script><script>alert(1)</script>",
               "description": "<img src=x onerror=alert(2)>",
               "encoding": {**BARS["encoding"],
                            "href": {"value": "javascript:alert(3)"}}}
    html, problems = _render(_fence(hostile))
    assert problems == []
    [figure] = _figures(html)
    scripts = list(html5lib.parse(html).iter(f"{H}script"))
    assert [s.get("type") for s in scripts] == ["application/json"]
    assert _data(figure)["spec"]["title"] == hostile["title"]  # the data, as written
    assert "</script><script>" not in html and "javascript:" not in html.split("chart-data")[0]
    handlers = [name for e in html5lib.parse(html).iter() for name in e.attrib
                if str(name).lower().startswith("on")]
    assert handlers == []
    for svg in figure.iter(f"{SVG}svg"):
        links = [a.get("href") or a.get("{http://www.w3.org/1999/xlink}href")
                 for a in svg.iter(f"{SVG}a")]
        assert not any(str(link).startswith("javascript") for link in links)


def test_a_bare_parser_shows_the_spec_as_code() -> None:
    html = create_markdown(Config()).render(_fence(BARS))
    assert "<svg" not in html and "&quot;mark&quot;" in html


def test_quartos_braced_fence_is_code_not_a_chart() -> None:
    html, problems = _render("```{{vega-lite}}\n{\"mark\": \"bar\"}\n```\n")
    assert _figures(html) == [] and not any("chart" in said for _, said in problems)


def test_the_classic_vega_embed_html_is_read_for_its_spec_without_running_it() -> None:
    spec = {**BARS, "title": "Classic"}
    html = ('<div id="altair-viz-1"></div>\n<script type="text/javascript">\n'
            '(function(spec, embedOpt){ let el = document.currentScript.previousElementSibling;'
            ' vegaEmbed(el, spec, embedOpt); })(' + json.dumps(spec) +
            ', {"mode": "vega-lite"});\n</script>')
    assert vega_in_html(html) == ("vega-lite", spec)
    older = ('<script>var spec = ' + json.dumps(spec) + ';\nvar opt = {"renderer": "svg"};\n'
             'vegaEmbed("#vis", spec, opt);</script>')
    assert vega_in_html(older) == ("vega-lite", spec)
    assert vega_in_html("<script>var x = {\"a\": 1}; vegaEmbed('#v', x)</script>") is None
    assert vega_in_html("<p>no script</p>") is None


# --- whole builds -----------------------------------------------------------------------


def _site(tmp_path: Path, files: dict[str, str]) -> Path:
    (tmp_path / "site.yaml").write_text("title: Charts\nbase_url: https://example.org/blog/\n"
                                        "search: false\nsocial_cards: false\n")
    for name, text in files.items():
        path = tmp_path / "content" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return tmp_path / "site.yaml"


def _post(body: str) -> str:
    return f"---\ntitle: A data post\ndate: 2026-01-01\n---\n\n{body}"


def _tree(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes()
            for p in sorted(folder.rglob("*")) if p.is_file()}


def test_a_data_file_beside_the_post_is_put_in_the_spec_and_an_edit_redraws(
        tmp_path: Path) -> None:
    spec = {"data": {"url": "cars.csv"}, "mark": "point",
            "encoding": {"x": {"field": "hp", "type": "quantitative"},
                         "y": {"field": "mpg", "type": "quantitative"}}}
    config = _site(tmp_path, {"posts/data/index.md": _post(_fence(spec)),
                              "posts/data/cars.csv": "hp,mpg\n100,30\n150,25\n"})
    out = tmp_path / "_site"
    report = build(config, output=out)
    assert [d.message for d in report.diagnostics] == []
    page = (out / "posts/data/index.html").read_text()
    data = _data(_figures(page)[0])
    assert data["spec"]["data"] == {"values": "hp,mpg\n100,30\n150,25\n",
                                    "format": {"type": "csv"}}
    (tmp_path / "content/posts/data/cars.csv").write_text("hp,mpg\n100,30\n150,25\n210,12\n")
    build(config, output=out)
    again = (out / "posts/data/index.html").read_text()
    assert "210,12" in json.dumps(_data(_figures(again)[0]))


def _notebook_figures(tmp_path: Path, nb: Any) -> tuple[list[Any], str]:
    """The chart figures of the page of notebook `nb`, built with no message, and the page."""
    config = _site(tmp_path, {"posts/2026-01-01-nb.ipynb": nbformat.writes(nb)})
    out = tmp_path / "_site"
    report = build(config, output=out)
    assert [d.message for d in report.diagnostics] == []
    page = (out / "posts/nb/index.html").read_text()
    return _figures(page), page


def test_a_notebooks_vega_outputs_are_drawn_and_a_caption_numbers_them(tmp_path: Path) -> None:
    classic = ('<div id="v"></div><script>(function(spec, opt){vegaEmbed("#v", spec, opt)})('
               + json.dumps({**BARS, "title": "Classic"}) + ', {"mode": "vega-lite"});</script>')
    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {"name": "python3", "language": "python",
                                 "display_name": "Python 3"}
    nb.cells = [
        nbformat.v4.new_markdown_cell("Charts."),
        nbformat.v4.new_code_cell("chart", outputs=[nbformat.v4.new_output(
            "execute_result", execution_count=1,
            data={"application/vnd.vegalite.v5+json": BARS, "text/plain": "alt.Chart(...)"})]),
        nbformat.v4.new_code_cell("#| fig-cap: The classic form\nchart", outputs=[
            nbformat.v4.new_output("display_data", data={"text/html": classic})]),
    ]
    figures, page = _notebook_figures(tmp_path, nb)
    assert [_data(f)["spec"].get("title") for f in figures] == [None, "Classic"]
    assert "Figure 1.</span> The classic form" in page
    assert "vegaEmbed" not in page and "cdn.jsdelivr" not in page


def test_a_build_time_altair_chart_is_drawn(tmp_path: Path) -> None:
    pytest.importorskip("altair")  # in the test extras: a real Altair chart
    code = ("import altair as alt\nimport pandas as pd\n"
            "df = pd.DataFrame({'x': range(5), 'y': [1, 4, 9, 16, 25]})\n"
            "alt.Chart(df, title='Squares').mark_line().encode(x='x', y='y')\n")
    body = ('<div class="runnable" data-lang="python" data-execute="build" markdown="1">\n\n'
            f"```python\n{code}```\n\n</div>\n")
    config = _site(tmp_path, {"posts/a.md": _post(body)})
    (tmp_path / "site.yaml").write_text((tmp_path / "site.yaml").read_text()
                                        + "runnable:\n  timeout: 120\n")
    out = tmp_path / "_site"
    build(config, output=out)
    page = (out / "posts/a/index.html").read_text()
    [figure] = _figures(page)
    assert _data(figure)["spec"]["title"] == "Squares"
    assert "alt.Chart(...)" not in page


def test_the_feed_gets_the_light_drawing_and_builds_are_byte_identical(tmp_path: Path
                                                                      ) -> None:
    config = _site(tmp_path, {"posts/a.md": _post(_fence(BARS))})
    first, second = tmp_path / "one", tmp_path / "two"
    build(config, output=first)
    build(config, output=second, use_cache=False)
    assert _tree(first) == _tree(second)
    feed = ET.fromstring((first / "feed.xml").read_bytes())
    content = "".join(e.text or "" for e in feed.iter() if e.tag.endswith("content"))
    assert content.count("<svg") == 1 and "chart-data" not in content
    assert "Month" in content


def test_charts_are_cached_by_spec(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from blogbuild.charts import vega

    config = _site(tmp_path, {"posts/a.md": _post(_fence(BARS))})
    build(config, output=tmp_path / "_site")
    drawn: list[int] = []
    real = vega._drawn
    monkeypatch.setattr(vega, "_drawn", lambda jobs: drawn.append(len(jobs)) or real(jobs))
    (tmp_path / "content/posts/a.md").write_text(_post("Edited.\n\n" + _fence(BARS)))
    build(config, output=tmp_path / "_site")
    assert drawn in ([], [0])  # the same spec: from the cache
    changed = {**BARS, "mark": {"type": "line"}}
    (tmp_path / "content/posts/a.md").write_text(_post(_fence(changed)))
    build(config, output=tmp_path / "_site")
    assert drawn[-1] == 2  # light and dark, drawn anew
    assert diskcache.TABLES.count("charts") == 1


def test_plotly_and_bokeh_outputs_carry_their_data_and_a_stand_in(tmp_path: Path) -> None:
    go = pytest.importorskip("plotly.graph_objects")  # in the test extras
    bokeh_plotting = pytest.importorskip("bokeh.plotting")
    from bokeh.embed import components

    scatter = go.Figure(go.Scatter(x=[1, 2, 3], y=[4, 1, 2], name="runs"),
                        layout={"title": {"text": "Loss"}, "xaxis": {"title": {"text": "Epoch"}}})
    heat = go.Figure(go.Heatmap(z=[[1, 2], [3, 4]]))
    plot = bokeh_plotting.figure(title="Bokeh lines", width=400, height=300)
    plot.line([1, 2, 3], [3, 1, 2])
    script, div = components(plot)
    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {"name": "python3", "language": "python",
                                 "display_name": "Python 3"}
    nb.cells = [nbformat.v4.new_code_cell("fig", outputs=[nbformat.v4.new_output(
                    "display_data", data={"application/vnd.plotly.v1+json":
                                          json.loads(scatter.to_json())})]),
                nbformat.v4.new_code_cell("heat", outputs=[nbformat.v4.new_output(
                    "display_data", data={"text/html": heat.to_html(include_plotlyjs="cdn",
                                                                    full_html=False)})]),
                nbformat.v4.new_code_cell("show(plot)", outputs=[nbformat.v4.new_output(
                    "display_data", data={"text/html": div + script})])]
    figures, page = _notebook_figures(tmp_path, nb)
    boxes = [next(e for e in f.iter() if e.get("class") == "chart-box") for f in figures]
    assert [(b.get("data-chart"), b.get("data-bundle")) for b in boxes] == [
        ("plotly", "basic"), ("plotly", "cartesian"), ("bokeh", None)]
    first = _data(figures[0])
    assert first["data"][0]["name"] == "runs" and first["dark"]["template"]
    words = next(e for e in figures[0].iter() if e.get("class") == "chart-words")
    assert words.text == "Loss. Shows Epoch."
    table = next(figures[0].iter(f"{H}table"))  # the data, readable before the library
    assert "runs" in "".join(table.itertext()) or "4" in "".join(table.itertext())
    assert _data(figures[2])["kind"] == "bokeh"
    assert "cdn.plot.ly" not in page and "cdn.bokeh.org" not in page
    assert '<script src="https://' not in page


def test_search_finds_a_charts_title_description_and_axes(tmp_path: Path) -> None:
    import gzip

    config = _site(tmp_path, {"posts/a.md": _post("Words.\n\n" + _fence(BARS))})
    (tmp_path / "site.yaml").write_text(config.read_text().replace("search: false",
                                                                   "search: true"))
    out = tmp_path / "_site"
    build(config, output=out)
    fragments = [gzip.decompress(p.read_bytes()).decode("utf-8", "replace")
                 for p in (out / "pagefind" / "fragment").iterdir()]
    [text] = [f for f in fragments if "/blog/posts/a/" in f]
    assert "Monthly sales in 2025. Shows Month, Sales." in text


def test_a_chart_is_drawn_the_same_whatever_the_drawer_drew_before() -> None:
    """Vega numbers its clip paths across the drawings of its process: the page's ids are
    renumbered, so a chart's markup does not depend on which worker drew it, nor when."""
    brushed = {**BARS, "params": [{"name": "brush", "select": "interval"}]}
    first, _ = _render(_fence(brushed))
    _render(_fence({**BARS, "params": [{"name": "other", "select": "interval"}]}))
    again, _ = _render(_fence(brushed))
    assert "clip" in first and first == again


def test_an_executed_notebooks_altair_and_plotly_results_are_charts(tmp_path: Path) -> None:
    pytest.importorskip("altair")  # in the test extras, with plotly
    pytest.importorskip("plotly")
    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {"name": "python3", "language": "python",
                                 "display_name": "Python 3"}
    nb.cells = [
        nbformat.v4.new_raw_cell("---\ntitle: Run here\nexecute: always\n---"),
        nbformat.v4.new_code_cell("import altair as alt\nimport pandas as pd\n"
                                  "alt.Chart(pd.DataFrame({'a': [1, 2]}), title='Ran')"
                                  ".mark_bar().encode(x='a:Q')"),
        nbformat.v4.new_code_cell("import plotly.graph_objects as go\n"
                                  "go.Figure(go.Bar(x=['a', 'b'], y=[1, 3]))"),
    ]
    figures, _ = _notebook_figures(tmp_path, nb)
    kinds = [next(e for e in f.iter() if e.get("class") == "chart-box").get("data-chart")
             for f in figures]
    assert kinds == ["vega-lite", "plotly"]
    assert _data(figures[0])["spec"]["title"] == "Ran"
    assert _data(figures[1])["data"][0]["type"] == "bar"


_WORDS = ["mark", "data", "values", "encoding", "x", "y", "field", "type", "url", "title",
          "description", "href", "layer", "params", "transform", "calculate", "as",
          "quantitative", "nominal", "bar", "line", "point", "</script>", "javascript:x()"]
_JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-5, 5) | st.sampled_from(_WORDS)
    | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=4)
    | st.dictionaries(st.sampled_from(_WORDS), inner, max_size=4),
    max_leaves=12)


@settings(max_examples=10, deadline=None)
@given(spec=st.dictionaries(st.sampled_from(_WORDS), _JSON, max_size=5),
       broken=st.booleans())
def test_any_spec_renders_the_same_twice_without_a_script_or_an_exception(
        spec: dict[str, Any], broken: bool) -> None:
    text = json.dumps(spec)[:-1] if broken and spec else json.dumps(spec)
    started = time.monotonic()
    first, problems = _render(f"```vega-lite\n{text}\n```\n")
    again, _ = _render(f"```vega-lite\n{text}\n```\n")
    assert time.monotonic() - started < 60
    assert first == again
    tree = html5lib.parse(first)
    assert [s.get("type") for s in tree.iter(f"{H}script")] in ([], ["application/json"])
    assert not [n for e in tree.iter() for n in e.attrib if str(n).lower().startswith("on")]
    assert _figures(first) or len(problems) == 1  # drawn, or one warning and its code


def test_nan_in_a_spec_is_null_not_a_failed_render() -> None:
    """Python's JSON reads NaN, which JSON (and the page's data) has not: it becomes null."""
    html, problems = _render(_fence(BARS).replace('"s": 3', '"s": NaN'))
    assert problems == []
    assert _data(_figures(html)[0])["spec"]["data"]["values"][0]["s"] is None
