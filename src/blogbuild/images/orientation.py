"""Which way up a picture is shown: one rule for its copies and for its published original.

The rule is Pillow's, the one `ImageOps.exif_transpose` follows (`Image.getexif`): the
EXIF orientation; in a PNG without an eXIf chunk, the EXIF that ImageMagick writes as a
"Raw profile type exif" text; failing both, XMP's tiff:Orientation. An AVIF says its
orientation in its container (its irot and imir properties, which Pillow reads as an EXIF
orientation and browsers follow); its EXIF and XMP are not asked, as browsers do not ask
them either.

The probe finds the orientation once (`orientation_of`, from the header: a PNG's chunks
are read here, without decoding its pixels); the copies are turned by it (`upright`), and
the published original says it the way browsers read it: a minimal EXIF block in a JPEG,
an eXIf chunk before a PNG's pixels (blogbuild.images.strip), an AVIF's own properties,
and a WebP has its pixels turned (Chromium ignores a WebP's EXIF orientation;
blogbuild.images.process.published).
"""

from __future__ import annotations

import re
import struct
import zlib
from typing import Any

from blogbuild.images.strip import Unreadable, png_chunks

#: ImageMagick's EXIF in a PNG text chunk, and XMP's, by their keywords.
RAW_EXIF, XMP = b"Raw profile type exif", b"XML:com.adobe.xmp"
#: How much of a compressed text chunk is read (Pillow's own limit, ImageFile.SAFEBLOCK).
TEXT_LIMIT = 1024 * 1024
_XMP_ORIENTATION = re.compile(rb'tiff:Orientation(="|>)([0-9])')


def orientation_of(image: Any, data: bytes) -> int:
    """The orientation (1 to 8) of the picture `data`, opened as `image` (its header read,
    its pixels not decoded)."""
    fmt = image.format or ""
    if fmt == "PNG":
        return png_orientation(data)
    if fmt == "AVIF":
        return _exif_orientation(image.info.get("exif") or b"")
    if fmt in ("JPEG", "MPO", "WEBP"):
        return _valid(image.getexif().get(0x0112, 1))
    return 1


def upright(image: Any, orientation: int) -> Any:
    """`image` turned as its `orientation` says (itself when it is upright)."""
    from PIL import Image

    method = {2: Image.Transpose.FLIP_LEFT_RIGHT, 3: Image.Transpose.ROTATE_180,
              4: Image.Transpose.FLIP_TOP_BOTTOM, 5: Image.Transpose.TRANSPOSE,
              6: Image.Transpose.ROTATE_270, 7: Image.Transpose.TRANSVERSE,
              8: Image.Transpose.ROTATE_90}.get(orientation)
    return image if method is None else image.transpose(method)


def png_orientation(data: bytes) -> int:
    """A PNG's orientation by Pillow's rule, from its chunks (those after its pixels too)."""
    exif: bytes | None = None
    texts: dict[bytes, bytes] = {}
    try:
        for kind, start, end in png_chunks(data):
            body = data[start + 8:end - 4]
            if kind == b"eXIf" and exif is None:
                exif = body
            elif kind in (b"tEXt", b"zTXt", b"iTXt"):
                keyword, text = _png_text(kind, body)
                if keyword in (RAW_EXIF, XMP):
                    texts.setdefault(keyword, text)
    except Unreadable:
        pass  # a file cut short: what came before the cut
    if exif is None and RAW_EXIF in texts:
        # "\nexif\n  LENGTH\nHEX…": the hexadecimal digits from the fourth line on.
        try:
            exif = bytes.fromhex("".join(texts[RAW_EXIF].decode("latin-1").split("\n")[3:]))
        except ValueError:
            exif = None
    if exif is not None and (found := _exif_orientation(exif, missing=0)):
        return found
    match = _XMP_ORIENTATION.search(texts.get(XMP, b""))
    return _valid(int(match[2])) if match else 1


def _png_text(kind: bytes, body: bytes) -> tuple[bytes, bytes]:
    """The keyword and the text of a tEXt, zTXt or iTXt chunk (empty when unreadable)."""
    keyword, _, rest = body.partition(b"\x00")
    if kind == b"tEXt":
        return keyword, rest
    if kind == b"zTXt":
        return keyword, _inflate(rest[1:])
    if len(rest) < 2:
        return keyword, b""
    compressed, rest = rest[0], rest[2:]
    _language, _, rest = rest.partition(b"\x00")
    _translated, _, text = rest.partition(b"\x00")
    return keyword, _inflate(text) if compressed else text


def _inflate(data: bytes) -> bytes:
    try:
        return zlib.decompressobj().decompress(data, TEXT_LIMIT)
    except zlib.error:
        return b""


def _exif_orientation(exif: bytes, missing: int = 1) -> int:
    """The orientation an EXIF block holds (`missing` when it holds none)."""
    from PIL import Image

    found = Image.Exif()
    try:
        found.load(exif)
        value = found.get(0x0112, missing)
    except (OSError, ValueError, SyntaxError, EOFError, struct.error):
        return missing
    return missing if value == missing else _valid(value)


def _valid(value: object) -> int:
    return value if isinstance(value, int) and 1 <= value <= 8 else 1
