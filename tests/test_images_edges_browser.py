"""The edges of the image stage in real headless Chromium: a picture's published original and
its copies look the same, whichever way the picture says it is turned."""

from __future__ import annotations

import io
import struct
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from PIL import Image, PngImagePlugin

from blogbuild.commands.build import build
from test_images import make_site, pictures
from test_images_edges import POST, copies_of

pytestmark = pytest.mark.browser


def marked() -> Image.Image:
    """60 × 40, blue, with a red block in its top-left corner as stored."""
    image = Image.new("RGB", (60, 40), (0, 0, 255))
    image.paste((255, 0, 0), (0, 0, 20, 10))
    return image


def xmp_orientation(value: int) -> bytes:
    return (b'<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/'
            b'02/22-rdf-syntax-ns#"><rdf:Description xmlns:tiff="http://ns.adobe.com/tiff/1.0/"'
            b' tiff:Orientation="%d"/></rdf:RDF></x:xmpmeta>' % value)


def turned_exif() -> Image.Exif:
    exif = Image.Exif()
    exif[0x0112] = 6  # turn 90° clockwise to show
    return exif


def saved(fmt: str, **options: Any) -> bytes:
    buffer = io.BytesIO()
    marked().save(buffer, fmt, **options)
    return buffer.getvalue()


def png_with_text(keyword: str, text: str, *, compressed: bool = False,
                  international: bool = False) -> bytes:
    info = PngImagePlugin.PngInfo()
    if international:
        info.add_itxt(keyword, text)
    else:
        info.add_text(keyword, text, zip=compressed)
    return saved("PNG", pnginfo=info)


def raw_profile() -> str:
    """ImageMagick's way of writing EXIF into a PNG's text."""
    data = turned_exif().tobytes()
    return f"\nexif\n{len(data):8}\n{data.hex()}\n"


def exif_after_pixels() -> bytes:
    """A PNG whose eXIf chunk follows its pixels (browsers read it only before them)."""
    data = saved("PNG", exif=turned_exif())
    start = data.index(b"eXIf") - 4
    end = start + 12 + struct.unpack(">I", data[start:start + 4])[0]
    chunk, rest = data[start:end], data[:start] + data[end:]
    iend = rest.index(b"IEND") - 4
    return rest[:iend] + chunk + rest[iend:]


#: name -> (the file, whether it is shown turned). An AVIF is turned by its container's
#: rotation (what Pillow writes for an EXIF orientation); browsers ignore its XMP.
TURNED: dict[str, tuple[Callable[[], bytes], bool]] = {
    "jpeg-exif.jpg": (lambda: saved("JPEG", exif=turned_exif(), quality=95), True),
    "jpeg-xmp.jpg": (lambda: saved("JPEG", xmp=xmp_orientation(6), quality=95), True),
    "png-exif.png": (lambda: saved("PNG", exif=turned_exif()), True),
    "png-exif-late.png": (exif_after_pixels, True),
    "png-raw-text.png": (lambda: png_with_text("Raw profile type exif", raw_profile()), True),
    "png-raw-ztxt.png": (lambda: png_with_text("Raw profile type exif", raw_profile(),
                                               compressed=True), True),
    "png-xmp.png": (lambda: png_with_text("XML:com.adobe.xmp", xmp_orientation(6).decode(),
                                          international=True), True),
    "webp-exif.webp": (lambda: saved("WEBP", exif=turned_exif(), quality=95), True),
    "webp-xmp.webp": (lambda: saved("WEBP", xmp=xmp_orientation(6), lossless=True), True),
    "avif-turned.avif": (lambda: saved("AVIF", exif=turned_exif(), quality=95), True),
    "avif-xmp.avif": (lambda: saved("AVIF", xmp=xmp_orientation(6), quality=95), False),
}

_LOOK = """() => [...document.images].map(i => {
  if (!i.naturalWidth) return [i.getAttribute('src'), 0, 0, ''];
  const c = document.createElement('canvas');
  c.width = 60; c.height = 60;
  const x = c.getContext('2d');
  x.drawImage(i, 0, 0, 60, 60);
  const red = (a, b) => { const d = x.getImageData(a, b, 1, 1).data; return d[0] > d[2]; };
  const corners = [[4, 4], [55, 4], [4, 55], [55, 55]].map(([a, b]) => red(a, b) ? 'R' : 'B');
  return [i.getAttribute('src'), i.naturalWidth, i.naturalHeight, corners.join('')];
})"""


