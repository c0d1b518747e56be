"""Find the sources of a site: posts, pages and asset files under content/."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from blogbuild.content.jobs import SourceJob
from blogbuild.content.walk import ignored, shown, walk_files
from blogbuild.diagnostics import Diagnostic
from blogbuild.readers import is_document

POSTS_DIR = "posts"


@dataclass(frozen=True)
class Discovered:
    """What the walk of content/ found: the documents, the other files, its warnings."""

    documents: list[SourceJob]
    assets: list[tuple[Path, str]]  # (absolute path, content-relative POSIX path)
    #: Entries skipped with a warning: broken or outside links, FIFOs, unreadable files.
    diagnostics: list[Diagnostic] = field(default_factory=list)
    #: The stat of each file found as the walk saw it, by its path as a string.
    stats: dict[str, os.stat_result] = field(default_factory=dict, repr=False, compare=False)
    #: The files under content/ that are not published but that a document may read
    #: (names starting with `_`: Quarto's `_metadata.yml`, included files).
    aside: list[str] = field(default_factory=list)


def discover(content: Path, site_root: Path) -> Discovered:
    """Walk content/ in sorted order (determinism): the files a reader reads are documents
    (blogbuild.readers.is_document: .md and .ipynb), the rest assets."""
    documents: list[SourceJob] = []
    assets: list[tuple[Path, str]] = []
    allowed = [site_root.resolve(), content.resolve()]
    stats: dict[str, os.stat_result] = {}
    aside: list[str] = []
    files, diagnostics = walk_files(content, allowed, root=site_root,
                                    skip=lambda name: ignored(name, in_content=True),
                                    stats=stats, aside=aside)
    under = str(content) + os.sep
    site = str(site_root) + os.sep
    for path in files:
        text = str(path)  # the walk keeps `content` as given: plain string slicing suffices
        rel = text[len(under):].replace(os.sep, "/")
        if is_document(text):
            kind = "post" if rel.startswith(POSTS_DIR + "/") else "page"
            display = text[len(site):].replace(os.sep, "/") if text.startswith(site) \
                else shown(path, site_root)
            documents.append(SourceJob(path, rel, kind, display))
        else:
            assets.append((path, rel))
    return Discovered(documents, assets, diagnostics, stats, aside)
