"""Social card images: drawn for posts without a picture, cached, cut to fit; and the
preview tags of the basic test site (the tags in detail: test_social.py)."""

from __future__ import annotations

import io
import shutil
from pathlib import Path
from typing import Any

import pytest
from PIL import Image

from blogbuild.commands.build import build
from blogbuild.diagnostics import BuildFailed, ConfigError
from blogbuild.output import cards
from test_social import head, metas
from test_social import json_ld as page_json_ld

BASIC = Path(__file__).parent / "sites" / "basic"
ORIGIN = "https://user.github.io/blogs/"
HOSTILE = "</script><script>alert(1)</script> & \"quotes\" <b>"


@pytest.fixture
def site(tmp_path: Path) -> Path:
    dest = tmp_path / "site"
    shutil.copytree(BASIC, dest, ignore=shutil.ignore_patterns("expected"))
    return dest


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    dest = tmp_path_factory.mktemp("social") / "site"
    shutil.copytree(BASIC, dest, ignore=shutil.ignore_patterns("expected"))
    build(dest / "site.yaml", use_cache=False)
    return dest / "_site"


def head_meta(path: Path) -> dict[str, list[str]]:
    return metas(head(path))


def json_ld(path: Path) -> list[Any]:
    return page_json_ld(head(path))


@pytest.mark.parametrize("rel", ["about/index.html", "index.html", "tags/python/index.html",
                                 "tags/index.html", "archive/index.html", "page/2/index.html"])
def test_other_pages_are_websites_with_absolute_urls(built: Path, rel: str) -> None:
    meta = head_meta(built / rel)
    assert meta["og:type"] == ["website"]
    assert meta["og:url"] == [ORIGIN + rel.removesuffix("index.html")]
    assert meta["og:title"] and meta["og:description"] and meta["twitter:title"]
    # No picture of their own and no social.image: the site's card, as posts share theirs.
    assert meta["og:image"] == meta["twitter:image"] == [ORIGIN + "card.png"]
    assert (meta["og:image:width"], meta["og:image:height"]) == (["1200"], ["630"])
    assert meta["og:image:alt"] == meta["twitter:image:alt"] == ["Test Blog"]
    assert meta["twitter:card"] == ["summary_large_image"]
    assert "article:tag" not in meta
    kinds = [ld["@type"] for ld in json_ld(built / rel)]
    assert kinds == (["WebSite"] if rel == "index.html" else [])


def _post(site: Path, name: str, front: str, body: str = "Text.\n") -> Path:
    path = site / "content/posts" / name
    path.write_text(f"---\n{front}\n---\n{body}", encoding="utf-8")
    return path


def test_image_and_twitter_handle(site: Path) -> None:
    _post(site, "2024-05-01-pic.md", "title: Pic\nslug: pic\nimage: /assets/logo.svg")
    (site / "site.yaml").write_text((site / "site.yaml").read_text()
                                    + "social:\n  twitter: \"@blogs_\"\n")
    build(site / "site.yaml", use_cache=False)
    meta = head_meta(site / "_site/posts/pic/index.html")
    assert meta["og:image"] == [f"{ORIGIN}assets/logo.svg"]
    assert "og:image:width" not in meta
    assert meta["twitter:site"] == meta["twitter:creator"] == ["@blogs_"]
    assert not (site / "_site/posts/pic/card.png").exists()


def test_bad_twitter_handle_names_the_key(site: Path) -> None:
    (site / "site.yaml").write_text((site / "site.yaml").read_text()
                                    + "social:\n  twitter: \"<script>\"\n")
    with pytest.raises(ConfigError, match=r"social\.twitter"):
        build(site / "site.yaml", use_cache=False)


def test_social_cards_can_be_turned_off(site: Path) -> None:
    (site / "site.yaml").write_text((site / "site.yaml").read_text() + "social_cards: false\n")
    build(site / "site.yaml", use_cache=False)
    assert not list((site / "_site").rglob("*.png"))
    assert head_meta(site / "_site/posts/first/index.html")["twitter:card"] == ["summary"]


