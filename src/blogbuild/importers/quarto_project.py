"""What a Quarto project says about itself: `_quarto.yml` (with the line of every value),
the listing page that lists its posts, and the folder those posts are in."""

from __future__ import annotations

import fnmatch
import posixpath
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from yaml.nodes import MappingNode, Node, SequenceNode

from blogbuild import yamlcore
from blogbuild.diagnostics import BlogbuildError
from blogbuild.fileio import read_at_most
from blogbuild.importers.frontmatter import BadFrontMatter, split
from blogbuild.sourcetext import decode_source

CONFIG = "_quarto.yml"
#: The largest _quarto.yml read: settings only, never a document.
MAX_CONFIG_BYTES = 1_000_000
_GLOB = re.compile(r"[*?\[]")


@dataclass(frozen=True)
class Remark:
    """Something of the Quarto project that was not carried over (or was changed), at a
    line of one of its files (0: the file as a whole)."""

    file: str
    line: int
    what: str


@dataclass
class Project:
    """A Quarto project's settings and where its posts are."""

    settings: dict[str, Any]
    lines: dict[str, int]  # "website.navbar.right[0]" -> its line in _quarto.yml
    #: The document holding the blog's `listing:` (project-relative), or None.
    listing_page: str | None = None
    listing: dict[str, Any] = field(default_factory=dict)
    listing_line: int = 0
    #: The folder of the listed posts (project-relative, "" for none).
    posts: str = ""
    remarks: list[Remark] = field(default_factory=list)

    def get(self, *keys: str) -> Any:
        """The value at `keys` ("website", "title"), None where a level is missing."""
        value: Any = self.settings
        for key in keys:
            value = value.get(key) if isinstance(value, dict) else None
        return value

    def line(self, path: str) -> int:
        """The line of the value at the dotted `path`, else of its nearest parent."""
        while path:
            if path in self.lines:
                return self.lines[path]
            path = path.rpartition(".")[0]
        return 0

    def note(self, path: str, what: str) -> None:
        self.remarks.append(Remark(CONFIG, self.line(path), what))


def read_project(root: Path) -> Project:
    """The project in `root`; BlogbuildError when it has no readable `_quarto.yml`."""
    path = root / CONFIG
    if not path.is_file():
        raise BlogbuildError(f"{root} holds no {CONFIG}, so it is not a Quarto project; "
                             "give the folder that holds it")
    try:
        data = read_at_most(path, MAX_CONFIG_BYTES)
    except OSError as exc:
        raise BlogbuildError(f"cannot read the file: {exc.strerror or exc}", file=path) from None
    if data is None:
        raise BlogbuildError(f"larger than {MAX_CONFIG_BYTES:,} bytes; not a Quarto "
                             "configuration", file=path)
    doc = yamlcore.compose(decode_source(data, str(path)), str(path), BlogbuildError)
    settings = yamlcore.to_python(doc.root, doc) if doc.root is not None else {}
    if not isinstance(settings, dict):
        raise doc.fail(f"{CONFIG} must be 'key: value' lines", 1)
    lines: dict[str, int] = {}
    if doc.root is not None:
        _record(doc.root, "", lines, doc)
    project = Project(settings, lines)
    kind = project.get("project", "type")
    if kind not in ("website", None):
        project.note("project.type", f"a Quarto project of type {kind!r}: only a website "
                                     "(a blog) has a counterpart here; its documents are "
                                     "imported as pages and posts all the same")
    return project


def _record(node: Node, path: str, lines: dict[str, int], doc: yamlcore.Document) -> None:
    if isinstance(node, MappingNode):
        for key, value in node.value:
            name = yamlcore.text_of(key) or ""
            here = f"{path}.{name}" if path else name
            lines.setdefault(here, doc.line(key))
            _record(value, here, lines, doc)
    elif isinstance(node, SequenceNode):
        for i, item in enumerate(node.value):
            here = f"{path}[{i}]"
            lines.setdefault(here, doc.line(item))
            _record(item, here, lines, doc)


