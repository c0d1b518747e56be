"""The example blog's notebook post in real headless Chromium: what a reader sees of its
cells and outputs, in both themes and on a phone."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytestmark = pytest.mark.browser

POST = "posts/least-squares/"


@pytest.fixture
def page_of(browser: Any) -> Iterator[Any]:
    made: list[Any] = []

    def make(scheme: str, width: int = 1400) -> Any:
        ctx = browser.new_context(viewport={"width": width, "height": 900},
                                  color_scheme=scheme)
        made.append(ctx)
        return ctx.new_page()

    yield make
    for ctx in made:
        ctx.close()


#: The contrast of the text of an element against its background (WCAG), the background
#: being the first ancestor's that is not transparent. Colours are turned into sRGB by
#: painting them on a canvas: the browser resolves color-mix() and oklch() itself.
CONTRAST = """(e) => {
  const ctx = document.createElement('canvas').getContext('2d', {willReadFrequently: true});
  const rgba = (c) => { ctx.clearRect(0, 0, 1, 1); ctx.fillStyle = c; ctx.fillRect(0, 0, 1, 1);
    return Array.from(ctx.getImageData(0, 0, 1, 1).data); };
  let node = e, bg = null;
  while (node && node.nodeType === 1) {
    const c = rgba(getComputedStyle(node).backgroundColor);
    if (c[3] > 128) { bg = c; break; }
    node = node.parentElement;
  }
  const lum = (rgb) => { const [r, g, b] = rgb.slice(0, 3).map((v) => { v /= 255;
    return v <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4); });
    return 0.2126 * r + 0.7152 * g + 0.0722 * b; };
  const a = lum(rgba(getComputedStyle(e).color)), b = lum(bg);
  return (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05);
}"""


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_every_coloured_span_of_the_traceback_is_readable(
        example_site: Path, http_server: Any, page_of: Any, scheme: str) -> None:
    page = page_of(scheme)
    page.goto(http_server(example_site) + POST)
    spans = page.locator(".nb-error span")
    assert spans.count() > 10
    ratios = [float(spans.nth(i).evaluate(CONTRAST)) for i in range(spans.count())]
    assert min(ratios) >= 3.0, ratios  # what IPython colours stays legible in either theme


def test_folded_code_opens_and_figures_and_tables_fit_a_phone(
        example_site: Path, http_server: Any, page_of: Any) -> None:
    page = page_of("light", width=360)
    page.goto(http_server(example_site) + POST)
    fold = page.locator("details.nb-fold").first
    assert fold.evaluate("e => e.open") is False
    assert not page.locator("details.nb-fold .codeblock").first.is_visible()
    fold.locator("summary").click()
    assert page.locator("details.nb-fold .codeblock").first.is_visible()
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= 360  # nothing makes the page scroll sideways
    figure = page.locator("figure.figure img").first
    figure.scroll_into_view_if_needed()
    page.wait_for_function("document.querySelector('figure.figure img').complete")
    assert figure.evaluate("e => e.naturalWidth") > 0
    box = figure.bounding_box()
    assert box is not None and box["width"] <= 360 - 40
    table = page.locator(".nb-html").first  # a wide table scrolls in its own box
    assert table.evaluate("e => e.tabIndex") == 0
    assert table.evaluate("e => getComputedStyle(e).overflowX") == "auto"


def test_the_download_link_serves_the_notebook(example_site: Path, http_server: Any,
                                               page_of: Any) -> None:
    page = page_of("light")
    page.goto(http_server(example_site) + POST)
    href = page.locator("a.nb-download").get_attribute("href")
    response = page.request.get(http_server(example_site) + POST + str(href))
    assert response.ok and response.json()["nbformat"] == 4
