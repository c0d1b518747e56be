"""What a reader's browser fetches before it can paint: one stylesheet, no blocking script,
and at most 20 KB (gzip -9) of the theme's own CSS and JS on the pages that matter.

The example blog is served on 127.0.0.1 and opened in headless Chromium; every response
is recorded. The vendored runtimes (/vendor/: KaTeX's fonts, Pyodide) and a search index
(/pagefind/) are not the theme's code and are not counted.
"""

from __future__ import annotations

import gzip
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import html5lib
import pytest

from css_helpers import stylesheets

#: Bytes of the theme's own CSS and JS, gzipped at level 9, one page may load.
BUDGET = 20 * 1024
#: The home page, the showcase post and the posts with the most features.
PAGES = ["", "posts/writing-a-technical-post/", "posts/math/", "posts/widgets/",
         "posts/callouts/", "posts/runnable/"]
NOT_OURS = ("/vendor/", "/pagefind/")
#: The KaTeX fonts math pages preload: the two nearly every formula uses.
PRELOADED = ["/vendor/katex/fonts/KaTeX_Main-Regular.woff2",
             "/vendor/katex/fonts/KaTeX_Math-Italic.woff2"]


def load(page: Any, url: str) -> list[Any]:
    """Open `url` and wait until it is idle; every response it got, in order."""
    responses: list[Any] = []
    page.on("response", lambda response: responses.append(response))
    page.goto(url)
    page.wait_for_load_state("networkidle")
    page.evaluate("document.fonts.ready.then(() => true)")
    return responses


def own_code(responses: list[Any]) -> dict[str, bytes]:
    """Path -> body of every CSS and JS file of our own the page loaded."""
    found = {}
    for response in responses:
        path = urlsplit(response.url).path
        kind = response.request.resource_type
        if (kind in ("stylesheet", "script") or path.endswith((".css", ".js", ".mjs"))) \
                and not path.startswith(NOT_OURS):
            found[path] = response.body()
    return found


@pytest.mark.browser
@pytest.mark.parametrize("path", PAGES)
def test_one_stylesheet_and_the_budget(example_site: Path, http_server: Any,
                                       browser_page: Any, path: str) -> None:
    base = http_server(example_site)
    responses = load(browser_page, base + path)
    links = browser_page.eval_on_selector_all('link[rel~="stylesheet"]',
                                              "els => els.map(e => e.href)")
    assert len(links) == 1, links
    [sheet] = [r for r in responses if r.url == links[0]]
    assert sheet.status == 200
    assert sheet.headers["content-type"].split(";")[0] == "text/css"
    assert [r.url for r in responses if r.status >= 400] == []
    code = own_code(responses)
    sizes = {p: len(gzip.compress(body, compresslevel=9)) for p, body in code.items()}
    print(f"/{path}: {sum(sizes.values())} bytes gzipped of own CSS and JS: {sizes}")
    assert sum(sizes.values()) <= BUDGET, sizes
    assert browser_page.console_errors == []
    assert browser_page.external_requests == []


@pytest.mark.browser
def test_math_fonts_load_from_the_stylesheet(example_site: Path, http_server: Any,
                                              browser_page: Any) -> None:
    base = http_server(example_site)
    responses = load(browser_page, base + "posts/math/")
    fonts = {urlsplit(r.url).path: r.status for r in responses
             if r.request.resource_type == "font"}
    assert set(PRELOADED) <= set(fonts)
    assert all(status == 200 for status in fonts.values()), fonts
    assert browser_page.evaluate("document.fonts.check('1em KaTeX_Main')")
    assert browser_page.evaluate("document.fonts.check('italic 1em KaTeX_Math')")
    # The preloaded fonts are the ones the stylesheet asks for: fetched once, not twice.
    assert sorted(p for p in fonts if p in PRELOADED) == PRELOADED
    assert [urlsplit(r.url).path for r in responses].count(PRELOADED[0]) == 1
    assert browser_page.console_errors == []


def head_of(page: Path) -> Any:
    doc = html5lib.parse(page.read_bytes(), namespaceHTMLElements=False)
    return doc.find("head")


def test_fonts_are_preloaded_only_on_pages_with_math(example_site: Path) -> None:
    pages = sorted(example_site.rglob("*.html"))
    with_math = set()
    for page in pages:
        preloads = [link for link in head_of(page).iter("link") if link.get("rel") == "preload"]
        if preloads:
            with_math.add(page.relative_to(example_site).parent.as_posix())
            assert [link.get("href") for link in preloads] == PRELOADED, page
            assert all(link.get("as") == "font" and link.get("type") == "font/woff2"
                       and link.get("crossorigin") == "" for link in preloads)
        assert ('class="katex"' in page.read_text(encoding="utf-8")) == bool(preloads), page
    assert {"posts/math", "posts/callouts"} <= with_math


def test_no_script_in_the_head_blocks_rendering(example_site: Path) -> None:
    """A classic script with a src in <head> stops the parser until it has run."""
    for page in sorted(example_site.rglob("*.html")):
        for script in head_of(page).iter("script"):
            if script.get("src") is not None:
                assert (script.get("type") == "module" or script.get("defer") is not None
                        or script.get("async") is not None), page


def test_every_page_links_one_stylesheet_of_its_own(example_site: Path) -> None:
    """No page links the theme's separate CSS files, though they are still copied."""
    pages = sorted(example_site.rglob("*.html"))
    links = {page: stylesheets(page) for page in pages if "http-equiv" not in page.read_text()}
    assert len(links) > 20
    for page, hrefs in links.items():
        assert len(hrefs) == 1 and hrefs[0].startswith("/css/bundle."), page
    assert (example_site / "css" / "callouts.css").is_file()
