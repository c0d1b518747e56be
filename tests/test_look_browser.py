"""The theme in real headless Chromium: the light/dark/system choice (remembered, applied
before the first paint, following the system), the sidebar table of contents and its
scrollspy, focus rings, and equation numbers on a phone."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytestmark = pytest.mark.browser

LIGHT_BG, DARK_BG = "rgb(253, 253, 252)", "rgb(22, 24, 28)"
MATH = "posts/math/"
TECH = "posts/writing-a-technical-post/"

# Runs before any script of the page: records every value data-theme takes and what the
# first frame (which waits for the stylesheet) sees.
FIRST_FRAME = """
window.__themes = [];
new MutationObserver((records) => records.forEach(
  (r) => window.__themes.push(r.target.getAttribute("data-theme"))
)).observe(document, {subtree: true, attributes: true, attributeFilter: ["data-theme"]});
requestAnimationFrame(() => { window.__firstFrame = {
  theme: document.documentElement.dataset.theme,
  bg: getComputedStyle(document.documentElement).getPropertyValue("--bg").trim(),
}; });
"""
EVENTS = """
window.__events = [];
addEventListener("blogbuild:theme", (e) => window.__events.push(e.detail.theme));
"""


@pytest.fixture
def context(browser: Any) -> Iterator[Any]:
    """`context(width=…, color_scheme=…, java_script_enabled=…)`: closed after the test."""
    made: list[Any] = []

    def make(width: int = 1400, **options: Any) -> Any:
        ctx = browser.new_context(viewport={"width": width, "height": 800}, **options)
        made.append(ctx)
        return ctx

    yield make
    for ctx in made:
        ctx.close()


def body_bg(page: Any) -> str:
    return str(page.evaluate("getComputedStyle(document.body).backgroundColor"))


def theme(page: Any) -> Any:
    return page.evaluate("document.documentElement.dataset.theme")


def test_a_chosen_dark_theme_is_there_at_the_first_paint_of_the_next_page(
    example_site: Path, http_server: Any, context: Any
) -> None:
    base = http_server(example_site)
    page = context(color_scheme="light").new_page()
    page.goto(base)
    page.evaluate(EVENTS)
    button = page.locator(".theme-toggle")
    assert button.get_attribute("aria-label") == "Theme: system"
    assert theme(page) == "light" and body_bg(page) == LIGHT_BG
    button.click()  # system -> light: the resolved theme stays light, no event
    assert button.get_attribute("aria-label") == "Theme: light"
    button.click()  # light -> dark
    assert button.get_attribute("aria-label") == "Theme: dark"
    assert theme(page) == "dark" and body_bg(page) == DARK_BG
    assert page.evaluate("window.__events") == ["dark"]
    assert page.evaluate("localStorage.getItem('blogbuild-theme')") == "dark"

    page.add_init_script(FIRST_FRAME)
    page.goto(base + MATH)
    page.wait_for_function("window.__firstFrame")
    assert page.evaluate("window.__firstFrame") == {"theme": "dark", "bg": "#16181c"}
    assert page.evaluate("window.__themes") == ["dark"]  # never light, not even briefly
    assert body_bg(page) == DARK_BG
    assert page.locator(".theme-toggle").get_attribute("aria-label") == "Theme: dark"
    # the code blocks follow: github-dark's keyword colour, not default's green
    keyword = page.locator(".highlight .k").first
    if keyword.count():
        assert keyword.evaluate("e => getComputedStyle(e).color") != "rgb(0, 128, 0)"


def test_system_follows_the_os_and_a_choice_wins_over_it(
    example_site: Path, http_server: Any, context: Any
) -> None:
    base = http_server(example_site)
    page = context(color_scheme="light").new_page()
    page.goto(base + TECH)
    page.evaluate(EVENTS)
    assert theme(page) == "light"
    page.emulate_media(color_scheme="dark")
    page.wait_for_function("document.documentElement.dataset.theme === 'dark'")
    assert body_bg(page) == DARK_BG
    assert page.evaluate("window.__events") == ["dark"]
    # The reader picks light on a dark system: light everywhere, the no-JS dark rules too.
    page.evaluate("localStorage.setItem('blogbuild-theme', 'light')")
    page.reload()
    assert theme(page) == "light" and body_bg(page) == LIGHT_BG
    assert page.evaluate("getComputedStyle(document.documentElement).colorScheme") == "light"
    assert page.locator(".highlight .k").first.evaluate(
        "e => getComputedStyle(e).color") == "rgb(0, 128, 0)"


@pytest.mark.parametrize(("scheme", "background"), [("light", LIGHT_BG), ("dark", DARK_BG)])
def test_without_javascript_no_button_and_the_os_colours(
    example_site: Path, http_server: Any, context: Any, scheme: str, background: str
) -> None:
    base = http_server(example_site)
    page = context(color_scheme=scheme, java_script_enabled=False).new_page()
    page.goto(base + TECH)
    assert theme(page) is None
    assert page.locator(".theme-toggle").count() == 1
    assert not page.locator(".theme-toggle").is_visible()
    assert body_bg(page) == background
    assert page.locator(".toc details").get_attribute("open") == ""


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_tabbing_through_header_and_toc_shows_a_focus_ring(
    example_site: Path, http_server: Any, context: Any, scheme: str
) -> None:
    base = http_server(example_site)
    page = context(color_scheme=scheme).new_page()
    page.goto(base + TECH)
    seen = []
    for _ in range(16):
        page.keyboard.press("Tab")
        seen.append(page.evaluate("""() => {
          const e = document.activeElement, s = getComputedStyle(e);
          return {what: e.tagName + "." + (e.className || e.getAttribute("href") || ""),
                  where: e.closest(".site-header, .toc, .post-header") ?. className || "",
                  style: s.outlineStyle, width: parseFloat(s.outlineWidth),
                  color: s.outlineColor};
        }"""))
    places = {f["where"].split()[0] for f in seen if f["where"]}
    assert {"site-header", "toc"} <= places, seen
    assert any(f["what"].startswith("BUTTON.theme-toggle") for f in seen)
    assert any(f["what"].startswith("SUMMARY") for f in seen)
    for focused in seen:
        assert focused["style"] != "none" and focused["width"] >= 2, focused
    # The ring has the theme's focus colour, which differs between light and dark.
    expected = "rgb(11, 98, 196)" if scheme == "light" else "rgb(124, 183, 255)"
    assert {f["color"] for f in seen} == {expected}


def marked(page: Any) -> list[str]:
    return list(page.eval_on_selector_all(
        ".toc a[aria-current='true']", "els => els.map(e => e.hash.slice(1))"))


def rect(page: Any, selector: str) -> dict[str, float]:
    return dict(page.eval_on_selector(selector, "e => e.getBoundingClientRect().toJSON()"))


def test_sidebar_toc_on_a_wide_screen_marks_the_section_being_read(
    example_site: Path, http_server: Any, context: Any
) -> None:
    base = http_server(example_site)
    page = context(width=1400).new_page()
    page.goto(base + MATH)
    page.wait_for_load_state("networkidle")
    ids = page.eval_on_selector_all(".toc a", "els => els.map(e => e.hash.slice(1))")
    assert len(ids) >= 4
    toc, body = rect(page, ".toc"), rect(page, ".post-body")
    assert toc["left"] >= body["right"] + 16  # a column of its own, beside the body
    assert page.eval_on_selector(".toc", "e => getComputedStyle(e).position") == "sticky"
    # Wide formulas, tables and code keep their scroll inside the body column.
    rights = page.eval_on_selector_all(
        ".post-body pre, .post-body table, .post-body .math-display",
        "els => els.map(e => e.getBoundingClientRect().right)")
    assert rights and max(rights) <= body["right"] + 0.5

    for target in (ids[2], ids[-2], ids[1]):  # down, further down, back up
        page.evaluate(f"document.getElementById({target!r}).scrollIntoView()")
        page.wait_for_function(
            f"document.querySelector('.toc a[href=\"#{target}\"]')"
            ".getAttribute('aria-current') === 'true'")
        assert marked(page) == [target]
        toc = rect(page, ".toc")
        assert toc["top"] >= 0 and toc["bottom"] <= 800  # still in sight: sticky
        assert page.eval_on_selector(".toc details", "e => e.open")
    # A click on the last entry marks it, even if its section cannot reach the top.
    page.click(f".toc a[href='#{ids[-1]}']")
    page.wait_for_timeout(200)
    assert marked(page) == [ids[-1]]
    link = page.locator(f".toc a[href='#{ids[-1]}']")
    assert link.evaluate("e => getComputedStyle(e).color") != page.locator(
        f".toc a[href='#{ids[0]}']").evaluate("e => getComputedStyle(e).color")
    # The summary does not fold the sidebar.
    page.click(".toc summary")
    assert page.eval_on_selector(".toc details", "e => e.open")


def test_toc_is_inline_on_a_phone(example_site: Path, http_server: Any, context: Any) -> None:
    base = http_server(example_site)
    page = context(width=360).new_page()
    page.goto(base + MATH)
    assert page.eval_on_selector(".toc", "e => getComputedStyle(e).position") == "static"
    toc, body = rect(page, ".toc"), rect(page, ".post-body")
    assert toc["bottom"] <= body["top"] and toc["width"] >= body["width"] - 1
    assert page.evaluate("document.documentElement.scrollWidth") <= 360


def test_equation_numbers_stay_in_sight_on_a_phone(
    example_site: Path, http_server: Any, context: Any
) -> None:
    base = http_server(example_site)
    page = context(width=360).new_page()
    page.goto(base + MATH)
    page.wait_for_load_state("networkidle")
    page.evaluate("document.fonts.ready.then(() => true)")
    numbers = page.eval_on_selector_all(".math-numbered .katex-tag", """
    tags => tags.flatMap(tag => {
      // Scroll the page only: the formula's own scroller stays at its start, as a reader
      // first sees it.
      scrollTo(0, tag.getBoundingClientRect().top + scrollY - 300);
      const walker = document.createTreeWalker(tag, NodeFilter.SHOW_TEXT);
      const found = [];
      for (let n = walker.nextNode(); n; n = walker.nextNode()) {
        if (!/\\d/.test(n.data)) continue;
        const range = document.createRange(); range.selectNodeContents(n);
        const r = range.getBoundingClientRect();
        const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
        found.push({text: n.data, left: r.left, right: r.right, width: r.width,
                    visible: !!hit && tag.contains(hit)});
      }
      return found;
    })""")
    digits = "".join(n["text"] for n in numbers)
    assert all(d in digits for d in "1234"), numbers  # (1) to (4) of the example post
    wide = page.eval_on_selector_all(
        ".math-numbered > .katex-display", "els => els.filter(e => e.scrollWidth > e.clientWidth)")
    assert wide, "the example should have a numbered formula wider than a phone"
    for number in numbers:
        assert number["width"] > 0 and number["left"] >= 0 and number["right"] <= 360, number
        assert number["visible"], number  # not clipped by the formula's scroller
