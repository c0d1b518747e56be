"""Which .bib files a post cites from, read for its render: its own `bibliography:` (paths
from the post's folder) or the site's (paths from the site folder)."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from yaml.nodes import SequenceNode

from blogbuild.config_model import Config
from blogbuild.content.frontmatter import FrontMatter
from blogbuild.content.jobs import SourceJob
from blogbuild.diagnostics import Diagnostic, error, warning
from blogbuild.sitefile import CONFIG_NAME

if TYPE_CHECKING:  # the library code loads with the first post that cites
    from blogbuild.bib.library import Library


@dataclass(frozen=True)
class PostBibliography:
    """A post's bibliography, read from the files its front matter names."""

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
        return _load(paths, CONFIG_NAME, dict(zip((shown for _, shown in paths),
                                                  config.bibliography_lines, strict=False)),
                     "the folder of site.yaml")
    node = fm.nodes.get("bibliography")
    line = fm.doc.line(node) if fm.doc is not None and node is not None else 0
    values = own if isinstance(own, list) else [own]
    if not values or not all(isinstance(v, str) and v.strip() for v in values):
        return PostBibliography(None, (error(job.display, line, (
            "'bibliography' must be the path of a .bib file (from this post's folder) or a "
            f"list of them, not {own!r}")),))
    paths = []
    lines: dict[str, int] = {}
    items = node.value if isinstance(node, SequenceNode) and fm.doc is not None else []
    content = config.content_path.resolve()
    for i, value in enumerate(values):
        path = Path(os.path.normpath(job.path.parent / value.strip()))
        if not path.resolve().is_relative_to(content):
            return PostBibliography(None, (error(job.display, line, (
                f"the bibliography {value} is outside the content folder: keep the .bib "
                "file under content/, or name it in site.yaml")),))
        paths.append((path, _shown(config, path)))
        item = items[i] if i < len(items) else None  # each file of a list at its line
        lines.setdefault(paths[-1][1], fm.doc.line(item) if item is not None
                         and fm.doc is not None else line)
    return _load(paths, job.display, lines, "this post's folder")


def _load(paths: list[tuple[Path, str]], where: str, lines: dict[str, int],
          base: str) -> PostBibliography:
    """The library of `paths`; `lines`: the line of `where` that names each file."""
    from blogbuild.bib.library import BibFileError, load_library

    try:
        library = load_library(paths)
    except BibFileError as exc:
        line = next(iter(lines.values()), 0)
        return PostBibliography(None, (error(where, line, f"{exc}: the citations of this "
                                             "post cannot be formatted"),))
    absent = tuple(warning(where, lines.get(shown, 0), (
        f"the bibliography file {shown} does not exist, so citations of its entries are "
        f"shown unresolved; create it or correct the path (from {base})"))
        for shown in library.missing)
    return PostBibliography(library, (*absent, *library.problems))


def _shown(config: Config, path: Path) -> str:
    try:
        return path.resolve().relative_to(config.root.resolve()).as_posix()
    except ValueError:
        return str(path)
