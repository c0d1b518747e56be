"""An AVIF's bytes without its metadata, its pictures untouched.

An AVIF is an ISO base media file (HEIF): a tree of boxes, in which `meta` lists the
file's items (`iinf`), where the bytes of each lie (`iloc`), how items refer to one
another (`iref`) and which properties each has (`iprp`, its `ipma`). EXIF and XMP are
items of their own (of type `Exif` and `mime`) that describe the picture (a `cdsc`
reference). Stripping takes them out of those four boxes and writes zeros over their
bytes. The `meta` box gets shorter, and a `free` box as long as the difference follows
it, so that every offset in the file (the items', an animation's samples in `moov`) stays
where it was. The pictures' bytes, their properties (size, colour profile, rotation and
mirror) and every other box are copied as they are.
"""

from __future__ import annotations

import struct

from blogbuild.images.strip import Unreadable

__all__ = ["is_avif", "strip_avif"]

#: The item types that are metadata: EXIF, and XMP (a MIME item, application/rdf+xml).
METADATA = {b"Exif", b"mime"}
#: Brands of AVIF files (a still picture, an image sequence).
BRANDS = {b"avif", b"avis"}

Box = tuple[bytes, int, int, int]  # kind, start, start of its body, end


def is_avif(data: bytes) -> bool:
    """Whether `data` starts with the file-type box of an AVIF."""
    if data[4:8] != b"ftyp" or len(data) < 16:
        return False
    size = min(struct.unpack(">I", data[:4])[0], len(data))
    brands = {data[8:12]} | {data[at:at + 4] for at in range(16, size - 3, 4)}
    return bool(brands & BRANDS)


def strip_avif(data: bytes, *, partial: bool = False) -> bytes:
    """`data` without its EXIF and XMP items. `partial`: a file cut short in a box after
    `meta` (its pixels) is stripped all the same."""
    top = _boxes(data, 0, len(data), partial=partial)
    if sum(box[0] == b"meta" for box in top) != 1:
        raise Unreadable("the AVIF file has no meta box, or more than one")
    zeroed = bytearray(data)
    found = []
    for meta in _metas(data, top):
        children = {box[0]: box for box in _boxes(data, meta[2] + 4, meta[3])}
        if b"iinf" not in children or b"iloc" not in children:
            if meta in top:
                raise Unreadable("the AVIF file does not list its items")
            continue  # a track's meta box without items
        removed = {item for item, kind, _ in _infos(data, children[b"iinf"])
                   if kind in METADATA}
        if removed:
            _zero(zeroed, _locations(data, children[b"iloc"]), removed,
                  children.get(b"idat"), partial=partial)
            found.append((meta, removed))
    if not found:
        return data
    out = bytes(zeroed)
    for meta, removed in found:  # each as long as it was: every offset holds
        out = out[:meta[1]] + _shrunk(out, meta, removed) + out[meta[3]:]
    return out


def _metas(data: bytes, top: list[Box]) -> list[Box]:
    """The meta boxes of the file, its image sequence's tracks and their user data."""
    found = []
    for box in top:
        if box[0] == b"meta":
            found.append(box)
        elif box[0] in (b"moov", b"trak", b"udta"):
            found += _metas(data, _boxes(data, box[2], box[3]))
    return found


def _shrunk(data: bytes, meta: Box, removed: set[int]) -> bytes:
    """The meta box without the `removed` items, and a free box as long as what they took."""
    body = b"".join(_rebuilt(data, box, removed) for box in _boxes(data, meta[2] + 4, meta[3]))
    new_meta = _box(b"meta", data[meta[2]:meta[2] + 4] + body)
    spare = meta[3] - meta[1] - len(new_meta)
    if spare < 8:
        raise Unreadable("the AVIF file's meta box cannot be rewritten in place")
    return new_meta + struct.pack(">I4s", spare, b"free") + bytes(spare - 8)


# -- boxes --------------------------------------------------------------------------------


def _boxes(data: bytes, at: int, end: int, *, partial: bool = False) -> list[Box]:
    """The boxes from `at` to `end`; the last one may run past `end` when `partial`."""
    found = []
    while at < end:
        if at + 8 > end:
            raise Unreadable("an AVIF box is cut short")
        size, kind = struct.unpack(">I4s", data[at:at + 8])
        body = at + 8
        if size == 1:
            if at + 16 > end:
                raise Unreadable("an AVIF box is cut short")
            size, body = struct.unpack(">Q", data[at + 8:at + 16])[0], at + 16
        elif size == 0:  # up to the end of the file
            size = end - at
        if size < body - at:
            raise Unreadable(f"the AVIF box {kind!r} has an impossible size")
        if at + size > end:
            if not (partial and kind != b"meta"):
                raise Unreadable("an AVIF box runs past the end of the file")
            size = end - at
        found.append((kind, at, body, at + size))
        at += size
    return found


def _box(kind: bytes, payload: bytes) -> bytes:
    if len(payload) + 8 <= 0xFFFFFFFF:
        return struct.pack(">I4s", len(payload) + 8, kind) + payload
    return struct.pack(">I4sQ", 1, kind, len(payload) + 16) + payload


class _Reader:
    """Big-endian numbers of `size` bytes from `at`, never past `end`."""

    def __init__(self, data: bytes, at: int, end: int) -> None:
        self.data, self.at, self.end = data, at, end

    def number(self, size: int) -> int:
        if self.at + size > self.end:
            raise Unreadable("an AVIF box is shorter than what it lists")
        value = int.from_bytes(self.data[self.at:self.at + size], "big")
        self.at += size
        return value


