"""The check of local link and image targets, once the site is assembled: every target
is built, and every `#anchor` is an id on the page it points at. Pure functions."""

from __future__ import annotations

from collections.abc import Collection
from urllib.parse import unquote

from blogbuild.config import Config
from blogbuild.content.models import Post, Ref, Site
from blogbuild.content.records import RenderResult
from blogbuild.diagnostics import Diagnostic, warning

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
        draft = results.get(ref.rel)
        if draft is not None and draft.meta is not None and draft.meta.draft:
            return (f"{what} target content/{ref.rel} is a draft, built only with --drafts; "
                    "publish it or remove the link")
        return (f"{what} target not found: content/{ref.rel} does not exist; fix the path "
                "(it is relative to this file)")
    if not path:  # "#fragment" on the same page
        return _missing_anchor(fragment, post, results, "this page")
    path = unquote(path)
    site_path = "/" + path[len(prefix):] if path.startswith(prefix) else path
    if not _exists(site_path, known_paths):
        if ref.kind == "image":
            return f"missing image: {site_path} is not in content/ or static/"
        return f"broken link: nothing is built at {site_path}"
    other_post = by_url.get(site_path) or by_url.get(site_path.rstrip("/") + "/")
    if fragment and other_post is not None:
        return _missing_anchor(fragment, other_post, results, other_post.display)
    return None


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
