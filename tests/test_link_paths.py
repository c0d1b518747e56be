"""Relative links resolved while rendering: odd file names, the render cache, feeds, schemes."""

from __future__ import annotations

import re
import urllib.request
import xml.etree.ElementTree as ET
from collections.abc import Callable
from pathlib import Path
from urllib.parse import urljoin

import html5lib
import pytest

from blogbuild.commands.build import build
from blogbuild.diagnostics import BlogbuildError
from image_helpers import tiny_png

ATOM = "{http://www.w3.org/2005/Atom}"
PNG = tiny_png()  # a real picture: the image stage reads it


def write(root: Path, files: dict[str, str | bytes]) -> Path:
    for rel, data in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(data, bytes):
            path.write_bytes(data)
        else:
            path.write_text(data, encoding="utf-8")
    return root


def site_with(tmp_path: Path, files: dict[str, str | bytes],
              base_url: str = "https://example.org/blog/") -> Path:
    return write(tmp_path / "site", {"site.yaml": f"title: T\nbase_url: {base_url}\n", **files})


def attrs(page: Path, tag: str, name: str) -> list[str]:
    doc = html5lib.parse(page.read_text(encoding="utf-8"), namespaceHTMLElements=False)
    return [el.get(name) for el in doc.iter(tag) if el.get(name) is not None]


ODD = {
    "content/posts/2024-01-01-a/index.md": (
        "---\ntitle: A\ndate: 2024-01-01\n---\n\n![one](my%20plot.png) ![two](<my plot.png>)\n\n"
        "![three](café.png) ![four](图.png)\n\n[other](../2024-01-02-other%20post.md)\n"),
    "content/posts/2024-01-01-a/my plot.png": PNG,
    "content/posts/2024-01-01-a/café.png": PNG,
    "content/posts/2024-01-01-a/图.png": PNG,
    "content/posts/2024-01-02-other post.md": "---\ntitle: Other\n---\n\nHello.\n",
}


def test_spaces_percent_and_non_ascii_paths_resolve_and_are_served(
        tmp_path: Path, http_server: Callable[..., str]) -> None:
    site = site_with(tmp_path, ODD)
    report = build(site / "site.yaml", output=tmp_path / "out")
    assert [d.format() for d in report.diagnostics] == []
    page = tmp_path / "out/posts/a/index.html"
    # Each picture is shown by its copies, named after it (blogbuild.stages.images).
    sources = attrs(page, "img", "src")
    assert [re.sub(r"\.[0-9a-f]{10}\.2\.png$", ".png", s) for s in sources] == [
        "/blog/posts/a/my%20plot.png", "/blog/posts/a/my%20plot.png",
        "/blog/posts/a/caf%C3%A9.png", "/blog/posts/a/%E5%9B%BE.png"]
    sources += ["/blog/posts/a/my%20plot.png", "/blog/posts/a/caf%C3%A9.png",
                "/blog/posts/a/%E5%9B%BE.png"]  # the pictures themselves
    assert "/blog/posts/other-post/" in attrs(page, "a", "href")
    assert ' src="/blog/posts/a/my plot' not in page.read_text(encoding="utf-8")
    base = http_server(tmp_path / "out", "/blog/")
    page_url = base + "posts/a/"
    for src in [*sources, "/blog/posts/other-post/"]:
        with urllib.request.urlopen(urljoin(page_url, src)) as response:
            assert response.status == 200
    with urllib.request.urlopen(urljoin(page_url, sources[-3])) as response:
        assert response.read() == PNG  # no metadata to take out


