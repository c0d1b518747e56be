"""Pictures made for the tests, with the metadata a camera or an editor writes."""

from __future__ import annotations

import functools
import io
import struct
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


def _s15(*values: float) -> bytes:
    return b"".join(struct.pack(">i", round(v * 65536)) for v in values)


def _text(text: str) -> bytes:
    """An ICC v4 multi-localised Unicode tag (mluc) of one English text."""
    encoded = text.encode("utf-16-be")
    return b"mluc" + bytes(4) + struct.pack(">II2s2sII", 1, 12, b"en", b"US", len(encoded), 28) \
        + encoded


#: Display P3 (Apple's): its primaries adapted to D50, and the D65 to D50 adaptation.
_P3 = {b"rXYZ": (0.515121, 0.241196, -0.001053), b"gXYZ": (0.291977, 0.692245, 0.041885),
       b"bXYZ": (0.157104, 0.066574, 0.784073)}
_BRADFORD = (1.047882, 0.022919, -0.050217, 0.029587, 0.990479, -0.017059,
             -0.009232, 0.015076, 0.751678)
_D50 = (0.964203, 1.0, 0.824905)


def icc_profile(space: str = "RGB", *, pad: int = 0) -> bytes:
    """A display profile made by hand (ICC v4, matrix and curves): Display P3, or with
    `space="GRAY"` a grey one with a gamma of 1.0 (linear); `pad` bytes of a private tag
    added, which is how the profiles of printers and cameras grow to hundreds of kB."""
    curve = b"para" + bytes(4) + struct.pack(">HH", 3, 0) \
        + _s15(2.4, 1 / 1.055, 0.055 / 1.055, 1 / 12.92, 0.04045)
    tags: dict[bytes, bytes] = {
        b"desc": _text("Display P3 (test)" if space == "RGB" else "Linear grey (test)"),
        b"cprt": _text("No copyright, test profile"),
        b"wtpt": b"XYZ " + bytes(4) + _s15(*_D50)}
    if space == "RGB":
        tags |= {kind: b"XYZ " + bytes(4) + _s15(*xyz) for kind, xyz in _P3.items()}
        tags |= {b"rTRC": curve, b"gTRC": curve, b"bTRC": curve,
                 b"chad": b"sf32" + bytes(4) + _s15(*_BRADFORD)}
    else:
        tags[b"kTRC"] = b"para" + bytes(4) + struct.pack(">HH", 0, 0) + _s15(1.0)
    if pad:
        tags[b"zpad"] = b"data" + bytes(4) + struct.pack(">I", 1) + bytes(pad)
    table, body = [], b""
    start = 128 + 4 + 12 * len(tags)
    for kind, data in tags.items():
        table.append(struct.pack(">4sII", kind, start + len(body), len(data)))
        body += data + bytes(-len(data) % 4)
    size = start + len(body)
    header = struct.pack(">I4sI4s4s4s6H4s4sI4s4sQI", size, b"lcms", 0x04300000, b"mntr",
                         space.ljust(4).encode(), b"XYZ ", 2024, 1, 1, 0, 0, 0, b"acsp",
                         b"APPL", 0, b"none", b"none", 0, 0) + _s15(*_D50)
    header += bytes(128 - len(header))
    return header + struct.pack(">I", len(tags)) + b"".join(table) + body