# -- the four boxes that list items --------------------------------------------------------


def _infos(data: bytes, iinf: Box) -> list[tuple[int, bytes, Box]]:
    """(item, its type, its `infe` box) of each item (type b"" in the versions that have
    none)."""
    _kind, _start, body, end = iinf
    count_size = 2 if data[body] == 0 else 4
    found = []
    for box in _boxes(data, body + 4 + count_size, end):
        if box[0] != b"infe":
            continue
        read = _Reader(data, box[2], box[3])
        version = read.number(4) >> 24
        item = read.number(4 if version == 3 else 2)
        kind = b""
        if version >= 2:
            read.number(2)  # protection index
            kind = data[read.at:read.at + 4]
        found.append((item, kind, box))
    return found


def _locations(data: bytes, iloc: Box) -> list[tuple[int, int, list[tuple[int, int]], int, int]]:
    """(item, construction method, extents as (offset, length), start, end of its entry)."""
    read = _Reader(data, iloc[2], iloc[3])
    version = read.number(4) >> 24
    if version > 2:
        raise Unreadable(f"the AVIF file's item locations are of version {version}")
    sizes = read.number(1)
    offset_size, length_size = sizes >> 4, sizes & 15
    sizes = read.number(1)
    base_size, index_size = sizes >> 4, (sizes & 15 if version else 0)
    found = []
    for _ in range(read.number(2 if version < 2 else 4)):
        start = read.at
        item = read.number(2 if version < 2 else 4)
        method = read.number(2) & 15 if version else 0
        reference = read.number(2)
        base = read.number(base_size)
        extents = []
        for _ in range(read.number(2)):
            read.number(index_size)
            offset = read.number(offset_size)
            extents.append((base + offset, read.number(length_size)))
        # Bytes in another file (a data reference) are none of this file's.
        found.append((item, method if reference == 0 else -1, extents, start, read.at))
    return found


def _zero(data: bytearray, locations: list[tuple[int, int, list[tuple[int, int]], int, int]],
          removed: set[int], idat: Box | None, *, partial: bool) -> None:
    """Write zeros over the bytes of the `removed` items (in the file or in `idat`)."""
    def spans(keep: bool) -> list[tuple[int, int]]:
        out = []
        for item, method, extents, _, _ in locations:
            if (item in removed) == keep or method not in (0, 1):
                continue
            base = 0 if method == 0 else (idat[2] if idat is not None else -1)
            if base < 0:
                raise Unreadable("an AVIF item lies in an idat box the file lacks")
            for offset, length in extents:
                out.append((base + offset, len(data) if length == 0 else base + offset + length))
        return out

    kept = spans(keep=True)
    for start, end in spans(keep=False):
        if end > len(data) and not partial:
            raise Unreadable("an AVIF item runs past the end of the file")
        if any(start < other_end and other_start < end for other_start, other_end in kept):
            raise Unreadable("the AVIF file's metadata shares bytes with its picture")
        data[start:end] = bytes(max(0, min(end, len(data)) - start))


def _rebuilt(data: bytes, box: Box, removed: set[int]) -> bytes:
    """A child of `meta` without the `removed` items (as it is when it lists none)."""
    kind, start, body, end = box
    if kind == b"iinf":
        kept = [data[b[1]:b[3]] for item, _, b in _infos(data, box) if item not in removed]
        count = struct.pack(">H" if data[body] == 0 else ">I", len(kept))
        return _box(kind, data[body:body + 4] + count + b"".join(kept))
    if kind == b"iloc":
        locations = _locations(data, box)
        version = data[body]
        head = data[body:body + 6]
        kept = [data[s:e] for item, _, _, s, e in locations if item not in removed]
        count = struct.pack(">H" if version < 2 else ">I", len(kept))
        return _box(kind, head + count + b"".join(kept))
    if kind == b"iref":
        references = _references(data, box, removed)
        return _box(kind, data[body:body + 4] + references) if references else b""
    if kind == b"iprp":
        return _box(kind, b"".join(_associations(data, b, removed) if b[0] == b"ipma"
                                   else data[b[1]:b[3]] for b in _boxes(data, body, end)))
    return data[start:end]


def _references(data: bytes, iref: Box, removed: set[int]) -> bytes:
    """The references of `iref` from and to items that stay."""
    size = 2 if data[iref[2]] == 0 else 4
    out = []
    for kind, _, body, end in _boxes(data, iref[2] + 4, iref[3]):
        read = _Reader(data, body, end)
        source = read.number(size)
        targets = [read.number(size) for _ in range(read.number(2))]
        targets = [t for t in targets if t not in removed]
        if source in removed or not targets:
            continue
        out.append(_box(kind, source.to_bytes(size, "big") + len(targets).to_bytes(2, "big")
                        + b"".join(t.to_bytes(size, "big") for t in targets)))
    return b"".join(out)


def _associations(data: bytes, ipma: Box, removed: set[int]) -> bytes:
    """An `ipma` box without the entries of the `removed` items."""
    read = _Reader(data, ipma[2], ipma[3])
    head = read.number(4)
    version, flags = head >> 24, head & 0xFFFFFF
    kept = []
    for _ in range(read.number(4)):
        start = read.at
        item = read.number(2 if version < 1 else 4)
        count = read.number(1)
        read.at += count * (2 if flags & 1 else 1)
        if read.at > ipma[3]:
            raise Unreadable("an AVIF box is shorter than what it lists")
        if item not in removed:
            kept.append(data[start:read.at])
    return _box(b"ipma", struct.pack(">II", head, len(kept)) + b"".join(kept))
