#!/usr/bin/env python3
"""Fetch the CommonMark spec (npm package `commonmark-spec`, pinned) into tests/commonmark/.

The spec's examples are a test suite for blogbuild: tests/test_commonmark.py runs every
example through create_markdown(). Kept as released: spec.txt and its LICENSE (CC-BY-SA-4.0).
"""

from __future__ import annotations

import shutil
import sys
import tarfile
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))  # npm_release, also when imported

from npm_release import npm_pack

VERSION = "0.31.2"
DEST = Path(__file__).resolve().parent.parent / "tests" / "commonmark"


def main() -> int:
    with tempfile.TemporaryDirectory() as tmp:
        tarball = npm_pack("commonmark-spec", VERSION, Path(tmp))
        with tarfile.open(tarball) as tar:
            tar.extractall(tmp, filter="data")
        DEST.mkdir(parents=True, exist_ok=True)
        for name in ("spec.txt", "LICENSE"):
            shutil.copyfile(Path(tmp) / "package" / name, DEST / name)
        (DEST / "VERSION").write_text(VERSION + "\n")
    print(f"CommonMark spec {VERSION} → {DEST}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
