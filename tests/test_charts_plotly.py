"""Plotly figures and Bokeh documents read as data (charts/plotly.py, charts/bokeh.py):
real figures made by plotly and bokeh here, in every form they write, and hostile ones."""

from __future__ import annotations

import json
from typing import Any
from xml.etree.ElementTree import Element

import html5lib
import numpy as np
import plotly.express as px
import plotly.graph_objects as go
import plotly.io as pio
import pytest
from bokeh.embed import components, file_html
from bokeh.embed.notebook import notebook_content
from bokeh.layouts import column
from bokeh.models import CustomJS, Div, HoverTool, WMTSTileSource
from bokeh.plotting import figure as bokeh_figure
from bokeh.resources import CDN
from plotly.offline import plot as offline_plot

from blogbuild.charts import bokeh, plotly
from blogbuild.charts.embedded import INLINE_LIMIT, Problem
from blogbuild.charts.plotly import Figure


def parsed(markup: str) -> Element:
    return html5lib.parseFragment(markup, container="div", namespaceHTMLElements=False)


def table_rows(markup: str) -> list[list[list[str]]]:
    """Each table of `markup` as rows of cell texts (headings first)."""
    return [[["".join(cell.itertext()) for cell in row] for row in table.iter("tr")]
            for table in parsed(markup).iter("table")]


def from_json(script: str) -> Any:
    assert "</" not in script and "<" not in script
    return json.loads(script)


def bundle_of(fig: go.Figure) -> Figure:
    found = plotly.figure_from_bundle({plotly.MIME: fig.to_plotly_json()})
    assert isinstance(found, Figure)
    return found


def scatter() -> go.Figure:
    return go.Figure(go.Scatter(x=[1, 2, 3], y=[4.5, 5, 6], name="<b>growth</b> & more"),
                     layout={"title": "Sales <i>by</i> year", "xaxis_title": "Year"})


# Plotly: the forms it writes


def test_bundle_reads_traces_layout_config_and_size() -> None:
    fig = scatter()
    fig.update_layout(width=640, height=380)
    found = bundle_of(fig)
    assert found.data[0]["x"] == [1, 2, 3] and found.data[0]["type"] == "scatter"
    assert found.title == "Sales by year"
    assert (found.width, found.height) == (640, 380)
    assert found.layout["template"]["layout"]["plot_bgcolor"] == "#E5ECF6"  # plotly's own
    assert plotly.bundle_for(found) == "basic" and found.dropped == ()


def test_autosized_figure_is_as_wide_as_its_column_and_450_high() -> None:
    found = bundle_of(scatter())
    assert (found.width, found.height) == (0, 450)
    fig = scatter()
    fig.update_layout(width=500, autosize=True)
    assert bundle_of(fig).width == 0


@pytest.mark.parametrize("as_text", [False, True])
def test_bundle_as_json_text_and_lines(as_text: bool) -> None:
    text = scatter().to_json()
    value: Any = text if as_text else text.splitlines(keepends=True)
    found = plotly.figure_from_bundle({plotly.MIME: value})
    assert isinstance(found, Figure) and found.data == bundle_of(scatter()).data


def test_no_plotly_form_is_none() -> None:
    assert plotly.figure_from_bundle({"text/plain": "Figure({...})"}) is None
    assert plotly.figure_from_html("<div><p>a table</p><script>console.log(1)</script>"
                                   "</div>") is None


@pytest.mark.parametrize("write", [
    lambda f: f.to_html(include_plotlyjs=False, full_html=False),
    lambda f: f.to_html(include_plotlyjs="cdn"),
    lambda f: offline_plot(f, output_type="div", include_plotlyjs=False),
    lambda f: pio.renderers["notebook_connected"].to_mimebundle(f.to_dict())["text/html"],
    lambda f: pio.renderers["notebook"].to_mimebundle(f.to_dict())["text/html"],
], ids=["to_html", "full_html", "offline_div", "notebook_connected", "notebook"])
def test_html_forms_give_the_figure_of_the_bundle(write: Any) -> None:
    fig = scatter()
    fig.update_layout(height=300)
    found = plotly.figure_from_html(write(fig))
    assert isinstance(found, Figure)
    expected = bundle_of(fig)
    assert found.data == expected.data and found.layout == expected.layout
    assert found.height == 300 and found.title == "Sales by year"
    assert "plotlyServerURL" not in found.config and "showLink" not in found.config