def test_the_site_card_shows_the_site_and_is_drawn_once(built: Path) -> None:
    with Image.open(built / "card.png") as image:
        assert image.size == (cards.WIDTH, cards.HEIGHT)
    site = cards.Card(cards.SITE_CARD, "Test Blog", "user.github.io/blogs", "")
    assert (built / "card.png").read_bytes() == cards.draw_card(site)
    assert cards.SITE_CARD == "card.png"


def test_a_site_image_replaces_the_site_card(site: Path) -> None:
    (site / "site.yaml").write_text((site / "site.yaml").read_text()
                                    + "social:\n  image: /assets/logo.svg\n")
    build(site / "site.yaml", use_cache=False)
    for rel in ("index.html", "tags/python/index.html", "about/index.html"):
        meta = head_meta(site / "_site" / rel)
        assert meta["og:image"] == meta["twitter:image"] == [f"{ORIGIN}assets/logo.svg"]
    assert head_meta(site / "_site/posts/first/index.html")["og:image"] == [
        f"{ORIGIN}posts/first/card.png"]  # posts keep their own cards
    assert not (site / "_site/card.png").exists()


def test_a_file_of_the_site_where_the_site_card_goes_is_an_error_saying_what_to_do(
        site: Path) -> None:
    (site / "static").mkdir(exist_ok=True)
    (site / "static/card.png").write_bytes(b"mine")
    with pytest.raises(BuildFailed) as failed:
        build(site / "site.yaml", use_cache=False)
    [problem] = [d for d in failed.value.diagnostics if "card.png" in d.message]
    assert problem.file == "static/card.png" and "the site's social card" in problem.message
    assert "'social: {image: /card.png}' in site.yaml" in problem.message
    assert "social_cards: false" in problem.message
    (site / "site.yaml").write_text((site / "site.yaml").read_text()
                                    + "social: {image: /card.png}\n")  # as the message says
    build(site / "site.yaml", use_cache=False)
    assert (site / "_site/card.png").read_bytes() == b"mine"
    assert head_meta(site / "_site/index.html")["og:image"] == [f"{ORIGIN}card.png"]


def test_card_is_a_small_deterministic_png() -> None:
    card = cards.Card("x", "A title", "Site", "May 1, 2024", ("python",))
    data = cards.draw_card(card)
    assert data == cards.draw_card(card)
    image = Image.open(io.BytesIO(data))
    assert image.size == (1200, 630) and image.mode == "P"
    assert not image.info.keys() - {"transparency"}  # no text chunks, no time
    assert len(data) < 40_000


def test_card_png_decodes_to_the_colours_drawn() -> None:
    """The PNG is written by our own code (not Pillow's writer): a strict decoder reads it
    whole (chunk CRCs, the compressed rows) and finds the theme's colours where the card
    draws them."""
    data = cards.draw_card(cards.Card("x", "A title", "Site", "May 1, 2024", ("python",)))
    Image.open(io.BytesIO(data)).verify()  # checks every chunk's CRC
    image = Image.open(io.BytesIO(data)).convert("RGB")
    rgb = cards._rgb
    assert image.getpixel((5, 300)) == rgb(cards.ACCENT)  # the bar at the left edge
    assert image.getpixel((1190, 5)) == rgb(cards.BG)
    assert image.getpixel((600, cards.HEIGHT - 110)) == rgb(cards.BORDER)  # the rule
    assert image.getpixel((cards.WIDTH - 1, cards.HEIGHT - 1)) == rgb(cards.BG)  # last row
    assert rgb(cards.FG) in {colour for _, colour in image.getcolors(256) or []}  # the title


def test_invisible_characters_are_not_drawn() -> None:
    """Control and format characters (a property test found one in a tag) never reach
    the text layout, which fails on some of them; nor does a tag made only of them."""
    odd = cards.Card("x", "A\x1e title\u200b\x00", "Site\x07", "May 1, 2024",
                     ("0\x1e..", "\x1e", "ok\u202e"))
    plain = cards.Card("x", "A title", "Site", "May 1, 2024", ("0..", "ok"))
    assert cards.draw_card(odd) == cards.draw_card(plain)
    assert cards.missing_glyphs("\x1e\u200b") == ""


