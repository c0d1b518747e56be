"""The picture itself as it is published (what a link to `lake.jpg` opens): its metadata
taken out without decoding anything, by the container's structure (JPEG segments, PNG and
WebP chunks: blogbuild.images.strip; an AVIF's boxes: blogbuild.images.avif), and, for a
WebP that is not upright, its pixels turned (browsers ignore a WebP's orientation).

A damaged file often keeps a structure these readers follow as far as it goes (a copy cut
short): it is stripped that far (`partial`), and the warning about it says whether its
metadata could be taken out (`metadata_left`).
"""

from __future__ import annotations

import io

from blogbuild.images.avif import is_avif, strip_avif
from blogbuild.images.orientation import upright
from blogbuild.images.strip import Unreadable, known, strip, webp_chunks


def stripped(data: bytes, orientation: int = 1, *, partial: bool = False) -> bytes:
    """`data` (JPEG, PNG, WebP or AVIF) without its metadata, its orientation kept as the
    only EXIF field (AVIF: in its container, untouched). `partial`: a file cut short is
    stripped as far as it goes. Raises Unreadable."""
    if is_avif(data):
        return strip_avif(data, partial=partial)
    return strip(data, orientation, partial=partial)


def metadata_left(data: bytes, orientation: int = 1) -> str:
    """What the published file keeps of the metadata of `data`, a picture with a problem:
    "stripped" (none: the structure holds as far as it goes), "kept" (all of it: a JPEG,
    PNG, WebP or AVIF whose structure breaks), "" (no such picture at all)."""
    try:
        stripped(data, orientation, partial=True)
    except Unreadable:
        return "kept" if known(data) or is_avif(data) else ""
    return "stripped"


def upright_webp(data: bytes, orientation: int) -> bytes:
    """The WebP `data` turned upright and encoded again: losslessly when it was lossless,
    else at quality 90; its colour profile kept, nothing else of its metadata."""
    from PIL import Image

    lossless = any(kind == b"VP8L" for kind, _ in webp_chunks(data))
    try:
        with Image.open(io.BytesIO(data)) as opened:
            icc = opened.info.get("icc_profile")
            image = upright(opened, orientation)
            image.info = {}
            buffer = io.BytesIO()
            image.save(buffer, "WEBP", lossless=lossless, quality=100 if lossless else 90,
                       exact=True, method=4, icc_profile=icc or "")
    except (OSError, ValueError, SyntaxError) as exc:
        raise Unreadable(str(exc) or type(exc).__name__) from None
    return buffer.getvalue()
