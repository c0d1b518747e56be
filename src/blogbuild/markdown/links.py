"""Links and images: the site sub-path rule, links to other posts' .md files, unsafe schemes.

A relative target (``other-post.md``, ``img/my plot.png``) is resolved while rendering,
through the link map the build made from every document's front matter (see
``blogbuild.content.linkmap``): the token gets the final, percent-encoded URL and markdown-it's
renderer escapes it once for the attribute. Each resolved target is recorded in
``env["resolved"]`` (source path -> URL, or None when missing), so a cached render is
reused only while those URLs stay the same. Each token also carries its feed variant (an
absolute URL) in ``meta["feed_attrs"]``, used by the feed rendering of the page.
"""

from __future__ import annotations

import posixpath
from typing import TYPE_CHECKING
from urllib.parse import unquote

from markdown_it import MarkdownIt
from markdown_it.rules_core import StateCore

from blogbuild.markdown.env import Env, add_ref, report_error
from blogbuild.markdown.positions import inline_lines
from blogbuild.urls import (
    UrlBuilder,
    encode_path,
    has_scheme,
    is_disk_path,
    is_safe_url,
    normalize,
    unsafe_url_message,
)

if TYPE_CHECKING:
    from blogbuild.content.linkmap import LinkMap


def content_rel(path: str, source_dir: str) -> str | None:
    """The content path a relative link's path (no `?query`, no `#fragment`) written in a
    file of `source_dir` names, or None when it leads out of content/."""
    rel = posixpath.normpath(posixpath.join(source_dir, unquote(path)))
    return None if rel.startswith("../") or rel == ".." else rel


def leaves_site(url: str, env: Env) -> bool:
    """True for a local path no file of the site can be at: relative but leading out of
    content/ (`../../../etc/passwd`), or a path on a disk (`C:/Users/…`). It is written as
    it is and reported after assembly, like a target that is missing."""
    if env.get("source_dir") is None:
        return False
    if is_disk_path(url):
        return True
    if not url or url.startswith(("#", "?", "/")) or has_scheme(url):
        return False
    return content_rel(url.partition("#")[0].partition("?")[0], env["source_dir"]) is None


def rewrite_target(url: str, env: Env, urls: UrlBuilder) -> tuple[str, str | None]:
    """The href/src to write for `url` found in a file under content/, and the
    content-relative path it points at when it is relative (None otherwise)."""
    if not url or url.startswith(("#", "?")) or has_scheme(url):
        return url, None
    if url.startswith("/"):
        return urls.url(url), None
    source_dir = env.get("source_dir")
    if source_dir is None:  # `blogbuild render` of a lone file: nothing to resolve against
        return url, None
    path, hash_, fragment = url.partition("#")
    path, query_mark, query = path.partition("?")
    rel = content_rel(path, source_dir)
    if rel is None:
        return url, None
    links: LinkMap | None = env.get("links")
    target = links.url_of(rel) if links is not None else None
    env.setdefault("resolved", {})[rel] = target
    if target is None:  # reported after assembly; the author's path stays as written
        return normalize(url), rel
    return f"{urls.url(encode_path(target))}{query_mark}{query}{hash_}{fragment}", rel


def same_page_anchor(url: str, env: Env) -> str:
    """`#search--evaluation`, as GitHub and kramdown spell a heading's id, becomes the id the
    heading has here, when no element of the page has the id as written."""
    if not url.startswith("#") or len(url) == 1:
        return url
    fragment = url[1:]
    if fragment in env.get("heading_ids", {}):
        return url
    aliases: dict[str, str] = env.get("heading_aliases", {})
    found = aliases.get(fragment) or aliases.get(fragment.lower())
    return f"#{found}" if found else url


def feed_target(url: str, env: Env, urls: UrlBuilder) -> str:
    """The same target as a feed entry must carry it: absolute, fragments on the post."""
    if url.startswith("#"):
        base = env.get("feed_base")
        return str(base) + url if base else url
    if url.startswith("/") and not url.startswith("//"):
        return urls.absolute(url)
    return url


def make_links_rule(urls: UrlBuilder):  # type: ignore[no-untyped-def]
    def links(state: StateCore) -> None:
        env = state.env
        for child, _, line in inline_lines(env, state.tokens):
            attr = "href" if child.type == "link_open" else "src" if child.type == "image" else ""
            if not attr:
                continue
            url = str(child.attrGet(attr) or "")
            if not is_safe_url(url):
                report_error(env, line, unsafe_url_message(url, "links and images"))
                child.attrSet(attr, "#")
                continue
            new, rel = rewrite_target(same_page_anchor(url, env), env, urls)
            child.attrSet(attr, new)
            if attr == "src":  # what the images plugin looks up
                child.meta = {**(child.meta or {}), "image": url, "image_rel": rel}
            feed = feed_target(new, env, urls)
            if feed != new:
                meta = child.meta or {}
                child.meta = {**meta, "feed_attrs": {**meta.get("feed_attrs", {}), attr: feed}}
            kind = "image" if attr == "src" else "link"
            if rel is not None or (url.startswith("/") and not url.startswith("//")) \
                    or (url.startswith("#") and len(url) > 1) or leaves_site(url, env):
                add_ref(env, kind, url if rel is not None else new, line, rel=rel)
    return links


def links_plugin(md: MarkdownIt, *, urls: UrlBuilder | None = None) -> None:
    urls = urls or UrlBuilder("http://localhost/")
    # markdown-it drops links with bad schemes silently; we want to see them and report.
    md.validateLink = lambda url: True  # type: ignore[method-assign]
    md.core.ruler.push("site_links", make_links_rule(urls))
