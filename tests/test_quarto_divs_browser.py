"""A Quarto post's margin content, wide columns and layout grids in headless Chromium, on a
phone, a tablet and a wide screen: nothing wider than the window, the margin beside the
text where there is room, a grid in one column on a phone."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from PIL import Image

from blogbuild.commands.build import build

pytestmark = pytest.mark.browser

WORDS = "Some words of a paragraph that runs over a few lines of the column. " * 6
POST = f"""---
title: Layout
date: 2024-01-02
---

{WORDS}

::: {{.column-margin}}
A margin note.
:::

{WORDS} [An aside.]{{.aside}} {WORDS}

::: {{.column-page}}
Page wide. {WORDS}
:::

::: {{.column-screen}}
Screen wide. {WORDS}
:::

::: {{.column-screen-inset-right}}
Inset right. {WORDS}
:::

::: {{.column-body-outset-left}}
Outset left. {WORDS}
:::

::: {{#fig-grid layout="[[1,-0.2,1],[1]]"}}
![A](a.png)

![B](b.png)

![C](c.png)

A grid.
:::
"""

#: Each box's [left, right] edges, the column's, and the grid rows' columns.
MEASURE = """() => {
  const edges = e => { const b = e.getBoundingClientRect(); return [b.left, b.right]; };
  const all = s => [...document.querySelectorAll(s)].map(edges);
  return {
    scroll: document.scrollingElement.scrollWidth,
    column: edges(document.querySelector('.post-body')),
    wide: all('.post-body [class*="column-"]:not(.margin-note)'),
    page: edges(document.querySelector('.column-page')),
    margin: all('.margin-note'),
    rows: [...document.querySelectorAll('.layout-row')].map(
      e => getComputedStyle(e).gridTemplateColumns.split(' ').length),
  };
}"""


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("quarto-layout")
    (root / "site.yaml").write_text("title: Q\nbase_url: http://127.0.0.1/\nsearch: false\n"
                                    "social_cards: false\n")
    posts = root / "content" / "posts"
    posts.mkdir(parents=True)
    (posts / "layout.qmd").write_text(POST)
    for name in "abc":
        Image.new("RGB", (800, 500), "teal").save(posts / f"{name}.png")
    report = build(root / "site.yaml", jobs=1)
    assert [d.message for d in report.diagnostics] == []
    return root / "_site"


@pytest.mark.parametrize("width", [360, 768, 1440])
def test_nothing_is_wider_than_the_window(site: Path, http_server: Callable[..., str],
                                          browser_page: Any, width: int) -> None:
    browser_page.set_viewport_size({"width": width, "height": 900})
    browser_page.goto(http_server(site) + "posts/layout/")
    found = browser_page.evaluate(MEASURE)
    assert found["scroll"] <= width
    assert all(left >= 0 and right <= width for left, right in found["wide"])
    column_left, column_right = found["column"]
    if width == 360:  # a phone: a page-wide box is the column, the grid one column
        assert [round(x) for x in found["page"]] == [round(column_left), round(column_right)]
        assert found["rows"] == [1, 1]
        assert all(left >= column_left and right <= column_right
                   for left, right in found["margin"])
    else:
        assert found["page"][0] < column_left and found["page"][1] > column_right
        assert found["rows"] == [3, 1]
    if width == 1440:  # the margin notes beside the text, on the right
        assert all(left > column_right and right <= width for left, right in found["margin"])
    assert browser_page.console_errors == [] and browser_page.external_requests == []