def test_cached_render_is_redone_when_a_linked_post_moves(tmp_path: Path) -> None:
    site = site_with(tmp_path, {
        "content/posts/2024-01-01-a.md": "---\ntitle: A\n---\n\nSee [b](2024-01-02-b.md#x).\n",
        "content/posts/2024-01-02-b.md": "---\ntitle: B\n---\n\n## X\n\nB.\n",
    })
    out = tmp_path / "out"
    first = build(site / "site.yaml", output=out)
    assert first.rendered == 2
    page = out / "posts/a/index.html"
    assert "/blog/posts/b/#x" in attrs(page, "a", "href")
    target = site / "content/posts/2024-01-02-b.md"
    target.write_text("---\ntitle: B\nslug: moved\n---\n\n## X\n\nB.\n")
    second = build(site / "site.yaml", output=out)
    assert (second.rendered, second.cached) == (2, 0)  # a.md's bytes did not change
    assert "/blog/posts/moved/#x" in attrs(page, "a", "href")
    third = build(site / "site.yaml", output=out)
    assert (third.rendered, third.cached) == (0, 2)
    target.rename(site / "content/posts/2024-01-02-c.md")  # a.md's link now points nowhere
    fourth = build(site / "site.yaml", output=out)
    assert fourth.rendered == 2
    assert "2024-01-02-b.md#x" in attrs(page, "a", "href")
    assert any("content/posts/2024-01-02-b.md does not exist" in d.message
               for d in fourth.diagnostics)


def test_link_to_a_draft_is_named_as_such(tmp_path: Path) -> None:
    site = site_with(tmp_path, {
        "content/posts/2024-01-01-a.md": "---\ntitle: A\n---\n\nSee [b](2024-01-02-b.md).\n",
        "content/posts/2024-01-02-b.md": "---\ntitle: B\ndraft: true\n---\n\nB.\n",
    })
    report = build(site / "site.yaml", output=tmp_path / "out")
    assert [d.format() for d in report.diagnostics] == [
        "content/posts/2024-01-01-a.md:5: warning: link target content/posts/2024-01-02-b.md "
        "is a draft, built only with --drafts; publish it or remove the link"]
    with_drafts = build(site / "site.yaml", output=tmp_path / "out2", drafts=True)
    assert with_drafts.diagnostics == []
    assert "/blog/posts/b/" in attrs(tmp_path / "out2/posts/a/index.html", "a", "href")


def feed_entry(out: Path, post_url: str) -> tuple[ET.Element, list[str], list[str]]:
    feed = ET.parse(out / "feed.xml").getroot()
    entry = next(e for e in feed.iter(ATOM + "entry") if e.findtext(ATOM + "id") == post_url)
    content = entry.find(ATOM + "content")
    assert content is not None
    doc = html5lib.parse(content.text or "", namespaceHTMLElements=False)
    return (content, [a.get("href") or "" for a in doc.iter("a")],
            [i.get("src") or "" for i in doc.iter("img")])


def test_feed_links_are_absolute_and_fragments_point_at_the_post(tmp_path: Path) -> None:
    site = site_with(tmp_path, {
        "content/posts/2024-01-01-a.md": (
            "---\ntitle: A\n---\n\n## Part\n\nSee [part](#part), [b](2024-01-02-b.md), "
            "[root](/about/), [ext](https://x.org/) and a note[^n]. ![p](/p.png)\n\n"
            "$$ x \\tag{1} \\label{eq} $$\n\nAs \\eqref{eq}.\n\n"
            '<div class="image-compare" data-before="/p.png" data-after="/p.png"></div>\n\n'
            '<div class="video-embed" data-src="/v.mp4"></div>\n\n[^n]: The note.\n'),
        "content/posts/2024-01-02-b.md": "---\ntitle: B\n---\n\nB.\n",
        "content/about.md": "---\ntitle: About\n---\n\nAbout.\n",
        "static/p.png": PNG,
        "static/v.mp4": b"mp4",
    })
    out = tmp_path / "out"
    build(site / "site.yaml", output=out)
    own = "https://example.org/blog/posts/a/"
    content, hrefs, srcs = feed_entry(out, own)
    assert content.get("{http://www.w3.org/XML/1998/namespace}base") == own
    assert hrefs and all(h.startswith(("https://", "http://")) for h in hrefs), hrefs
    assert own + "#part" in hrefs and own + "#fn1" in hrefs and own + "#fnref1" in hrefs
    assert "https://example.org/blog/posts/b/" in hrefs
    assert "https://example.org/blog/about/" in hrefs
    assert any(h.startswith(own + "#eq") for h in hrefs)
    # The image (one of its copies) and the comparison's two pictures.
    assert re.fullmatch(r"https://example\.org/blog/p\.[0-9a-f]{10}\.2\.png", srcs[0])
    assert srcs[1:] == ["https://example.org/blog/p.png"] * 2
    assert "https://example.org/blog/v.mp4" in hrefs  # the video's download link
    assert '<source src="https://example.org/blog/v.mp4"' in (content.text or "")
    assert "katex-html" not in (content.text or "") and "<math" in (content.text or "")
    page_hrefs = attrs(out / "posts/a/index.html", "a", "href")
    assert "#part" in page_hrefs and "#fn1" in page_hrefs  # the page itself stays relative
    assert "/blog/v.mp4" in page_hrefs
    page_srcs = attrs(out / "posts/a/index.html", "img", "src")
    assert re.fullmatch(r"/blog/p\.[0-9a-f]{10}\.2\.png", page_srcs[0])
    assert page_srcs[1:] == ["/blog/p.png"] * 2


