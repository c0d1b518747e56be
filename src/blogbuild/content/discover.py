"""Find the sources of a site: posts, pages and asset files under content/."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from blogbuild.render import SourceJob

POSTS_DIR = "posts"
_IGNORED_DIRS = {".git", "__pycache__", "node_modules", ".ipynb_checkpoints"}


@dataclass(frozen=True)
class Discovered:
    documents: list[SourceJob]
    assets: list[tuple[Path, str]]  # (absolute path, content-relative POSIX path)


def _ignored(name: str) -> bool:
    return (name.startswith((".", "_")) and name not in (".well-known",)) or name.endswith("~")


def discover(content: Path, site_root: Path) -> Discovered:
    """Walk content/ in sorted order (determinism): .md files are documents, the rest assets."""
    documents: list[SourceJob] = []
    assets: list[tuple[Path, str]] = []
    if not content.is_dir():
        return Discovered(documents, assets)
    for dirpath, dirnames, filenames in os.walk(content):
        dirnames[:] = sorted(d for d in dirnames if d not in _IGNORED_DIRS and not _ignored(d))
        for name in sorted(filenames):
            if _ignored(name):
                continue
            path = Path(dirpath) / name
            rel = path.relative_to(content).as_posix()
            if name.endswith(".md"):
                kind = "post" if rel.startswith(POSTS_DIR + "/") else "page"
                try:
                    display = path.relative_to(site_root).as_posix()
                except ValueError:
                    display = str(path)
                documents.append(SourceJob(path, rel, kind, display))
            else:
                assets.append((path, rel))
    return Discovered(documents, assets)
