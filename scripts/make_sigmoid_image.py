#!/usr/bin/env python3
"""Draw content/assets/images/sigmoid.png (the example post's figure) with the stdlib only.

The logistic sigmoid in blue and a rescaled tanh in orange on a light grid; the same
bytes on every run.
"""

from __future__ import annotations

import math
import struct
import zlib
from pathlib import Path

WIDTH, HEIGHT = 640, 320
OUT = Path(__file__).resolve().parent.parent / "content" / "assets" / "images" / "sigmoid.png"


def pixel_row(y: int) -> bytes:
    row = bytearray([0])  # PNG filter type 0 for this row
    for x in range(WIDTH):
        t = x / WIDTH * 8 - 4
        sigmoid_y = int((1 - 1 / (1 + math.exp(-t * 1.5))) * (HEIGHT - 40)) + 20
        tanh_y = int((1 - 0.5 * (1 + math.tanh(t))) * (HEIGHT - 40)) + 20
        colour = (228, 228, 228) if y % 40 == 0 or x % 80 == 0 else (250, 250, 250)
        if abs(y - sigmoid_y) <= 2:
            colour = (11, 98, 196)
        elif abs(y - tanh_y) <= 2:
            colour = (214, 96, 40)
        row += bytes(colour)
    return bytes(row)


def chunk(tag: bytes, data: bytes) -> bytes:
    crc = zlib.crc32(tag + data) & 0xFFFFFFFF
    return struct.pack(">I", len(data)) + tag + data + struct.pack(">I", crc)


def main() -> None:
    raw = b"".join(pixel_row(y) for y in range(HEIGHT))
    header = struct.pack(">IIBBBBB", WIDTH, HEIGHT, 8, 2, 0, 0, 0)
    png = (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(raw, 9))
           + chunk(b"IEND", b""))
    OUT.write_bytes(png)
    print(f"{OUT} ({len(png)} bytes)")


if __name__ == "__main__":
    main()