def test_the_card_font_draws_every_printable_ascii_character() -> None:
    """What lets `missing_glyphs` answer for an ASCII title without Pillow."""
    assert all(cards.has_glyph(chr(c)) for c in range(0x20, 0x7f))


def test_long_titles_are_cut_to_four_lines() -> None:
    size, lines = cards.title_lines("word " * 200)
    assert size == cards.TITLE_SIZES[-1] and len(lines) == cards.MAX_LINES
    assert lines[-1].endswith(cards.ELLIPSIS)
    assert cards.title_lines("Short")[0] == cards.TITLE_SIZES[0]
    assert len(cards.title_lines("x" * 500)[1]) == cards.MAX_LINES  # one unbreakable word


def test_missing_glyphs_warn_at_the_title_and_are_left_out(site: Path) -> None:
    assert cards.missing_glyphs("Ελληνικά Кириллица ∀x∈ℝ") == ""
    assert cards.missing_glyphs("日本語 notes") == "日本語"
    _post(site, "2024-05-01-cjk.md", "slug: cjk\ntitle: 日本語 notes")
    report = build(site / "site.yaml", use_cache=False)
    found = [d for d in report.diagnostics if "glyph" in d.message]
    assert [(d.file, d.line) for d in found] == [("content/posts/2024-05-01-cjk.md", 3)]
    assert cards.drawable("日本語 notes") == "notes"
    assert (site / "_site/posts/cjk/card.png").is_file()


def _refuse(card: cards.Card) -> bytes:
    raise AssertionError(f"drew {card.title}")


def test_cards_are_cached_and_only_an_edited_title_is_drawn(
        site: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    build(site / "site.yaml", jobs=1)
    first = site / "_site/posts/first/card.png"
    second = site / "_site/posts/second/card.png"
    before = first.read_bytes(), second.read_bytes()
    # A clean output folder with the cache: nothing is drawn, the bytes are the same.
    monkeypatch.setattr("blogbuild.stages.cards.draw_card", _refuse)
    build(site / "site.yaml", output=tmp_path / "other", jobs=1)
    assert (tmp_path / "other/posts/first/card.png").read_bytes() == before[0]
    # An edited title draws that card only.
    drawn: list[str] = []
    monkeypatch.setattr("blogbuild.stages.cards.draw_card",
                        lambda card: drawn.append(card.title) or cards.draw_card(card))
    post = site / "content/posts/2024-01-05-first.md"
    text = post.read_text()
    post.write_text(text.replace("title: ", "title: Renamed ", 1))
    build(site / "site.yaml", jobs=1)
    assert len(drawn) == 1 and drawn[0].startswith("Renamed ")
    assert first.read_bytes() != before[0] and second.read_bytes() == before[1]
    # A post that gains an image drops its card.
    post.write_text(post.read_text().replace("title: ", "image: /assets/logo.svg\ntitle: ", 1))
    build(site / "site.yaml", jobs=1)
    assert not first.exists() and second.exists()


def test_a_card_key_names_the_fonts_release(tmp_path: Path,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    """The fonts are named by their release (their VERSION file), as the vendored runtimes
    are: another release draws every card again."""
    release = tmp_path / "VERSION"
    monkeypatch.setattr(cards, "FONTS_RELEASE", release)

    def key_with(version: str) -> str:
        release.write_text(f"{version}\n", encoding="utf-8")
        cards.card_fingerprint.cache_clear()
        return cards.Card("posts/a/card.png", "A title", "Site", "2024-01-05").key

    try:
        assert key_with("2.37.3") == key_with("2.37.3")
        assert key_with("2.37.3") != key_with("2.38.0")
    finally:
        cards.card_fingerprint.cache_clear()