@pytest.mark.parametrize("image", [
    "javascript:alert(1)", " JaVaScRiPt:alert(1)", "java\\tscript:alert(1)",
    "java&#x09;script:alert(1)", "vbscript:x", "data:text/html,<script>alert(1)</script>",
    "file:///etc/passwd",
])
def test_executable_image_urls_in_front_matter_are_refused(tmp_path: Path, image: str) -> None:
    site = site_with(tmp_path, {
        "content/posts/2024-01-01-a.md": f'---\ntitle: A\nimage: "{image}"\n---\n\nA.\n'})
    with pytest.raises(BlogbuildError) as info:
        build(site / "site.yaml", output=tmp_path / "out")
    text = str(info.value) + " ".join(d.format() for d in getattr(info.value, "diagnostics", []))
    assert "content/posts/2024-01-01-a.md:3: error: 'image' must be a path or an http(s) URL" \
        in text


def test_quotes_in_an_image_path_never_leave_the_attribute(tmp_path: Path) -> None:
    site = site_with(tmp_path, {
        "content/posts/2024-01-01-a.md":
            "---\ntitle: A\nimage: 'x\" onerror=\"alert(1)'\n---\n\nA.\n"})
    build(site / "site.yaml", output=tmp_path / "out")
    page = tmp_path / "out/posts/a/index.html"
    doc = html5lib.parse(page.read_text(encoding="utf-8"), namespaceHTMLElements=False)
    assert not [el for el in doc.iter() if any(k.startswith("on") for k in el.attrib)]
    # No such file: no cover, and the preview picture is the site's card (the build warned
    # at its line).
    previews = [m.get("content") for m in doc.iter("meta") if m.get("property") == "og:image"]
    assert previews == ["https://example.org/blog/card.png"]
    assert not [i for i in doc.iter("img") if "onerror" in (i.get("src") or "")]


def test_a_nav_url_that_runs_code_is_refused_naming_the_key(tmp_path: Path) -> None:
    site = write(tmp_path / "site", {
        "site.yaml": ("title: T\nbase_url: https://example.org/\nnav:\n"
                      "  - {title: Home, url: /}\n  - {title: X, url: 'javascript:alert(1)'}\n"),
        "content/about.md": "About.\n"})
    with pytest.raises(BlogbuildError) as info:
        build(site / "site.yaml", output=tmp_path / "out")
    assert "'nav[1].url'" in info.value.message and "javascript:alert(1)" in info.value.message
    assert info.value.file is not None and info.value.file.endswith("site.yaml")


def test_a_quick_reading_that_misplaces_a_post_is_corrected(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The link map starts from a quick reading of the front matter; the renders read it
    in full, and where the two disagree the map is made again and the renders redone."""
    from blogbuild.content import frontmatter

    site = site_with(tmp_path, {
        "content/posts/2024-01-01-a.md": "---\ntitle: A\n---\n\nSee [b](2024-01-02-b.md).\n",
        "content/posts/2024-01-02-b.md": "---\ntitle: B\nslug: moved\n---\n\nB.\n",
    })
    monkeypatch.setattr(frontmatter, "quick_front_matter", lambda text: ({}, ""))  # no slug
    report = build(site / "site.yaml", output=tmp_path / "out")
    assert report.diagnostics == []
    assert "/blog/posts/moved/" in attrs(tmp_path / "out/posts/a/index.html", "a", "href")
    monkeypatch.undo()
    again = build(site / "site.yaml", output=tmp_path / "out")  # the cache holds the fixed one
    assert (again.rendered, again.cached) == (0, 2)