def test_a_picture_and_its_copies_are_turned_the_same_way(
        tmp_path: Path, browser: Any, http_server: Any) -> None:
    """Whatever says a picture is turned (EXIF, XMP, ImageMagick's text, a PNG's EXIF after
    its pixels), its copies and its published original show the same way round."""
    body = "".join(f"![{name}]({name})\n\n" for name in TURNED)
    site = make_site(tmp_path, body, {f"content/posts/trip/{name}": make()
                                      for name, (make, _) in TURNED.items()})
    report = build(site / "site.yaml")
    assert report.diagnostics == []
    out = site / "_site"
    assert len(pictures(out / POST / "index.html").images) == len(TURNED)
    files = {name: [out / POST / name, *copies_of(out, index)]
             for index, name in enumerate(TURNED)}
    seen = {src.rsplit("/", 1)[-1]: (w, h, corners)
            for src, w, h, corners in _shown(out, files, browser, http_server, _LOOK)}
    for name, (_, turned) in TURNED.items():
        # Turned 90° clockwise, the red block stored top left is shown top right.
        expected = (40, 60, "BRBB") if turned else (60, 40, "RBBB")
        for path in files[name]:
            width, height, corners = seen[path.name]
            assert (width * expected[1], corners) == (height * expected[0], expected[2]), \
                (name, path.name, seen[path.name])


#: A picture's colours as Chromium shows them: each <img> drawn on a 48 × 48 canvas (in
#: sRGB, the colours of the screen), its pixels as a flat list of R, G, B, A.
_COLOURS = """() => Object.fromEntries([...document.images].map(i => {
  const c = document.createElement('canvas');
  c.width = 48; c.height = 48;
  const x = c.getContext('2d');
  x.drawImage(i, 0, 0, 48, 48);
  return [i.getAttribute('src').split('/').pop(), Array.from(x.getImageData(0, 0, 48, 48).data)];
}))"""


def _swatches(mode: str = "RGB") -> Image.Image:
    """A gradient of saturated colours above, one orange below: (200, 120, 60)."""
    image = Image.new("RGB", (256, 64), (200, 120, 60))
    for x in range(256):
        for y in range(32):
            image.putpixel((x, y), (x, y * 8, 255 - x))
    return image.convert(mode)


def _shown(out: Path, files: dict[str, list[Path]], browser: Any, http_server: Any,
           script: str = _COLOURS) -> Any:
    """What `script` finds in Chromium on a page that shows every file of `files` (the
    pictures of a build in `out`, served under /blog/)."""
    page = "".join(f'<img src="/blog/{p.relative_to(out).as_posix()}">'
                   for paths in files.values() for p in paths)
    (out / "look.html").write_text(f"<!doctype html><body>{page}</body>")
    context = browser.new_context()
    try:
        view = context.new_page()
        view.goto(http_server(out, "/blog/") + "look.html")
        view.wait_for_load_state("load")
        return view.evaluate(script)
    finally:
        context.close()


def test_copies_show_the_colours_of_their_original_and_a_large_profile_is_not_copied(
        tmp_path: Path, browser: Any, http_server: Any) -> None:
    """A small Display P3 profile goes with every copy (a wide-gamut screen shows its
    colours); a 400 kB one, and a grey one that cannot go with RGB copies, are applied to
    the copies' pixels instead. Chromium shows every copy in its original's colours."""
    from image_helpers import icc_profile

    profiles = {"p3.png": icc_profile(), "p3-large.png": icc_profile(pad=400_000),
                "grey.png": icc_profile("GRAY")}
    site = make_site(tmp_path, "".join(f"![{n}]({n})\n\n" for n in profiles), {
        f"content/posts/trip/{name}": saved_png(_swatches("L" if "grey" in name else "RGB"),
                                                icc)
        for name, icc in profiles.items()})
    build(site / "site.yaml")
    out = site / "_site"
    files = {name: [out / POST / name, *copies_of(out, index)]
             for index, name in enumerate(profiles)}
    for name, icc in profiles.items():
        for copy in files[name][1:]:
            with Image.open(copy) as opened:
                kept = opened.info.get("icc_profile")
            assert kept == (icc if name == "p3.png" else None), (name, copy.name)
            assert copy.stat().st_size < 10_000, copy.name  # 400 kB with the large profile
    seen = _shown(out, files, browser, http_server)
    orange = 4 * (40 * 48 + 10)  # a pixel of the orange swatch, (200, 120, 60) as stored
    for name in profiles:
        original = seen[name]
        if name != "grey.png":  # colour managed: P3's orange is not sRGB's
            assert max(abs(a - b) for a, b in zip(original[orange:orange + 3],
                                                  (200, 120, 60), strict=True)) > 8
        for copy in files[name][1:]:
            shown = seen[copy.name]
            for channel in range(3):
                difference = sum(abs(a - b) for a, b in zip(
                    original[channel::4], shown[channel::4], strict=True)) / (48 * 48)
                assert difference < 4, (name, copy.name, channel, difference)


def saved_png(image: Image.Image, icc: bytes) -> bytes:
    buffer = io.BytesIO()
    image.save(buffer, "PNG", icc_profile=icc)
    return buffer.getvalue()
