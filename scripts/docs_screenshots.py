#!/usr/bin/env python3
"""Take the screenshots of docs/images/ from the example blog, in headless Chromium.

Usage: python scripts/docs_screenshots.py [OUT_DIR] [PATH ...]   (default: docs/images,
every page below; PATH: only those pages, e.g. /posts/math/)

Builds the example blog of this repository into a temporary folder with blogbuild, serves
it on 127.0.0.1 (every other request is refused, so nothing leaves the machine) and writes
one PNG per widget plus a set of callouts and a piece of math: light theme, 800 px wide,
device scale 1, so the files stay small and look like what a reader sees.
"""

from __future__ import annotations

import functools
import http.server
import sys
import tempfile
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from playwright.sync_api import FloatRect, Page, sync_playwright
from screenshot import ARGS, scroll_through  # this folder: run as python scripts/...

ROOT = Path(__file__).resolve().parent.parent
WIDTH = 800
MARGIN = 12  # pixels of page around the element, so borders and shadows are not cut


class _Handler(http.server.SimpleHTTPRequestHandler):
    extensions_map = {  # noqa: RUF012 - the base class declares a plain attribute
        **http.server.SimpleHTTPRequestHandler.extensions_map,
        ".wasm": "application/wasm",
        ".mjs": "text/javascript",
        ".js": "text/javascript",
        ".woff2": "font/woff2",
    }

    def log_message(self, format: str, *args: Any) -> None:
        return


def _build(out: Path, base_url: str) -> None:
    from blogbuild.commands.build import build

    build(ROOT / "site.yaml", output=out, base_url=base_url)


def _clip(page: Page, first: str, last: str | None = None) -> FloatRect:
    """The rectangle from the top of `first` to the bottom of `last`, with a margin.

    Bounding boxes are relative to the viewport; a full-page clip is relative to the page.
    """
    top = page.locator(first).first.bounding_box()
    bottom = page.locator(last).first.bounding_box() if last else top
    assert top is not None and bottom is not None, f"not on the page: {first} / {last}"
    scroll_y = float(page.evaluate("window.scrollY"))
    x = max(0.0, min(top["x"], bottom["x"]) - MARGIN)
    right = max(top["x"] + top["width"], bottom["x"] + bottom["width"]) + MARGIN
    y = max(0.0, top["y"] + scroll_y - MARGIN)
    return {"x": x, "y": y, "width": min(right, WIDTH) - x,
            "height": bottom["y"] + scroll_y + bottom["height"] + MARGIN - y}


def _shot(page: Page, out: Path, name: str, first: str, last: str | None = None) -> None:
    page.locator(first).first.scroll_into_view_if_needed()
    target = out / f"{name}.png"
    page.screenshot(path=str(target), clip=_clip(page, first, last), full_page=True)
    print(target)


def _collapsible(page: Page, out: Path) -> None:
    page.locator("details.collapsible > summary").first.click()
    _shot(page, out, "collapsible", "details.collapsible")


def _video(page: Page, out: Path) -> None:
    _shot(page, out, "video-embed", "figure.video-embed")


def _compare(page: Page, out: Path) -> None:
    _shot(page, out, "image-compare", "figure.image-compare")


def _space(page: Page, out: Path) -> None:
    _shot(page, out, "hf-space", "figure.hf-space")


def _runnable(page: Page, out: Path) -> None:
    block = page.locator("div.runnable").first
    block.locator("button.runnable-run").click()
    # The first run starts the interpreter (a few seconds): wait for the status line.
    block.locator(".runnable-status[data-kind=ok]").wait_for(timeout=120_000)
    page.wait_for_timeout(300)
    _shot(page, out, "runnable", "div.runnable")


def _callouts(page: Page, out: Path) -> None:
    _shot(page, out, "callouts", ".callout-note", ".callout-caution")


def _own_types(page: Page, out: Path) -> None:
    _shot(page, out, "callouts-own", ".callout-definition", ".callout-critical")


