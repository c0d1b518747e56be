"""The div widgets in real headless Chromium: collapsible, compare slider, click-to-load embeds."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest

pytestmark = pytest.mark.browser

POST = "posts/widgets/"
LOCAL_HOSTS = {"127.0.0.1", "localhost"}
# The share of the after image the reader sees: sample a row of points across the slider and
# ask which image is on top at each (the divider's handle is made transparent to the probe).
VISIBLE_AFTER = """root => {
  const frame = root.querySelector('.compare-frame');
  const before = root.querySelector('.compare-before img');
  const after = root.querySelector('.compare-after img');
  const handle = root.querySelector('.compare-handle');
  const box = frame.getBoundingClientRect();
  const y = box.top + box.height * 0.9;
  const hits = { before: 0, after: 0 };
  handle.style.pointerEvents = 'none';
  for (let i = 0; i < 400; i++) {
    const el = document.elementFromPoint(box.left + box.width * (i + 0.5) / 400, y);
    if (el === after) hits.after++;
    else if (el === before) hits.before++;
  }
  handle.style.pointerEvents = '';
  return 100 * hits.after / (hits.after + hits.before);
}"""


@pytest.fixture
def page(example_site: Path, http_server: Callable[..., str], browser_page: Any) -> Any:
    browser_page.set_viewport_size({"width": 1280, "height": 900})
    browser_page.goto(http_server(example_site) + POST)
    browser_page.wait_for_load_state("load")
    yield browser_page
    assert browser_page.console_errors == []


def is_open(details: Any) -> bool:
    return bool(details.evaluate("d => d.open"))


def test_collapsible_opens_on_click_and_enter(page: Any) -> None:
    outer = page.locator("details.collapsible").first
    body = outer.locator(":scope > .collapsible-body")
    assert not is_open(outer) and not body.is_visible()
    outer.locator(":scope > summary").click()
    assert is_open(outer) and body.is_visible()
    assert body.locator(".codeblock .k").first.inner_text() == "def"  # highlighted inside
    inner = outer.locator("details.collapsible")
    summary = inner.locator(":scope > summary")
    for _ in range(5):  # Tab from the outer summary, past the copy button, to the inner one
        page.keyboard.press("Tab")
        if summary.evaluate("s => s === document.activeElement"):
            break
    assert summary.evaluate("s => s === document.activeElement && s.matches(':focus-visible')")
    assert summary.evaluate("s => getComputedStyle(s).outlineStyle") == "solid"  # focus ring
    page.keyboard.press("Enter")
    assert is_open(inner) and "accumulate" in inner.inner_text()
    opened = page.locator("details.collapsible[open]").filter(has_text="Open by default")
    assert opened.count() == 1  # data-open="true"
    assert page.external_requests == []


def slider(page: Any) -> tuple[Any, Any, Any]:
    root = page.locator(".image-compare")
    root.scroll_into_view_if_needed()
    page.wait_for_function("document.querySelector('.image-compare.is-active')")
    handle = root.locator("[role=slider]")
    return root, handle, root.locator(".compare-frame").bounding_box()


def value(handle: Any) -> int:
    return int(handle.get_attribute("aria-valuenow"))


def test_compare_slider_moves_with_drag_and_click(page: Any) -> None:
    root, handle, box = slider(page)
    assert handle.get_attribute("aria-label") == "Divider between Coarse and Smooth"
    assert value(handle) == 35  # data-start="35"
    assert root.evaluate(VISIBLE_AFTER) == pytest.approx(65, abs=3)
    y = box["y"] + box["height"] * 0.7
    page.mouse.move(box["x"] + box["width"] * 0.35, y)
    page.mouse.down()
    for step in range(1, 11):  # a real drag: many moves with the button held
        page.mouse.move(box["x"] + box["width"] * (0.35 + 0.045 * step), y)
    page.mouse.up()
    assert value(handle) == pytest.approx(80, abs=1)
    assert root.evaluate(VISIBLE_AFTER) == pytest.approx(20, abs=3)
    page.mouse.move(box["x"] + box["width"] * 0.1, y)  # moving without the button: no change
    assert value(handle) == pytest.approx(80, abs=1)
    page.mouse.click(box["x"] + box["width"] * 0.25, y)
    assert value(handle) == pytest.approx(25, abs=1)
    assert root.evaluate(VISIBLE_AFTER) == pytest.approx(75, abs=3)
    assert page.external_requests == []


def test_compare_slider_moves_with_the_keyboard(page: Any) -> None:
    root, handle, _ = slider(page)
    handle.focus()
    assert handle.evaluate("h => h === document.activeElement")
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowUp")
    assert value(handle) == 41
    page.keyboard.press("Shift+ArrowLeft")
    assert value(handle) == 31
    page.keyboard.press("End")
    assert value(handle) == 100 and root.evaluate(VISIBLE_AFTER) == 0
    page.keyboard.press("Home")
    assert value(handle) == 0 and root.evaluate(VISIBLE_AFTER) == pytest.approx(100, abs=3)
    page.keyboard.press("PageUp")
    assert value(handle) == 10
    assert handle.get_attribute("aria-valuetext") == "10% Coarse, 90% Smooth"
    # The knob shows a focus ring.
    ring = handle.evaluate("h => getComputedStyle(h, '::after').outlineStyle")
    assert ring == "solid"


def facade_requests(page: Any) -> list[str]:
    return [url for url in page.external_requests if "youtube" in url or "vimeo" in url]


def test_video_loads_only_after_a_click(page: Any) -> None:
    page.wait_for_load_state("networkidle")
    assert page.external_requests == []  # no thumbnail, no player, no font from elsewhere
    assert page.locator("iframe").count() == 0
    first = page.locator(".video-embed").first
    first.scroll_into_view_if_needed()  # video.js is loaded when a video comes near
    button = first.locator("button.video-facade")
    # Its accessible name starts with what it does and holds the text it shows.
    name = button.evaluate("b => b.textContent")
    assert name == ("Play video: But what is a neural network? (3Blue1Brown), from 1:30"
                    "YouTube · loads when you click")
    assert button.get_attribute("aria-label") is None
    assert page.get_by_role("button", name="Play video: But what is a neural network?").count() == 1
    assert first.locator("figcaption").inner_text().startswith("But what is")
    ratio = first.locator(".video-frame").evaluate(
        "f => f.getBoundingClientRect().width / f.getBoundingClientRect().height")
    assert ratio == pytest.approx(16 / 9, rel=0.01)
    button.click()
    iframe = first.locator("iframe")
    assert iframe.get_attribute("src") == (
        "https://www.youtube-nocookie.com/embed/aircAruvnKk?autoplay=1&start=90")
    assert "autoplay" in (iframe.get_attribute("allow") or "")
    for _ in range(40):  # the click is what makes the first request to the video host
        if facade_requests(page):
            break
        page.wait_for_timeout(50)
    assert facade_requests(page)
    assert {urlsplit(u).hostname for u in facade_requests(page)} == {"www.youtube-nocookie.com"}
    # The second video, by keyboard.
    second = page.locator(".video-embed").nth(1)
    second.locator("button.video-facade").focus()
    page.keyboard.press("Enter")
    assert second.locator("iframe").get_attribute("src", timeout=2000) == (
        "https://player.vimeo.com/video/76979871?autoplay=1&dnt=1")
    assert page.locator("iframe").count() == 2


def test_hf_space_loads_only_after_a_click(page: Any) -> None:
    page.wait_for_load_state("networkidle")
    space = page.locator(".hf-space")
    space.scroll_into_view_if_needed()  # hf-space.js is loaded when the Space comes near
    frame = space.locator(".hf-space-frame")
    assert frame.bounding_box()["height"] == pytest.approx(420, abs=1)  # data-height
    assert space.locator("figcaption a").get_attribute("href") == (
        "https://huggingface.co/spaces/gradio/hello_world")
    assert page.external_requests == []
    space.locator("button.hf-space-facade").click()
    iframe = space.locator("iframe")
    assert iframe.get_attribute("src") == "https://gradio-hello-world.hf.space"
    assert "allow-scripts" in (iframe.get_attribute("sandbox") or "")


@pytest.fixture
def context_factory(browser: Any) -> Iterator[Callable[..., Any]]:
    contexts: list[Any] = []

    def make(**options: Any) -> Any:
        context = browser.new_context(**options)
        context.external_requests = []

        def route(route: Any) -> None:
            if (urlsplit(route.request.url).hostname or "") in LOCAL_HOSTS:
                route.continue_()
            else:
                context.external_requests.append(route.request.url)
                route.abort()

        context.route("**/*", route)
        contexts.append(context)
        return context

    yield make
    for context in contexts:
        context.close()


def test_touch_drag_and_tap_move_the_slider(
    example_site: Path, http_server: Callable[..., str], context_factory: Callable[..., Any]
) -> None:
    context = context_factory(has_touch=True, is_mobile=True,
                              viewport={"width": 390, "height": 844})
    page = context.new_page()
    page.goto(http_server(example_site) + POST)
    root, handle, box = slider(page)
    y = box["y"] + box["height"] * 0.6
    page.touchscreen.tap(box["x"] + box["width"] * 0.6, y)
    assert value(handle) == pytest.approx(60, abs=1)
    cdp = context.new_cdp_session(page)
    points = [box["x"] + box["width"] * f for f in (0.6, 0.5, 0.4, 0.3, 0.2)]
    cdp.send("Input.dispatchTouchEvent",
             {"type": "touchStart", "touchPoints": [{"x": points[0], "y": y}]})
    for x in points[1:]:
        cdp.send("Input.dispatchTouchEvent",
                 {"type": "touchMove", "touchPoints": [{"x": x, "y": y}]})
    cdp.send("Input.dispatchTouchEvent", {"type": "touchEnd", "touchPoints": []})
    assert value(handle) == pytest.approx(20, abs=1)
    assert root.evaluate(VISIBLE_AFTER) == pytest.approx(80, abs=3)
    assert context.external_requests == []


def test_without_javascript_everything_stays_readable(
    example_site: Path, http_server: Callable[..., str], context_factory: Callable[..., Any]
) -> None:
    context = context_factory(java_script_enabled=False, viewport={"width": 1280, "height": 900})
    page = context.new_page()
    page.goto(http_server(example_site) + POST)
    page.wait_for_load_state("networkidle")
    # Videos and the Space are plain links to where they live.
    links = page.locator("a.video-facade")
    assert links.count() == 2
    assert links.first.get_attribute("href") == "https://www.youtube.com/watch?v=aircAruvnKk&t=90s"
    assert page.locator("a.hf-space-facade").get_attribute("href") == (
        "https://huggingface.co/spaces/gradio/hello_world")
    # Both compare images are visible, one under the other, with their labels.
    before = page.locator(".compare-before img").bounding_box()
    after = page.locator(".compare-after img").bounding_box()
    assert before["height"] > 100 and after["height"] > 100
    assert after["y"] >= before["y"] + before["height"]
    assert page.locator(".compare-before .compare-label").is_visible()
    assert page.locator("[role=slider]").count() == 0
    # Collapsibles are native <details>.
    page.locator("details.collapsible > summary").first.click()
    assert is_open(page.locator("details.collapsible").first)
    assert context.external_requests == []


def test_images_and_scripts_load_under_a_sub_path(
    example_site_subpath: Path, http_server: Callable[..., str], browser_page: Any
) -> None:
    browser_page.goto(http_server(example_site_subpath, prefix="/blog/") + POST)
    browser_page.locator(".image-compare").scroll_into_view_if_needed()
    browser_page.wait_for_function("document.querySelector('.image-compare.is-active')")
    sizes = browser_page.locator(".image-compare img").evaluate_all(
        "imgs => imgs.map(i => [i.getAttribute('src'), i.naturalWidth])")
    assert sizes == [["/blog/assets/images/compare-before.png", 720],
                     ["/blog/assets/images/compare-after.png", 720]]
    browser_page.locator(".video-embed").first.scroll_into_view_if_needed()
    browser_page.wait_for_function(  # video.js ran once the videos came near
        "document.querySelectorAll('button.video-facade').length === 2")
    assert browser_page.console_errors == []
    assert browser_page.external_requests == []
