"""The edges of the image stage: pictures as image libraries' test suites have them (colour
keys, 16-bit grey), built into real sites and read back from the files published."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from PIL import Image

from blogbuild.commands.build import build
from test_images import _srcset, make_site, pictures

POST = Path("posts") / "trip"


def copies_of(out: Path, index: int = 0) -> list[Path]:
    """The files of every copy the post's `index`-th <img> offers (its srcset and its
    <source> elements), and its src."""
    page = pictures(out / POST / "index.html")
    img, sources = page.images[index], page.sources[index]
    urls = [url for srcset in [img["srcset"], *[s["srcset"] for s in sources]]
            for url, _ in _srcset(srcset)]
    return [out / url.removeprefix("/blog/") for url in dict.fromkeys(urls)]


def png_bytes(image: Image.Image, **options: object) -> bytes:
    buffer = io.BytesIO()
    image.save(buffer, "PNG", **options)
    return buffer.getvalue()


def _keyed(mode: str) -> tuple[Image.Image, object, Image.Image]:
    """A picture in `mode` with a colour key (tRNS), its key and its alpha as a browser
    shows it (0 where the pixel is the key colour)."""
    if mode == "I;16":
        image = Image.new("I;16", (64, 48))
        for x in range(64):
            for y in range(48):
                image.putpixel((x, y), 1000 * x + 7 * y)
        key: object = 1000 * 10 + 7 * 5
        alpha = Image.new("L", (64, 48), 255)
        alpha.putpixel((10, 5), 0)
        return image, key, alpha
    base = Image.linear_gradient("L").resize((64, 48)).convert("RGB")
    base.paste((255, 0, 255), (0, 0, 20, 12))
    image = base.convert("P", palette=Image.Palette.ADAPTIVE) if mode == "P" \
        else base.convert(mode)
    key = image.getpixel((0, 0))
    image.info["transparency"] = key
    return image, key, image.convert("RGBA").getchannel("A")


@pytest.mark.parametrize("mode", ["RGB", "P", "L", "I;16"])
def test_a_colour_key_stays_transparent_in_every_copy(tmp_path: Path, mode: str) -> None:
    """PNG optimisers write transparency as one colour (a tRNS chunk) rather than an alpha
    channel: the copies keep it, and a 16-bit grey is scaled as a browser shows it."""
    image, key, alpha = _keyed(mode)
    assert alpha.getextrema() == (0, 255)  # some pixels are transparent, others not
    site = make_site(tmp_path, "![Keyed](keyed.png)\n", {
        "content/posts/trip/keyed.png": png_bytes(image, transparency=key)})
    build(site / "site.yaml")
    made = copies_of(site / "_site")
    assert sorted(p.suffix for p in made) == [".png", ".webp"]
    for path in made:
        with Image.open(path) as copy:
            assert copy.size == image.size
            assert copy.convert("RGBA").getchannel("A").tobytes() == alpha.tobytes(), path
    if mode == "I;16":  # 16 bits of grey in 8: 65535 is white, 1000 · x nearly black
        with Image.open(next(p for p in made if p.suffix == ".png")) as copy:
            grey = copy.convert("L")
            assert [grey.getpixel((x, 0)) for x in (0, 13, 26, 63)] == [
                round(1000 * x / 257) for x in (0, 13, 26, 63)]


def test_a_png_turned_by_its_text_or_xmp_is_published_turned_and_its_copies_too(
        tmp_path: Path) -> None:
    """ImageMagick's EXIF text and XMP turn a PNG in Pillow, which makes the copies: the
    published original says the same in the eXIf chunk browsers read, and the size in the
    markup and the copies' shapes are those of the turned picture."""
    from test_images_edges_browser import TURNED

    names = ["png-raw-text.png", "png-raw-ztxt.png", "png-xmp.png", "png-exif-late.png"]
    site = make_site(tmp_path, "".join(f"![{n}]({n})\n\n" for n in names), {
        f"content/posts/trip/{n}": TURNED[n][0]() for n in names})
    build(site / "site.yaml")
    out = site / "_site"
    page = pictures(out / POST / "index.html")
    for index, name in enumerate(names):
        img = page.images[index]
        assert (img["width"], img["height"]) == ("40", "60"), name
        for path in copies_of(out, index):
            with Image.open(path) as copy:
                assert copy.size == (40, 60), (name, path.name)
                red, _, blue = copy.convert("RGB").getpixel((35, 3))
                assert red > 200 > 50 > blue, (name, path.name)  # the red block, top right
        with Image.open(out / POST / name) as original:
            original.load()
            assert dict(original.getexif()) == {0x0112: 6}, name
            assert not {"XML:com.adobe.xmp", "Raw profile type exif"} & set(original.info)


