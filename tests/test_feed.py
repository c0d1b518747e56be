"""The Atom feeds: well-formed, valid for readers, and every link in an entry absolute."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path
from urllib.parse import urljoin, urlsplit

import html5lib
import pytest

from blogbuild.commands.build import build
from image_helpers import tiny_png

ATOM = "{http://www.w3.org/2005/Atom}"
BASE = "{http://www.w3.org/XML/1998/namespace}base"
SITE = "https://example.org/blog/"
PNG = tiny_png()  # a real picture: the image stage reads it
LINKS = """---
title: Links
date: 2024-03-01
updated: 2024-05-01
tags: [t]
---

Intro with a note[^n], [the other post](../2024-02-01-other.md), [[Other]], [a part](#part)
and ![a plot](plot.png).

<!--more-->

## Part

> [!NOTE] A [titled](#part) note
> See [a section of it](../2024-02-01-other.md#x) and [the about page](/about/).

$$ \\href{#part}{a} + \\href{/about/}{b} \\tag{1} \\label{eq:one} $$

$$ y = \\eqref{eq:one} $$

As \\eqref{eq:one} says, and $\\url{../other/}$.

<div class="image-compare" data-before="plot.png" data-after="/p.png"></div>

<p class="raw"><a class="raw" href="../other/">raw relative</a> <img class="raw" src="plot.png"
alt="raw"> <a class="raw" href="#part">raw fragment</a></p>

[^n]: The note, with [a link](../2024-02-01-other.md).
"""
FILES: dict[str, str | bytes] = {
    "content/posts/2024-03-01-links/index.md": LINKS,
    "content/posts/2024-03-01-links/plot.png": PNG,
    "content/posts/2024-02-01-other.md": (
        "---\ntitle: Other\ndescription: The other one, described.\ntags: [t]\n---\n\n"
        "## X\n\nText.\n"),
    "content/posts/2024-01-01-plain.md": "---\ntitle: Plain\n---\n\nThe first paragraph.\n\n"
                                         "The second.\n",
    "content/about.md": "---\ntitle: About\n---\n\nAbout.\n",
    "static/p.png": PNG,
}
OWN = SITE + "posts/links/"
OTHER = SITE + "posts/other/"


def make_site(root: Path, extra: str = "") -> Path:
    (root / "site.yaml").parent.mkdir(parents=True, exist_ok=True)
    (root / "site.yaml").write_text(f"title: T\nbase_url: {SITE}\n{extra}", encoding="utf-8")
    for rel, data in FILES.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(data, bytes):
            path.write_bytes(data)
        else:
            path.write_text(data, encoding="utf-8")
    return root


def built(tmp_path: Path, extra: str = "") -> Path:
    site = make_site(tmp_path / "site", extra)
    report = build(site / "site.yaml", output=tmp_path / "out")
    assert [d.format() for d in report.diagnostics] == []
    return tmp_path / "out"


def entries(feed: Path) -> dict[str, ET.Element]:
    root = ET.parse(feed).getroot()  # raises on a feed that is not well-formed XML
    return {e.findtext(ATOM + "id") or "": e for e in root.iter(ATOM + "entry")}


def links_of(element: ET.Element) -> list[tuple[str, str, bool]]:
    """(attribute value, the value resolved as a reader resolves it, from raw HTML?)."""
    doc = html5lib.parse(element.text or "", namespaceHTMLElements=False)
    found = []
    for node in doc.iter():
        for name in ("href", "src", "{http://www.w3.org/1999/xlink}href"):
            value = node.get(name)
            if value is not None:
                resolved = urljoin(element.get(BASE) or SITE, value)
                found.append((value, resolved, node.get("class") == "raw"))
    return found


@pytest.fixture(scope="module")
def full(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return built(tmp_path_factory.mktemp("full"))


def test_every_link_of_an_entry_is_absolute_and_fragments_name_the_post(full: Path) -> None:
    entry = entries(full / "feed.xml")[OWN]
    seen: set[str] = set()
    for part in ("content", "summary"):
        element = entry.find(ATOM + part)
        assert element is not None and element.get(BASE) == OWN
        for value, resolved, raw in links_of(element):
            parts = urlsplit(value)
            assert raw or (parts.scheme == "https" and parts.netloc == "example.org"), value
            if parts.fragment and resolved.startswith(SITE + "posts/links"):
                assert resolved.split("#")[0] == OWN, value
            seen.add(resolved)
    assert {OWN + "#fn1", OWN + "#fnref1", OWN + "#part", OWN + "#eq-one", OTHER,
            OTHER + "#x", SITE + "about/", OWN + "plot.png", SITE + "p.png"} <= seen
    # The Markdown picture is one of its copies, at an absolute URL beside the post.
    assert any(u.startswith(OWN + "plot.") and u.endswith(".2.png") for u in seen)


def test_the_summary_is_the_part_before_more(full: Path) -> None:
    entry = entries(full / "feed.xml")[OWN]
    summary = entry.find(ATOM + "summary")
    assert summary is not None and summary.get("type") == "html"
    text = summary.text or ""
    assert "Intro with a note" in text and "Part" not in text
    found = {r for _, r, _ in links_of(summary)}
    picture = {r for r in found if r.startswith(OWN + "plot.") and r.endswith(".2.png")}
    assert len(picture) == 1  # one of the picture's copies
    assert found - picture == {OWN + "#fn1", OTHER, OWN + "#part"}


def test_math_links_in_the_feed_are_absolute(full: Path) -> None:
    content = entries(full / "feed.xml")[OWN].find(ATOM + "content")
    assert content is not None
    math = [v for v, _, _ in links_of(content) if v.startswith(OWN + "#eq") or "about" in v]
    assert OWN + "#part" in [v for v, _, _ in links_of(content)]
    assert SITE + "about/" in math and OWN + "#eq-one" in math
    assert "<math" in (content.text or "")
    assert [v for v, _, raw in links_of(content) if v.startswith("#")] == ["#part"]  # raw HTML
    page = (full / "posts/links/index.html").read_text(encoding="utf-8")
    assert 'href="#part"' in page and 'href="/blog/about/"' in page  # the page is unchanged


def test_the_feed_is_valid_atom(full: Path) -> None:
    for feed in (full / "feed.xml", full / "tags/t/feed.xml"):
        root = ET.parse(feed).getroot()
        assert root.tag == ATOM + "feed"
        for name in ("id", "title", "updated"):
            assert root.findtext(ATOM + name), name
        items = root.findall(ATOM + "entry")
        ids = [e.findtext(ATOM + "id") for e in items]
        assert len(set(ids)) == len(ids) > 0
        for entry in items:
            for name in ("id", "title", "updated", "published"):
                assert entry.findtext(ATOM + name), name
            links = [link for link in entry.findall(ATOM + "link") if link.get("rel") ==
                     "alternate"]
            assert [link.get("href") for link in links] == [entry.findtext(ATOM + "id")]
        newest = max(e.findtext(ATOM + "updated") or "" for e in items)
        assert root.findtext(ATOM + "updated") == newest
    assert entries(full / "feed.xml")[OWN].findtext(ATOM + "updated") == "2024-05-01T00:00:00Z"


def test_summary_mode_carries_summaries_only(tmp_path: Path) -> None:
    out = built(tmp_path, "feed_content: summary\n")
    found = entries(out / "feed.xml")
    assert all(e.find(ATOM + "content") is None for e in found.values())
    summaries = {url: e.find(ATOM + "summary") for url, e in found.items()}
    own = summaries[OWN]
    assert own is not None and own.get(BASE) == OWN and "Intro with a note" in (own.text or "")
    other = summaries[OTHER]
    assert other is not None and other.text == "The other one, described."
    plain = summaries[SITE + "posts/plain/"]
    assert plain is not None and plain.text == "The first paragraph."
    for element in summaries.values():
        assert element is not None
        assert all(urlsplit(value).scheme == "https" for value, _, _ in links_of(element))
