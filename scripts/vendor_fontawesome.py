#!/usr/bin/env python3
"""Fetch the pinned Font Awesome Free release from npm into src/blogbuild/vendor/fontawesome/.

Usage: python3 scripts/vendor_fontawesome.py [--version X.Y.Z --sha1 HEX]

Keeps one file of the icons' outlines, `icons.json.gz` ({"solid": {name: [width, height,
path]}, "regular": …, "brands": …, "aliases": {old name: name}}, from the release's
metadata/icon-families.json), its licence (LICENSE) and a VERSION file. A Quarto page's
`{{< fa name >}}` is drawn from it as an inline SVG picture (blogbuild.markdown.quarto.icons):
no web font, no script, nothing on pages without an icon.
"""

from __future__ import annotations

import gzip
import json
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))  # npm_release, also when imported

from npm_release import report, unpack_release, vendor_main

FONTAWESOME_VERSION = "7.3.1"
#: sha1 of the npm tarball (npm's "shasum"); checked so a re-run gives the same bytes.
FONTAWESOME_SHA1 = "9d7d7df8f850637e001d24e6cd901422b4b09099"
#: The styles of Font Awesome Free (its classic family).
STYLES = ("solid", "regular", "brands")

DEST = Path(__file__).resolve().parent.parent / "src" / "blogbuild" / "vendor" / "fontawesome"


def outlines(families: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """The icons of each style and the aliases, from icon-families.json."""
    found: dict[str, dict[str, Any]] = {style: {} for style in (*STYLES, "aliases")}
    for name, info in sorted(families.items()):
        classic = (info.get("svgs") or {}).get("classic") or {}
        for style in STYLES:
            svg = classic.get(style)
            if svg:
                found[style][name] = [svg["width"], svg["height"], svg["path"]]
        if any(style in classic for style in STYLES):
            for alias in (info.get("aliases") or {}).get("names") or []:
                found["aliases"].setdefault(alias, name)
    return found


def vendor(version: str, sha1: str) -> None:
    with tempfile.TemporaryDirectory(prefix="vendor-fontawesome-") as tmp:
        package = unpack_release("@fortawesome/fontawesome-free", version, sha1, Path(tmp))
        families = json.loads((package / "metadata" / "icon-families.json").read_bytes())
        data = json.dumps(outlines(families), separators=(",", ":"), sort_keys=True)
        if DEST.exists():
            shutil.rmtree(DEST)
        DEST.mkdir(parents=True)
        # mtime=0: the same release gives the same bytes.
        (DEST / "icons.json.gz").write_bytes(gzip.compress(data.encode(), 9, mtime=0))
        shutil.copyfile(package / "LICENSE.txt", DEST / "LICENSE")
        (DEST / "VERSION").write_text(f"{version}\n", encoding="utf-8")
    report(f"Font Awesome Free {version}", DEST)


def main(argv: list[str] | None = None) -> int:
    return vendor_main(__doc__, vendor, FONTAWESOME_VERSION, FONTAWESOME_SHA1, argv)


if __name__ == "__main__":
    sys.exit(main())
