"""Pictures in real headless Chromium: the copy a phone picks, and pictures for one theme
that follow the reader's choice of theme, not only the system's."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from blogbuild.commands.build import build
from image_helpers import jpeg_photo
from test_images import make_site

pytestmark = pytest.mark.browser

BODY = """Text first.

![Light diagram](light.png#gh-light-mode-only)
![Dark diagram](dark.png#gh-dark-mode-only)

<picture><source media="(prefers-color-scheme: dark)" srcset="/blog/img/raw-dark.png">
<img id="raw" src="/blog/img/raw-light.png" alt="A raw picture"></picture>

More text.

![A photo](photo.jpg)
"""


def _png(colour: tuple[int, int, int]) -> bytes:
    import io

    from PIL import Image

    buffer = io.BytesIO()
    Image.new("RGB", (300, 100), colour).save(buffer, "PNG")
    return buffer.getvalue()


@pytest.fixture(scope="module")
def themed_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = make_site(tmp_path_factory.mktemp("themed"), BODY, {
        "content/posts/trip/light.png": _png((250, 250, 250)),
        "content/posts/trip/dark.png": _png((20, 20, 20)),
        "content/posts/trip/photo.jpg": jpeg_photo(2400, 1600),
        "static/img/raw-light.png": _png((240, 240, 200)),
        "static/img/raw-dark.png": _png((30, 30, 60)),
    })
    build(root / "site.yaml")
    return root / "_site"


@pytest.fixture
def page_of(browser: Any) -> Iterator[Any]:
    made: list[Any] = []

    def make(scheme: str, width: int = 1400, choice: str | None = None) -> Any:
        ctx = browser.new_context(viewport={"width": width, "height": 800},
                                  color_scheme=scheme, device_scale_factor=2)
        if choice is not None:
            ctx.add_init_script(f"localStorage.setItem('blogbuild-theme', '{choice}')")
        made.append(ctx)
        return ctx.new_page()

    yield make
    for ctx in made:
        ctx.close()


def _shown(page: Any, alt: str) -> bool:
    return bool(page.locator(f'img[alt="{alt}"]').evaluate(
        "e => getComputedStyle(e).display !== 'none' && e.getBoundingClientRect().height > 0"))


def _raw(page: Any) -> str:
    page.wait_for_function("document.getElementById('raw').complete")
    return str(page.locator("#raw").evaluate("e => e.currentSrc"))


@pytest.mark.parametrize(("scheme", "choice", "shown"), [
    ("light", None, "light"), ("dark", None, "dark"),
    ("dark", "light", "light"), ("light", "dark", "dark"),
])
def test_pictures_for_one_theme_follow_the_readers_choice(
        themed_site: Path, http_server: Any, page_of: Any, scheme: str, choice: str | None,
        shown: str) -> None:
    page = page_of(scheme, choice=choice)
    page.goto(http_server(themed_site, "/blog/") + "posts/trip/")
    assert page.evaluate("document.documentElement.dataset.theme") == shown
    assert _shown(page, "Light diagram") == (shown == "light")
    assert _shown(page, "Dark diagram") == (shown == "dark")
    assert _raw(page).endswith(f"/img/raw-{shown}.png")


def test_switching_the_theme_swaps_the_pictures(themed_site: Path, http_server: Any,
                                                page_of: Any) -> None:
    page = page_of("light")
    page.goto(http_server(themed_site, "/blog/") + "posts/trip/")
    assert _raw(page).endswith("/img/raw-light.png")
    page.locator(".theme-toggle").click()  # system -> light
    page.locator(".theme-toggle").click()  # light -> dark
    page.wait_for_function("document.documentElement.dataset.theme === 'dark'")
    page.wait_for_function("document.getElementById('raw').currentSrc.endsWith('raw-dark.png')")
    assert _shown(page, "Dark diagram") and not _shown(page, "Light diagram")


def test_a_phone_loads_a_small_webp_copy_when_it_comes_near(
        themed_site: Path, http_server: Any, page_of: Any) -> None:
    page = page_of("light", width=360)
    loaded: list[str] = []
    page.on("response", lambda r: loaded.append(r.url) if "/photo." in r.url else None)
    page.goto(http_server(themed_site, "/blog/") + "posts/trip/")
    photo = page.locator('img[alt="A photo"]')
    box = photo.bounding_box()
    assert box is not None and round(box["width"]) == 360 - 40  # the column, no overflow
    assert round(box["height"]) == round(box["width"] * 1600 / 2400)  # its place, kept
    photo.scroll_into_view_if_needed()
    page.wait_for_function("document.querySelector('img[alt=\"A photo\"]').complete")
    current = str(photo.evaluate("e => e.currentSrc"))
    assert current.endswith(".800.webp")  # 320 CSS pixels at a device pixel ratio of 2
    assert all(".800.webp" in url for url in loaded), loaded  # and nothing else of it
