"""Quarto: a Quarto blog (`_quarto.yml`, posts under a listing's folder) becomes a site.

Unlike the other sources, a Quarto project becomes a whole site: site.yaml from
`_quarto.yml` and the listing page, every document copied as it is (`.qmd` files are read
natively) under content/ at the path it had (`_metadata.yml` and `_variables.yml` too),
the posts' folder as content/posts/, and `_freeze/` beside site.yaml.
What has no counterpart (themes, filters, extensions, R cells that were never frozen,
the listing's customisation) is named in the report.
"""

from __future__ import annotations

import fnmatch
import json
import posixpath
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from blogbuild.config_model import Config
from blogbuild.content.discover import POSTS_DIR
from blogbuild.content.frontmatter import meta_hint
from blogbuild.content.linkmap import document_url
from blogbuild.diagnostics import BlogbuildError
from blogbuild.importers.quarto_project import (
    CONFIG,
    Project,
    Remark,
    find_listing,
    front_of,
    read_project,
    rendered,
)
from blogbuild.importers.quarto_site import (
    metadata_yaml,
    project_metadata,
    site_settings,
    site_yaml,
)
from blogbuild.importers.sources import rel, walk
from blogbuild.importers.write import file_conflicts, write_files
from blogbuild.readers import is_document
from blogbuild.sitefile import CONFIG_NAME

FREEZE = "_freeze"
#: The directory metadata of every document: what _quarto.yml's own metadata becomes.
METADATA = "content/_metadata.yml"
#: Folders of a Quarto project that are its tools' or its output, never sources.
_NOT_SOURCE = {"_site", FREEZE, ".quarto", "_extensions", "renv", "site_libs", "_book",
               "venv", ".venv", "node_modules", "__pycache__"}
#: Files at the top of a project that belong to the repository or its tools, not the site.
_PROJECT_FILES = ("_quarto*.yml", "_publish.yml", "README*", "LICENSE*", "*.Rproj",
                  "renv.lock", "requirements*.txt", "environment.yml", "pyproject.toml",
                  "Makefile", "netlify.toml", "CNAME", "package*.json", "*.R", "*.py", "*.sh",
                  "*.scss", "*.css", "*.lock", "Dockerfile", "_redirects")
_FOREIGN_CELL = re.compile(r"^\s*(`{3,}|~{3,})\s*\{(r|julia|ojs)\b")


@dataclass
class QuartoReport:
    """What a Quarto import did (or, with dry_run, would do)."""

    source: Path  # as the user gave it
    site: Path  # the folder of the new site.yaml
    documents: list[tuple[str, str]]  # (project-relative, site-relative) of each document
    posts: int
    files: dict[str, Path | bytes]  # site-relative path -> the file copied or the bytes
    settings: dict[str, Any]  # site.yaml's values
    remarks: list[Remark]
    dry_run: bool
    blocked: list[str] = field(default_factory=list)


def import_quarto(source: Path, *, config_path: Path | str | None = None,
                  dry_run: bool = False, force: bool = False) -> QuartoReport:
    """Make the site of `config_path` (its folder; ./site.yaml by default) from the Quarto
    project in `source`, which is only read."""
    root = source.resolve()
    if not root.is_dir():
        raise BlogbuildError(f"{source} is not a folder; give the folder of the Quarto project")
    site, config_name = _site_file(config_path, root)
    project = read_project(root)
    found, skipped = walk(root, skip=lambda name: name in _NOT_SOURCE)
    # The walk's notes name their file first ("posts/x/key.txt: a link leading out…").
    for note in skipped:
        file, _, what = note.what.partition(": ") if ": " in note.what else ("", "", note.what)
        project.remarks.append(Remark(file, 0, what))
    names = sorted(_sources(project, root, found))
    # As Quarto does, a name starting with "_" is no document (an include, an archive):
    # it is copied as a file, which the build leaves alone.
    documents = [n for n in names if is_document(n)
                 and not any(part.startswith("_") for part in n.split("/"))]
    find_listing(project, root, documents)
    if project.posts.count("/") and project.listing_page is not None:
        project.remarks.append(Remark(project.listing_page, project.listing_line,
                                      f"the posts of {project.posts}/ are under posts/ here: "
                                      "a post's links that climb out of that folder (../) "
                                      "lead one folder off; check them"))
    kept = rendered(project, documents)
    if len(kept) < len(documents):
        project.remarks.append(Remark(CONFIG, project.line("project.render"),
                                      f"{len(documents) - len(kept)} document(s) not in "
                                      "project.render; not imported"))
    files: dict[str, Path | bytes] = {}
    moved: list[tuple[str, str]] = []
    for name in names:
        if name == project.listing_page or (name in documents and name not in kept):
            continue
        dest = _dest(name, project, document=name in kept)
        if dest in files:
            project.remarks.append(Remark(name, 0, f"{dest} is another file's place; not "
                                                   "imported"))
        elif dest is not None:
            files[dest] = root / name
            if name in kept:
                moved.append((name, dest))
    if not moved:
        raise BlogbuildError(f"no document (.qmd, .md, .ipynb) could be imported from {source}")
    _extras(project, root, files)
    for name, _ in moved:
        if name.endswith(".qmd"):
            _foreign_cells(project, root, name, files)
    settings = _settings(project, root, moved, set(names), files)
    files[config_name] = site_yaml(settings).encode("utf-8")
    _metadata(project, files)
    posts = sum(1 for _, dest in moved if dest.startswith(f"content/{POSTS_DIR}/"))
    report = QuartoReport(source, site, moved, posts, files, settings, project.remarks,
                          dry_run)
    report.blocked = file_conflicts(site, files, force=force)
    if report.blocked and not dry_run:
        shown = "\n  ".join(report.blocked)
        raise BlogbuildError("nothing was written: move these away (--force overwrites "
                             f"them):\n  {shown}")
    if not dry_run:
        write_files(site, files)
    return report


