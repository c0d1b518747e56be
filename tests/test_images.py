"""The image stage: sized, responsive pictures without their metadata, made once."""

from __future__ import annotations

import html as html_lib
import io
import os
import re
import shutil
import struct
import subprocess
import sys
import zlib
from html.parser import HTMLParser
from pathlib import Path

import pytest
from markdown_it.utils import read_fixture_file
from PIL import Image

from blogbuild.commands.build import build
from blogbuild.config import Config
from blogbuild.content.linkmap import LinkMap
from blogbuild.diagnostics import BuildFailed
from blogbuild.images.process import ImageInfo, Variant
from blogbuild.markdown import create_markdown
from blogbuild.pipeline.render import render_markdown
from image_helpers import holds_secret, jpeg_photo, png_picture

FIXTURES = Path(__file__).parent / "fixtures" / "images.md"


def _variants(stem: str, key: str, widths: list[int], ratio: float, own: str,
              ) -> tuple[Variant, ...]:
    return tuple(Variant(f"{stem}.{key}.{w}.{ext}", fmt, w, round(w * ratio))
                 for fmt, ext in (("webp", "webp"), (own, "jpg" if own == "jpeg" else own))
                 for w in widths)


LINKS = LinkMap(
    assets={"posts/p/photo.jpg": "/posts/p/photo.jpg", "posts/p/plot.svg": "/posts/p/plot.svg",
            "posts/p/broken.jpg": "/posts/p/broken.jpg"},
    statics=frozenset({"img/wide.png"}),
    images={
        "posts/p/photo.jpg": ImageInfo("content/posts/p/photo.jpg", 1000, 750,
                                       _variants("photo", "k1", [480, 800, 1000], 0.75,
                                                 "jpeg"), key="k1"),
        "static/img/wide.png": ImageInfo("static/img/wide.png", 480, 120,
                                         _variants("wide", "k2", [480], 0.25, "png"),
                                         key="k2"),
        "posts/p/broken.jpg": ImageInfo("content/posts/p/broken.jpg",
                                        problem="is damaged: the file is cut short",
                                        key="k3"),
    })
CASES = [pytest.param(*case[1:], id=f"{case[0]}-{case[1]}")
         for case in read_fixture_file(FIXTURES)]


@pytest.mark.parametrize(("title", "source", "expected"), CASES)
def test_fixture(title: str, source: str, expected: str) -> None:
    md = create_markdown(Config(base_url="https://example.org/blog/"))
    rendered = render_markdown(md, source, source_dir="posts/p", links=LINKS)
    assert rendered.html == expected


def test_a_damaged_or_misnamed_picture_is_reported_at_its_line() -> None:
    md = create_markdown(Config(base_url="https://example.org/blog/"))
    links = LinkMap(assets=LINKS.assets, images={
        **LINKS.images, "posts/p/photo.jpg": ImageInfo("content/posts/p/photo.jpg", 10, 10,
                                                       LINKS.images["posts/p/photo.jpg"]
                                                       .variants, misnamed="PNG", key="k1")})
    rendered = render_markdown(md, "Text.\n\n![a](broken.jpg)\n\n![b](photo.jpg)\n",
                               source_dir="posts/p", links=links, file="post.md")
    messages = [(d.line, d.message) for d in rendered.diagnostics]
    assert messages == [
        (3, "image 'broken.jpg' is damaged: the file is cut short: it is published as it "
            "is, without a size or smaller copies; replace the file"),
        (5, "image 'photo.jpg' is a PNG file, which its name does not say; rename it"),
    ]
    assert rendered.images == (("posts/p/broken.jpg", "k3"), ("posts/p/photo.jpg", "k1"))


def test_a_render_records_the_pictures_it_shows_known_or_not() -> None:
    """So that turning the image stage on or off, or a new picture, renders it again."""
    md = create_markdown(Config(base_url="https://example.org/blog/"))
    source = "![a](photo.jpg) ![b](/img/wide.png) ![c](gone.png) ![d](https://x.org/e.png)"
    rendered = render_markdown(md, source, source_dir="posts/p", links=LINKS)
    assert rendered.images == (("/img/wide.png", "k2"), ("posts/p/gone.png", None),
                               ("posts/p/photo.jpg", "k1"))
    assert LINKS.still_valid((), images=rendered.images)
    assert not LinkMap(assets=LINKS.assets).still_valid((), images=rendered.images)


# -- built sites -----------------------------------------------------------------------


