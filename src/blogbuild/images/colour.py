"""The pixels the copies are made of: 8 bits a channel, RGB or RGBA, in the colours the
picture shows.

Transparency stays, whatever says it: an alpha channel, a palette's, or a colour key (a
PNG's tRNS chunk). A 16-bit grey picture is scaled as a browser shows it. A colour
profile of up to `ICC_KEPT` bytes that describes RGB pixels goes with every copy as it is:
Display P3 (536 bytes in Apple's pictures) keeps its wide colours. A larger one (the
tables of a printer's or a camera's profile: 400 kB) would weigh more than a small copy's
pixels, so the pixels are turned into sRGB by it and the copies carry no profile (a
browser reads a picture without one as sRGB); colours outside sRGB are clipped, as a
screen that shows sRGB clips them. A grey or CMYK profile cannot go with RGB copies: its
pixels are turned into sRGB the same way. The published original keeps its profile: it is
the author's.
"""

from __future__ import annotations

import functools
import io
from typing import Any

#: The largest colour profile the copies carry as it is, in bytes.
ICC_KEPT = 4096


def for_copies(image: Any, icc: bytes | None) -> tuple[Any, bytes | None]:
    """`image` (decoded, upright) as RGB or RGBA, and the colour profile its copies carry
    (`icc`, the picture's, or None)."""
    if image.mode in ("I", "I;16", "I;16B", "I;16L"):
        image = _grey_of_16_bits(image)
    space = icc[16:20] if icc else b""
    if icc and (len(icc) > ICC_KEPT or space != b"RGB "):
        return _in_srgb(image, icc, space), None
    return _normalized(image), icc or None


def _normalized(image: Any) -> Any:
    """RGB, or RGBA when the picture has transparency: an alpha channel, a palette's, or a
    colour key (a PNG's tRNS chunk: every pixel of one colour or grey is transparent)."""
    if image.mode == "RGBA":
        return image
    if image.mode in ("P", "PA", "LA", "La", "RGBa") or "transparency" in image.info:
        return image.convert("RGBA")
    return image if image.mode == "RGB" else image.convert("RGB")


def _grey_of_16_bits(image: Any) -> Any:
    """A 16-bit grey picture in 8 bits as a browser shows it (65535 is white: Pillow's own
    conversion clips at 255, which makes the copies white), with the grey its tRNS chunk
    makes transparent as an alpha channel."""
    from PIL import ImageChops

    wide = image.convert("I")
    grey = wide.point(lambda v: v / 257 + 0.5).convert("L")
    key = image.info.get("transparency")
    if isinstance(key, int):
        # Where the value differs from the key either way round: opaque.
        above = wide.point(lambda v: v - key).convert("L")
        below = wide.point(lambda v: key - v).convert("L")
        grey.putalpha(ImageChops.lighter(above, below).point(lambda v: 255 if v else 0))
    grey.info = {}
    return grey


def _in_srgb(image: Any, icc: bytes, space: bytes) -> Any:
    """`image` turned from the colours of its profile `icc` (of the colour `space` its
    header says) into sRGB; as it is, in RGB, when the profile describes other pixels or
    cannot be read (a browser then ignores it too)."""
    from PIL import ImageCms

    alpha = None
    if space == b"RGB ":
        image = _normalized(image)
    elif space == b"GRAY" and image.mode in ("L", "LA", "La"):
        if image.mode != "L" or "transparency" in image.info:
            alpha = image.convert("LA").getchannel("A")
            image = image.getchannel("L")
    elif not (space == b"CMYK" and image.mode == "CMYK"):
        return _normalized(image)
    try:
        profile = ImageCms.ImageCmsProfile(io.BytesIO(icc))
        converted = ImageCms.profileToProfile(
            image, profile, _srgb(), outputMode="RGBA" if image.mode == "RGBA" else "RGB")
    except (ImageCms.PyCMSError, OSError, ValueError):
        return _normalized(image)
    assert converted is not None  # None only when asked to convert in place
    if alpha is not None:
        converted.putalpha(alpha)
    return converted


@functools.cache
def _srgb() -> Any:
    from PIL import ImageCms

    return ImageCms.createProfile("sRGB")