def test_a_turned_webp_is_published_with_its_pixels_turned(tmp_path: Path) -> None:
    """Chromium ignores a WebP's EXIF orientation: the published WebP is turned itself, and
    a lossless one stays lossless, pixel for pixel."""
    from test_images_edges_browser import TURNED, marked

    site = make_site(tmp_path, "![Turned](webp-xmp.webp)\n",
                     {"content/posts/trip/webp-xmp.webp": TURNED["webp-xmp.webp"][0]()})
    build(site / "site.yaml")
    published = (site / "_site" / POST / "webp-xmp.webp").read_bytes()
    assert b"VP8L" in published and b"EXIF" not in published and b"XMP " not in published
    with Image.open(io.BytesIO(published)) as original:
        assert original.convert("RGB").tobytes() == \
            marked().transpose(Image.Transpose.ROTATE_270).tobytes()


def test_an_avif_is_published_without_its_exif_and_xmp(tmp_path: Path) -> None:
    from image_helpers import avif_picture, holds_secret

    data = avif_picture(320, 240, orientation=6)
    site = make_site(tmp_path, "![Sea](sea.avif)\n", {"content/posts/trip/sea.avif": data})
    report = build(site / "site.yaml")
    assert report.diagnostics == []
    out = site / "_site"
    assert holds_secret(out) == []
    published = (out / POST / "sea.avif").read_bytes()
    assert b"xpacket" not in published and len(published) == len(data)
    with Image.open(io.BytesIO(published)) as original, Image.open(io.BytesIO(data)) as source:
        assert original.tobytes() == source.tobytes()  # the picture's own bytes, untouched
        assert "xmp" not in original.info
    [img] = pictures(out / POST / "index.html").images
    assert (img["width"], img["height"]) == ("240", "320")  # turned by its container