class _Pictures(HTMLParser):
    """Every <img> of a page, with the <source> elements of its <picture>."""

    def __init__(self) -> None:
        super().__init__()
        self.images: list[dict[str, str | None]] = []
        self.sources: list[list[dict[str, str | None]]] = []
        self._open: list[dict[str, str | None]] | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "picture":
            self._open = []
        elif tag == "source" and self._open is not None:
            self._open.append(dict(attrs))
        elif tag == "img":
            self.images.append(dict(attrs))
            self.sources.append(self._open or [])

    def handle_endtag(self, tag: str) -> None:
        if tag == "picture":
            self._open = None


def pictures(page: Path) -> _Pictures:
    parser = _Pictures()
    parser.feed(page.read_text(encoding="utf-8"))
    return parser


def _srcset(value: str | None) -> list[tuple[str, int]]:
    out = []
    for item in (value or "").split(","):
        url, width = item.split()
        out.append((url, int(width.removesuffix("w"))))
    return out


def make_site(root: Path, body: str, files: dict[str, bytes], extra: str = "") -> Path:
    (root / "content" / "posts" / "trip").mkdir(parents=True)
    (root / "site.yaml").write_text("title: Photos\nbase_url: https://example.org/blog/\n"
                                    "search: false\nsocial_cards: false\n" + extra)
    (root / "content" / "posts" / "trip" / "index.md").write_text(
        f"---\ntitle: A trip\ndate: 2026-05-01\n---\n{body}", encoding="utf-8")
    for rel, data in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
    return root


def test_a_photo_is_published_sized_in_every_width_and_without_its_metadata(
        tmp_path: Path) -> None:
    site = make_site(tmp_path, "Intro.\n\n![Sea](sea.jpg)\n\n![Logo](/img/logo.png)\n", {
        "content/posts/trip/sea.jpg": jpeg_photo(2000, 1000),
        "static/img/logo.png": png_picture(300, 100, alpha=True),
    })
    report = build(site / "site.yaml")
    assert report.diagnostics == []
    out = site / "_site"
    assert holds_secret(out) == []  # no GPS, XMP or comment in any file published
    page = pictures(out / "posts" / "trip" / "index.html")
    sea, logo = page.images
    assert (sea["width"], sea["height"], sea["alt"]) == ("2000", "1000", "Sea")
    assert sea["fetchpriority"] == "high" and sea.get("loading") is None
    assert logo["loading"] == "lazy" and logo["decoding"] == "async"
    assert [s["type"] for s in page.sources[0]] == ["image/webp"]
    for img, sources in zip(page.images, page.sources, strict=True):
        for srcset in [img["srcset"], *[s["srcset"] for s in sources]]:
            for url, width in _srcset(srcset):
                file = out / url.removeprefix("/blog/")
                with Image.open(file) as variant:
                    assert variant.width == width  # the width srcset says it is
                    assert not variant.getexif()
        assert (out / str(img["src"]).removeprefix("/blog/")).is_file()
    assert [w for _, w in _srcset(sea["srcset"])] == [480, 800, 1200, 1600]  # not 2000
    assert [w for _, w in _srcset(logo["srcset"])] == [300]  # never wider than it is
    assert str(logo["src"]).endswith(".png")  # transparency kept in the fallback
    with Image.open(out / "posts" / "trip" / "sea.jpg") as original:  # the link target
        assert original.size == (2000, 1000)
        assert not original.getexif()
        assert original.info.get("icc_profile")


def test_a_rebuild_encodes_nothing_and_writes_the_same_bytes(tmp_path: Path) -> None:
    files = {"content/posts/trip/sea.jpg": jpeg_photo(1000, 600),
             "content/posts/trip/map.png": png_picture(500, 500)}
    site = make_site(tmp_path / "a", "![Sea](sea.jpg)\n\n![Map](map.png)\n", files)
    build(site / "site.yaml")
    first = {p.relative_to(site / "_site"): p.read_bytes()
             for p in (site / "_site").rglob("*") if p.is_file()}
    cache = site / ".blogbuild-cache" / "images"
    made = {p: p.stat().st_mtime_ns for p in cache.rglob("*") if p.is_file()}
    assert len([p for p in made if p.suffix == ".webp"]) == 5  # 480, 800, 1000 and 480, 500
    shutil.rmtree(site / "_site")
    report = build(site / "site.yaml")
    assert {p: p.stat().st_mtime_ns for p in cache.rglob("*") if p.is_file()} == made
    assert report.images_encoded == 0
    again = {p.relative_to(site / "_site"): p.read_bytes()
             for p in (site / "_site").rglob("*") if p.is_file()}
    assert again == first
    # Another folder, no cache: the same bytes, encoded anew.
    other = make_site(tmp_path / "b", "![Sea](sea.jpg)\n\n![Map](map.png)\n", files)
    build(other / "site.yaml", use_cache=False)
    for rel, data in first.items():
        if rel.suffix in (".webp", ".jpg", ".png"):
            assert (other / "_site" / rel).read_bytes() == data, rel


