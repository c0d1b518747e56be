"""Previews and sidenotes in real headless Chromium: hover, keyboard, Esc, touch, narrow
screens, JavaScript off, and footnotes in the margin."""

from __future__ import annotations

import itertools
import shutil
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from conftest import build_site

pytestmark = pytest.mark.browser

SITE = Path(__file__).parent / "sites" / "previews"
POST = "posts/refs/"
#: Narrower than the sidenotes' breakpoint: footnote references preview there.
DESKTOP = {"width": 1100, "height": 800}
FOOTNOTE = "sup.footnote-ref a[href='#fn1']"
POPOVER = ".preview:not([hidden])"


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    site = tmp_path_factory.mktemp("previews") / "site"
    shutil.copytree(SITE, site)  # the build's cache goes beside site.yaml, not in tests/
    return build_site(site, site / "_site")


@pytest.fixture
def url(built: Path, http_server: Callable[..., str]) -> str:
    return http_server(built) + POST


@pytest.fixture
def open_page(browser: Any, url: str) -> Iterator[Callable[..., Any]]:
    """`open_page(**context_options)`: the post in a new context; every request is recorded
    (`page.requests`) and those leaving 127.0.0.1 are aborted."""
    contexts = []

    def open_(**options: Any) -> Any:
        options.setdefault("viewport", DESKTOP)
        context = browser.new_context(**options)
        contexts.append(context)
        page = context.new_page()
        page.requests = []
        page.errors = []

        def route(route: Any) -> None:
            page.requests.append(route.request.url)
            if route.request.url.startswith(url.split("/posts/")[0]):
                route.continue_()
            else:
                route.abort()

        context.route("**/*", route)
        page.on("pageerror", lambda exc: page.errors.append(str(exc)))
        page.on("console", lambda m: page.errors.append(m.text) if m.type == "error" else None)
        page.goto(url)
        page.wait_for_load_state("load")
        # previews.js is imported when the browser is first idle (js/widgets.js).
        if options.get("java_script_enabled", True):
            page.wait_for_selector("script[data-widget-script$='previews.js'][data-loaded]",
                                   state="attached")
        return page

    yield open_
    for context in contexts:
        context.close()


def popover_text(page: Any) -> str:
    page.wait_for_selector(POPOVER)
    return str(page.locator(POPOVER).inner_text())


def test_hover_shows_the_footnote_without_its_back_link(open_page: Callable[..., Any]) -> None:
    page = open_page()
    page.hover(FOOTNOTE)
    text = popover_text(page)
    assert "The softmax of" in text and "↩" not in text
    popover = page.locator(POPOVER)
    assert popover.get_attribute("role") == "dialog"
    assert popover.get_attribute("aria-label") == "Preview: Footnote 1"
    assert popover.locator(".preview-go").get_attribute("href") == "#fn1"
    body = page.locator(f"{POPOVER} .preview-body")
    assert body.locator("[id]").count() == 0 and body.locator(".footnote-backref").count() == 0
    # A link inside the copy still works: it leads to the section it names.
    assert body.locator("a[href='#background']").count() == 1
    link = page.locator(FOOTNOTE)
    assert link.get_attribute("aria-describedby") == "blogbuild-preview"
    page.mouse.move(5, 5)
    page.wait_for_selector(".preview", state="detached")
    assert link.get_attribute("aria-describedby") is None
    assert page.errors == []


def test_the_pointer_can_move_into_the_preview(open_page: Callable[..., Any]) -> None:
    page = open_page()
    page.hover("a.xref[href='#thm-ua']")
    page.wait_for_selector(POPOVER)
    page.hover(f"{POPOVER} .preview-body")
    page.wait_for_timeout(600)  # longer than the grace period
    assert "Universal approximation" in popover_text(page)


def test_keyboard_focus_shows_it_and_escape_closes_it(open_page: Callable[..., Any]) -> None:
    page = open_page()
    page.keyboard.press("Tab")  # the skip link
    for _ in range(20):
        page.keyboard.press("Tab")
        if page.evaluate("document.activeElement.matches(\"sup.footnote-ref a[href='#fn1']\")"):
            break
    assert "The softmax of" in popover_text(page)
    link = page.locator(FOOTNOTE)
    assert link.evaluate("a => getComputedStyle(a).outlineStyle") == "solid"
    page.keyboard.press("Escape")
    assert page.locator(".preview").count() == 0
    assert link.evaluate("a => a === document.activeElement")
    # Tab from the link goes into the preview's links, Esc from there returns to the link.
    page.keyboard.press("Shift+Tab")
    page.keyboard.press("Tab")
    page.wait_for_selector(POPOVER)
    page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.closest('.preview') !== null")
    page.keyboard.press("Escape")
    assert page.locator(".preview").count() == 0
    assert link.evaluate("a => a === document.activeElement")


