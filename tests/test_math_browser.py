"""Math in real headless Chromium: the example blog's math post, served on 127.0.0.1.

The page must get KaTeX's CSS (in its one stylesheet) and woff2 fonts from the site itself
and nothing else for math (no KaTeX JavaScript), lay every formula out, and keep wide formulas
inside their own scroll box on a phone.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest

pytestmark = pytest.mark.browser

POST = "posts/math/"


def open_post(page: Any, base: str) -> list[str]:
    """Load the math post; returns the URLs of every request the page made."""
    requests: list[str] = []
    page.on("request", lambda request: requests.append(request.url))
    page.goto(base + POST)
    page.wait_for_load_state("networkidle")
    page.evaluate("document.fonts.ready.then(() => true)")
    return requests


def test_math_page_loads_only_katex_css_and_fonts_from_the_site(
    example_site: Path, http_server: Any, browser_page: Any
) -> None:
    base = http_server(example_site)
    requests = open_post(browser_page, base)
    assert browser_page.external_requests == []
    assert all(urlsplit(url).hostname == "127.0.0.1" for url in requests)
    katex_paths = sorted(
        urlsplit(url).path for url in requests if "/vendor/katex/" in urlsplit(url).path
    )
    fonts = [p for p in katex_paths if p.startswith("/vendor/katex/fonts/")]
    assert fonts, "no KaTeX font was requested"
    assert all(p.endswith(".woff2") for p in fonts)
    assert set(katex_paths) == set(fonts)  # KaTeX's CSS is in the page's one stylesheet
    sheets = [urlsplit(url).path for url in requests if url.endswith(".css")]
    assert len(sheets) == 1 and sheets[0].startswith("/css/bundle.")
    assert not any(url.endswith(".js") and "katex" in url for url in requests)
    scripts = browser_page.eval_on_selector_all("script[src]", "els => els.map(e => e.src)")
    assert not any("katex" in src for src in scripts)
    # The fonts really loaded (a 404 would leave the fallback font in use).
    assert browser_page.evaluate("document.fonts.check('1em KaTeX_Main')")
    assert browser_page.evaluate("document.fonts.check('1em KaTeX_Math')")
    assert browser_page.console_errors == []


def test_formulas_are_laid_out(example_site: Path, http_server: Any, browser_page: Any) -> None:
    base = http_server(example_site)
    open_post(browser_page, base)
    boxes = browser_page.eval_on_selector_all(
        ".katex",
        "els => els.map(e => { const r = e.getBoundingClientRect(); return [r.width, r.height]; })",
    )
    assert len(boxes) > 30
    assert all(width > 0 and height > 0 for width, height in boxes)
    # Hidden MathML is for screen readers; the visible part is the HTML.
    hidden = browser_page.eval_on_selector_all(
        ".katex-mathml", "els => els.map(e => e.getBoundingClientRect().width <= 1)"
    )
    assert hidden and all(hidden)
    # A fraction is taller than a line of text: KaTeX's CSS is in effect.
    tall = browser_page.evaluate(
        "Math.max(...[...document.querySelectorAll('.math-display')]"
        ".map(e => e.getBoundingClientRect().height))"
    )
    assert tall > 40
    tags = browser_page.eval_on_selector_all(
        ".katex-tag", "els => els.map(e => e.textContent.replace(/[\\s\\u200b]/g, ''))"
    )
    assert tags == ["(1)", "(2)(3)", "(4)"]  # the align's two rows share one tag column
    assert browser_page.locator(".math-error").count() == 0
    assert browser_page.console_errors == []


def test_equation_reference_jumps_to_the_equation(
    example_site: Path, http_server: Any, browser_page: Any
) -> None:
    base = http_server(example_site)
    open_post(browser_page, base)
    link = browser_page.locator("a.math-ref", has_text="(3)").first
    assert link.get_attribute("href") == "#eq-var"
    link.click()
    browser_page.wait_for_function("location.hash === '#eq-var'")
    in_view = browser_page.evaluate(
        "(() => { const r = document.getElementById('eq-var').getBoundingClientRect();"
        " return r.top >= 0 && r.top < window.innerHeight; })()"
    )
    assert in_view


def test_wide_formula_scrolls_inside_its_box_on_a_phone(
    example_site: Path, http_server: Any, browser: Any
) -> None:
    base = http_server(example_site)
    context = browser.new_context(viewport={"width": 390, "height": 800}, color_scheme="dark")
    try:
        page = context.new_page()
        page.goto(base + POST)
        page.wait_for_load_state("networkidle")
        page_width = page.evaluate("document.documentElement.scrollWidth")
        assert page_width <= 390
        # A numbered formula scrolls inside its .katex-display (its number stays outside).
        overflowing = page.eval_on_selector_all(
            ".math-display:not(.math-numbered), .math-numbered > .katex-display",
            "els => els.filter(e => e.scrollWidth > e.clientWidth + 1)"
            ".map(e => getComputedStyle(e).overflowX)",
        )
        assert overflowing, "the example's wide formula should overflow at 390px"
        assert set(overflowing) == {"auto"}
    finally:
        context.close()


def test_math_under_a_sub_path(
    example_site_subpath: Path, http_server: Any, browser_page: Any
) -> None:
    base = http_server(example_site_subpath, prefix="/blog/")
    requests = open_post(browser_page, base)
    css = [urlsplit(url).path for url in requests if url.endswith(".css")]
    assert len(css) == 1 and css[0].startswith("/blog/css/bundle.")
    fonts = [urlsplit(url).path for url in requests if url.endswith(".woff2")]
    assert fonts and all(p.startswith("/blog/vendor/katex/fonts/") for p in fonts)
    assert browser_page.evaluate("document.fonts.check('1em KaTeX_Main')")
    assert browser_page.external_requests == []
    assert browser_page.console_errors == []
