"""An image's bytes without their metadata, the pixels untouched.

Cameras and phones write where and when a photo was taken (EXIF, GPS included), the
device, the software and the author's notes (XMP, IPTC, comments) into the file. What is
published keeps only what the picture needs to be shown as it was: its pixels, its colour
profile (ICC, sRGB, gamma, chromaticities) and its orientation, which is written again as
the only field of a new, minimal EXIF block. Nothing is decoded or encoded again.

A file whose structure these readers do not follow raises `Unreadable` (the caller then
encodes the picture again from its pixels, or reports it).
"""

from __future__ import annotations

import struct
import zlib
from collections.abc import Iterator

__all__ = ["Unreadable", "known", "minimal_exif", "png_chunks", "strip", "webp_chunks"]


PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


class Unreadable(ValueError):
    """The file is not the JPEG, PNG or WebP its first bytes claim."""


def minimal_exif(orientation: int) -> bytes:
    """A TIFF-structured EXIF block with one field: the orientation (big-endian)."""
    entry = struct.pack(">HHIHH", 0x0112, 3, 1, orientation, 0)
    return b"MM\x00\x2a" + struct.pack(">I", 8) + struct.pack(">H", 1) + entry \
        + struct.pack(">I", 0)


def strip(data: bytes, orientation: int = 1, *, partial: bool = False) -> bytes:
    """`data` (JPEG, PNG or WebP) without metadata; an orientation other than 1 is kept.
    `partial`: a file cut short is stripped up to where it ends, the segment or chunk it
    ends in kept as it is when it is no metadata (a damaged file is published so)."""
    if data.startswith(b"\xff\xd8"):
        return _jpeg(data, orientation, partial)
    if data.startswith(PNG_SIGNATURE):
        return _png(data, orientation, partial)
    if is_webp(data):
        return _webp(data, orientation, partial)
    raise Unreadable("not a JPEG, PNG or WebP file")


def known(data: bytes) -> bool:
    """Whether `data` starts as a JPEG, PNG or WebP file does."""
    return data.startswith((b"\xff\xd8", PNG_SIGNATURE)) or is_webp(data)


def is_webp(data: bytes) -> bool:
    return data[:4] == b"RIFF" and data[8:12] == b"WEBP"


# -- JPEG --------------------------------------------------------------------------------

_SOS, _EOI = 0xDA, 0xD9
_APP0, _APP2, _APP14, _COM = 0xE0, 0xE2, 0xEE, 0xFE
#: Markers that stand alone (no length): TEM and the restart markers.
_ALONE = {0x01, *range(0xD0, 0xD8)}


def _kept_jpeg_segment(marker: int, body: bytes) -> bool:
    if marker == _APP0:
        return body.startswith((b"JFIF\x00", b"JFXX\x00"))
    if marker == _APP2:
        return body.startswith(b"ICC_PROFILE\x00")
    if marker == _APP14:
        return body.startswith(b"Adobe")  # how the colour components are coded
    return not (0xE0 <= marker <= 0xEF or marker == _COM)


def _jpeg(data: bytes, orientation: int, partial: bool) -> bytes:
    out = [b"\xff\xd8"]
    if orientation != 1:
        exif = b"Exif\x00\x00" + minimal_exif(orientation)
        out.append(b"\xff\xe1" + struct.pack(">H", len(exif) + 2) + exif)
    at, end = 2, len(data)
    while True:
        if partial and at + 2 > end:  # cut between segments: nothing or a byte is left
            return b"".join(out)
        if at + 2 > end or data[at] != 0xFF:
            raise Unreadable("a JPEG segment is cut short or misplaced")
        marker = data[at + 1]
        if marker == 0xFF:  # fill byte
            at += 1
            continue
        if marker == _EOI:
            out.append(b"\xff\xd9")
            return b"".join(out)  # what follows (a second picture, a trailer) is dropped
        if marker in _ALONE:
            out.append(data[at:at + 2])
            at += 2
            continue
        if at + 4 > end:
            if partial:
                return b"".join(out)
            raise Unreadable("a JPEG segment is cut short")
        length = struct.unpack(">H", data[at + 2:at + 4])[0]
        if length < 2:
            raise Unreadable("a JPEG segment runs past the end of the file")
        segment_end = at + 2 + length
        if segment_end > end and not partial:
            raise Unreadable("a JPEG segment runs past the end of the file")
        if _kept_jpeg_segment(marker, data[at + 4:segment_end]):
            out.append(data[at:segment_end])
        at = segment_end
        if marker == _SOS:  # entropy-coded data up to the next marker, copied as it is
            scan = _scan_end(data, at, partial)
            out.append(data[at:scan])
            at = scan