def test_an_edited_picture_renders_its_post_again(tmp_path: Path) -> None:
    site = make_site(tmp_path, "![Sea](sea.jpg)\n", {
        "content/posts/trip/sea.jpg": jpeg_photo(1000, 600)})
    build(site / "site.yaml")
    photo = site / "content" / "posts" / "trip" / "sea.jpg"
    photo.write_bytes(jpeg_photo(800, 800))
    os.utime(photo, (1_600_000_000, 1_600_000_000))  # a time the probe memo may trust
    report = build(site / "site.yaml")
    assert report.rendered == 1
    sea = pictures(site / "_site" / "posts" / "trip" / "index.html").images[0]
    assert (sea["width"], sea["height"]) == ("800", "800")


def test_images_false_publishes_pictures_as_they_are(tmp_path: Path) -> None:
    data = jpeg_photo(900, 600)
    site = make_site(tmp_path, "![Sea](sea.jpg)\n", {"content/posts/trip/sea.jpg": data},
                     extra="images: false\n")
    build(site / "site.yaml")
    assert (site / "_site" / "posts" / "trip" / "sea.jpg").read_bytes() == data
    [sea] = pictures(site / "_site" / "posts" / "trip" / "index.html").images
    assert sea["src"] == "/blog/posts/trip/sea.jpg" and "srcset" not in sea


def _png_header(width: int, height: int) -> bytes:
    """A PNG that says it is `width` × `height` and holds almost nothing (a bomb)."""
    def chunk(kind: bytes, body: bytes) -> bytes:
        return struct.pack(">I", len(body)) + kind + body + struct.pack(
            ">I", zlib.crc32(kind + body) & 0xFFFFFFFF)
    pixels = zlib.compress(b"\x00" * 4096, 9)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8,
                                                                2, 0, 0, 0))
            + chunk(b"IDAT", pixels) + chunk(b"IEND", b""))


