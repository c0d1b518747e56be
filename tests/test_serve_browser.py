"""`blogbuild serve` in headless Chromium: the page reloads itself, keeps its scroll position,
swaps a changed stylesheet in place and shows build errors over the page."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from blogbuild.serve.session import Session
from serve_helpers import make_site, post, wait_for

pytestmark = [pytest.mark.browser, pytest.mark.server]

TIMEOUT = 15_000  # ms; a loaded CI machine, the happy path takes ~0.2 s


@pytest.fixture
def session(tmp_path: Path) -> Iterator[Session]:
    site = make_site(tmp_path / "site")
    body = "\n\n".join(f"## Part {i}\n\n" + f"Paragraph {i} of a long post. " * 30
                       for i in range(12))
    (site / "content" / "posts" / "2024-03-10-third.md").write_text(
        post("Third post", "2024-03-10", "beta", "The third body.\n\n" + body))
    served = Session(site / "site.yaml", port=0, output=tmp_path / "out")
    served.start()
    try:
        yield served
    finally:
        served.stop()


def connected(page: Any) -> None:
    page.wait_for_function("document.documentElement.dataset.blogbuildLive === 'connected'",
                           timeout=TIMEOUT)


def test_page_reloads_by_itself_after_an_edit(session: Session, browser_page: Any) -> None:
    page = browser_page
    page.set_viewport_size({"width": 900, "height": 700})
    source = session.live.config.content_path / "posts" / "2024-03-10-third.md"  # type: ignore[union-attr]
    page.goto(session.url + "posts/third/")
    connected(page)
    page.evaluate("window.scrollTo(0, 1500)")
    page.wait_for_function("window.scrollY >= 1400", timeout=TIMEOUT)
    scrolled = page.evaluate("window.scrollY")
    page.evaluate("window.notReloaded = true")

    before = session.updates
    source.write_text(source.read_text().replace("## Part 0", "## Edited in the editor"))
    page.wait_for_function("document.body.innerText.includes('Edited in the editor')",
                           timeout=TIMEOUT)
    assert page.evaluate("window.notReloaded") is None  # a real reload, by itself
    connected(page)
    page.wait_for_function(f"Math.abs(window.scrollY - {scrolled}) < 5", timeout=TIMEOUT)
    # The page is written ahead of the run; a save during the run joins it, and a run of a
    # post and a stylesheet together reloads the pages. The stylesheet is saved on its own.
    wait_for(lambda: session.updates > before, "the run of the edit")

    # A stylesheet change is swapped in without reloading the page.
    page.evaluate("window.notReloaded = true")
    css = session.live.config.root / "static" / "css" / "main.css"  # type: ignore[union-attr]
    css.write_text(css.read_text() + "\nh1 { color: rgb(1, 2, 3) !important; }\n")
    page.wait_for_function(
        "getComputedStyle(document.querySelector('h1')).color === 'rgb(1, 2, 3)'",
        timeout=TIMEOUT)
    assert page.evaluate("window.notReloaded") is True
    links = page.eval_on_selector_all('link[rel="stylesheet"]', "els => els.map(e => e.href)")
    assert len(links) == 1 and links[0].startswith(session.url + "css/bundle.")  # the new one

    # A broken post: an overlay with file, line and message; the page stays as it was.
    good = source.read_text()
    source.write_text(good.replace('title: "Third post"', 'title: "Third post\nx: [1'))
    overlay = page.locator("blogbuild-error-overlay")
    overlay.locator(".where").wait_for(timeout=TIMEOUT)
    where = overlay.locator(".where").inner_text()
    assert where.startswith("content/posts/2024-03-10-third.md:")
    assert "YAML" in overlay.locator(".message").inner_text()
    assert page.evaluate("window.notReloaded") is True
    assert "Edited in the editor" in page.inner_text("main")

    # Fixing it removes the overlay and shows the new text.
    source.write_text(good.replace("The third body.", "The fixed body."))
    page.wait_for_function("document.body.innerText.includes('The fixed body.')",
                           timeout=TIMEOUT)
    assert overlay.count() == 0
    assert page.console_errors == []
    assert page.external_requests == []