def _site_file(config_path: Path | str | None, root: Path) -> tuple[Path, str]:
    """The new site's folder (which may not be the project's or lie inside it) and the name
    of its configuration file: `config_path` is the file (a .yaml or .yml name) or the
    folder."""
    path = Path(config_path) if config_path is not None else Path(CONFIG_NAME)
    named = path.suffix in (".yaml", ".yml") and not path.is_dir()
    folder = (path.parent if named else path).resolve()
    if folder == root or folder.is_relative_to(root) or root.is_relative_to(folder / "content"):
        raise BlogbuildError(f"the new site's folder {folder} and the Quarto project {root} "
                             "overlap; make the site in a folder outside the project")
    return folder, path.name if named else CONFIG_NAME


def _sources(project: Project, root: Path, found: list[Path]) -> list[str]:
    """The project-relative files that are part of the site (not its output or tools)."""
    output = project.get("project", "output-dir")
    out = str(output).strip("/") + "/" if isinstance(output, str) and output.strip("/") \
        else "_site/"
    names = []
    for path in found:
        name = rel(path, root)
        if name.startswith(out) or ("/" not in name and any(
                fnmatch.fnmatch(name, pattern) for pattern in _PROJECT_FILES)):
            continue
        if name.endswith((".Rmd", ".rmarkdown")) and \
                not posixpath.basename(name).startswith("_"):  # "_x.Rmd": an include
            project.remarks.append(Remark(name, 0, "an R Markdown document: not imported "
                                                   "(R is not run here)"))
            continue
        names.append(name)
    return names


def _dest(name: str, project: Project, *, document: bool) -> str | None:
    """The site-relative path a project file is copied to (None: not copied). A Markdown
    document becomes a .qmd file: Quarto reads it as it reads .qmd (without cells), and
    so does the Quarto reader here."""
    placed = moved_path(name, project.posts)
    if document and placed.endswith(".md"):
        placed = placed[:-3] + ".qmd"
    if placed == "index.qmd":
        # Here the home page is the list of posts; the project's own home is a page.
        project.remarks.append(Remark(name, 0, "the home page is the list of posts here: "
                                               "this page is /home/ instead"))
        placed = "home" + posixpath.splitext(placed)[1]
    return "content/" + placed


def moved_path(name: str, posts: str) -> str:
    """Where a project path goes under content/: the posts' folder becomes posts/."""
    if posts and posts != POSTS_DIR and name.startswith(posts + "/"):
        return f"{POSTS_DIR}/{name[len(posts) + 1:]}"
    return name


def _extras(project: Project, root: Path, files: dict[str, Path | bytes]) -> None:
    """The freeze folder beside site.yaml (its paths moved as the documents were), and a
    remark for extensions."""
    freeze = root / FREEZE
    if freeze.is_dir() and not freeze.is_symlink():
        found, _ = walk(freeze)
        for path in found:
            files[f"{FREEZE}/{moved_path(rel(path, freeze), project.posts)}"] = path
    if (root / "_extensions").is_dir():
        project.remarks.append(Remark("_extensions", 0, "Quarto extensions (their shortcodes, "
                                                        "filters and formats) are not run "
                                                        "here"))


