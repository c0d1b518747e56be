"""Find the sources of a site: posts, pages and asset files under content/."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from blogbuild.content.models import SourceJob
from blogbuild.content.walk import ignored, shown, walk_files
from blogbuild.diagnostics import Diagnostic

POSTS_DIR = "posts"


@dataclass(frozen=True)
class Discovered:
    documents: list[SourceJob]
    assets: list[tuple[Path, str]]  # (absolute path, content-relative POSIX path)
    #: Entries skipped with a warning: broken or outside links, FIFOs, unreadable files.
    diagnostics: list[Diagnostic] = field(default_factory=list)


def discover(content: Path, site_root: Path) -> Discovered:
    """Walk content/ in sorted order (determinism): .md files are documents, the rest assets."""
    documents: list[SourceJob] = []
    assets: list[tuple[Path, str]] = []
    allowed = [site_root.resolve(), content.resolve()]
    files, diagnostics = walk_files(content, allowed, root=site_root,
                                    skip=lambda name: ignored(name, in_content=True))
    for path in files:
        rel = path.relative_to(content).as_posix()
        if path.name.endswith(".md"):
            kind = "post" if rel.startswith(POSTS_DIR + "/") else "page"
            documents.append(SourceJob(path, rel, kind, shown(path, site_root)))
        else:
            assets.append((path, rel))
    return Discovered(documents, assets, diagnostics)