def test_old_html_with_string_titles_and_chart_studio_links() -> None:
    page = ('<div id="a1" class="plotly-graph-div"></div><script type="text/javascript">'
            'window.PLOTLYENV=window.PLOTLYENV || {};window.PLOTLYENV.BASE_URL="https://plot.ly";'
            'Plotly.newPlot("a1", [{"type": "bar", "x": ["a", "b"], "y": [1, NaN]}], '
            '{"title": "Old", "xaxis": {"title": "Kind", "titlefont": {"size": 9}}}, '
            '{"showLink": true, "linkText": "Export to plot.ly", '
            '"plotlyServerURL": "https://plot.ly", "responsive": true})</script>')
    found = plotly.figure_from_html(page)
    assert isinstance(found, Figure)
    assert found.config == {"responsive": True}
    assert found.layout["title"] == {"text": "Old"}
    assert found.layout["xaxis"]["title"] == {"text": "Kind", "font": {"size": 9}}
    assert found.data[0]["y"] == [1, None]  # NaN, which JSON.parse refuses, is null
    assert from_json(plotly.data_json(found, *plotly.layout_themes()))["data"][0]["y"] == \
        [1, None]


# Plotly: hostile input


@pytest.mark.parametrize("page", [
    '<script>Plotly.newPlot("x", [{"type": "scatter", "x": [1, 2}], {})</script>',
    '<script>Plotly.newPlot("x", data, layout)</script>',
    '<script>Plotly.newPlot("x", [{"name": "a</script><script>alert(1)//"}], {})</script>',
])
def test_broken_calls_are_problems(page: str) -> None:
    found = plotly.figure_from_html(page)
    assert isinstance(found, Problem) and "cannot be read as data" in found.message


def test_broken_bundle_json_is_a_problem() -> None:
    found = plotly.figure_from_bundle({plotly.MIME: '{"data": [{"x": [1, 2}'})
    assert isinstance(found, Problem) and "cannot be read" in found.message
    found = plotly.figure_from_bundle({plotly.MIME: [1, 2]})
    assert isinstance(found, Problem) and "'data' list" in found.message


def test_two_figures_in_one_output_are_a_problem() -> None:
    page = scatter().to_html(include_plotlyjs=False) * 2
    found = plotly.figure_from_html(page)
    assert isinstance(found, Problem) and "2 Plotly figures" in found.message


def test_script_end_in_a_value_never_reaches_the_page() -> None:
    fig = scatter()
    fig.update_traces(name="</script><script>alert(1)</script>", text=["<!--", "&", "x"])
    found = bundle_of(fig)
    light, dark = plotly.layout_themes()
    script = plotly.data_json(found, light, dark)
    assert "</" not in script and "<!--" not in script
    assert from_json(script)["data"][0]["name"] == "</script><script>alert(1)</script>"
    [row0, *rows] = table_rows(plotly.static_html(found))[0]
    assert row0 == ["Year", "y"] and rows[0] == ["1", "4.5"]
    caption = parsed(plotly.static_html(found)).find(".//caption")
    assert caption is not None and caption.text == "alert(1)"  # tags dropped, not run
    assert not list(parsed(plotly.static_html(found)).iter("script"))


def test_remote_urls_are_dropped_and_named() -> None:
    fig = scatter()
    fig.add_layout_image(source="https://example.com/logo.png", x=0, y=1)
    fig.add_layout_image(source="data:image/png;base64,iVBORw0KGgo=", x=1, y=1)
    fig.add_layout_image(source="data:text/html;base64,PHNjcmlwdD4=", x=1, y=1)
    fig.add_layout_image(source="img/local.png", x=1, y=1)
    fig.update_layout(meta={"href": "//tracker.example/p.gif"})
    found = bundle_of(fig)
    assert [i["source"] for i in found.layout["images"]] == [
        "data:image/png;base64,iVBORw0KGgo=", "img/local.png"]
    assert found.dropped == (
        "layout.images[0].source: https://example.com/logo.png",
        "layout.images[2].source: data:text/html;base64,PHNjcmlwdD4=",
        "layout.meta.href: //tracker.example/p.gif")


def test_a_url_shown_as_text_is_kept() -> None:
    fig = scatter()
    fig.update_traces(text=["https://example.com"] * 3, hovertemplate="see https://a.example")
    found = bundle_of(fig)
    assert found.dropped == () and found.data[0]["hovertemplate"] == "see https://a.example"


def test_maps_and_unknown_types_are_refused() -> None:
    found = bundle_of_value({"data": [{"type": "scattermap", "lat": [1], "lon": [2]}]})
    assert isinstance(found, Problem) and "scattermap" in found.message
    found = bundle_of_value({"data": [{"type": "pointcloud", "x": [1]}]})
    assert isinstance(found, Problem) and "pointcloud" in found.message


def bundle_of_value(value: Any) -> Figure | Problem | None:
    return plotly.figure_from_bundle({plotly.MIME: value})