def test_bad_pictures_are_warnings_at_their_line_and_published_as_they_are(
        tmp_path: Path) -> None:
    photo = jpeg_photo(400, 300)
    buffer = io.BytesIO()
    Image.new("RGB", (64, 64), (1, 2, 3)).save(buffer, "PNG")
    bad = {"bomb.png": _png_header(60_000, 60_000), "cut.jpg": photo[: len(photo) // 2],
           "noise.jpg": b"\xff\xd8\xff\xe0 not really a JPEG", "lies.jpg": buffer.getvalue()}
    body = "".join(f"![{name}]({name})\n\n" for name in bad)
    site = make_site(tmp_path, body, {f"content/posts/trip/{n}": d for n, d in bad.items()})
    report = build(site / "site.yaml")
    messages = {d.line: d.message for d in report.diagnostics}
    assert all(d.file == "content/posts/trip/index.md" for d in report.diagnostics)
    assert "has 3600 megapixels, more than the 120 the build reads" in messages[5]
    assert "is damaged: the JPEG file is cut short" in messages[7]
    assert "cannot be read as a picture" in messages[9]
    assert messages[11] == "image 'lies.jpg' is a PNG file, which its name does not say; " \
        "rename it"
    images = pictures(site / "_site" / "posts" / "trip" / "index.html").images
    assert [("srcset" in i) for i in images] == [False, False, False, True]
    assert (site / "_site" / "posts" / "trip" / "bomb.png").read_bytes() == bad["bomb.png"]
    with pytest.raises(BuildFailed):
        build(site / "site.yaml", strict=True)


def test_a_large_panorama_is_read_in_bounded_memory(tmp_path: Path) -> None:
    """A 100-megapixel JPEG: decoded at a fraction of its size (JPEG's DCT scaling), in
    a build process that stays far below the picture's 300 MB of pixels."""
    buffer = io.BytesIO()
    Image.new("L", (12_500, 8_000), 128).resize((12_500, 8_000)).save(buffer, "JPEG",
                                                                      quality=60)
    site = make_site(tmp_path, "![Wide](pano.jpg)\n",
                     {"content/posts/trip/pano.jpg": buffer.getvalue()})
    del buffer
    # The peak is reset first: a forked child starts with the peak of this test process.
    result = subprocess.run(
        [sys.executable, "-c", "import re, sys; open('/proc/self/clear_refs', 'w').write('5'); "
         "from blogbuild.cli import main; code = main(['build', '-q', '--config', sys.argv[1]]);"
         " print(re.search(r'VmHWM:\\s+(\\d+)', open('/proc/self/status').read())[1]); "
         "sys.exit(code)", str(site / "site.yaml")], capture_output=True, text=True,
        timeout=120)
    assert result.returncode == 0, result.stderr
    assert int(result.stdout) < 200 * 1024  # KiB: the picture's pixels are 100 MB
    [wide] = pictures(site / "_site" / "posts" / "trip" / "index.html").images
    assert (wide["width"], wide["height"]) == ("12500", "8000")
    assert [w for _, w in _srcset(wide["srcset"])] == [480, 800, 1200, 1600]


def test_a_cover_is_a_picture_too_and_the_body_then_loads_lazily(tmp_path: Path) -> None:
    site = make_site(tmp_path, "![Sea](sea.jpg)\n", {
        "content/posts/trip/sea.jpg": jpeg_photo(1200, 800),
        "content/posts/trip/cover.jpg": jpeg_photo(900, 600, orientation=6)})
    index = site / "content" / "posts" / "trip" / "index.md"
    index.write_text(index.read_text().replace("date: 2026-05-01\n",
                                               "date: 2026-05-01\nimage: cover.jpg\n"
                                               "image_alt: A cover\n"))
    build(site / "site.yaml")
    post = pictures(site / "_site" / "posts" / "trip" / "index.html")
    cover, sea = post.images
    assert (cover["class"], cover["width"], cover["height"]) == ("post-cover", "600", "900")
    assert cover["fetchpriority"] == "high" and sea["loading"] == "lazy"
    assert [s["type"] for s in post.sources[0]] == ["image/webp"]
    assert [w for _, w in _srcset(cover["srcset"])] == [480, 600]  # upright: 600 wide
    listing = pictures(site / "_site" / "index.html")
    [thumb] = listing.images
    assert thumb["loading"] == "lazy" and thumb["sizes"] == \
        "(min-width: 40rem) 10rem, calc(100vw - 2.5rem)"
    for url, _ in _srcset(thumb["srcset"]):
        assert (site / "_site" / url.removeprefix("/blog/")).is_file()


def test_a_feed_entry_shows_one_copy_at_an_absolute_url(tmp_path: Path) -> None:
    site = make_site(tmp_path, "![Sea](sea.jpg)\n", {
        "content/posts/trip/sea.jpg": jpeg_photo(2000, 1000)})
    build(site / "site.yaml")
    feed = (site / "_site" / "feed.xml").read_text(encoding="utf-8")
    entry = html_lib.unescape(feed[feed.index("<content"):feed.index("</content>")])
    [src] = re.findall(r'<img src="([^"]+)"', entry)
    assert re.fullmatch(r"https://example\.org/blog/posts/trip/sea\.[0-9a-f]{10}\.1200\.jpg",
                        src)
    assert 'width="2000" height="1000" loading="lazy"' in entry and "srcset" not in entry


def test_an_animated_cover_is_shown_as_it_is_and_a_broken_one_is_reported(
        tmp_path: Path) -> None:
    frames = [Image.new("RGB", (40, 30), colour) for colour in ((255, 0, 0), (0, 0, 255))]
    buffer = io.BytesIO()
    frames[0].save(buffer, "WEBP", save_all=True, append_images=frames[1:], duration=100)
    site = make_site(tmp_path, "Text.\n\n![Moving](moving.webp)\n",
                     {"content/posts/trip/moving.webp": buffer.getvalue()})
    index = site / "content" / "posts" / "trip" / "index.md"
    index.write_text(index.read_text().replace("date: 2026-05-01\n",
                                               "date: 2026-05-01\nimage: moving.webp\n"))
    report = build(site / "site.yaml")
    assert report.diagnostics == []
    cover, body = pictures(site / "_site" / "posts" / "trip" / "index.html").images
    assert (cover["src"], cover["width"], cover["height"]) == (
        "/blog/posts/trip/moving.webp", "40", "30")
    assert (body["src"], body["width"], body["height"]) == (
        "/blog/posts/trip/moving.webp", "40", "30")  # an animation: as it is, sized
    (site / "content" / "posts" / "trip" / "moving.webp").write_bytes(b"RIFF\x00\x00")
    report = build(site / "site.yaml")
    assert sorted((d.line, d.message.split(":")[0]) for d in report.diagnostics) == [
        (4, "image 'moving.webp' cannot be read as a picture (PNG, JPEG, WebP, GIF or AVIF)"),
        (8, "image 'moving.webp' cannot be read as a picture (PNG, JPEG, WebP, GIF or AVIF)")]
