"""Search in headless Chromium: the example blog under a sub-path, Pagefind served by the site."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

pytestmark = pytest.mark.browser

TIMEOUT = 15_000  # ms
#: In the body of one post only (the Jekyll one); the lists that show it are not indexed.
WORD = "kramdown"


@pytest.fixture
def home(example_site_subpath: Path, http_server: Callable[..., str],
         browser_page: Any) -> Any:
    browser_page.set_viewport_size({"width": 1280, "height": 900})
    browser_page.base = http_server(example_site_subpath, prefix="/blog/")
    browser_page.goto(browser_page.base + "posts/math/")
    browser_page.wait_for_load_state("load")
    yield browser_page
    assert browser_page.console_errors == []
    assert browser_page.external_requests == []  # works offline: no CDN


def search(page: Any, word: str, status: str) -> Any:
    """Open the dialog with `/`, type `word`, wait until the live region says `status`."""
    page.keyboard.press("/")
    box = page.get_by_role("searchbox", name="Search posts")
    box.wait_for(state="visible", timeout=TIMEOUT)
    assert page.evaluate("document.activeElement.id") == "search-input"
    box.press_sequentially(word, delay=20)
    page.get_by_role("status").filter(has_text=status).wait_for(timeout=TIMEOUT)
    return page.locator(".search-results a")


def test_slash_opens_search_and_enter_opens_the_post(home: Any) -> None:
    page = home
    results = search(page, WORD, "1 result")
    assert results.count() == 1
    hit = results.first
    assert hit.get_attribute("href") == "/blog/posts/moved-from-jekyll/"
    assert hit.locator(".search-title").inner_text() == "A post that moved here from Jekyll"
    assert hit.locator("mark").first.inner_text().lower() == WORD
    # Only text and <mark> from Pagefind's excerpt reach the page.
    assert hit.locator(".search-excerpt *:not(mark)").count() == 0
    page.keyboard.press("ArrowDown")
    assert page.evaluate("document.activeElement.getAttribute('href')") == \
        "/blog/posts/moved-from-jekyll/"
    page.keyboard.press("Enter")
    page.wait_for_url(page.base + "posts/moved-from-jekyll/", timeout=TIMEOUT)


def test_click_opens_and_escape_closes(home: Any) -> None:
    page = home
    page.get_by_role("button", name="Search").click()
    dialog = page.get_by_role("dialog", name="Search")
    dialog.wait_for(state="visible", timeout=TIMEOUT)
    page.keyboard.press("Escape")
    dialog.wait_for(state="hidden", timeout=TIMEOUT)
    page.keyboard.press("/")
    page.get_by_role("button", name="Close").click()
    dialog.wait_for(state="hidden", timeout=TIMEOUT)
    # A click inside the dialog keeps it open; one on the backdrop closes it.
    page.keyboard.press("/")
    dialog.click(position={"x": 5, "y": 5})
    assert dialog.is_visible()
    page.mouse.click(5, 700)
    dialog.wait_for(state="hidden", timeout=TIMEOUT)
    # `/` typed in another field is text, not the shortcut.
    results = search(page, "97531864", "No results")
    assert results.count() == 0
    page.get_by_role("searchbox").fill("")
    page.get_by_role("searchbox").press("/")
    assert page.get_by_role("searchbox").input_value() == "/"


def test_without_javascript_the_control_is_a_link_to_the_archive(
        example_site_subpath: Path, http_server: Callable[..., str], browser: Any) -> None:
    context = browser.new_context(java_script_enabled=False)
    try:
        page = context.new_page()
        base = http_server(example_site_subpath, prefix="/blog/")
        page.goto(base)
        link = page.locator("header a.search-link")
        assert link.inner_text() == "Search"
        link.click()
        page.wait_for_url(base + "archive/", timeout=TIMEOUT)
    finally:
        context.close()


def test_markup_written_as_text_stays_text(home: Any) -> None:
    """The widgets post shows `<div class="KIND">` as text: the excerpt must too."""
    search(home, "KIND", "result")
    excerpt = home.locator(".search-results a", has_text="Widgets").locator(
        ".search-excerpt", has_text='<div class="KIND">')
    excerpt.wait_for(timeout=TIMEOUT)
    assert excerpt.locator("*:not(mark)").count() == 0


RANK_SITE = 'title: "Rank"\nbase_url: "https://example.org/blog/"\nposts_per_page: 5\n'
FILLER = ("Words about models, data and training loops fill this paragraph so that "
          "every post has a body of some length. ")


def _results(page: Any, base: str, query: str) -> list[str]:
    """The URLs Pagefind's own API answers for `query`, best first."""
    return list(page.evaluate(
        """async ([src, query]) => {
             const pagefind = await import(src);
             await pagefind.options({baseUrl: "/"});  // as the theme's search.js does
             const found = await pagefind.search(query);
             const data = await Promise.all(found.results.map((r) => r.data()));
             return data.map((d) => d.url);
           }""", [base + "pagefind/pagefind.js", query]))


