"""Line numbers beside code in real headless Chromium: shown beside their lines, left out of
what the copy button and a reader's selection copy, in sight while wide code scrolls on a
phone, readable in light and dark."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from blogbuild.output.codestyles import contrast
from conftest import build_site

pytestmark = pytest.mark.browser

WIDE = "wide = '" + "x" * 150 + "'"
POST = f"""---
title: Numbers
---

```python linenums="8" hl_lines="3"
first = 1
second = 2
third = 3
{WIDE}
```

```go {{linenos=table,linenostart=199}}
package main
```

``` {{.python .numberLines startFrom="100"}}
pandoc = True
```
"""
CODE = f"first = 1\nsecond = 2\nthird = 3\n{WIDE}\n"


@pytest.fixture(scope="module")
def numbered_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    site = tmp_path_factory.mktemp("numbers")
    (site / "site.yaml").write_text("title: Numbers\nbase_url: http://127.0.0.1/\n")
    (site / "content" / "posts").mkdir(parents=True)
    (site / "content" / "posts" / "2024-01-01-numbers.md").write_text(POST)
    return build_site(site, site / "_site")


@pytest.fixture
def page_at(browser: Any, numbered_site: Path, http_server: Any) -> Iterator[Any]:
    """`page_at(width, scheme)`: the post in a context that may use the clipboard."""
    base = http_server(numbered_site)
    made: list[Any] = []

    def open_page(width: int = 1400, scheme: str = "light") -> Any:
        ctx = browser.new_context(viewport={"width": width, "height": 800}, color_scheme=scheme,
                                  permissions=["clipboard-read", "clipboard-write"])
        made.append(ctx)
        page = ctx.new_page()
        page.goto(base + "posts/numbers/")
        return page

    yield open_page
    for ctx in made:
        ctx.close()


def shown_numbers(page: Any, block: int = 0) -> list[str]:
    return [n.strip() for n in page.evaluate(
        """(i) => [...document.querySelectorAll('pre.numbered')[i].querySelectorAll('.ln')]
                  .map((ln) => getComputedStyle(ln, '::before').content.replace(/"/g, ''))""",
        block)]


def test_numbers_are_shown_from_the_first_line_s_number(page_at: Any) -> None:
    page = page_at()
    assert shown_numbers(page, 0) == ["8", "9", "10", "11"]
    assert shown_numbers(page, 1) == ["199"]
    assert shown_numbers(page, 2) == ["100"]


def test_the_copy_button_copies_the_code_without_numbers(page_at: Any) -> None:
    page = page_at()
    page.locator(".codeblock").first.locator(".copy-button").click()
    page.wait_for_selector(".copy-button[data-copied]")
    assert page.evaluate("navigator.clipboard.readText()") == CODE


def test_a_selection_of_the_whole_code_copies_no_numbers(page_at: Any) -> None:
    page = page_at()
    selected = page.evaluate("""() => {
        const range = document.createRange();
        range.selectNodeContents(document.querySelector('pre.numbered code'));
        getSelection().removeAllRanges();
        getSelection().addRange(range);
        return getSelection().toString();
    }""")
    assert selected == CODE.rstrip("\n")  # a selection leaves out the last line's end
    page.keyboard.press("Control+C")
    assert page.evaluate("navigator.clipboard.readText()") == CODE.rstrip("\n")
    page.keyboard.press("Control+A")  # the whole page: still no number in the code's text
    assert re.search(r"^\s*(8|9|10|11)\s*first", page.evaluate("getSelection().toString()"),
                     re.M) is None


def test_each_number_sits_on_its_line_and_stays_in_sight_while_wide_code_scrolls(
        page_at: Any) -> None:
    page = page_at(width=360)
    pre = page.locator("pre.numbered").first
    pre.scroll_into_view_if_needed()
    before = page.evaluate(GEOMETRY)
    pre.evaluate("(e) => { e.scrollLeft = 200; }")
    after = page.evaluate(GEOMETRY)
    assert after["scrolled"] == 200  # the wide line scrolls the block
    for shot in (before, after):
        for number, line in zip(shot["numbers"], shot["lines"], strict=True):
            assert abs(number["middle"] - line["middle"]) < 1.5  # on its line
            assert abs(number["left"] - shot["pre"]) < 1  # at the block's left edge
            assert number["width"] == shot["numbers"][0]["width"]  # one width: aligned
    assert after["numbers"][3]["left"] == before["numbers"][3]["left"]


#: The numbers' boxes, the boxes of the first word of each line, and the pre's left edge.
GEOMETRY = """() => {
    const pre = document.querySelector('pre.numbered');
    const box = (e) => { const r = e.getBoundingClientRect();
                         return {middle: r.top + r.height / 2, left: r.left, width: r.width}; };
    const lns = [...pre.querySelectorAll('.ln')];
    return {pre: pre.getBoundingClientRect().left, scrolled: pre.scrollLeft,
            numbers: lns.map(box), lines: lns.map((ln) => box(ln.nextElementSibling))};
}"""


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_numbers_are_readable_in_light_and_dark(page_at: Any, scheme: str) -> None:
    page = page_at(scheme=scheme)
    colours = page.evaluate("""() => [...document.querySelectorAll('pre.numbered .ln')]
        .map((ln) => { const s = getComputedStyle(ln);
                       return [s.color, s.backgroundColor]; })""")
    assert len(colours) == 6  # the four lines of the first block, one of each other
    for colour, background in colours:
        assert contrast(hex_of(colour), hex_of(background)) >= 4.5, (colour, background)


def hex_of(rgb: str) -> str:
    red, green, blue = (int(v) for v in re.findall(r"\d+", rgb)[:3])
    return f"#{red:02x}{green:02x}{blue:02x}"