def test_equation_preview_is_katex_and_fetches_nothing(open_page: Callable[..., Any]) -> None:
    page = open_page()
    before = list(page.requests)
    page.hover("a.math-ref[href='#eq-attn']")
    page.wait_for_selector(POPOVER)
    assert page.locator(f"{POPOVER} .katex").count() >= 1
    assert "Attention" in page.locator(f"{POPOVER} .katex-html").inner_text()
    # The second label of a display is an empty anchor inside it: the display shows.
    page.mouse.move(5, 5)
    page.wait_for_selector(".preview", state="detached")
    page.hover("a.math-ref[href='#eq-second']")
    page.wait_for_selector(POPOVER)
    assert "c" in page.locator(f"{POPOVER} .math-display .katex-html").inner_text()
    for selector in ("a.xref[href='#figure-1']", ".citation a", "a.xref-external"):
        page.mouse.move(5, 5)
        page.wait_for_selector(".preview", state="detached")
        page.hover(selector)
        page.wait_for_selector(POPOVER)
    assert "bounded monotone" in popover_text(page)  # the <template> data-preview names
    page.wait_for_timeout(300)
    origin = before[0].split("/posts/")[0]
    assert all(u.startswith(origin) for u in page.requests)
    # Only files of the page's own (the icon, a font of a glyph not drawn before).
    fetched = [u for u in page.requests[len(before):] if not u.endswith((".svg", ".woff2"))]
    assert fetched == [], "a preview made a request"


def test_other_page_link_without_preview_stays_a_link(open_page: Callable[..., Any]) -> None:
    page = open_page()
    page.hover("a.xref-external:not([data-preview])")
    page.wait_for_timeout(600)
    assert page.locator(POPOVER).count() == 0


def test_first_tap_shows_second_tap_follows(open_page: Callable[..., Any]) -> None:
    page = open_page(viewport={"width": 360, "height": 740}, has_touch=True, is_mobile=True)
    page.tap(FOOTNOTE)
    assert "The softmax of" in popover_text(page)
    assert page.evaluate("location.hash") == ""
    page.tap("h1")  # outside: closes
    assert page.locator(".preview").count() == 0
    page.tap(FOOTNOTE)
    page.wait_for_selector(POPOVER)
    page.tap(FOOTNOTE)
    page.wait_for_function("location.hash === '#fn1'")


def test_go_to_link_navigates_on_touch(open_page: Callable[..., Any]) -> None:
    page = open_page(viewport={"width": 360, "height": 740}, has_touch=True, is_mobile=True)
    page.tap("a.math-ref[href='#eq-attn']")
    page.tap(f"{POPOVER} .preview-go")
    page.wait_for_function("location.hash === '#eq-attn'")
    assert page.locator(".preview").count() == 0


@pytest.mark.parametrize("selector", [FOOTNOTE, "a.math-ref[href='#eq-attn']",
                                      "a.xref[href='#figure-1']", "a.xref[href='#background']"])
def test_preview_fits_a_narrow_screen(open_page: Callable[..., Any], selector: str) -> None:
    page = open_page(viewport={"width": 360, "height": 640}, has_touch=True, is_mobile=True)
    page.locator(selector).scroll_into_view_if_needed()
    page.tap(selector)
    page.wait_for_selector(POPOVER)
    box = page.locator(POPOVER).bounding_box()
    assert box["x"] >= 0 and box["x"] + box["width"] <= 360
    assert box["y"] >= 0 and box["y"] + box["height"] <= 640
    assert page.evaluate("document.documentElement.scrollWidth") <= 360


def test_without_javascript_the_link_goes_to_the_footnote(
        open_page: Callable[..., Any]) -> None:
    page = open_page(java_script_enabled=False)
    page.click(FOOTNOTE)
    page.wait_for_function("location.hash === '#fn1'")
    assert page.locator(".preview").count() == 0
    assert page.locator("#fn1").is_visible()


def _note_boxes(page: Any) -> list[dict[str, float]]:
    return [page.locator(".sidenote").nth(i).bounding_box()
            for i in range(page.locator(".sidenote").count())]


def test_sidenotes_in_the_margin_on_wide_screens(open_page: Callable[..., Any]) -> None:
    page = open_page(viewport={"width": 1400, "height": 900})
    page.wait_for_function("document.querySelectorAll('.sidenote').length === 3")
    notes = _note_boxes(page)
    body = page.locator(".post-body").bounding_box()
    numbers = page.locator(".sidenote .sidenote-number").all_inner_texts()
    assert numbers == ["1", "2", "3"]
    for note in notes:
        assert note is not None and note["x"] >= body["x"] + body["width"]
        assert note["x"] + note["width"] <= 1400
    for upper, lower in itertools.pairwise(notes):
        assert upper["y"] + upper["height"] <= lower["y"]
    ref = page.locator(FOOTNOTE).bounding_box()
    assert abs(notes[0]["y"] - ref["y"]) < 20  # beside its reference
    assert "The softmax of" in page.locator(".sidenote").first.inner_text()
    # The footnote list stays; the margin copy is hidden from screen readers and Tab.
    assert page.locator("#fn1").is_visible()
    assert page.locator(".sidenote[aria-hidden='true']").count() == 3
    assert page.locator(".sidenote a:not([tabindex='-1'])").count() == 0
    # With the note in sight, a footnote reference needs no preview.
    page.hover(FOOTNOTE)
    page.wait_for_timeout(500)
    assert page.locator(POPOVER).count() == 0


def test_no_sidenotes_on_narrow_screens(open_page: Callable[..., Any]) -> None:
    page = open_page(viewport={"width": 360, "height": 740})
    assert page.locator(".sidenote").count() == 3
    assert all(not page.locator(".sidenote").nth(i).is_visible() for i in range(3))
    assert page.evaluate("document.documentElement.scrollWidth") <= 360
