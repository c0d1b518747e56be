"""Mermaid's own script, for the diagrams the build cannot draw (a type newer than mmdr):
vendored by scripts/vendor_mermaid.py, published under vendor/mermaid/ and loaded only by
the pages that have such a diagram (templates/needs/mermaid.html)."""

from __future__ import annotations

from pathlib import Path

VENDOR_DIR = Path(__file__).resolve().parent.parent / "vendor" / "mermaid"


def site_files() -> list[tuple[Path, str]]:
    """(source file, path relative to the bundle folder) of what readers download."""
    return [(VENDOR_DIR / "mermaid.min.js", "mermaid.min.js"), (VENDOR_DIR / "LICENSE", "LICENSE")]
