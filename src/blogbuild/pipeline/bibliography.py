"""Which .bib files a post cites from, read for its render: its own `bibliography:` (paths
from the post's folder) or the site's (paths from the site folder)."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from blogbuild.bib.library import BibFileError, Library, file_digest, load_library
from blogbuild.config import CONFIG_NAME, Config
from blogbuild.content.frontmatter import FrontMatter
from blogbuild.content.models import SourceJob
from blogbuild.diagnostics import Diagnostic, error


@dataclass(frozen=True)
class PostBibliography:
    library: Library | None
    problems: tuple[Diagnostic, ...] = ()


def post_bibliography(job: SourceJob, fm: FrontMatter, config: Config) -> PostBibliography:
    """The post's bibliography, or None, and what is wrong with it."""
    own = fm.data.get("bibliography")
    if own is None:
        if not config.bibliography:
            return PostBibliography(None)
        paths = [(config.root / rel, _shown(config, config.root / rel))
                 for rel in config.bibliography]
        return _load(paths, CONFIG_NAME, 0)
    node = fm.nodes.get("bibliography")
    line = fm.doc.line(node) if fm.doc is not None and node is not None else 0
    values = own if isinstance(own, list) else [own]
    if not values or not all(isinstance(v, str) and v.strip() for v in values):
        return PostBibliography(None, (error(job.display, line, (
            "'bibliography' must be the path of a .bib file (from this post's folder) or a "
            f"list of them, not {own!r}")),))
    paths = []
    content = config.content_path.resolve()
    for value in values:
        path = Path(os.path.normpath(job.path.parent / value.strip()))
        if not path.resolve().is_relative_to(content):
            return PostBibliography(None, (error(job.display, line, (
                f"the bibliography {value} is outside the content folder: keep the .bib "
                "file under content/, or name it in site.yaml")),))
        paths.append((path, _shown(config, path)))
    return _load(paths, job.display, line)


def _load(paths: list[tuple[Path, str]], where: str, line: int) -> PostBibliography:
    try:
        library = load_library(paths)
    except BibFileError as exc:
        return PostBibliography(None, (error(where, line, f"{exc}: the citations of this "
                                             "post cannot be formatted"),))
    return PostBibliography(library, library.problems)


def _shown(config: Config, path: Path) -> str:
    try:
        return path.resolve().relative_to(config.root.resolve()).as_posix()
    except ValueError:
        return str(path)


def still_same(files: Any, root: Path, memo: dict[str, str | None]) -> bool:
    """True when every (file, sha256) a render read has the same bytes now."""
    for shown, digest in files:
        if shown not in memo:
            try:
                memo[shown] = file_digest(root / shown)
            except OSError:
                memo[shown] = None
        if memo[shown] != digest:
            return False
    return True