def test_huge_figure_is_refused_with_its_size() -> None:
    points = INLINE_LIMIT // 10
    found = bundle_of_value({"data": [{"type": "scattergl", "x": list(range(points)),
                                       "y": list(range(points))}]})
    assert isinstance(found, Problem)
    assert "MB of data, over the 5 MB" in found.message and "sample" in found.message


def test_deep_nesting_is_a_problem() -> None:
    deep: Any = 1
    for _ in range(200):
        deep = {"a": deep}
    found = bundle_of_value({"data": [{"type": "scatter", "meta": deep}]})
    assert isinstance(found, Problem) and "nested" in found.message
    text = '{"data": [' + "[" * 100_000 + "]" * 100_000 + "]}"
    found = bundle_of_value(text)
    assert isinstance(found, Problem) and "nested" in found.message


# Plotly: the bundle, the stand-in, the themes


@pytest.mark.parametrize(("fig", "bundle"), [
    (lambda: scatter(), "basic"),
    (lambda: go.Figure([go.Bar(x=["a"], y=[1]), go.Pie(labels=["a"], values=[1])]), "basic"),
    (lambda: go.Figure(go.Heatmap(z=[[1, 2], [3, 4]])), "cartesian"),
    (lambda: px.histogram(x=[1, 2, 2, 3]), "cartesian"),
    (lambda: go.Figure(go.Scattergl(x=[1], y=[2])), "full"),
    (lambda: go.Figure(go.Surface(z=np.ones((3, 3)))), "full"),
    (lambda: go.Figure(go.Scatter(x=[1]), frames=[go.Frame(data=[go.Scatterpolar(r=[1])])]),
     "full"),
], ids=["scatter", "bar-pie", "heatmap", "histogram", "scattergl", "surface", "frames"])
def test_bundle_is_the_smallest_that_draws_every_trace(fig: Any, bundle: str) -> None:
    assert plotly.bundle_for(bundle_of(fig())) == bundle


def test_stand_in_tables_numpy_arrays_and_heatmaps() -> None:
    x = np.arange(120, dtype="f8") / 2
    fig = go.Figure([go.Scatter(x=x, y=x * 2, name="half"),
                     go.Heatmap(z=np.arange(6, dtype="i4").reshape(2, 3), x=["a", "b", "c"],
                                y=["r1", "r2"]),
                     go.Pie(labels=["cats", "dogs"], values=[3, 4])])
    found = bundle_of(fig)
    assert found.data[0]["x"]["dtype"] == "f8"  # plotly.py's typed array, kept as it is
    markup = plotly.static_html(found)
    first, heat, pie = table_rows(markup)
    assert first[0] == ["x", "y"] and first[1:4] == [["0", "0"], ["0.5", "1"], ["1", "2"]]
    assert len(first) == 1 + 50
    assert heat == [["x", "y", "z"], ["a", "r1", "0"], ["b", "r1", "1"], ["c", "r1", "2"],
                    ["a", "r2", "3"], ["b", "r2", "4"], ["c", "r2", "5"]]
    assert pie == [["labels", "values"], ["cats", "3"], ["dogs", "4"]]
    root = parsed(markup)
    assert [p.text for p in root.iter("p")] == ["and 70 more rows",
                                               "The chart is drawn when it comes into view."]
    assert [c.text for c in root.iter("caption")] == ["half", "Trace 2", "Trace 3"]
    assert {th.get("scope") for th in root.iter("th")} == {"col"}
    details = root.find(".//details")
    assert details is not None and details.find("summary").text == "Data"  # type: ignore[union-attr]


def test_themes_follow_the_page_and_yield_to_the_author() -> None:
    fig = scatter()
    fig.update_layout(template="plotly_dark", plot_bgcolor="#ffffff")
    found = bundle_of(fig)
    light, dark = plotly.layout_themes()
    page = from_json(plotly.data_json(found, light, dark))
    assert page["kind"] == "plotly" and "template" not in page["layout"]
    assert page["layout"]["plot_bgcolor"] == "#ffffff"  # the author's own setting stays
    for name, fg in (("light", "#1d1f23"), ("dark", "#e4e6ea")):
        template = page[name]["template"]
        assert template["layout"]["paper_bgcolor"] == "rgba(0,0,0,0)"
        assert template["layout"]["font"]["color"] == fg
        assert "system-ui" in template["layout"]["font"]["family"]
        # plotly_dark's own defaults that the theme does not set are kept
        assert template["data"]["scatter"] == found.layout["template"]["data"]["scatter"]
    assert page["dark"]["template"]["layout"]["xaxis"]["gridcolor"] == "#2d3139"
    assert "frames" not in page


# Bokeh


def bokeh_plot() -> Any:
    plot = bokeh_figure(title="Rain <mm>", width=420, height=280)
    plot.line([1, 2, 3], [4, 5, float("nan")])
    return plot


