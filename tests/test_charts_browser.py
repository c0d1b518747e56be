"""Charts made live in real headless Chromium (js/charts.js): a page written as blogbuild
writes a chart (a Vega-Lite chart drawn at build time with vl-convert, a Plotly figure, a
Bokeh document), with the theme's stylesheet and the vendored libraries published through
the writer's bundles, served over HTTP under /blog/."""

from __future__ import annotations

import shutil
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest

from blogbuild.charts.embedded import script_json
from blogbuild.charts.themes import DARK, LIGHT
from blogbuild.output.bundles import join
from blogbuild.output.writer import bundle_files

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parent.parent
PREFIX = "/blog/"
LOCAL_HOSTS = {"127.0.0.1", "localhost"}
SPEC: dict[str, Any] = {
    "$schema": "https://vega.github.io/schema/vega-lite/v6.json",
    "title": "Brightness by hour",
    "data": {"values": [{"hour": h, "lux": (h * 37) % 100 + 5} for h in range(24)]},
    "params": [{"name": "brush", "select": {"type": "interval", "encodings": ["x"]}}],
    "mark": {"type": "point", "filled": True, "size": 120},
    "encoding": {
        "x": {"field": "hour", "type": "quantitative"},
        "y": {"field": "lux", "type": "quantitative"},
        "tooltip": [{"field": "hour"}, {"field": "lux"}],
        "color": {"condition": {"param": "brush", "value": "#0b62c4"}, "value": "#999999"},
    },
    "width": 420, "height": 260,
}


def vega_figure() -> str:
    vl_convert = pytest.importorskip("vl_convert")
    light = vl_convert.vegalite_to_svg(SPEC, config=LIGHT)
    dark = vl_convert.vegalite_to_svg(SPEC, config=DARK)
    width, height = (round(float(v)) for v in _size(light))
    data = {"kind": "vega-lite", "spec": SPEC, "light": LIGHT, "dark": DARK}
    return (
        '<figure class="chart chart-vega" id="fig-lux">\n'
        '<div class="chart-scroll" tabindex="0" role="group" aria-label="Chart: lux">\n'
        f'<div class="chart-box" data-chart="vega-lite" data-width="{width}"'
        f' data-height="{height}">\n<div class="chart-light only-light">{light}</div>'
        f'<div class="chart-dark only-dark">{dark}</div>\n</div>\n</div>\n'
        f'<script type="application/json" class="chart-data">{script_json(data)}</script>\n'
        "<figcaption>Lux by hour</figcaption>\n</figure>")


def _size(svg: str) -> tuple[str, str]:
    head = svg[: svg.index(">")]
    return (head.split('width="')[1].split('"')[0], head.split('height="')[1].split('"')[0])


def plotly_figure() -> str:
    """A figure of three scatter traces as the build writes it (blogbuild.charts.plotly)."""
    go = pytest.importorskip("plotly.graph_objects")
    from blogbuild.charts import plotly

    fig = go.Figure([go.Scatter(x=list(range(10)), y=[(x * (n + 2)) % 7 for x in range(10)],
                                mode="lines+markers", name=f"run {n}") for n in range(3)],
                    layout={"title": {"text": "Loss </script> & more"}, "height": 400})
    figure = plotly.figure_from_bundle({plotly.MIME: fig.to_plotly_json()})
    assert isinstance(figure, plotly.Figure)
    data = plotly.data_json(figure, *plotly.layout_themes())
    return (
        '<figure class="chart chart-plotly" id="fig-loss">\n'
        '<div class="chart-scroll" tabindex="0">\n'
        f'<div class="chart-box" data-chart="plotly" data-bundle="{plotly.bundle_for(figure)}"'
        f' data-width="{figure.width}" data-height="{figure.height}">\n'
        f"{plotly.static_html(figure)}</div>\n</div>\n"
        f'<script type="application/json" class="chart-data">{data}</script>\n</figure>')


def bokeh_figure(*, slider: bool = False) -> str:
    """A Bokeh plot (above a slider) as the build writes it (blogbuild.charts.bokeh)."""
    plotting = pytest.importorskip("bokeh.plotting")
    from bokeh.embed import components
    from bokeh.layouts import column
    from bokeh.models import Slider

    from blogbuild.charts import bokeh

    plot = plotting.figure(width=480, height=300, title="Bokeh points")
    plot.scatter([1, 2, 3, 4], [4, 6, 5, 7], size=12)
    root = column(plot, Slider(start=0, end=10, value=3, title="n")) if slider else plot
    document = bokeh.document_from_html("".join(components(root)))
    assert isinstance(document, bokeh.Document)
    return (
        '<figure class="chart chart-bokeh">\n<div class="chart-scroll" tabindex="0">\n'
        f'<div class="chart-box" data-chart="bokeh" data-width="{document.width}"'
        f' data-height="{document.height}">\n{bokeh.note_html(document)}</div></div>\n'
        f'<script type="application/json" class="chart-data">{bokeh.data_json(document)}'
        "</script>\n</figure>")


