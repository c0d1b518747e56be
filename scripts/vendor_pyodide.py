#!/usr/bin/env python3
"""Fetch the pinned Pyodide release from npm into src/blogbuild/vendor/pyodide/.

Usage: python3 scripts/vendor_pyodide.py [--version X --sha1 HEX]

The version pin lives in src/blogbuild/pyodide.py (PYODIDE_VERSION); change it there, set
PYODIDE_SHA1 below to the new tarball's `npm view pyodide@X dist.shasum`, and re-run.

Keeps only the files a browser needs to start the interpreter: pyodide.mjs (the loader),
pyodide.asm.mjs + pyodide.asm.wasm (CPython compiled to WebAssembly), python_stdlib.zip and
pyodide-lock.json (the package index: names, wheel file names, hashes). The npm package holds
no packages (numpy, …): readers' browsers fetch those from `runnable.packages_url`. The npm
tarball ships no licence file, so LICENSE is written here: a notice naming the release and its
licence (MPL-2.0, from package.json) followed by the full MPL-2.0 text.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(Path(__file__).resolve().parent))  # npm_release, also when imported

from npm_release import unpack_release  # noqa: E402

from blogbuild.runtimes.pyodide import PYODIDE_VERSION, RUNTIME_FILES  # noqa: E402

#: sha1 of the npm tarball (npm's "shasum") of PYODIDE_VERSION; checked so a re-run gives
#: the same bytes.
PYODIDE_SHA1 = "19a6865259f8d594cdef5b7e2f44930b68f5e987"

DEST = ROOT / "src" / "blogbuild" / "vendor" / "pyodide"

#: Where the MPL-2.0 text comes from when the tarball has none (Debian's base-files has it).
MPL_TEXT_CANDIDATES = (Path("/usr/share/common-licenses/MPL-2.0"),)


def licence_text(package: Path, licence_file: Path | None) -> str:
    """The licence notice: the package's own LICENSE if it has one, else MPL-2.0's text."""
    meta = json.loads((package / "package.json").read_text(encoding="utf-8"))
    licence = str(meta.get("license", ""))
    version = str(meta.get("version", ""))
    for name in ("LICENSE", "LICENSE.md", "LICENSE.txt"):
        if (package / name).is_file():
            return (package / name).read_text(encoding="utf-8")
    if licence != "MPL-2.0":
        raise SystemExit(
            f"pyodide {version} is licensed {licence!r} and ships no LICENSE: "
            "update licence_text() for it"
        )
    candidates = [licence_file] if licence_file else list(MPL_TEXT_CANDIDATES)
    for candidate in candidates:
        if candidate is not None and candidate.is_file():
            body = candidate.read_text(encoding="utf-8")
            break
    else:
        raise SystemExit(
            "the npm package ships no LICENSE; pass --licence-file PATH to the MPL-2.0 text "
            "(https://www.mozilla.org/en-US/MPL/2.0/)"
        )
    header = (
        f"Pyodide {version} (https://github.com/pyodide/pyodide), from the npm package\n"
        f"`pyodide@{version}`, is distributed under the Mozilla Public License 2.0 ({licence}),\n"
        "whose full text follows. Its source code is at https://github.com/pyodide/pyodide.\n"
        "\n"
        "pyodide.asm.wasm and python_stdlib.zip contain CPython and its standard library,\n"
        "Copyright (c) 2001 Python Software Foundation, distributed under the Python\n"
        "Software Foundation License Version 2 (https://docs.python.org/3/license.html).\n"
        "\n"
        + "=" * 72
        + "\n\n"
    )
    return header + body


def vendor(version: str, sha1: str, licence_file: Path | None = None) -> None:
    with tempfile.TemporaryDirectory(prefix="vendor-pyodide-") as tmp:
        tmpdir = Path(tmp)
        package = unpack_release("pyodide", version, sha1, tmpdir)
        missing = [name for name in RUNTIME_FILES if not (package / name).is_file()]
        if missing:
            raise SystemExit(f"pyodide@{version} lacks {', '.join(missing)}")
        notice = licence_text(package, licence_file)
        if DEST.exists():
            shutil.rmtree(DEST)
        DEST.mkdir(parents=True)
        for name in RUNTIME_FILES:
            shutil.copyfile(package / name, DEST / name)
        (DEST / "LICENSE").write_text(notice, encoding="utf-8")
        (DEST / "VERSION").write_text(f"{version}\n", encoding="utf-8")
    size = sum(p.stat().st_size for p in DEST.rglob("*") if p.is_file())
    print(f"Pyodide {version} vendored into {DEST} ({size / 1e6:.1f} MB)")
    if version != PYODIDE_VERSION:
        print(f"note: src/blogbuild/pyodide.py pins {PYODIDE_VERSION}; update PYODIDE_VERSION")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--version", default=PYODIDE_VERSION)
    parser.add_argument("--sha1", default=PYODIDE_SHA1, help="npm tarball sha1 for --version")
    parser.add_argument("--licence-file", type=Path, default=None,
                        help="MPL-2.0 text to use when the package ships no LICENSE")
    args = parser.parse_args(argv)
    vendor(args.version, args.sha1, args.licence_file)
    return 0


if __name__ == "__main__":
    sys.exit(main())
