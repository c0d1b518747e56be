"""Whole builds of posts moved from Jekyll and Hugo: redirect pages at their old URLs, the
summary cut with <!--more-->, drafts from `published: false`, categories as tags."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

import html5lib
import pytest

from blogbuild.commands.build import build
from blogbuild.diagnostics import BuildFailed

HTML = "{http://www.w3.org/1999/xhtml}"
ATOM = {"a": "http://www.w3.org/2005/Atom"}
MOVED = """---
title: "Moved <here> & there"
date: 2019-05-01
categories: [ml]
tags: python deep-learning
redirect_from:
  - /2019/05/old-name.html
  - /blog/old/post
aliases: ["/caf%C3%A9/", "/posts/moved/"]
---

The start, with **bold** and $x^2$.

<!--more-->

The rest of the post.
"""


def write_site(root: Path, posts: dict[str, str]) -> Path:
    (root / "content" / "posts").mkdir(parents=True, exist_ok=True)
    (root / "site.yaml").write_text('title: "T"\nbase_url: "https://example.org/blog/"\n')
    for name, text in posts.items():
        (root / "content" / "posts" / name).write_text(text)
    return root / "site.yaml"


@pytest.fixture(scope="module")
def out(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("moved")
    build(write_site(root, {"2019-05-01-moved.md": MOVED,
                            "2019-06-01-hidden.md": "---\npublished: false\n---\nNot yet.\n"}),
          use_cache=False)
    return root / "_site"


def parsed(path: Path) -> ET.Element:
    return html5lib.HTMLParser(strict=True).parse(path.read_bytes())  # type: ignore[no-any-return]


@pytest.mark.parametrize("rel", ["2019/05/old-name.html", "old/post/index.html",
                                 "café/index.html"])
def test_a_redirect_page_at_each_old_url(out: Path, rel: str) -> None:
    doc = parsed(out / rel)
    refresh = doc.find(f".//{HTML}meta[@http-equiv='refresh']")
    canonical = doc.find(f".//{HTML}link[@rel='canonical']")
    robots = doc.find(f".//{HTML}meta[@name='robots']")
    link = doc.find(f".//{HTML}body//{HTML}a")
    assert refresh is not None and refresh.get("content") == "0; url=/blog/posts/moved/"
    assert canonical is not None and canonical.get("href") == \
        "https://example.org/blog/posts/moved/"
    assert robots is not None and robots.get("content") == "noindex"
    assert link is not None and link.get("href") == "/blog/posts/moved/"
    assert "".join(link.itertext()) == "Moved <here> & there"


def test_an_alias_at_the_posts_own_url_is_no_redirect(out: Path) -> None:
    assert "http-equiv" not in (out / "posts/moved/index.html").read_text()


def test_redirects_are_not_in_the_sitemap_or_the_feeds(out: Path) -> None:
    sitemap = (out / "sitemap.xml").read_text()
    assert "old-name" not in sitemap and "old/post" not in sitemap
    assert sitemap.count("/posts/moved/") == 1
    assert "old-name" not in (out / "feed.xml").read_text()


def test_the_summary_ends_at_the_marker(out: Path) -> None:
    index = parsed(out / "index.html")
    summary = index.find(f".//{HTML}div[@class='post-item-summary']")
    assert summary is not None
    text = "".join(summary.itertext())
    assert "The start, with bold" in text and "rest of the post" not in text
    assert summary.find(f".//{HTML}strong") is not None
    assert summary.find(".//{http://www.w3.org/1998/Math/MathML}math") is not None
    entry = ET.parse(out / "feed.xml").getroot().find("a:entry", ATOM)
    assert entry is not None
    feed_summary = entry.find("a:summary", ATOM)
    assert feed_summary is not None and feed_summary.get("type") == "html"
    assert "<strong>bold</strong>" in (feed_summary.text or "")
    assert "rest of the post" not in (feed_summary.text or "")
    page = (out / "posts/moved/index.html").read_text()
    assert "The rest of the post." in page and "more--" not in page
    assert '<meta name="description" content="The start, with bold and x^2.">' in page


def test_categories_are_tags_and_published_false_is_a_draft(out: Path) -> None:
    assert {p.name for p in (out / "tags").iterdir() if p.is_dir()} == \
        {"python", "deep-learning", "ml"}
    assert not (out / "posts/hidden").exists()


def test_published_false_is_built_with_drafts(tmp_path: Path) -> None:
    config = write_site(tmp_path, {"2019-06-01-hidden.md": "---\npublished: false\n---\nX.\n"})
    build(config, drafts=True, use_cache=False)
    assert (tmp_path / "_site/posts/hidden/index.html").is_file()


def test_two_builds_write_the_same_bytes(tmp_path: Path, out: Path) -> None:
    build(write_site(tmp_path, {"2019-05-01-moved.md": MOVED}), use_cache=False)
    for rel in ("2019/05/old-name.html", "old/post/index.html", "index.html", "feed.xml"):
        assert (tmp_path / "_site" / rel).read_bytes() == (out / rel).read_bytes(), rel


@pytest.mark.parametrize(("posts", "needles"), [
    ({"2024-01-01-a.md": "---\naliases: [/posts/b/]\n---\nA\n", "2024-01-02-b.md": "B\n"},
     ["content/posts/2024-01-01-a.md", "the redirect from /posts/b/",
      "posts/b/index.html", "take that old URL out of the front matter"]),
    ({"2024-01-01-a.md": "---\naliases: [/same/]\n---\nA\n",
      "2024-01-02-b.md": "---\nredirect_from: /same\n---\nB\n"},
     ["content/posts/2024-01-01-a.md", "content/posts/2024-01-02-b.md", "same/index.html"]),
    ({"2024-01-01-a.md": "---\naliases: [/feed.xml/]\n---\nA\n"},
     ["the redirect from /feed.xml/", "feed.xml (one as a file, one as a folder)"]),
])
def test_a_redirect_that_collides_is_an_error_naming_both(
        tmp_path: Path, posts: dict[str, str], needles: list[str]) -> None:
    with pytest.raises(BuildFailed) as info:
        build(write_site(tmp_path, posts), use_cache=False)
    shown = "\n".join(str(d) for d in info.value.diagnostics)
    for needle in needles:
        assert needle in shown
