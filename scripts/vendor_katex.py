#!/usr/bin/env python3
"""Fetch the pinned KaTeX release from npm into src/blogbuild/vendor/katex/.

Usage: python3 scripts/vendor_katex.py [--version X.Y.Z --sha1 HEX]

Keeps only what blogbuild uses: katex.min.js (run at build time inside mini-racer,
never shipped to readers), katex.min.css (its @font-face rules trimmed to woff2, the
only font files kept), fonts/*.woff2, LICENSE, and a VERSION file.
"""

from __future__ import annotations

import re
import shutil
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))  # npm_release, also when imported

from npm_release import report, unpack_release, vendor_main

KATEX_VERSION = "0.19.1"
#: sha1 of the npm tarball (npm's "shasum"); checked so a re-run gives the same bytes.
KATEX_SHA1 = "ba2685811cdbffc54dfb7d55bd440c6cc6bb8795"

DEST = Path(__file__).resolve().parent.parent / "src" / "blogbuild" / "vendor" / "katex"

# url(fonts/X.woff) format("woff") and url(fonts/X.ttf) format("truetype") alternatives:
# every browser that runs the theme's CSS reads woff2, and we do not ship the others.
_OTHER_FORMATS = re.compile(r',url\(fonts/[^)]+\.(?:woff|ttf)\) format\("(?:woff|truetype)"\)')


def trim_css(css: str) -> str:
    trimmed = _OTHER_FORMATS.sub("", css)
    if ".woff)" in trimmed or ".ttf)" in trimmed:
        raise SystemExit("katex.min.css still references woff/ttf fonts: update _OTHER_FORMATS")
    return trimmed


def vendor(version: str, sha1: str) -> None:
    with tempfile.TemporaryDirectory(prefix="vendor-katex-") as tmp:
        tmpdir = Path(tmp)
        package = unpack_release("katex", version, sha1, tmpdir)
        dist = package / "dist"
        if DEST.exists():
            shutil.rmtree(DEST)
        (DEST / "fonts").mkdir(parents=True)
        shutil.copyfile(dist / "katex.min.js", DEST / "katex.min.js")
        css = (dist / "katex.min.css").read_text(encoding="utf-8")
        (DEST / "katex.min.css").write_text(trim_css(css), encoding="utf-8")
        for font in sorted((dist / "fonts").glob("*.woff2")):
            shutil.copyfile(font, DEST / "fonts" / font.name)
        shutil.copyfile(package / "LICENSE", DEST / "LICENSE")
        (DEST / "VERSION").write_text(f"{version}\n", encoding="utf-8")
    report(f"KaTeX {version}", DEST)


def main(argv: list[str] | None = None) -> int:
    return vendor_main(__doc__, vendor, KATEX_VERSION, KATEX_SHA1, argv)


if __name__ == "__main__":
    sys.exit(main())
