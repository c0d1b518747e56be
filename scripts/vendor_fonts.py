#!/usr/bin/env python3
"""Fetch the pinned DejaVu fonts release from npm into src/blogbuild/vendor/fonts/.

Usage: python3 scripts/vendor_fonts.py [--version X.Y.Z --sha1 HEX]

The build draws social card images with these fonts (Pillow, at build time); readers never
download them. Keeps only the two faces the cards use, the licence and a VERSION file.
DejaVu covers Latin, Greek, Cyrillic and many symbols, which technical titles need.
"""

from __future__ import annotations

import shutil
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))  # npm_release, also when imported

from npm_release import report, unpack_release, vendor_main

FONTS_VERSION = "2.37.3"
#: sha1 of the npm tarball (npm's "shasum"); checked so a re-run gives the same bytes.
FONTS_SHA1 = "23f2bf5af594ca2a8a3a53224224b03467a6e0b8"
FACES = ("DejaVuSans-Bold.ttf", "DejaVuSans.ttf")

DEST = Path(__file__).resolve().parent.parent / "src" / "blogbuild" / "vendor" / "fonts"


def vendor(version: str, sha1: str) -> None:
    with tempfile.TemporaryDirectory(prefix="vendor-fonts-") as tmp:
        tmpdir = Path(tmp)
        package = unpack_release("dejavu-fonts-ttf", version, sha1, tmpdir)
        if DEST.exists():
            shutil.rmtree(DEST)
        DEST.mkdir(parents=True)
        for face in FACES:
            shutil.copyfile(package / "ttf" / face, DEST / face)
        shutil.copyfile(package / "LICENSE", DEST / "LICENSE")
        (DEST / "VERSION").write_text(f"{version}\n", encoding="utf-8")
    report(f"DejaVu fonts {version}", DEST)


def main(argv: list[str] | None = None) -> int:
    return vendor_main(__doc__, vendor, FONTS_VERSION, FONTS_SHA1, argv)


if __name__ == "__main__":
    sys.exit(main())
