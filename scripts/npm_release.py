"""Shared by the vendor_* scripts: fetch a pinned npm release tarball with `npm pack`, check
it against its pinned sha1 and unpack it; the scripts' command line."""

from __future__ import annotations

import argparse
import hashlib
import json
import subprocess
import tarfile
from collections.abc import Callable
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


def unpack_release(package: str, version: str, sha1: str, workdir: Path) -> Path:
    """Fetch PACKAGE@VERSION into `workdir`, refuse it unless its sha1 (npm's "shasum") is
    the pinned one (so a re-run gives the same bytes), unpack it; returns its `package/`."""
    tarball = npm_pack(package, version, workdir)
    digest = hashlib.sha1(tarball.read_bytes()).hexdigest()
    if digest != sha1:
        raise SystemExit(f"{tarball.name}: sha1 {digest} differs from the pinned {sha1}")
    with tarfile.open(tarball) as archive:
        archive.extractall(workdir, filter="data")
    return workdir / "package"


def vendor_main(doc: str | None, vendor: Callable[[str, str], None], version: str, sha1: str,
                argv: list[str] | None = None) -> int:
    """The command line of a script that vendors one npm release: `--version` and `--sha1`
    (the pinned ones unless given), then `vendor(version, sha1)`."""
    parser = argparse.ArgumentParser(description=(doc or "").splitlines()[0])
    parser.add_argument("--version", default=version)
    parser.add_argument("--sha1", default=sha1, help="npm tarball sha1 for --version")
    args = parser.parse_args(argv)
    vendor(args.version, args.sha1)
    return 0


def report(what: str, dest: Path) -> None:
    """Say what was vendored where, and its size."""
    size = sum(p.stat().st_size for p in dest.rglob("*") if p.is_file())
    print(f"{what} vendored into {dest} ({size / 1024:.0f} KB)")
