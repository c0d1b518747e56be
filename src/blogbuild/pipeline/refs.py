"""The check of local link and image targets, once the site is assembled: every target
is built, and every `#anchor` is an id on the page it points at. Pure functions."""

from __future__ import annotations

import posixpath
from collections.abc import Collection
from urllib.parse import unquote

from blogbuild.config_model import Config
from blogbuild.content.models import Post, Ref, Site
from blogbuild.content.records import RenderResult
from blogbuild.diagnostics import Diagnostic, warning
from blogbuild.urls import is_disk_path

#: Fragments every page answers to without an id in the body: the top of the page, and the
#: theme's skip-link target.
_PAGE_ANCHORS = frozenset({"top", "main"})


def resolve_refs(
    site: Site, results: dict[str, RenderResult], known_paths: set[str], config: Config,
    only: Collection[str] | None = None,
) -> list[Diagnostic]:
    """Warn about local link and image targets that do not exist; rewrites nothing.

    Relative targets got their URLs while rendering (see blogbuild.content.linkmap); this checks
    what only the assembled site knows: that a target is built, and that an `#anchor` is
    an id on the page it points at. A missing target is a warning (an error under
    --strict), so one broken link never stops the rest of the site from being built.
    `only` limits the work to those sources (the live server after a one-post edit)."""
    diagnostics: list[Diagnostic] = []
    documents = {p.source: p for p in [*site.posts, *site.pages]}
    by_url = {p.url: p for p in documents.values()}
    prefix = config.urls.base_path
    for post in documents.values():
        if only is not None and post.source not in only:
            continue
        rendered = results[post.source].rendered
        assert rendered is not None
        for ref in rendered.refs:
            message = _check_ref(ref, post, documents, by_url, site, known_paths, results,
                                 prefix)
            if message:
                diagnostics.append(warning(post.display, ref.line, message))
    return diagnostics


def _check_ref(ref: Ref, post: Post, documents: dict[str, Post], by_url: dict[str, Post],
               site: Site, known_paths: set[str], results: dict[str, RenderResult],
               prefix: str) -> str | None:
    """What is wrong with one local link or image target, or None when it exists."""
    what = "image" if ref.kind == "image" else "link"
    path, _, fragment = ref.target.partition("#")
    path = path.split("?")[0]
    if ref.rel is not None:
        if ref.rel in documents:
            other = documents[ref.rel]
            return _missing_anchor(fragment, other, results, other.display) if fragment \
                else None
        if ref.rel in site.assets:
            return None
        return _not_in_content(ref.rel, what, documents, site, results)
    if not path:  # "#fragment" on the same page
        return _missing_anchor(fragment, post, results, "this page")
    if not path.startswith("/"):  # relative, but out of content/, or a path on a disk
        return _outside(ref.target, what, post, known_paths)
    path = unquote(path)
    site_path = "/" + path[len(prefix):] if path.startswith(prefix) else path
    if not _exists(site_path, known_paths):
        if ref.kind == "image":
            return f"missing image: {_printable(site_path)} is not in content/ or static/"
        return f"broken link: nothing is built at {_printable(site_path)}"
    other_post = by_url.get(site_path) or by_url.get(site_path.rstrip("/") + "/")
    if fragment and other_post is not None:
        return _missing_anchor(fragment, other_post, results, other_post.display)
    return None


def _not_in_content(rel: str, what: str, documents: dict[str, Post], site: Site,
                    results: dict[str, RenderResult]) -> str:
    """Why a relative target inside content/ is not built: a draft, a folder, or nothing."""
    draft = results.get(rel)
    if draft is not None and draft.meta is not None and draft.meta.draft:
        return (f"{what} target content/{rel} is a draft, built only with --drafts; "
                "publish it or remove the link")
    folder = "" if rel == "." else rel + "/"
    if any(path.startswith(folder) for path in [*documents, *site.assets]):
        return (f"{what} target not found: content/{_printable(folder)} is a folder, not a "
                "file; name a file in it (the path is relative to this file)")
    return (f"{what} target not found: content/{_printable(rel)} does not exist; fix the "
            "path (it is relative to this file)")


def _outside(target: str, what: str, post: Post, known_paths: set[str]) -> str:
    """Why a relative target that leads out of content/ (or a path on a disk) is not
    built: nothing outside content/ and static/ is published, and nothing is read there."""
    written = unquote(target)
    if is_disk_path(target):
        return (f"{what} target not found: {written!r} is a path on your computer, not in "
                "the site; copy the file into content/ and write its path relative to this "
                "file")
    path = posixpath.normpath(posixpath.join(
        "content", posixpath.dirname(post.source), unquote(target.partition("#")[0])))
    static = path.removeprefix("static/")
    if path.startswith("static/") and static in known_paths:
        return (f"{what} target not found: {written!r} leads out of content/, to {path}: "
                f"the files of static/ are published at the site's root, so write /{static}")
    where = "above the site's folder" if path.startswith("../") or path == ".." \
        else "out of content/"
    return (f"{what} target not found: {written!r} leads {where}, and only files under "
            "content/ and static/ are published; fix the path (it is relative to this file)")


def _printable(text: str) -> str:
    """`text` with its control characters written as escapes (`\\x00`), for a message."""
    return text if text.isprintable() else "".join(
        c if c.isprintable() else repr(c)[1:-1] for c in text)


def _missing_anchor(fragment: str, target: Post, results: dict[str, RenderResult],
                    shown: str) -> str | None:
    fragment = unquote(fragment)
    rendered = results[target.source].rendered
    if not fragment or fragment in _PAGE_ANCHORS or rendered is None:
        return None
    if fragment in rendered.anchors:
        return None
    return (f"link to a missing anchor: #{fragment} is not an id in {shown}; "
            "check the heading's id (shown by its # link)")


def _exists(path: str, known_paths: set[str]) -> bool:
    rel = path.lstrip("/")
    if rel in known_paths:
        return True
    rel = rel.rstrip("/")
    return rel + "/index.html" in known_paths or (rel == "" and "index.html" in known_paths)