def test_a_damaged_picture_is_published_without_the_metadata_that_can_be_taken_out(
        tmp_path: Path) -> None:
    """A copy cut short keeps a structure that holds as far as it goes: its metadata is
    taken out; a file whose structure breaks before its metadata ends is published as it
    is, and its warning says the metadata goes with it."""
    from image_helpers import SECRET, holds_secret, jpeg_photo, png_picture

    photo, plan = jpeg_photo(400, 300), png_picture(200, 100)
    start = photo.index(b"\xff\xe1")  # the EXIF segment, its GPS position in it
    files = {"cut.jpg": photo[: len(photo) * 2 // 3], "cut.png": plan[: len(plan) - 40],
             "broken.jpg": photo[:start] + b"junk" + photo[start:], "text.jpg": b"not a photo"}
    site = make_site(tmp_path, "".join(f"![{n}]({n})\n\n" for n in files),
                     {f"content/posts/trip/{n}": d for n, d in files.items()})
    report = build(site / "site.yaml")
    out = site / "_site"
    messages = {d.line: d.message for d in report.diagnostics}
    assert messages == {
        5: "image 'cut.jpg' is damaged: the JPEG file is cut short (no end marker): it is "
           "published as it is, less its metadata, without a size or smaller copies; "
           "replace the file",
        7: "image 'cut.png' is damaged: a PNG chunk runs past the end of the file: it is "
           "published as it is, less its metadata, without a size or smaller copies; "
           "replace the file",
        9: "image 'broken.jpg' is damaged: a JPEG segment is cut short or misplaced: it is "
           "published as it is, with any metadata it holds (a GPS position, say), without "
           "a size or smaller copies; replace the file",
        11: "image 'text.jpg' cannot be read as a picture (PNG, JPEG, WebP, GIF or AVIF): it "
            "is published as it is, without a size or smaller copies; replace the file"}
    assert holds_secret(out) == ["posts/trip/broken.jpg"]  # the one the warning names
    cut = (out / POST / "cut.jpg").read_bytes()
    assert photo.startswith(cut[:2]) and cut.endswith(files["cut.jpg"][-4_000:])
    assert SECRET not in (out / POST / "cut.png").read_bytes()


def _psd(width: int, height: int) -> bytes:
    """A Photoshop file (Pillow reads them, does not write them): RGB, raw planes."""
    import struct

    return (b"8BPS" + struct.pack(">H6xHIIHH", 1, 3, height, width, 8, 3)
            + struct.pack(">IIIH", 0, 0, 0, 0) + bytes(3 * width * height))


def _saved(image: Image.Image, fmt: str, **options: object) -> bytes:
    buffer = io.BytesIO()
    image.save(buffer, fmt, **options)
    return buffer.getvalue()


def test_a_picture_browsers_cannot_show_is_reported_at_each_line(tmp_path: Path) -> None:
    """A TIFF or a Photoshop file saved under a .jpg name: browsers show a broken picture,
    so every line that shows it says so, and what to do. A BMP under another name is shown
    by browsers: it is only misnamed."""
    photo = Image.new("RGB", (90, 60), (10, 120, 200))
    files = {"scan.jpg": _saved(photo, "TIFF"), "layers.jpg": _psd(30, 20),
             "bitmap.jpg": _saved(photo, "BMP")}
    body = "![Scan](scan.jpg)\n\n![Layers](layers.jpg)\n\n![Bitmap](bitmap.jpg)\n\n" \
        "Again: ![Scan](scan.jpg)\n"
    site = make_site(tmp_path, body, {f"content/posts/trip/{n}": d for n, d in files.items()})
    report = build(site / "site.yaml")
    assert [(d.line, d.message) for d in report.diagnostics] == [
        (5, "image 'scan.jpg' is a TIFF file, which browsers cannot show: it is published as "
            "it is, with any metadata it holds (a GPS position, say), without a size or "
            "smaller copies; convert it to JPEG, PNG or WebP"),
        (7, "image 'layers.jpg' is a PSD file, which browsers cannot show: it is published as "
            "it is, with any metadata it holds (a GPS position, say), without a size or "
            "smaller copies; convert it to JPEG, PNG or WebP"),
        (9, "image 'bitmap.jpg' is a BMP file, which its name does not say; rename it"),
        (11, "image 'scan.jpg' is a TIFF file, which browsers cannot show: it is published as "
             "it is, with any metadata it holds (a GPS position, say), without a size or "
             "smaller copies; convert it to JPEG, PNG or WebP")]
    scan, layers, bitmap, again = pictures(site / "_site" / POST / "index.html").images
    assert not {"width", "srcset"} & (set(scan) | set(layers) | set(again))
    # The first picture shown near the top: loaded at once.
    assert (bitmap["width"], bitmap["height"], bitmap["fetchpriority"]) == ("90", "60", "high")
    for name, data in files.items():  # published as they are
        assert (site / "_site" / POST / name).read_bytes() == data


def _frames(fmt: str, size: tuple[int, int] = (40, 30)) -> bytes:
    frames = [Image.new("RGB", size, colour) for colour in ((255, 0, 0), (0, 0, 255))]
    return _saved(frames[0], fmt, save_all=True, append_images=frames[1:], duration=100)


def test_animations_and_gifs_are_sized_and_loaded_late_and_never_copied(
        tmp_path: Path) -> None:
    """An animated WebP, an animated PNG (named .apng or .png) and every GIF are shown as
    they are, with their size and the loading of every picture: the first near the top at
    once, the others as the reader comes near; no still copy of an animation is made."""
    files = {"top.gif": _frames("GIF", (64, 16)), "moving.webp": _frames("WEBP"),
             "moving.apng": _frames("PNG"), "moving.png": _frames("PNG", (20, 10)),
             "still.gif": _saved(Image.new("P", (12, 8)), "GIF")}
    body = "".join(f"![{name}]({name})\n\n" + ("Text.\n\n" * 3 if name == "top.gif" else "")
                   for name in files)
    site = make_site(tmp_path, body, {f"content/posts/trip/{n}": d for n, d in files.items()})
    report = build(site / "site.yaml")
    assert report.diagnostics == []
    images = pictures(site / "_site" / POST / "index.html").images
    shown = {str(img["src"]).rsplit("/", 1)[-1]: img for img in images}
    assert list(shown) == list(files)
    for name, data in files.items():
        img = shown[name]
        with Image.open(io.BytesIO(data)) as source:
            assert (img["width"], img["height"]) == (str(source.width), str(source.height))
        assert "srcset" not in img and img["decoding"] == "async"
        if name == "top.gif":
            assert img["fetchpriority"] == "high" and "loading" not in img
        else:
            assert img["loading"] == "lazy" and "fetchpriority" not in img
    published = sorted(p.name for p in (site / "_site" / POST).iterdir())
    assert published == sorted([*files, "index.html"])  # no copies
    for name in ("moving.webp", "moving.apng", "moving.png"):
        with Image.open(site / "_site" / POST / name) as animation:
            assert animation.n_frames == 2, name
