"""What link previews and search engines read: OpenGraph, X/Twitter cards, JSON-LD."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import html5lib
import pytest

from blogbuild.commands.build import build
from blogbuild.config import load_config
from blogbuild.diagnostics import ConfigError

NS = {"h": "http://www.w3.org/1999/xhtml"}
BASE = "https://ada.example.org/blog/"
HOSTILE = '</script><script>alert(1)</script> & "quotes" \u2028 <!-- end'


def make_site(root: Path, extra: str = "") -> Path:
    posts = root / "content" / "posts"
    posts.mkdir(parents=True)
    (root / "content" / "assets").mkdir()
    (root / "site.yaml").write_text(
        f'title: "Ada\'s <Notes>"\nbase_url: "{BASE}"\nauthor: Ada\n'
        f"description: Notes.\nlanguage: pt-BR\n{extra}", encoding="utf-8")
    (posts / "2024-05-01-plain.md").write_text(
        "---\ntitle: Plain post\ndate: 2024-05-01T10:30:00\nupdated: 2024-06-02\n"
        "description: A plain one.\ntags: [ml, math]\n---\n\nBody.\n", encoding="utf-8")
    (posts / "2024-05-02-hostile.md").write_text(
        f"---\ntitle: {json.dumps(HOSTILE)}\ndate: 2024-05-02\n"
        f"description: {json.dumps(HOSTILE)}\ntags: [ml]\n---\n\nBody.\n", encoding="utf-8")
    (root / "content" / "about.md").write_text("---\ntitle: About\n---\n\nAbout.\n",
                                               encoding="utf-8")
    return root


def head(path: Path) -> Any:
    return html5lib.parse(path.read_bytes(), namespaceHTMLElements=True)


def metas(doc: Any) -> dict[str, list[str]]:
    found: dict[str, list[str]] = {}
    for meta in doc.iterfind(".//h:head/h:meta", NS):
        key = meta.get("property") or meta.get("name")
        if key:
            found.setdefault(key, []).append(meta.get("content"))
    return found


def json_ld(doc: Any) -> list[dict[str, Any]]:
    return [json.loads(s.text) for s in doc.iterfind(".//h:script", NS)
            if s.get("type") == "application/ld+json"]


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = make_site(tmp_path_factory.mktemp("social"),
                     "social:\n  twitter: \"@ada_notes\"\n  image: /assets/site.png\n")
    build(root / "site.yaml")
    return root / "_site"


def test_a_post_has_article_tags_and_blog_posting(site: Path) -> None:
    doc = head(site / "posts/plain/index.html")
    m = metas(doc)
    assert m["og:type"] == ["article"]
    assert m["og:title"] == ["Plain post"]
    assert m["og:description"] == ["A plain one."]
    assert m["og:url"] == [BASE + "posts/plain/"]
    assert m["og:site_name"] == ["Ada's <Notes>"]
    assert m["og:locale"] == ["pt_BR"]
    assert m["twitter:site"] == m["twitter:creator"] == ["@ada_notes"]
    assert m["twitter:title"] == ["Plain post"]
    assert m["article:published_time"] == ["2024-05-01T10:30:00"]
    assert m["article:modified_time"] == ["2024-06-02"]
    assert m["article:tag"] == ["ml", "math"]
    # No picture of its own: the card the build drew for it, absolute under the base path.
    assert m["og:image"] == [BASE + "posts/plain/card.png"]
    assert (m["og:image:width"], m["og:image:height"]) == (["1200"], ["630"])
    assert (site / "posts/plain/card.png").is_file()
    assert m["twitter:card"] == ["summary_large_image"]
    [ld] = json_ld(doc)
    assert ld["@type"] == "BlogPosting"
    assert ld["headline"] == "Plain post"
    assert ld["url"] == ld["mainEntityOfPage"]["@id"] == BASE + "posts/plain/"
    assert ld["datePublished"] == "2024-05-01T10:30:00"
    assert ld["dateModified"] == "2024-06-02"
    assert ld["author"] == {"@type": "Person", "name": "Ada"}
    assert ld["keywords"] == ["ml", "math"]
    assert ld["isPartOf"]["url"] == BASE


@pytest.mark.parametrize("page", ["index.html", "tags/ml/index.html", "about/index.html",
                                  "archive/index.html"])
def test_every_page_has_opengraph_and_twitter_tags(site: Path, page: str) -> None:
    m = metas(head(site / page))
    for key in ("og:site_name", "og:type", "og:title", "og:description", "og:url",
                "twitter:card", "twitter:title", "twitter:description"):
        assert len(m.get(key, [])) == 1, key
    assert m["og:type"] == ["website"]
    assert m["og:url"][0].startswith(BASE)
    assert "article:published_time" not in m
    # No picture of their own: the site's picture, absolute under the base path.
    assert m["og:image"] == [BASE + "assets/site.png"]


def test_the_home_page_describes_the_web_site(site: Path) -> None:
    [ld] = json_ld(head(site / "index.html"))
    assert ld == {"@context": "https://schema.org", "@type": "WebSite", "name": "Ada's <Notes>",
                  "description": "Notes.", "url": BASE, "inLanguage": "pt-BR"}


def test_a_hostile_title_stays_text_in_every_context(site: Path) -> None:
    page = site / "posts/hostile/index.html"
    doc = head(page)
    scripts = [s for s in doc.iterfind(".//h:script", NS) if "alert(1)" in (s.text or "")]
    [ld_script] = scripts  # only the JSON-LD holds the text, and it is data
    assert ld_script.get("type") == "application/ld+json"
    [ld] = json_ld(doc)
    m = metas(doc)
    assert ld["headline"] == HOSTILE and m["og:title"] == [HOSTILE]
    # The description is the title's text with its spaces made plain.
    assert ld["description"] == m["og:description"][0] == m["twitter:description"][0]
    assert ld["description"].startswith('</script><script>alert(1)</script> & "quotes"')
    assert "<script>alert(1)" not in page.read_text(encoding="utf-8")


def test_a_cover_is_the_preview_picture_with_its_size_and_alt(tmp_path: Path) -> None:
    root = make_site(tmp_path)
    from PIL import Image

    Image.new("RGB", (800, 420), "#336699").save(root / "content/assets/cover.png")
    post = root / "content/posts/2024-05-01-plain.md"
    post.write_text(post.read_text().replace(
        "tags:", "image: /assets/cover.png\nimage_alt: A blue field\ntags:"), encoding="utf-8")
    build(root / "site.yaml")
    doc = head(root / "_site/posts/plain/index.html")
    m = metas(doc)
    assert m["og:image"] == [BASE + "assets/cover.png"]
    assert (m["og:image:width"], m["og:image:height"]) == (["800"], ["420"])
    assert m["og:image:alt"] == m["twitter:image:alt"] == ["A blue field"]
    assert json_ld(doc)[0]["image"] == BASE + "assets/cover.png"
    # A page without a picture of its own shares the site's card.
    about = metas(head(root / "_site/about/index.html"))
    assert about["og:image"] == about["twitter:image"] == [BASE + "card.png"]
    assert about["twitter:card"] == ["summary_large_image"]
    assert "og:locale" in about


def test_without_cards_or_a_site_image_a_page_names_no_image(tmp_path: Path) -> None:
    root = make_site(tmp_path, "social_cards: false\n")
    build(root / "site.yaml")
    for rel in ("index.html", "about/index.html", "tags/ml/index.html",
                "posts/plain/index.html"):
        m = metas(head(root / "_site" / rel))
        assert m["twitter:card"] == ["summary"] and "og:image" not in m, rel
    assert not list((root / "_site").rglob("*.png"))


@pytest.mark.parametrize(("yaml", "key"), [
    ("social:\n  twitter: ada\n", "social.twitter"),
    ("social:\n  twitter: \"@a-b\"\n", "social.twitter"),
    ("social:\n  image: \"javascript:alert(1)\"\n", "social.image"),
    ("social:\n  image: //evil.example/x.png\n", "social.image"),
    ("social:\n  image: cover.png\n", "social.image"),
])
def test_social_settings_are_checked(tmp_path: Path, yaml: str, key: str) -> None:
    root = make_site(tmp_path, yaml)
    with pytest.raises(ConfigError) as caught:
        load_config(root / "site.yaml")
    assert key in str(caught.value)
    assert caught.value.file is not None and caught.value.file.endswith("site.yaml")
    assert caught.value.line == 7  # the line of the value
