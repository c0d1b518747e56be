"""Tabs in real headless Chromium over HTTP: click, keyboard and focus ring, sets of one
group switching together and remembered (or not, when storage is refused), a link into a
hidden panel, no shift when switching, a phone's width, print and JavaScript off."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from blogbuild.markdown import create_markdown
from blogbuild.output.codestyles import contrast
from conftest import build_site
from test_tabs import quarto_tokens

pytestmark = pytest.mark.browser

POST = "posts/tabs/"
TABS = """=== "pip"

    ```sh
    pip install blogbuild
    ```

=== "conda"

    Conda, a panel taller than the others:

    - one
    - two
    - three

===+ "From source with a long title"

    Clone it; `pip install -e .` in it.

    ```python
    wide = "WIDE"
    ```

=== "Docker"

    Docker.

Between.
""".replace("WIDE", "x" * 200)


def group_sets() -> str:
    """Two sets of the group "lang" as Quarto's .panel-tabset divs emit them, rendered by
    the real renderer and written into the post as raw HTML (with ids of their own)."""
    md = create_markdown()
    html = []
    for n in (1, 2):
        tokens = quarto_tokens("lang", ["R", "Python"], selected=0)
        tokens[0].attrSet("id", f"lang-{n}")
        for k, token in enumerate(t for t in tokens if t.type == "tab_open"):
            token.attrSet("id", f"lang-{n}-{k + 1}")
        html.append(md.renderer.render(tokens, md.options, {}))
    return "\n".join(html).replace("Body 1", "PYTHON-BODY").replace("Body 0", "R-BODY")


THEOREM = """> [!THEOREM] Two ways {#thm-tabs}
> === "First way"
>     FIRST-WAY
> === "Second way"
>     SECOND-WAY

By [](#thm-tabs).
"""


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    site = tmp_path_factory.mktemp("tabs")
    (site / "site.yaml").write_text("title: Tabs\nbase_url: http://127.0.0.1/\n")
    (site / "content" / "posts").mkdir(parents=True)
    body = f"---\ntitle: Tabs\n---\n\n{TABS}\n{group_sets()}\n\n{THEOREM}\nThe end.\n"
    (site / "content" / "posts" / "2024-01-01-tabs.md").write_text(body)
    return build_site(site, site / "_site")


@pytest.fixture
def open_page(browser: Any, built: Path, http_server: Callable[..., str],
              ) -> Iterator[Callable[..., Any]]:
    """`open_page(hash="", init="", route=None, **context_options)`: the post, loaded, in a
    new context (`init` run before the page's scripts; `route`, (URL pattern, "abort"),
    a request that fails); console errors other than that request's fail the test."""
    url = http_server(built) + POST
    made: list[tuple[Any, list[str]]] = []

    def open_(hash: str = "", init: str = "", route: tuple[str, str] | None = None,
              **options: Any) -> Any:
        options.setdefault("viewport", {"width": 1000, "height": 900})
        context = browser.new_context(**options)
        page = context.new_page()
        errors: list[str] = []
        made.append((context, errors))
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
        if init:
            page.add_init_script(init)
        if route:  # a script that never comes
            page.route(route[0], lambda request: request.abort())
        page.goto(url + hash)
        page.wait_for_load_state("load")
        if options.get("java_script_enabled", True) and not route:
            page.wait_for_selector(".tabset[data-live]", state="attached")
        return page

    yield open_
    for context, errors in made:
        context.close()
        assert [e for e in errors if "net::ERR_FAILED" not in e] == []


def state(page: Any, index: int = 0) -> dict[str, Any]:
    """The `index`-th set as a reader and a screen reader meet it."""
    return dict(page.evaluate(
        """i => { const set = document.querySelectorAll('.tabset')[i];
        const tabs = [...set.querySelectorAll(':scope > [role=tablist] > [role=tab]')];
        return { titles: tabs.map(t => t.textContent),
                 selected: tabs.map(t => t.getAttribute('aria-selected')),
                 tabindex: tabs.map(t => t.tabIndex),
                 visible: [...set.querySelectorAll(':scope > [role=tabpanel]')]
                          .map(p => getComputedStyle(p).visibility === 'visible'),
                 labelled: tabs.every(t => document.getElementById(
                     t.getAttribute('aria-controls')).getAttribute('aria-labelledby') === t.id),
                 height: set.getBoundingClientRect().height }; }""", index))


def test_click_shows_one_panel_and_keeps_the_set_the_same_height(open_page: Any) -> None:
    page = open_page()
    first = state(page)
    assert first["titles"] == ["pip", "conda", "From source with a long title", "Docker"]
    assert first["selected"] == ["false", "false", "true", "false"]  # ===+
    assert first["visible"] == [False, False, True, False] and first["labelled"]
    below = page.locator("text=Between.").bounding_box()
    page.get_by_role("tab", name="conda").click()
    after = state(page)
    assert after["selected"] == ["false", "true", "false", "false"]
    assert after["visible"] == [False, True, False, False]
    assert page.get_by_text("a panel taller than the others").is_visible()
    assert not page.get_by_text("Docker.").is_visible()
    assert after["height"] == first["height"]
    assert page.locator("text=Between.").bounding_box() == below  # nothing below moved


def test_keyboard_moves_between_tabs_with_a_visible_focus_ring(open_page: Any) -> None:
    page = open_page()
    page.get_by_role("tab", name="From source with a long title").focus()
    page.keyboard.press("ArrowRight")
    assert state(page)["selected"] == ["false", "false", "false", "true"]
    focused = page.get_by_role("tab", name="Docker")
    assert focused.evaluate("t => t === document.activeElement && t.matches(':focus-visible')")
    assert focused.evaluate("t => getComputedStyle(t).outlineStyle") == "solid"
    page.keyboard.press("ArrowRight")  # wraps round to the first
    assert state(page)["selected"][0] == "true"
    page.keyboard.press("ArrowLeft")
    page.keyboard.press("Home")
    assert state(page)["tabindex"] == [0, -1, -1, -1]
    page.keyboard.press("End")
    assert state(page)["tabindex"] == [-1, -1, -1, 0]
    page.keyboard.press("Tab")  # the one tab in the Tab order leads into its panel
    assert page.evaluate("document.activeElement.id") == "tabset-1-4"
    page.evaluate("document.documentElement.dir = 'rtl'")  # right to left, the row is too
    page.get_by_role("tab", name="pip").focus()
    page.keyboard.press("ArrowLeft")  # the tab to its left on screen: the next one
    assert state(page)["selected"][1] == "true"


def test_sets_of_a_group_switch_together_and_the_choice_is_remembered(open_page: Any) -> None:
    page = open_page()
    assert state(page, 1)["selected"] == state(page, 2)["selected"] == ["true", "false"]
    page.locator("#lang-1-2-tab").click()
    assert state(page, 2)["selected"] == ["false", "true"]
    assert page.locator("#lang-2 >> text=PYTHON-BODY").is_visible()
    assert state(page)["selected"][2] == "true"  # a set of no group is left alone
    page.reload()
    page.wait_for_selector(".tabset[data-live]", state="attached")
    assert state(page, 1)["selected"] == state(page, 2)["selected"] == ["false", "true"]


def test_refused_storage_still_switches_the_group(open_page: Any) -> None:
    refuse = ("Object.defineProperty(window, 'localStorage', "
              "{get() { throw new DOMException('denied', 'SecurityError'); }});")
    page = open_page(init=refuse)
    page.locator("#lang-2-2-tab").click()
    assert state(page, 1)["selected"] == ["false", "true"]


def test_a_link_into_a_hidden_panel_shows_it(open_page: Any) -> None:
    page = open_page(hash="#lang-2-2")
    assert state(page, 2)["selected"] == ["false", "true"]


LAYOUT = """() => [...document.querySelectorAll('.tabset')].map(set => {
    const panel = set.querySelector(':scope > [data-selected] > :nth-child(2)');
    return [set.getBoundingClientRect().top, set.getBoundingClientRect().height,
            panel.getBoundingClientRect().top]; })"""


def test_the_set_has_its_shape_before_the_script_runs_and_all_panels_if_it_never_does(
        open_page: Any) -> None:
    phone = {"viewport": {"width": 360, "height": 800}, "reduced_motion": "reduce"}
    live = open_page(**phone).evaluate(LAYOUT)
    page = open_page(**phone, route=("**/js/tabs.js", "abort"))
    for before, after in zip(page.evaluate(LAYOUT), live, strict=True):
        assert before == pytest.approx(after, abs=0.5)  # nothing moves when the script runs
    panels = page.locator(".tabset > .tab")
    assert [p.evaluate("p => getComputedStyle(p).visibility") for p in panels.all()][:4] == [
        "hidden", "hidden", "visible", "hidden"]
    page.wait_for_timeout(4200)  # the script never came: every panel under its title
    for text in ("pip install blogbuild", "a panel taller", "Docker.", "PYTHON-BODY"):
        assert page.get_by_text(text).first.is_visible()
    assert page.locator(".tab-title", has_text="conda").is_visible()


def test_on_a_phone_the_row_scrolls_and_the_page_does_not(open_page: Any) -> None:
    page = open_page(viewport={"width": 360, "height": 800})
    assert page.evaluate("document.documentElement.scrollWidth") == 360
    row = page.locator(".tab-list").first
    assert row.evaluate("r => r.scrollWidth > r.clientWidth")  # four titles are wider
    code = page.locator(".tabset[data-live] pre").nth(1)
    assert code.evaluate("p => p.scrollWidth > p.clientWidth")  # wide code scrolls in place


def test_print_shows_every_panel_under_its_title(open_page: Any) -> None:
    page = open_page()
    page.emulate_media(media="print")
    assert not page.locator(".tab-list").first.is_visible()
    for text in ("pip install blogbuild", "a panel taller", "Docker.", "R-BODY"):
        assert page.get_by_text(text).first.is_visible()
    assert page.locator(".tab-title", has_text="conda").is_visible()


def test_without_javascript_every_panel_shows_under_its_title(open_page: Any) -> None:
    page = open_page(java_script_enabled=False)
    assert page.locator("[role=tablist]").count() == 0
    titles = page.locator(".tabset").first.locator(".tab-title")
    assert titles.all_inner_texts() == ["pip", "conda", "From source with a long title",
                                        "Docker"]
    for text in ("pip install blogbuild", "a panel taller", "Docker.", "PYTHON-BODY"):
        assert page.get_by_text(text).first.is_visible()


def test_a_preview_of_a_statement_with_tabs_shows_every_panel(open_page: Any) -> None:
    page = open_page()
    page.wait_for_selector("script[data-widget-script$='previews.js'][data-loaded]",
                           state="attached")
    page.locator("a.xref[href='#thm-tabs']").hover()
    popover = page.locator(".preview:not([hidden])")
    popover.wait_for()
    for text in ("FIRST-WAY", "SECOND-WAY"):
        assert popover.get_by_text(text).is_visible()
    assert popover.locator(".tab-title").all_inner_texts() == ["First way", "Second way"]
    assert not popover.locator("[role=tab]").first.is_visible()


def hex_of(rgb: str) -> str:
    red, green, blue = (int(v) for v in re.findall(r"\d+", rgb)[:3])
    return f"#{red:02x}{green:02x}{blue:02x}"


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_tabs_are_readable_in_light_and_dark(open_page: Any, scheme: str) -> None:
    page = open_page(color_scheme=scheme)
    colours = page.evaluate("""() => {
        const bg = getComputedStyle(document.body).backgroundColor;
        const [chosen, other] = ['true', 'false'].map(s => getComputedStyle(
            document.querySelector(`.tab-button[aria-selected="${s}"]`)));
        return [bg, chosen.color, other.color, chosen.borderBottomColor]; }""")
    background, chosen, other, mark = (hex_of(c) for c in colours)
    assert contrast(chosen, background) >= 4.5 and contrast(other, background) >= 4.5
    assert contrast(mark, background) >= 3  # the chosen tab's underline
