#!/usr/bin/env python3
"""Fetch the pinned chart libraries from npm into src/blogbuild/vendor/{vega,plotly,bokeh}/.

Usage: python3 scripts/vendor_charts.py

Keeps each library's minified browser build, one LICENSE per folder (every package whose
code a file holds, each under a line naming it) and a VERSION file. blogbuild draws Vega
charts at build time (vl-convert-python); these scripts are sent only to the pages with a
chart, and js/charts.js loads one when the reader reaches or touches a chart.

- vega/: vega, vega-lite and vega-embed at the versions vl-convert-python 1.9.0 draws with
  (its binary holds vega@6.2.0, vega-lite@6.4.1, vega-embed@7.0.2), so the live chart is
  the static one. vega-embed's browser build carries vega-interpreter (CSP-safe expressions,
  used with ``ast: true``) and vega-tooltip; vega-interpreter has no browser build of its
  own, so only its licence is taken from its package.
- plotly/: the basic, cartesian and full bundles of one plotly.js release (the newest of
  which all three exist, the one plotly.py 7.1 writes figures for).
- bokeh/: BokehJS, with the widgets and tables builds a document with a widget needs, at
  the version of the newest bokeh on the package index (BokehJS warns of any other).

A ``//# sourceMappingURL=`` line is dropped: the maps are not published, and a reader's
developer tools would ask for them.
"""

from __future__ import annotations

import gzip
import re
import shutil
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))  # npm_release, also when imported

from npm_release import unpack_release

VENDOR = Path(__file__).resolve().parent.parent / "src" / "blogbuild" / "vendor"


@dataclass(frozen=True)
class Package:
    name: str
    version: str
    #: sha1 of the npm tarball (npm's "shasum"); checked so a re-run gives the same bytes.
    sha1: str
    #: (path in the package, name in the folder); none: only the licence is taken.
    files: tuple[tuple[str, str], ...]


LIBRARIES: dict[str, tuple[Package, ...]] = {
    "vega": (
        Package("vega", "6.2.0", "34c2de83b00e701e040029738b26f1ec992f327f",
                (("build/vega.min.js", "vega.min.js"),)),
        Package("vega-lite", "6.4.1", "549634ecaefd46d00f17e7922577d0c97a4663c5",
                (("build/vega-lite.min.js", "vega-lite.min.js"),)),
        Package("vega-embed", "7.0.2", "4c42ddb8a6dcc575524a92270c37e024964cf4c1",
                (("build/vega-embed.min.js", "vega-embed.min.js"),)),
        Package("vega-interpreter", "2.0.0", "17adb893d37bb77e2add1fc1aa7d317bea8964bf", ()),
    ),
    "plotly": (
        Package("plotly.js-basic-dist-min", "4.1.1", "27ea39207030c3e2f5c2d64d9b1366ca59cab97e",
                (("plotly-basic.min.js", "plotly-basic.min.js"),)),
        Package("plotly.js-cartesian-dist-min", "4.1.1",
                "4282e25097f00195aa7aeafb3f1678d6bf25a36c",
                (("plotly-cartesian.min.js", "plotly-cartesian.min.js"),)),
        Package("plotly.js-dist-min", "4.1.1", "ef33b310c98b3e3cce572acd9ca39741372959d3",
                (("plotly.min.js", "plotly-full.min.js"),)),
    ),
    "bokeh": (
        Package("@bokeh/bokehjs", "3.9.2", "484781b4db93faae6595297c923ad1016c174370",
                (("build/js/bokeh.min.js", "bokeh.min.js"),
                 ("build/js/bokeh-widgets.min.js", "bokeh-widgets.min.js"),
                 ("build/js/bokeh-tables.min.js", "bokeh-tables.min.js"))),
    ),
}

_SOURCE_MAP = re.compile(rb"\n?//# sourceMappingURL=[^\n]*\n?\Z")


def vendor_library(folder: str, packages: tuple[Package, ...]) -> None:
    dest = VENDOR / folder
    licences: dict[bytes, list[str]] = {}
    with tempfile.TemporaryDirectory(prefix=f"vendor-{folder}-") as tmp:
        if dest.exists():
            shutil.rmtree(dest)
        dest.mkdir(parents=True)
        for n, package in enumerate(packages):
            work = Path(tmp) / str(n)
            work.mkdir()
            unpacked = unpack_release(package.name, package.version, package.sha1, work)
            for source, name in package.files:
                data = _SOURCE_MAP.sub(b"\n", (unpacked / source).read_bytes())
                (dest / name).write_bytes(data)
            licences.setdefault((unpacked / "LICENSE").read_bytes(), []).append(
                f"{package.name} {package.version}")
    # Packages under the same licence text (plotly's three bundles) share one copy of it.
    (dest / "LICENSE").write_bytes(b"\n".join(
        b"%s:\n\n%s" % (", ".join(names).encode(), text.strip() + b"\n")
        for text, names in licences.items()))
    (dest / "VERSION").write_text(
        "".join(f"{p.name} {p.version}\n" for p in packages), encoding="utf-8")
    for path in sorted(dest.iterdir()):
        data = path.read_bytes()
        print(f"{folder}/{path.name}: {len(data)} bytes, {_gzipped(data)} gzipped")


def _gzipped(data: bytes) -> int:
    return len(gzip.compress(data, compresslevel=9, mtime=0))


def main() -> int:
    for folder, packages in LIBRARIES.items():
        vendor_library(folder, packages)
    return 0


if __name__ == "__main__":
    sys.exit(main())