def front_of(path: Path) -> tuple[dict[str, Any], list[tuple[int, str]], str] | None:
    """A document's front matter, body lines and text, or None when they cannot be read."""
    try:
        text = decode_source(path.read_bytes(), str(path))
        data, body = split(text)
    except (OSError, BadFrontMatter, BlogbuildError):
        return None
    return data, body, text


def find_listing(project: Project, root: Path, documents: list[str]) -> None:
    """Set the project's blog listing and the folder of its posts: the first listing (the
    home page's, then the shallowest) whose documents are mostly dated. A listing of
    undated pages (a documentation site's table of contents) is not a blog."""
    ordered = sorted(documents, key=lambda rel: (rel != "index.qmd", rel.count("/"), rel))
    for rel in ordered:
        read = front_of(root / rel)
        if read is None or not read[0].get("listing"):
            continue
        listing = read[0]["listing"]
        if isinstance(listing, list):
            listing = listing[0] if listing else {}
        if isinstance(listing, str):
            listing = {"contents": listing}
        candidate = Project(project.settings, project.lines, rel,
                            listing if isinstance(listing, dict) else {},
                            _line_of(read[2], "listing"))
        candidate.posts = _posts_folder(candidate, rel)
        if _dated(root, candidate.posts, [d for d in documents if d != rel]):
            project.listing_page, project.listing = rel, candidate.listing
            project.listing_line, project.posts = candidate.listing_line, candidate.posts
            project.remarks += candidate.remarks
            if isinstance(read[0]["listing"], list) and len(read[0]["listing"]) > 1:
                project.remarks.append(Remark(rel, project.listing_line, "several listings "
                                              "on one page: the first one's are the posts"))
            return
    if (root / "posts").is_dir():
        project.posts = "posts"


def _dated(root: Path, folder: str, documents: list[str]) -> bool:
    """Whether at least half the documents in `folder` have a `date:`."""
    inside = [d for d in documents if d.startswith(folder + "/")] if folder else []
    dated = 0
    for rel in inside:
        read = front_of(root / rel)
        dated += read is not None and read[0].get("date") is not None
    return bool(inside) and 2 * dated >= len(inside)


def _line_of(text: str, key: str) -> int:
    """The line of the top-level `key` of the front matter (1 when it is not found)."""
    for number, line in enumerate(text.split("\n")[1:], start=2):
        if line.startswith(key + ":"):
            return number
        if line.rstrip() in ("---", "..."):
            break
    return 1


def _posts_folder(project: Project, page: str) -> str:
    """The folder the listing's `contents` names (relative to the listing page)."""
    contents = project.listing.get("contents")
    items = contents if isinstance(contents, list) else [contents] if contents else []
    names = [item for item in items if isinstance(item, str)]
    base = posixpath.dirname(page)
    if len(names) < len(items):
        project.remarks.append(Remark(page, project.listing_line, "listing items written in "
                                      "the page (not files) have no counterpart; left out"))
    if len(names) > 1:
        project.remarks.append(Remark(page, project.listing_line, "the listing has several "
                                      f"contents ({', '.join(names)}): the posts are those of "
                                      f"{names[0]!r}, the others are pages"))
    if not names:
        return base or ("posts" if project.listing_page else "")
    head = []
    for part in names[0].strip().strip("/").split("/"):
        if _GLOB.search(part) or part.endswith((".qmd", ".md", ".ipynb")):
            break
        head.append(part)
    folder = posixpath.normpath(posixpath.join(base, *head)) if head else base
    return "" if folder in (".", "") or folder.startswith("..") else folder


def rendered(project: Project, documents: list[str]) -> set[str]:
    """The documents `project.render` keeps (every one when it lists none)."""
    patterns = project.get("project", "render")
    if not isinstance(patterns, list) or not patterns:
        return set(documents)
    keep = [str(p).lstrip("/") for p in patterns if not str(p).startswith("!")]
    drop = [str(p)[1:].lstrip("/") for p in patterns if str(p).startswith("!")]

    def matches(rel: str, globs: list[str]) -> bool:
        return any(fnmatch.fnmatch(rel, g) or rel.startswith(g.rstrip("/") + "/")
                   for g in globs)

    return {rel for rel in documents if (not keep or matches(rel, keep))
            and not matches(rel, drop)}
