"""Shared by the vendor_* scripts: fetch a pinned npm release tarball with `npm pack`."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path


def npm_pack(package: str, version: str, workdir: Path) -> Path:
    """`npm pack PACKAGE@VERSION` into `workdir`; returns the tarball path."""
    out = subprocess.run(
        ["npm", "pack", f"{package}@{version}", "--json", "--pack-destination", str(workdir)],
        check=True,
        capture_output=True,
        text=True,
        cwd=workdir,
    ).stdout
    info = json.loads(out[out.index("[") :])[0]
    return workdir / str(info["filename"])
