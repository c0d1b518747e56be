"""Where imported posts and their files go under content/.

A post that uses files no other post uses becomes a folder, `posts/DATE-SLUG/index.md`,
with those files beside it, so its references are plain names. A file several posts use,
and every post's cover image, goes once under `assets/`, at the path it had in the source
(minus a leading `assets/` or `static/`), and is linked by its site-root path.
"""

from __future__ import annotations

import posixpath
import re
from collections import defaultdict
from pathlib import Path

from blogbuild.content.discover import POSTS_DIR
from blogbuild.content.frontmatter import slug_from_filename
from blogbuild.content.walk import ignored
from blogbuild.importers.meta import date_text
from blogbuild.importers.model import Converted, FoundSite
from blogbuild.urls import slugify

_UNSAFE_PART = re.compile(r"[\x00-\x1f\x7f\\]")


def existing_slugs(posts_dir: Path) -> dict[str, Path]:
    """The slug of every post the site has, as its file or folder name gives it."""
    slugs: dict[str, Path] = {}
    if not posts_dir.is_dir():
        return slugs
    for path in sorted(posts_dir.rglob("*.md")):
        stem = path.parent.name if path.name == "index.md" and path.parent != posts_dir \
            else path.stem
        slugs.setdefault(slugify(slug_from_filename(stem), default="post"), path)
    return slugs


def unique_slug(slug: str, used: set[str]) -> str:
    """`slug`, or `slug-2`, `slug-3`… when an earlier post took it."""
    if slug not in used:
        return slug
    n = 2
    while f"{slug}-{n}" in used:
        n += 1
    return f"{slug}-{n}"


def place(posts: list[Converted], found: FoundSite, root: Path) -> dict[Path, str]:
    """Set each post's `dest`; the content-relative path of every file a post uses."""
    users: dict[Path, list[Converted]] = defaultdict(list)
    for post in posts:
        for path in post.assets:
            users[path].append(post)
    taken: set[str] = set()
    placement: dict[Path, str] = {}
    for post in posts:
        private = sorted(p for p, kinds in post.assets.items()
                         if len(users[p]) == 1 and "image" not in kinds)
        name = f"{date_text(post.date)[:10]}-{post.slug}"
        if private or post.source.bundle is not None:
            folder = f"{POSTS_DIR}/{name}"
            post.dest = f"{folder}/index.md"
            for path in private:
                placement[path] = _free(f"{folder}/{_inside(path, post, root)}", taken)
        else:
            post.dest = f"{POSTS_DIR}/{name}.md"
        taken.add(post.dest.lower())
    for path in sorted(users):
        if path not in placement:
            placement[path] = _free("assets/" + _shared(path, found, root), taken)
    return placement


def _inside(path: Path, post: Converted, root: Path) -> str:
    """A private file's path in its post's folder: as in a Hugo bundle, else its name."""
    if post.source.bundle is not None and path.is_relative_to(root / post.source.bundle):
        name = _clean(path.relative_to(root / post.source.bundle).as_posix())
    else:
        name = _clean(path.name)
    # The post's page is index.html in that folder: a file of that name would collide.
    return "file-" + name if name.lower() in ("index.html", "index.htm") else name


def _shared(path: Path, found: FoundSite, root: Path) -> str:
    base = next((r for r in found.roots if path.is_relative_to(r)), root)
    rel = path.relative_to(base).as_posix()
    for prefix in ("assets/", "static/"):
        rel = rel.removeprefix(prefix)
    return _clean(rel)


def _clean(rel: str) -> str:
    """`rel` with every part a name blogbuild publishes: no leading '.' or '_', no '..'."""
    parts = []
    for part in rel.split("/"):
        part = _UNSAFE_PART.sub("-", part).lstrip("._") or "file"
        parts.append("file" + part if ignored(part, in_content=True) else part)
    return "/".join(parts)


def _free(rel: str, taken: set[str]) -> str:
    """`rel`, or `name-2.ext`… when an earlier file took it (case-insensitive file systems)."""
    stem, ext = posixpath.splitext(rel)
    candidate, n = rel, 2
    while candidate.lower() in taken:
        candidate = f"{stem}-{n}{ext}"
        n += 1
    taken.add(candidate.lower())
    return candidate
