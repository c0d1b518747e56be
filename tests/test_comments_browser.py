"""giscus comments in headless Chromium: nothing asked of giscus.app before a click or a
scroll, then one script with the site's settings, the page's theme, theme changes passed on."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest

from conftest import LOCAL_HOSTS, build_site

pytestmark = pytest.mark.browser

SITE = """title: T
base_url: http://127.0.0.1/
comments:
  repo: ada/blog-comments
  repo_id: R_kgDOAbc123
  category: Announcements
  category_id: DIC_kwDOAbc123
  mapping: og:title
  reactions: false
  theme_dark: dark_dimmed
"""
LONG = "\n\n".join(f"Paragraph {i} of a long post. " * 8 for i in range(40))
# What the routed https://giscus.app/client.js does, the way giscus' own does it: an iframe
# of giscus.app after the script. The iframe echoes the messages it gets to the page.
CLIENT = """const s = document.currentScript;
const f = document.createElement("iframe");
f.className = "giscus-frame";
f.src = "https://giscus.app/widget";
s.after(f);"""
WIDGET = ("<!DOCTYPE html><title>w</title><script>addEventListener('message', "
          "(e) => parent.postMessage({echo: e.data}, '*'));</script>")


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    site = tmp_path_factory.mktemp("comments")
    (site / "site.yaml").write_text(SITE, encoding="utf-8")
    posts = site / "content/posts"
    posts.mkdir(parents=True)
    (posts / "2024-01-01-long.md").write_text(f"---\ntitle: Long\n---\n\n{LONG}\n")
    (posts / "2024-01-02-quiet.md").write_text("---\ntitle: Quiet\ncomments: false\n---\n\nHi.\n")
    return build_site(site, site / "_site")


@pytest.fixture
def open_page(browser: Any, built: Path,
              http_server: Callable[..., str]) -> Iterator[Callable[..., Any]]:
    base = http_server(built)
    contexts = []

    def open_(path: str, theme: str = "light", observer: bool = True) -> Any:
        context = browser.new_context(color_scheme=theme, viewport={"width": 1000, "height": 700})
        contexts.append(context)
        page = context.new_page()
        page.giscus = []
        page.elsewhere = []
        page.errors = []
        page.on("pageerror", lambda exc: page.errors.append(str(exc)))

        def route(route: Any) -> None:
            url = route.request.url
            host = urlsplit(url).hostname or ""
            if host in LOCAL_HOSTS:
                route.continue_()
            elif host == "giscus.app":
                page.giscus.append(url)
                body, kind = (CLIENT, "text/javascript") if url.endswith("/client.js") \
                    else (WIDGET, "text/html")
                route.fulfill(status=200, content_type=kind, body=body)
            else:
                page.elsewhere.append(url)
                route.abort()

        context.route("**/*", route)
        page.add_init_script(f"if (location.hostname === '127.0.0.1') "
                             f"localStorage.setItem('blogbuild-theme', '{theme}')")
        if not observer:  # only the button can load the comments then
            page.add_init_script("delete window.IntersectionObserver")
        page.goto(base + path)
        page.wait_for_load_state("load")
        return page

    yield open_
    for context in contexts:
        context.close()


def giscus_scripts(page: Any) -> list[dict[str, str]]:
    return list(page.evaluate("""() => [...document.querySelectorAll('script')]
        .filter(s => s.src.includes('giscus'))
        .map(s => ({src: s.src, crossorigin: s.getAttribute('crossorigin'), ...s.dataset}))"""))


def test_nothing_is_asked_of_giscus_until_the_reader_clicks(open_page: Callable[..., Any]) -> None:
    page = open_page("posts/long/", observer=False)
    page.wait_for_timeout(300)
    assert page.giscus == [] and giscus_scripts(page) == []
    button = page.get_by_role("button", name="Load comments")
    assert button.is_visible()
    button.focus()
    page.keyboard.press("Enter")
    page.wait_for_selector("iframe.giscus-frame")
    assert page.giscus[0] == "https://giscus.app/client.js"
    assert page.giscus.count("https://giscus.app/client.js") == 1
    (script,) = giscus_scripts(page)
    assert script == {
        "src": "https://giscus.app/client.js", "crossorigin": "anonymous",
        "repo": "ada/blog-comments", "repoId": "R_kgDOAbc123", "category": "Announcements",
        "categoryId": "DIC_kwDOAbc123", "mapping": "og:title", "strict": "0",
        "reactionsEnabled": "0", "emitMetadata": "0", "inputPosition": "bottom",
        "lang": "en", "theme": "light", "loading": "lazy"}
    assert page.locator(".comments-load").count() == 0
    assert page.evaluate("document.activeElement.matches('[data-comments]')")
    assert page.elsewhere == [] and page.errors == []


def test_scrolling_to_the_comments_loads_them(open_page: Callable[..., Any]) -> None:
    page = open_page("posts/long/")
    page.mouse.wheel(0, 1500)
    page.wait_for_timeout(200)
    assert page.giscus == []  # still far above the section
    page.locator("#post-comments").scroll_into_view_if_needed()
    page.wait_for_selector("iframe.giscus-frame")
    assert len(giscus_scripts(page)) == 1
    assert page.giscus.count("https://giscus.app/client.js") == 1


def test_a_focused_button_that_goes_away_leaves_the_focus_on_the_section(
        open_page: Callable[..., Any]) -> None:
    page = open_page("posts/long/")
    # Near enough for js/widgets.js to load comments.js (which shows the button), not yet
    # for comments.js to load giscus.
    page.evaluate("""() => { const top = document.querySelector('#post-comments')
        .getBoundingClientRect().top; scrollTo(0, scrollY + top - innerHeight - 400); }""")
    page.locator(".comments-load").wait_for(state="visible")
    page.evaluate("document.querySelector('.comments-load').focus({preventScroll: true})")
    assert page.giscus == []
    page.locator("#post-comments").scroll_into_view_if_needed()  # the observer loads them
    page.wait_for_selector("iframe.giscus-frame")
    assert page.locator(".comments-load").count() == 0
    assert page.evaluate("document.activeElement.matches('[data-comments]')")


def test_dark_page_gets_the_dark_theme_and_later_changes_follow(
        open_page: Callable[..., Any]) -> None:
    page = open_page("posts/long/", theme="dark", observer=False)
    page.evaluate("""() => { window.echoes = [];
        addEventListener('message', (e) => e.data && e.data.echo && echoes.push(e.data.echo)); }""")
    page.get_by_role("button", name="Load comments").click()
    page.wait_for_selector("iframe.giscus-frame")
    assert giscus_scripts(page)[0]["theme"] == "dark_dimmed"
    page.frame_locator("iframe.giscus-frame").locator("title").wait_for(state="attached")
    page.evaluate("""() => { document.documentElement.dataset.theme = 'light';
        dispatchEvent(new CustomEvent('blogbuild:theme', {detail: {theme: 'light'}})); }""")
    page.wait_for_function("window.echoes.length > 0")
    assert page.evaluate("window.echoes") == [{"giscus": {"setConfig": {"theme": "light"}}}]


def test_without_javascript_a_link_replaces_the_button(browser: Any, built: Path,
                                                       http_server: Callable[..., str]) -> None:
    context = browser.new_context(java_script_enabled=False)
    try:
        page = context.new_page()
        page.goto(http_server(built) + "posts/long/")
        assert not page.locator(".comments-load").is_visible()
        link = page.get_by_role("link", name="discussions of ada/blog-comments")
        assert link.get_attribute("href") == "https://github.com/ada/blog-comments/discussions"
    finally:
        context.close()


def test_a_post_without_comments_has_no_section(open_page: Callable[..., Any]) -> None:
    page = open_page("posts/quiet/")
    assert page.locator("#post-comments").count() == 0
    assert page.locator("script[src$='comments.js']").count() == 0
    page.wait_for_timeout(200)
    assert page.giscus == []
