#!/usr/bin/env python3
"""Fetch the pinned Mermaid release from npm into src/blogbuild/vendor/mermaid/.

Usage: python3 scripts/vendor_mermaid.py [--version X.Y.Z --sha1 HEX]

Keeps mermaid.min.js (the one-file build that defines window.mermaid), LICENSE and a
VERSION file. blogbuild draws diagrams at build time (mmdr); this script is sent only to
the pages with a Mermaid diagram of a type the build cannot draw.
"""

from __future__ import annotations

import shutil
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))  # npm_release, also when imported

from npm_release import report, unpack_release, vendor_main

MERMAID_VERSION = "12.3.0"
#: sha1 of the npm tarball (npm's "shasum"); checked so a re-run gives the same bytes.
MERMAID_SHA1 = "e860165e0a19778ebef98038c0436bbee6783ba9"

DEST = Path(__file__).resolve().parent.parent / "src" / "blogbuild" / "vendor" / "mermaid"


def vendor(version: str, sha1: str) -> None:
    with tempfile.TemporaryDirectory(prefix="vendor-mermaid-") as tmp:
        package = unpack_release("mermaid", version, sha1, Path(tmp))
        if DEST.exists():
            shutil.rmtree(DEST)
        DEST.mkdir(parents=True)
        shutil.copyfile(package / "dist" / "mermaid.min.js", DEST / "mermaid.min.js")
        shutil.copyfile(package / "LICENSE", DEST / "LICENSE")
        (DEST / "VERSION").write_text(f"{version}\n", encoding="utf-8")
    report(f"Mermaid {version}", DEST)


def main(argv: list[str] | None = None) -> int:
    return vendor_main(__doc__, vendor, MERMAID_VERSION, MERMAID_SHA1, argv)


if __name__ == "__main__":
    sys.exit(main())
