"""Find the sources of a site: posts, pages and asset files under content/."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from blogbuild.content.models import SourceJob
from blogbuild.content.walk import shown, walk_files
from blogbuild.diagnostics import Diagnostic

POSTS_DIR = "posts"
_IGNORED_DIRS = {".git", "__pycache__", "node_modules", ".ipynb_checkpoints"}


@dataclass(frozen=True)
class Discovered:
    documents: list[SourceJob]
    assets: list[tuple[Path, str]]  # (absolute path, content-relative POSIX path)
    #: Entries skipped with a warning: broken or outside links, FIFOs, unreadable files.
    diagnostics: list[Diagnostic] = field(default_factory=list)


def _ignored(name: str) -> bool:
    return (name in _IGNORED_DIRS
            or (name.startswith((".", "_")) and name not in (".well-known",))
            or name.endswith("~"))


def discover(content: Path, site_root: Path) -> Discovered:
    """Walk content/ in sorted order (determinism): .md files are documents, the rest assets."""
    documents: list[SourceJob] = []
    assets: list[tuple[Path, str]] = []
    allowed = [site_root.resolve(), content.resolve()]
    files, diagnostics = walk_files(content, allowed, root=site_root, skip=_ignored)
    for path in files:
        rel = path.relative_to(content).as_posix()
        if path.name.endswith(".md"):
            kind = "post" if rel.startswith(POSTS_DIR + "/") else "page"
            documents.append(SourceJob(path, rel, kind, shown(path, site_root)))
        else:
            assets.append((path, rel))
    return Discovered(documents, assets, diagnostics)