def _scan_end(data: bytes, at: int, partial: bool) -> int:
    """Where the entropy-coded data from `at` ends: at the next marker (the end of the
    file when `partial` and it is cut short)."""
    scan, end = at, len(data)
    while True:
        scan = data.find(b"\xff", scan)
        if scan < 0 or scan + 1 >= end:
            if partial:
                return end
            raise Unreadable("the JPEG file is cut short (no end marker)")
        following = data[scan + 1]
        if following == 0x00 or 0xD0 <= following <= 0xD7 or following == 0xFF:
            scan += 1 if following == 0xFF else 2
            continue
        return scan


# -- PNG ---------------------------------------------------------------------------------

#: Chunks a picture needs to look as it was: critical ones, transparency, colour, pixel
#: size, background, and an animated PNG's frames.
_PNG_KEPT = {b"IHDR", b"PLTE", b"IDAT", b"IEND", b"tRNS", b"gAMA", b"cHRM", b"sRGB",
             b"iCCP", b"sBIT", b"pHYs", b"bKGD", b"cICP", b"mDCV", b"cLLI", b"acTL",
             b"fcTL", b"fdAT"}


def _png_chunk(kind: bytes, body: bytes) -> bytes:
    return struct.pack(">I", len(body)) + kind + body \
        + struct.pack(">I", zlib.crc32(kind + body) & 0xFFFFFFFF)


def png_chunks(data: bytes, *, partial: bool = False) -> Iterator[tuple[bytes, int, int]]:
    """(kind, start, end) of each chunk of the PNG `data`, up to its IEND chunk; raises
    Unreadable where a chunk is cut short (`partial`: the chunk it is cut in comes last,
    its end past the end of `data`, when its kind is there to tell)."""
    at, end = 8, len(data)
    while True:
        if at + 12 > end:
            if partial:
                if at + 8 <= end:
                    yield data[at + 4:at + 8], at, at + 12
                return
            raise Unreadable("the PNG file is cut short (no IEND chunk)")
        length = struct.unpack(">I", data[at:at + 4])[0]
        kind = data[at + 4:at + 8]
        chunk_end = at + 12 + length
        if chunk_end > end and not partial:
            raise Unreadable("a PNG chunk runs past the end of the file")
        yield kind, at, chunk_end
        if kind == b"IEND" or chunk_end >= end:
            return
        at = chunk_end


def _png(data: bytes, orientation: int, partial: bool) -> bytes:
    out = [data[:8]]
    oriented = False
    for kind, at, chunk_end in png_chunks(data, partial=partial):
        if kind == b"IDAT" and orientation != 1 and not oriented:  # before the pixels
            out.append(_png_chunk(b"eXIf", minimal_exif(orientation)))
            oriented = True
        if kind in _PNG_KEPT:
            out.append(data[at:chunk_end])
    return b"".join(out)


# -- WebP --------------------------------------------------------------------------------

_VP8X_ICC, _VP8X_EXIF, _VP8X_XMP = 0x20, 0x08, 0x04


def webp_chunks(data: bytes, *, partial: bool = False) -> list[tuple[bytes, bytes]]:
    """(kind, body) of each chunk of the WebP `data`; raises Unreadable where a chunk is
    cut short (`partial`: the body it is cut in comes last, as far as it goes)."""
    size = struct.unpack("<I", data[4:8])[0]
    end = min(len(data), 8 + size)
    chunks: list[tuple[bytes, bytes]] = []
    at = 12
    while at + 8 <= end:
        kind = data[at:at + 4]
        length = struct.unpack("<I", data[at + 4:at + 8])[0]
        body_end = at + 8 + length
        if body_end > end and not partial:
            raise Unreadable("a WebP chunk runs past the end of the file")
        chunks.append((kind, data[at + 8:body_end]))
        at = body_end + (length & 1)
    if not chunks:
        raise Unreadable("the WebP file holds no picture")
    return chunks


def _webp(data: bytes, orientation: int, partial: bool) -> bytes:
    kept = [(k, b) for k, b in webp_chunks(data, partial=partial) if k not in (b"EXIF", b"XMP ")]
    if not kept:
        raise Unreadable("the WebP file holds no picture")
    if kept[0][0] == b"VP8X":
        if len(kept[0][1]) < 10:
            raise Unreadable("the WebP file's VP8X chunk is cut short")
        flags = kept[0][1][0] & ~(_VP8X_EXIF | _VP8X_XMP)
        if orientation != 1:
            flags |= _VP8X_EXIF
            kept.append((b"EXIF", minimal_exif(orientation)))
        kept[0] = (b"VP8X", bytes([flags]) + kept[0][1][1:])
    body = b"".join(k + struct.pack("<I", len(b)) + b + (b"\x00" if len(b) & 1 else b"")
                    for k, b in kept)
    return b"RIFF" + struct.pack("<I", len(body) + 4) + b"WEBP" + body
