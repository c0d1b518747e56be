"""Pictures made for the tests, with the metadata a camera or an editor writes."""

from __future__ import annotations

import functools
import io
from pathlib import Path

from PIL import Image, ImageCms, ImageDraw

#: Written into the GPS block (its area information) and the comments of the test photos:
#: no output file may hold these bytes.
SECRET = b"BLOGBUILD-SECRET-PLACE-51.5N"
#: An XMP packet such as editors write.
XMP = (b'<?xpacket begin="" id="W5M0MpCehiHzreSzNTczkc9d"?><x:xmpmeta xmlns:x="adobe:ns:meta/">'
       b"<rdf:Description>" + SECRET + b"</rdf:Description></x:xmpmeta><?xpacket end='w'?>")


def picture(width: int, height: int, mode: str = "RGB") -> Image.Image:
    """A picture with shapes and gradients, so that each variant has real content."""
    image = Image.linear_gradient("L").resize((width, height)).convert(mode)
    draw = ImageDraw.Draw(image)
    for i in range(8):
        x, y = width * i // 8, height * (7 - i) // 8
        r = max(2, min(width, height) // 6)
        fill = (40 * i % 256, 90, 200 - 20 * i, 255)[: len(mode)] if mode != "L" else 30 * i
        draw.ellipse((x - r, y - r, x + r, y + r), fill=fill)
    return image


def exif_with_gps(orientation: int = 1) -> Image.Exif:
    exif = Image.Exif()
    exif[0x010F] = "Camera maker"
    exif[0x0112] = orientation
    exif[0x8825] = {1: "N", 2: (51.0, 30.0, 12.5), 3: "W", 4: (0.0, 7.0, 39.0),
                    0x1C: SECRET.decode()}
    return exif


@functools.cache
def srgb_profile() -> bytes:
    # Made once: LittleCMS writes the time of making into the header, so two profiles made a
    # second apart differ (a test comparing them failed when the clock turned a second).
    return ImageCms.ImageCmsProfile(ImageCms.createProfile("sRGB")).tobytes()


def jpeg_photo(width: int = 1200, height: int = 800, orientation: int = 1) -> bytes:
    """A JPEG with EXIF (GPS included), XMP, a comment and an sRGB profile."""
    buffer = io.BytesIO()
    picture(width, height).save(buffer, "JPEG", quality=90, exif=exif_with_gps(orientation),
                                icc_profile=srgb_profile(), comment=SECRET, xmp=XMP)
    return buffer.getvalue()


def png_picture(width: int = 640, height: int = 400, alpha: bool = False) -> bytes:
    """A PNG with text chunks, an eXIf chunk holding GPS, and an sRGB profile."""
    from PIL import PngImagePlugin

    info = PngImagePlugin.PngInfo()
    info.add_text("Comment", SECRET.decode())
    info.add_itxt("XML:com.adobe.xmp", XMP.decode())
    buffer = io.BytesIO()
    picture(width, height, "RGBA" if alpha else "RGB").save(
        buffer, "PNG", pnginfo=info, exif=exif_with_gps(), icc_profile=srgb_profile())
    return buffer.getvalue()


def webp_picture(width: int = 640, height: int = 400) -> bytes:
    buffer = io.BytesIO()
    picture(width, height).save(buffer, "WEBP", quality=80, exif=exif_with_gps(), xmp=XMP,
                                icc_profile=srgb_profile())
    return buffer.getvalue()


def tiny_png() -> bytes:
    """A real 2×2 PNG: for tests that only need a picture file to exist."""
    buffer = io.BytesIO()
    Image.new("RGB", (2, 2), (200, 30, 30)).save(buffer, "PNG")
    return buffer.getvalue()


def holds_secret(folder: Path) -> list[str]:
    """The files under `folder` whose bytes hold the test photos' secret."""
    return sorted(str(p.relative_to(folder)) for p in folder.rglob("*")
                  if p.is_file() and SECRET in p.read_bytes())


def avif_picture(width: int = 64, height: int = 48, orientation: int = 1, *,
                 frames: int = 1) -> bytes:
    """An AVIF with EXIF (GPS included) and XMP items; Pillow writes an orientation as the
    container's rotation. Several `frames`: an image sequence, with XMP only (Pillow 13
    crashes writing a sequence's EXIF)."""
    buffer = io.BytesIO()
    images = [picture(width, height).rotate(90 * i) for i in range(frames)]
    metadata = {"exif": exif_with_gps(orientation)} if frames == 1 else {}
    images[0].save(buffer, "AVIF", xmp=XMP, quality=90, save_all=frames > 1,
                   append_images=images[1:], **metadata)
    return buffer.getvalue()
