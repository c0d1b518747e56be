"""Links and images: the site sub-path rule, links to other posts' .md files, unsafe schemes.

Relative targets (``other-post.md``, ``img/plot.png``) depend on other files, so a pure
renderer cannot resolve them: they become ``blogbuild-ref:`` markers that the build
replaces once every page and asset is known (see ``blogbuild.refs``).
"""

from __future__ import annotations

import posixpath
from collections.abc import Iterator
from urllib.parse import unquote

from markdown_it import MarkdownIt
from markdown_it.rules_core import StateCore
from markdown_it.token import Token

from blogbuild.markdown.env import Env, add_ref, report_error, token_line
from blogbuild.urls import UrlBuilder, has_scheme, is_safe_url, scheme_of

MARKER = "blogbuild-ref:"


def _walk(tokens: list[Token]) -> Iterator[tuple[Token, Token]]:
    """Yield (inline child, its block token) so children can report the block's line."""
    for token in tokens:
        for child in token.children or []:
            yield child, token


def rewrite_target(url: str, env: Env, urls: UrlBuilder) -> str:
    """The href/src to write for `url` found in a file under content/."""
    if not url or url.startswith(("#", "?")) or has_scheme(url):
        return url
    if url.startswith("/"):
        return urls.url(url)
    source_dir = env.get("source_dir")
    if source_dir is None:  # `blogbuild render` of a lone file: nothing to resolve against
        return url
    path, hash_, fragment = url.partition("#")
    path, query_mark, query = path.partition("?")
    resolved = posixpath.normpath(posixpath.join(source_dir, unquote(path)))
    if resolved.startswith("../") or resolved == "..":
        return url
    return f"{MARKER}{resolved}{query_mark}{query}{hash_}{fragment}"


def make_links_rule(urls: UrlBuilder):  # type: ignore[no-untyped-def]
    def links(state: StateCore) -> None:
        env = state.env
        for child, block in _walk(state.tokens):
            attr = "href" if child.type == "link_open" else "src" if child.type == "image" else ""
            if not attr:
                continue
            url = str(child.attrGet(attr) or "")
            line = token_line(env, block)
            if not is_safe_url(url):
                report_error(
                    env, line, f"unsafe URL scheme '{scheme_of(url)}:' in {url!r}; "
                    "links may not run code (javascript:, vbscript:, data:, file:)"
                )
                child.attrSet(attr, "#")
                continue
            new = rewrite_target(url, env, urls)
            child.attrSet(attr, new)
            kind = "image" if attr == "src" else "link"
            if new.startswith(MARKER) or (url.startswith("/") and not url.startswith("//")) \
                    or (url.startswith("#") and len(url) > 1):
                add_ref(env, kind, new, line)
    return links


def links_plugin(md: MarkdownIt, *, urls: UrlBuilder | None = None) -> None:
    urls = urls or UrlBuilder("http://localhost/")
    # markdown-it drops links with bad schemes silently; we want to see them and report.
    md.validateLink = lambda url: True  # type: ignore[method-assign]
    md.core.ruler.push("site_links", make_links_rule(urls))