def write_site(folder: Path, figures: str, intro: int = 2400) -> Path:
    """The theme's scripts and stylesheet, the charts' bundles and one page under `folder`."""
    (folder / "js").mkdir(parents=True)
    (folder / "css").mkdir()
    for name in ("widgets.js", "charts.js"):
        shutil.copyfile(ROOT / "static" / "js" / name, folder / "js" / name)
    parts = [(rel, (ROOT / "static" / rel).read_bytes()) for rel in ("css/main.css",
                                                                      "css/chart.css")]
    (folder / "css" / "page.css").write_bytes(join(parts))
    for need in ("chart-vega", "chart-plotly", "chart-bokeh"):
        for source, rel in bundle_files(need):
            (folder / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(source, folder / rel)
    # What templates/needs/chart.html writes, with the site under /blog/.
    tag = (f'<script type="text/plain" data-widget-script="{PREFIX}js/charts.js"'
           f' data-near=".chart-box" data-vendor-url="{PREFIX}vendor/"></script>')
    (folder / "index.html").write_text(
        '<!DOCTYPE html>\n<html lang="en" data-theme="light"><head><meta charset="utf-8">\n'
        '<link rel="icon" href="data:,">\n'
        # No script from elsewhere, none inline, no eval: Vega's expressions are interpreted.
        '<meta http-equiv="Content-Security-Policy" content="script-src \'self\'">\n'
        f'<link rel="stylesheet" href="{PREFIX}css/page.css"></head>\n'
        f'<body><main class="main"><h1>Charts</h1><div style="height: {intro}px">Intro</div>\n'
        f"{figures}\n</main>\n{tag}\n"
        f'<script type="module" src="{PREFIX}js/widgets.js"></script>\n</body></html>\n',
        encoding="utf-8")
    return folder


@pytest.fixture
def serve(tmp_path: Path, http_server: Callable[..., str],
          browser: Any) -> Iterator[Callable[..., Any]]:
    """serve(figures, block=()) -> a page showing them, its requests recorded; paths under
    /blog/ that contain a string of `block` fail as a missing file would."""
    contexts: list[Any] = []

    def open_page(figures: str, block: tuple[str, ...] = (), intro: int = 2400) -> Any:
        base = http_server(write_site(tmp_path / f"site{len(contexts)}", figures, intro),
                           PREFIX)
        context = browser.new_context(viewport={"width": 1100, "height": 800})
        contexts.append(context)
        page = context.new_page()
        page.set_default_timeout(10_000)
        page.requests, page.external_requests, page.warnings, page.errors = [], [], [], []

        def route(route: Any) -> None:
            url = route.request.url
            if (urlsplit(url).hostname or "") not in LOCAL_HOSTS:
                page.external_requests.append(url)
                route.abort()
            elif any(part in url for part in block):
                route.abort()
            else:
                page.requests.append(urlsplit(url).path)
                route.continue_()

        context.route("**/*", route)
        page.on("console", lambda m: (page.warnings if m.type == "warning" else page.errors
                                      if m.type == "error" else []).append(m.text))
        page.on("pageerror", lambda exc: page.errors.append(str(exc)))
        page.goto(base)
        page.wait_for_load_state("networkidle")
        return page

    yield open_page
    for context in contexts:
        context.close()


def vendor_requests(page: Any) -> list[str]:
    return [path for path in page.requests if "/vendor/" in path]


def box_size(box: Any) -> tuple[float, float]:
    rect = box.evaluate("b => { const r = b.getBoundingClientRect(); return [r.width, r.height] }")
    return rect[0], rect[1]


def title_fill(box: Any) -> str:
    """The fill of the chart's title text, as drawn (the theme's text colour)."""
    return str(box.locator("svg .role-title-text text").first.get_attribute("fill"))


def set_theme(page: Any, theme: str) -> None:
    """What the page's theme switch does (templates/base.html)."""
    page.evaluate("""theme => { document.documentElement.dataset.theme = theme;
        dispatchEvent(new CustomEvent('blogbuild:theme', {detail: {theme}})); }""", theme)


def test_a_vega_lite_chart_comes_alive_in_place_and_follows_the_theme(
        serve: Callable[..., Any]) -> None:
    page = serve(vega_figure())
    assert vendor_requests(page) == []  # the chart is 2400px down: nothing loaded yet
    assert f"{PREFIX}js/charts.js" not in page.requests
    box = page.locator(".chart-box")
    before = box_size(box)
    assert box.locator(".chart-light svg").count() == 1
    assert title_fill(box.locator(".chart-light")) == LIGHT["title"]["color"]
    page.keyboard.press("Tab")  # the chart's box takes the focus, with a ring, and wakes
    scroll = page.locator(".chart-scroll")
    assert scroll.evaluate("s => s === document.activeElement && s.matches(':focus-visible')")
    assert scroll.evaluate("s => getComputedStyle(s).outlineStyle") == "solid"
    page.wait_for_selector(".chart-box .chart-live.vega-embed svg")
    assert box.locator(".chart-light, .chart-dark").count() == 0  # replaced, not added to
    assert box_size(box) == pytest.approx(before, abs=1)
    assert vendor_requests(page) == [f"{PREFIX}vendor/vega/{name}" for name in
                                     ("vega.min.js", "vega-lite.min.js", "vega-embed.min.js")]
    assert title_fill(box) == LIGHT["title"]["color"]
    # The live chart is in the theme's face, as the static one was.
    assert box.locator("svg text").first.evaluate(
        "t => getComputedStyle(t).fontFamily").startswith("system-ui")

    box.locator("svg .mark-symbol path").nth(5).hover()
    tooltip = page.locator("#vg-tooltip-element.visible")
    tooltip.wait_for()
    assert tooltip.inner_text().split() == ["hour", "5", "lux", "90"]
    assert tooltip.evaluate("t => getComputedStyle(t).backgroundColor") == "rgb(253, 253, 252)"

    # An interval selection: a drag across the chart greys the points outside it.
    area = box.locator("svg").bounding_box()
    page.mouse.move(area["x"] + 80, area["y"] + 150)
    page.mouse.down()
    page.mouse.move(area["x"] + 200, area["y"] + 150, steps=8)
    page.mouse.up()
    fills = box.locator("svg .mark-symbol path").evaluate_all(
        "ps => ps.map(p => p.getAttribute('fill'))")
    assert "#999999" in fills and "#0b62c4" in fills

    set_theme(page, "dark")
    page.wait_for_function("f => document.querySelector('.chart-box svg .role-title-text text')"
                           "?.getAttribute('fill') === f", arg=DARK["title"]["color"])
    assert box.locator("svg").count() == 1 and box_size(box) == pytest.approx(before, abs=1)
    page.mouse.move(0, 0)  # the redrawn chart's tooltip, in the dark theme's colours
    box.locator("svg .mark-symbol path").nth(5).hover()
    tooltip.wait_for()
    assert tooltip.evaluate("t => getComputedStyle(t).backgroundColor") == "rgb(22, 24, 28)"
    assert page.external_requests == [] and page.errors == [] and page.warnings == []


def test_a_plotly_figure_draws_its_traces_with_the_bundle_it_names(
        serve: Callable[..., Any]) -> None:
    page = serve(plotly_figure())
    box = page.locator(".chart-box")
    assert vendor_requests(page) == [] and box.locator(".chart-static").is_visible()
    height = box_size(box)[1]
    box.scroll_into_view_if_needed()
    page.wait_for_selector(".chart-box .chart-live .scatterlayer")
    assert vendor_requests(page) == [f"{PREFIX}vendor/plotly/plotly-basic.min.js"]
    assert box.locator(".scatterlayer .trace").count() == 3
    assert box.locator(".scatterlayer path.js-line").count() == 3
    assert box.locator(".scatterlayer path.point").count() == 30
    assert box.locator(".chart-static").count() == 0 and height < 400
    assert box_size(box)[1] == pytest.approx(400, abs=1)  # data-height, once drawn
    # As wide as the column (data-width="0").
    column = page.locator("main").evaluate("m => m.clientWidth - 40")
    assert box_size(box)[0] == pytest.approx(column, abs=2)
    # The title is text, not markup.
    assert box.locator(".gtitle").text_content() == "Loss </script> & more"
    title = "b => getComputedStyle(b.querySelector('.gtitle')).fill"
    assert box.evaluate(title) == "rgb(29, 31, 35)"  # the theme's text colour
    set_theme(page, "dark")
    page.wait_for_function(f"() => ({title})(document.querySelector('.chart-box'))"
                           " === 'rgb(228, 230, 234)'")
    assert box.locator(".scatterlayer .trace").count() == 3
    box.scroll_into_view_if_needed()  # it grew to its height below the viewport's edge
    point = box.locator(".scatterlayer path.point").nth(4).bounding_box()
    page.mouse.move(point["x"] + point["width"] / 2, point["y"] + point["height"] / 2)
    box.locator(".hoverlayer .hovertext").first.wait_for()  # Plotly's hover label
    assert page.external_requests == [] and page.errors == [] and page.warnings == []


def test_a_bokeh_document_draws_with_bokehjs_alone(serve: Callable[..., Any]) -> None:
    page = serve(bokeh_figure())
    box = page.locator(".chart-box")
    box.scroll_into_view_if_needed()
    page.wait_for_selector(".chart-box .chart-live .bk-Figure")
    canvas = box.locator("canvas").first  # inside Bokeh's shadow roots
    canvas.wait_for()
    assert canvas.bounding_box()["width"] == pytest.approx(480, abs=2)
    # A plain figure needs no widgets build.
    assert vendor_requests(page) == [f"{PREFIX}vendor/bokeh/bokeh.min.js"]
    assert box_size(box)[1] == pytest.approx(300, abs=2)
    assert page.external_requests == [] and page.errors == [] and page.warnings == []


def test_a_bokeh_document_with_a_widget_loads_the_widgets_build(
        serve: Callable[..., Any]) -> None:
    page = serve(bokeh_figure(slider=True))
    box = page.locator(".chart-box")
    box.scroll_into_view_if_needed()
    box.locator(".bk-Slider, .bk-input-group").first.wait_for()
    assert vendor_requests(page) == [f"{PREFIX}vendor/bokeh/{name}.min.js" for name in
                                     ("bokeh", "bokeh-widgets", "bokeh-tables")]
    assert box.locator("canvas").first.is_visible()
    assert page.external_requests == [] and page.errors == [] and page.warnings == []


def test_a_chart_whose_library_is_missing_keeps_its_drawing(serve: Callable[..., Any]) -> None:
    page = serve(vega_figure() + plotly_figure(), block=("vega-embed.min.js", "plotly-"))
    for box in page.locator(".chart-box").all():
        box.scroll_into_view_if_needed()
    page.wait_for_function("() => document.querySelector('script[data-widget-script]')"
                           ".dataset.loaded !== undefined")
    page.wait_for_timeout(300)
    vega, plotly = page.locator(".chart-box").all()
    assert vega.locator(".chart-light svg").is_visible()
    assert plotly.locator(".chart-static").is_visible()
    assert page.locator(".chart-live").count() == 0
    assert [w.split(";")[0] for w in page.warnings] == [
        "blogbuild: the vega-lite library did not load",
        "blogbuild: the plotly library did not load"]
    set_theme(page, "dark")  # nothing is tried again
    page.wait_for_timeout(200)
    assert len(page.warnings) == 2 and vega.locator(".chart-dark svg").is_visible()


def test_a_chart_in_view_when_the_page_opens_waits_for_the_first_scroll(
        serve: Callable[..., Any]) -> None:
    page = serve(vega_figure() + '<div style="height: 2000px"></div>', intro=10)
    page.wait_for_timeout(1500)
    # In view, but not reached: a reader of the first screen loads no library.
    assert f"{PREFIX}js/charts.js" in page.requests and vendor_requests(page) == []
    page.mouse.wheel(0, 120)
    page.wait_for_selector(".chart-box .chart-live svg")
    assert f"{PREFIX}vendor/vega/vega.min.js" in vendor_requests(page)


def test_the_example_data_post_comes_alive_under_a_sub_path(
        example_site_subpath: Path, http_server: Callable[..., str], browser_page: Any) -> None:
    """The example blog as built: its Vega-Lite fence, Altair chart and Plotly figure
    become live charts as the reader scrolls, with a tooltip, and load nothing from
    elsewhere."""
    base = http_server(example_site_subpath, prefix="/blog/")
    page = browser_page
    page.set_viewport_size({"width": 1200, "height": 900})
    page.goto(base + "posts/charts/")
    boxes = page.locator(".chart-box")
    assert boxes.count() == 3
    for index in range(3):
        boxes.nth(index).scroll_into_view_if_needed()
        boxes.nth(index).locator(".chart-live").wait_for(timeout=15_000)
    bar = page.locator("#fig-runs .chart-live path[role='graphics-symbol']").first
    bar.hover()
    page.locator("#vg-tooltip-element.visible").wait_for(timeout=5_000)
    assert "Final validation loss" in page.locator("#vg-tooltip-element").inner_text()
    assert page.locator(".chart-plotly .chart-live .scatterlayer .trace").count() == 2
    assert page.external_requests == [] and page.console_errors == []
