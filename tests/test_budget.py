"""What a reader's browser fetches before it can paint: one stylesheet, no blocking script,
and at most 20 KB (gzip -9) of the theme's own CSS and JS on the pages that matter, the
showcase page with every widget (tests/sites/showcase) among them: there the scripts of
widgets are fetched only when a widget comes near (js/widgets.js).

The example blog is served on 127.0.0.1 and opened in headless Chromium; every response
is recorded. The vendored runtimes (/vendor/: KaTeX's fonts, Pyodide) and a search index
(/pagefind/) are not the theme's code and are not counted.
"""

from __future__ import annotations

import gzip
import re
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import html5lib
import pytest

from conftest import build_site, showcase_site
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


# --- the showcase: every widget, comments, previews and search on one page ------------------

SHOWCASE_POST = "posts/showcase/"
#: The data blocks of widget scripts the showcase has, and the widget each waits for.
WIDGET_SCRIPTS = {"copy.js": ".codeblock", "comments.js": "[data-comments]",
                  "compare.js": ".image-compare", "hf-space.js": ".hf-space",
                  "previews.js": None, "runnable.js": ".runnable", "video.js": ".video-embed"}


@pytest.fixture(scope="module")
def showcase(tmp_path_factory: pytest.TempPathFactory) -> Path:
    site = showcase_site(tmp_path_factory.mktemp("showcase-site"))
    return build_site(site, tmp_path_factory.mktemp("showcase"), base_url="http://127.0.0.1/")


def own_part(path: str, data: bytes) -> bytes:
    """`data` without the vendored parts of a page stylesheet (KaTeX's CSS): ours only."""
    if not path.endswith(".css"):
        return data
    pieces = re.split(rb"(?m)^(?=/\* \S+\.css \*/$)", data)
    return b"".join(p for p in pieces if not p.startswith(b"/* vendor/"))


def test_the_showcase_loads_at_most_20_kb_of_our_code_up_front(showcase: Path) -> None:
    page = showcase / SHOWCASE_POST / "index.html"
    doc = html5lib.parse(page.read_bytes(), namespaceHTMLElements=False)
    scripts = list(doc.iter("script"))
    # Every widget is on the page and each widget script waits for its widget.
    blocks = {s.get("data-widget-script"): s.get("data-near") for s in scripts
              if s.get("data-widget-script")}
    assert {url.rsplit("/", 1)[1]: near for url, near in blocks.items()} == WIDGET_SCRIPTS
    assert all(s.get("type") == "text/plain" and s.get("src") is None for s in scripts
               if s.get("data-widget-script"))
    assert doc.find(".//div[@class='runnable']") is not None
    assert doc.find(".//section[@id='post-comments']") is not None
    # What the page fetches before any widget is near: its stylesheet and its script srcs.
    up_front = stylesheets(page) + [s.get("src") for s in scripts if s.get("src")]
    assert "/js/widgets.js" in up_front and "/js/search.js" in up_front
    sizes = {}
    for url in up_front:
        assert url.startswith("/"), url
        if url.startswith(NOT_OURS):
            continue
        data = own_part(url, (showcase / url.lstrip("/")).read_bytes())
        sizes[url] = len(gzip.compress(data, compresslevel=9))
    later = {url: len(gzip.compress((showcase / url.lstrip("/")).read_bytes(), 9))
             for url in blocks}
    print(f"showcase: {sum(sizes.values())} bytes up front {sizes}; "
          f"{sum(later.values())} when near {later}")
    assert set(blocks).isdisjoint(up_front)
    assert sum(sizes.values()) <= BUDGET, sizes


def open_showcase(page: Any, root: str, width: int, height: int) -> list[str]:
    """Open the showcase post at this size; the paths it requests (the list grows on)."""
    page.set_viewport_size({"width": width, "height": height})
    requested: list[str] = []
    page.on("request", lambda request: requested.append(urlsplit(request.url).path))
    page.goto(root + SHOWCASE_POST)
    page.wait_for_load_state("networkidle")
    return requested


@pytest.mark.browser
def test_a_widget_script_is_fetched_only_when_its_widget_comes_near(
        showcase: Path, http_server: Any, browser_page: Any) -> None:
    requested = open_showcase(browser_page, http_server(showcase), 1280, 800)
    # previews.js comes when the browser is idle; the runnable block and the comments are
    # screens away, so their scripts are not fetched.
    browser_page.wait_for_selector("script[data-widget-script$='previews.js'][data-loaded]",
                                   state="attached")
    assert "/js/widgets.js" in requested
    assert "/js/runnable.js" not in requested and "/js/comments.js" not in requested
    assert browser_page.locator(".runnable-toolbar").count() == 0
    # The reader scrolls to the runnable block: its script comes and builds the widget.
    browser_page.locator(".runnable").scroll_into_view_if_needed()
    browser_page.wait_for_selector(".runnable.runnable-ready .runnable-toolbar")
    assert requested.count("/js/runnable.js") == 1
    assert not any("pyodide" in path for path in requested)  # the runtime waits for Run
    # Fetched once, by the loader, and not again on the way back up.
    browser_page.evaluate("scrollTo(0, 0)")
    browser_page.locator(".runnable").scroll_into_view_if_needed()
    assert requested.count("/js/runnable.js") == 1
    # Near the end of the page the comments came near too: giscus was asked for (and refused
    # by the test's network) as the comments script does when its section is in view.
    assert set(browser_page.external_requests) <= {"https://giscus.app/client.js"}
    assert len(browser_page.console_errors) == len(browser_page.external_requests)


@pytest.mark.browser
def test_keyboard_focus_on_a_far_widget_loads_its_script(
        showcase: Path, http_server: Any, browser_page: Any) -> None:
    requested = open_showcase(browser_page, http_server(showcase), 360, 640)
    assert "/js/hf-space.js" not in requested
    # Focus moves to the Space's link without the page scrolling (as a skip link or a
    # screen reader's list of links may): the script comes with the focus.
    browser_page.evaluate(
        "document.querySelector('a.hf-space-facade').focus({preventScroll: true})")
    browser_page.wait_for_selector(".hf-space button.hf-space-facade")
    assert requested.count("/js/hf-space.js") == 1
    assert browser_page.console_errors == []


@pytest.mark.browser
def test_the_slider_keeps_its_size_when_its_script_comes(
        showcase: Path, http_server: Any, browser_page: Any) -> None:
    """With JavaScript on, the two images are laid over each other from the first paint, so
    a reader who lands on the slider (a link to its heading) sees nothing move."""
    requested = open_showcase(browser_page, http_server(showcase), 360, 640)
    assert "/js/compare.js" not in requested
    root = browser_page.locator(".image-compare")
    waiting = root.bounding_box()["height"]
    image = root.locator(".compare-before img").bounding_box()["height"]
    root.scroll_into_view_if_needed()
    browser_page.wait_for_selector(".image-compare.is-active [role=slider]")
    assert requested.count("/js/compare.js") == 1
    assert root.bounding_box()["height"] == pytest.approx(waiting, abs=1)
    assert root.locator(".compare-frame").bounding_box()["height"] == pytest.approx(image, abs=1)
