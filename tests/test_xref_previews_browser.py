"""A cross-reference to another post previews its target in headless Chromium, from the
page's own template: nothing is fetched."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from conftest import build_site

pytestmark = pytest.mark.browser

POPOVER = ".preview:not([hidden])"


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    site = tmp_path_factory.mktemp("xref-previews") / "site"
    posts = site / "content" / "posts"
    posts.mkdir(parents=True)
    (site / "site.yaml").write_text("title: X\n")
    (posts / "a.md").write_text("---\ntitle: Post A\ndate: 2024-01-02\n---\n\n"
                                "By [](b.md#thm-b) and [](b.md#eq-b).\n")
    (posts / "b.md").write_text("---\ntitle: Post B\ndate: 2024-01-01\n---\n\n"
                                "> [!THEOREM] {#thm-b}\n> Every bounded monotone sequence "
                                "converges.\n\n$$\ne^{i\\pi} + 1 = 0 \\label{eq:b}\n$$\n")
    return build_site(site, site / "_site")


def test_hover_shows_the_other_posts_theorem_without_a_request(
        built: Path, http_server: Callable[..., str], browser: Any) -> None:
    root = http_server(built)
    context = browser.new_context(viewport={"width": 1100, "height": 800})
    try:
        page = context.new_page()
        requests: list[str] = []
        page.on("request", lambda request: requests.append(request.url))
        page.goto(root + "posts/a/")
        page.wait_for_load_state("load")
        loaded = len(requests)
        page.hover("a.xref-external[href='/posts/b/#thm-b']")
        page.wait_for_selector(POPOVER)
        shown = page.locator(POPOVER).inner_text()
        assert "Theorem 1" in shown and "Every bounded monotone sequence converges." in shown
        assert page.locator(f"{POPOVER} .preview-go").get_attribute("href") == "/posts/b/#thm-b"
        assert page.locator(f"{POPOVER} [id]").count() == 0  # no second #thm-b in the page
        page.mouse.move(5, 5)
        page.wait_for_selector(".preview", state="detached")
        page.hover("a.xref-external[href='/posts/b/#eq-b']")
        page.wait_for_selector(f"{POPOVER} .katex-html")
        page.wait_for_timeout(300)
        assert not any("/posts/b/" in url for url in requests[loaded:]), requests[loaded:]
    finally:
        context.close()


def test_the_hover_that_loads_the_script_gets_its_preview(
        built: Path, http_server: Callable[..., str], browser: Any) -> None:
    """The previews' script loads when the browser is first idle or on the first
    interaction; with the browser never idle, the hover that loads it still opens the
    preview (it used to open only on the next hover)."""
    root = http_server(built)
    context = browser.new_context(viewport={"width": 1100, "height": 800})
    try:
        page = context.new_page()
        page.add_init_script("window.requestIdleCallback = () => 0;")
        page.goto(root + "posts/a/")
        page.wait_for_load_state("load")
        page.wait_for_timeout(300)
        block = page.locator("script[data-widget-script$='previews.js']")
        assert block.get_attribute("data-loaded") is None  # nothing loaded it yet
        page.hover("a.xref-external[href='/posts/b/#thm-b']")
        page.wait_for_selector(POPOVER, timeout=5000)
        assert "Every bounded monotone sequence converges." in page.locator(POPOVER).inner_text()
    finally:
        context.close()