def _folded(page: Page, out: Path) -> None:
    _shot(page, out, "callouts-folding", "details.callout-proof", "details.callout-example")


def _math(page: Page, out: Path) -> None:
    _shot(page, out, "math", "h2#why-the-variance-is-d-k", "#eq-unit ~ p")


def _statements(page: Page, out: Path) -> None:
    _shot(page, out, "statements", "#def-sigmoidal", "#thm-ua")


def _preview(page: Page, out: Path) -> None:
    link = page.locator('p a.xref[href="#thm-ua"]').first
    link.scroll_into_view_if_needed()
    link.hover()
    page.locator(".preview").wait_for()
    page.wait_for_timeout(300)  # the fade-in
    paragraph = 'p:has(> a.xref[href="#thm-ua"])'
    top = page.locator(paragraph).first.bounding_box()
    box = page.locator(".preview").bounding_box()
    assert top is not None and box is not None
    last = ".preview" if box["y"] > top["y"] else paragraph
    first = paragraph if last == ".preview" else ".preview"
    _shot(page, out, "preview", first, last)
    page.mouse.move(0, 0)


def _citations(page: Page, out: Path) -> None:
    _shot(page, out, "citations", "section.references")


def _build_output(page: Page, out: Path) -> None:
    _shot(page, out, "build-output", "div.runnable:has(.runnable-figure)")


def _images(page: Page, out: Path) -> None:
    _shot(page, out, "images", "#figure-1")


def _diagrams(page: Page, out: Path) -> None:
    _shot(page, out, "diagrams", "#fig-build")


def _charts(page: Page, out: Path) -> None:
    _shot(page, out, "charts", "#fig-runs")
    page.locator(".chart-plotly .chart-live .scatterlayer").first.wait_for()
    _shot(page, out, "charts-plotly", ".chart-plotly")


def _notebook(page: Page, out: Path) -> None:
    _shot(page, out, "notebooks", "#the-fit", ".nb-cell:has(figure)")


def _quarto(page: Page, out: Path) -> None:
    _shot(page, out, "quarto", "h2#sec-function", "#fig-temperature")


SHOTS: dict[str, list[Callable[[Page, Path], None]]] = {
    "/posts/widgets/": [_collapsible, _video, _compare, _space],
    "/posts/runnable/": [_runnable],
    "/posts/callouts/": [_callouts, _own_types, _folded],
    "/posts/math/": [_math],
    "/posts/universal-approximation/": [_statements, _preview, _citations, _build_output],
    "/posts/a-walk-in-pictures/": [_images],
    "/posts/diagrams/": [_diagrams],
    "/posts/charts/": [_charts],
    "/posts/least-squares/": [_notebook],
    "/posts/softmax-temperature/": [_quarto],
}


def main(argv: list[str]) -> int:
    out = Path(argv[0]) if argv else ROOT / "docs" / "images"
    shots = {path: SHOTS[path] for path in argv[1:]} if argv[1:] else SHOTS
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="blogbuild-docs-") as tmp:
        site = Path(tmp) / "site"
        server = http.server.ThreadingHTTPServer(
            ("127.0.0.1", 0), functools.partial(_Handler, directory=str(site)))
        base = f"http://127.0.0.1:{server.server_address[1]}"
        _build(site, base + "/")
        threading.Thread(target=server.serve_forever, daemon=True).start()
        try:
            with sync_playwright() as pw:
                browser = pw.chromium.launch(executable_path="/usr/bin/chromium", args=ARGS)
                context = browser.new_context(viewport={"width": WIDTH, "height": 900},
                                              color_scheme="light", device_scale_factor=1)
                context.route("**/*", lambda r: r.continue_()
                              if r.request.url.startswith(base) else r.abort())
                page = context.new_page()
                for path, taken in shots.items():
                    page.goto(base + path)
                    page.wait_for_load_state("networkidle")
                    scroll_through(page)
                    for shot in taken:
                        shot(page, out)
                browser.close()
        finally:
            server.shutdown()
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
