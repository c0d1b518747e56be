"""Draw the two images of the widgets example post (a before/after pair), stdlib only.

    python3 scripts/make_compare_images.py   # writes content/assets/images/compare-*.png

"before" is a coarse 20×-downsampled heat map with 6 colour levels, "after" the smooth
field it came from; both are deterministic, so re-running leaves the files unchanged.
"""

from __future__ import annotations

import itertools
import math
import struct
import zlib
from pathlib import Path

WIDTH, HEIGHT, BLOCK = 720, 405, 20
OUT = Path(__file__).resolve().parent.parent / "content" / "assets" / "images"
# A viridis-like ramp: (position, (r, g, b)).
RAMP = [(0.0, (68, 1, 84)), (0.25, (59, 82, 139)), (0.5, (33, 145, 140)),
        (0.75, (94, 201, 98)), (1.0, (253, 231, 37))]


def field(x: float, y: float) -> float:
    """A smooth landscape in [0, 1]: two bumps and a ripple."""
    u, v = x / WIDTH * 4 - 2, y / HEIGHT * 2.25 - 1.125
    z = (math.exp(-((u + 0.8) ** 2 + (v + 0.2) ** 2) * 1.6)
         + 0.8 * math.exp(-((u - 0.9) ** 2 + (v - 0.3) ** 2) * 2.2)
         + 0.12 * math.sin(3 * u + 2 * v) + 0.12)
    return min(1.0, max(0.0, z))


def colour(t: float) -> tuple[int, int, int]:
    for (p0, c0), (p1, c1) in itertools.pairwise(RAMP):
        if t <= p1:
            f = (t - p0) / (p1 - p0)
            r, g, b = (round(a + (z - a) * f) for a, z in zip(c0, c1, strict=True))
            return r, g, b
    return RAMP[-1][1]


def png(rows: list[bytes]) -> bytes:
    def chunk(kind: bytes, data: bytes) -> bytes:
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

    header = struct.pack(">IIBBBBB", WIDTH, HEIGHT, 8, 2, 0, 0, 0)  # 8-bit RGB
    raw = b"".join(b"\x01" + sub_filter(row) for row in rows)  # filter 1 (Sub) per row
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header)
            + chunk(b"IDAT", zlib.compress(raw, 9)) + chunk(b"IEND", b""))


def sub_filter(row: bytes) -> bytes:
    return bytes((row[i] - (row[i - 3] if i >= 3 else 0)) & 0xFF for i in range(len(row)))


def draw(smooth: bool) -> list[bytes]:
    rows = []
    for y in range(HEIGHT):
        row = bytearray()
        for x in range(WIDTH):
            if smooth:
                t = field(x, y)
            else:  # sample the block centre, keep 6 levels
                cx, cy = (x // BLOCK + 0.5) * BLOCK, (y // BLOCK + 0.5) * BLOCK
                t = round(field(cx, cy) * 5) / 5
            row += bytes(colour(t))
        rows.append(bytes(row))
    return rows


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / "compare-before.png").write_bytes(png(draw(smooth=False)))
    (OUT / "compare-after.png").write_bytes(png(draw(smooth=True)))


if __name__ == "__main__":
    main()