def test_an_edited_post_ranks_as_in_a_clean_build(
        tmp_path: Path, http_server: Callable[..., str], browser_page: Any,
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Three copies of one site: built, then edited (incremental); built clean; and built
    clean with Pagefind's own index of the same pages in place of ours. Searches answer
    the same in all three, and ours transfer less than Pagefind's own."""
    from blogbuild.commands.build import build
    from search_helpers import pagefinds_own_index

    site = tmp_path / "site"
    posts = site / "content" / "posts"
    posts.mkdir(parents=True)
    (site / "site.yaml").write_text(RANK_SITE)
    for n in range(30):
        (posts / f"2024-01-{n + 1:02d}-p{n}.md").write_text(
            f"---\ntitle: Post {n}\n---\n\n{FILLER * (2 + n % 3)}One mention of latency.\n")
    build(site / "site.yaml")
    # The oldest post becomes the best match: short, and about latency throughout.
    (posts / "2024-01-01-p0.md").write_text(
        "---\ntitle: Latency, measured\n---\n\nLatency: tail latency, median latency, "
        "latency budgets and a zygomorphic latency.\n")
    build(site / "site.yaml")
    clean = tmp_path / "clean"
    build(site / "site.yaml", output=clean, use_cache=False)
    theirs = tmp_path / "theirs"
    pagefinds_own_index(monkeypatch, lambda: build(site / "site.yaml", output=theirs,
                                                   use_cache=False), tmp_path / "own")
    shutil.rmtree(theirs / "pagefind")
    shutil.copytree(tmp_path / "own", theirs / "pagefind")
    page = browser_page
    edited = http_server(site / "_site", prefix="/blog/")
    fresh = http_server(clean, prefix="/blog/")
    pagefinds = http_server(theirs, prefix="/blog/")
    queries = ("latency", "zygomorphic", "mention latency", "training", "lat")
    answers, sent = {}, {}
    for base in (fresh, pagefinds, edited):  # a module is imported from its page's origin
        page.goto(base)
        sizes: list[int] = []

        def count(response: Any, sizes: list[int] = sizes) -> None:
            if "/pagefind/" in response.url and ".pf_" in response.url:
                sizes.append(len(response.body()))

        page.on("response", count)
        answers[base] = [_results(page, base, query) for query in queries]
        page.remove_listener("response", count)
        sent[base] = sum(sizes)
    assert answers[edited] == answers[fresh] == answers[pagefinds]
    assert 0 < sent[edited] <= sent[pagefinds] * 2
    ranked = _results(page, edited, "latency")
    assert len(ranked) == 30 and ranked[0] == "/blog/posts/p0/"
    assert _results(page, edited, "zygomorphic") == ["/blog/posts/p0/"]
    assert page.external_requests == []