def test_bokeh_components_file_html_and_notebook_agree() -> None:
    plot = bokeh_plot()
    script, div = components(plot)
    forms = [bokeh.document_from_html(script + div), bokeh.document_from_html(
        file_html(plot, CDN))]
    nb_script, _div, _doc = notebook_content(plot)
    forms.append(bokeh.document_from_bundle(
        {"application/javascript": nb_script, bokeh.EXEC_MIME: ""},
        {bokeh.EXEC_MIME: {"id": plot.id}}))
    for found in forms:
        assert isinstance(found, bokeh.Document)
        assert found.version.startswith("3.") and found.root_ids == [plot.id]
        assert (found.width, found.height, found.title) == (420, 280, "Rain <mm>")
        page = from_json(bokeh.data_json(found))
        assert page["kind"] == "bokeh" and page["version"] == found.version
        [doc] = page["docs_json"].values()
        assert doc["roots"][0]["id"] == plot.id
        assert page["render_items"][0]["root_ids"] == [plot.id]


def test_bokeh_default_size_and_stretching() -> None:
    plot = bokeh_figure()
    plot.scatter([1], [2])
    found = bokeh.document_from_html("".join(components(plot)))
    assert isinstance(found, bokeh.Document) and (found.width, found.height) == (600, 600)
    plot.sizing_mode = "stretch_width"
    found = bokeh.document_from_html("".join(components(plot)))
    assert isinstance(found, bokeh.Document) and (found.width, found.height) == (0, 600)


def test_bokeh_loader_and_other_outputs_are_none() -> None:
    assert bokeh.document_from_bundle({bokeh.LOAD_MIME: "", "text/html": "<p>Loading</p>"},
                                      {}) is None
    assert bokeh.document_from_html("<script>console.log('docs')</script>") is None


def test_bokeh_server_app_and_missing_script_are_problems() -> None:
    found = bokeh.document_from_bundle({bokeh.EXEC_MIME: ""},
                                       {bokeh.EXEC_MIME: {"server_id": "s1"}})
    assert isinstance(found, Problem) and "server" in found.message
    found = bokeh.document_from_bundle({bokeh.EXEC_MIME: ""}, {bokeh.EXEC_MIME: {"id": "p1"}})
    assert isinstance(found, Problem) and "no document" in found.message


def test_bokeh_other_major_version_names_it() -> None:
    script, div = components(bokeh_plot())
    old = script.replace('\\"version\\":\\"3.', '\\"version\\":\\"2.')
    old = old.replace('"version":"3.', '"version":"2.')
    found = bokeh.document_from_html(old + div)
    assert isinstance(found, Problem) and "made by Bokeh 2." in found.message


def test_bokeh_code_and_html_need_scripts_on() -> None:
    plot = bokeh_plot()
    plot.js_on_event("tap", CustomJS(code="alert(1)"))
    plot.add_tools(HoverTool(tooltips="<img src=x onerror=alert(1)>"))
    layout = column(Div(text="<b>note</b>"), plot)
    page = "".join(components(layout))
    found = bokeh.document_from_html(page)
    assert isinstance(found, Problem)
    assert "(CustomJS, Div, HoverTool)" in found.message and "scripts: true" in found.message
    allowed = bokeh.document_from_html(page, scripts=True)
    assert isinstance(allowed, bokeh.Document)
    assert "</" not in bokeh.data_json(allowed)


def test_bokeh_tiles_are_refused_even_with_scripts() -> None:
    plot = bokeh_plot()
    plot.add_tile(WMTSTileSource(url="https://tiles.example/{Z}/{X}/{Y}.png"))
    found = bokeh.document_from_html("".join(components(plot)), scripts=True)
    assert isinstance(found, Problem) and "WMTSTileSource" in found.message


@pytest.mark.parametrize("page", [
    "<script>const docs_json = '{\"a\": ';\nconst render_items = [];</script>",
    "<script>const docs_json = document.getElementById('nope').textContent;</script>",
    "<script>const docs_json = {\"d\": 1}; const render_items = [];</script>",
])
def test_bokeh_broken_documents_are_problems(page: str) -> None:
    assert isinstance(bokeh.document_from_html(page), Problem)


def test_bokeh_script_end_in_a_value_never_reaches_the_page() -> None:
    plot = bokeh_figure(title="</script><script>alert(1)</script>")
    plot.scatter([1], [2], legend_label="a & b <!--")
    found = bokeh.document_from_html("".join(components(plot)))
    assert isinstance(found, bokeh.Document)
    assert found.title == "</script><script>alert(1)</script>"
    script = bokeh.data_json(found)
    assert "</" not in script and "<!--" not in script
    assert "<script>" in json.dumps(from_json(script))
    note = parsed(bokeh.note_html(found))
    assert not list(note.iter("script"))