def _foreign_cells(project: Project, root: Path, name: str,
                   files: dict[str, Path | bytes]) -> None:
    """A remark for R and Julia cells that have no frozen results, and for OJS cells."""
    read = front_of(root / name)
    if read is None:
        return
    stem = posixpath.splitext(moved_path(name, project.posts))[0]
    frozen = any(k.startswith(f"{FREEZE}/{stem}/") for k in files)
    cells: dict[str, list[int]] = {}
    for number, line in read[1]:
        match = _FOREIGN_CELL.match(line)
        if match is not None:
            cells.setdefault(match[2], []).append(number)
    for language, lines in cells.items():
        count = f"{len(lines)} {language} cell{'s' * (len(lines) > 1)}"
        if language == "ojs":
            project.remarks.append(Remark(name, lines[0], f"{count}: Observable JS is not run "
                                                          "here; the code is shown"))
        elif not frozen:
            project.remarks.append(Remark(name, lines[0], f"{count} with no results in "
                                          f"{FREEZE}/: only Python runs here, so the code is "
                                          "shown without output (render it once with "
                                          "Quarto's freeze on, then import again)"))


def _settings(project: Project, root: Path, moved: list[tuple[str, str]], names: set[str],
              files: dict[str, Path | bytes]) -> dict[str, Any]:
    """site.yaml's values, nav links pointing at the documents' new URLs (a post whose
    address changes keeps its old one as an alias)."""
    config = Config()
    urls: dict[str, str] = {}
    titles: dict[str, str] = {}
    for name, dest in moved:
        read = front_of(root / name)
        data = read[0] if read is not None else {}
        if isinstance(data.get("title"), str):
            titles[name] = data["title"]
        slug = data.get("slug")
        content_rel = dest.removeprefix("content/")
        kind = "post" if content_rel.startswith(f"{POSTS_DIR}/") else "page"
        meta = meta_hint({"slug": slug} if isinstance(slug, str) else {}, "")
        urls[name] = document_url(config, content_rel, kind, meta)
        old = "/" + posixpath.splitext(name)[0].removesuffix("index").rstrip("/") + "/"
        if kind == "post" and old != urls[name] and read is not None:
            _keep_address(project, name, old, read, files, dest)
    if project.listing_page is not None:
        urls[project.listing_page] = "/"
        urls[posixpath.splitext(project.listing_page)[0] + ".xml"] = "/feed.xml"
    listing = front_of(root / project.listing_page) if project.listing_page else None
    front = listing[0] if listing is not None else {}
    if listing is not None and any(text.strip() for _, text in listing[1]):
        project.remarks.append(Remark(str(project.listing_page), listing[1][0][0],
                                      "the listing page's own text is not shown: the home "
                                      "page is the list of posts (site.yaml's description "
                                      "is shown above it)"))
    return site_settings(project, urls.get, titles.get, files=names,
                         listing_title=_text(front.get("title")),
                         listing_description=_text(front.get("description")))


def _keep_address(project: Project, name: str, old: str,
                  read: tuple[dict[str, Any], list[tuple[int, str]], str],
                  files: dict[str, Path | bytes], dest: str) -> None:
    """The post's copy with `aliases: [old]` added to its front matter (a dated folder's
    date is not part of the slug here, so the address Quarto gave it changes)."""
    data, body, text = read
    lines = text.split("\n")
    closer = (body[0][0] - 2) if body else len(lines) - 1
    if "aliases" in data or not data or not 0 < closer < len(lines) or \
            lines[closer].rstrip() not in ("---", "..."):
        project.remarks.append(Remark(name, 1, f"Quarto published it at {old}; add that to "
                                               "its aliases to keep the old address"))
        return
    lines.insert(closer, f"aliases: [{json.dumps(old)}]")
    files[dest] = "\n".join(lines).encode("utf-8")


def _metadata(project: Project, files: dict[str, Path | bytes]) -> None:
    """content/_metadata.yml from the metadata of _quarto.yml, unless the project has a
    _metadata.yml at its top (then a remark)."""
    metadata = project_metadata(project)
    if not metadata:
        return
    if METADATA in files:
        project.note(next(iter(metadata)), "the project-wide metadata of _quarto.yml is not "
                                           "carried over: the project has a _metadata.yml "
                                           "at its top; move it there")
    else:
        files[METADATA] = metadata_yaml(metadata).encode("utf-8")


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) else None
