"""Assemble rendered sources into a Site: URLs, tags, archives, cross links. Pure functions."""

from __future__ import annotations

import html as html_lib
import itertools
import posixpath
import re
from collections import defaultdict
from collections.abc import Collection, Iterable
from urllib.parse import unquote

from blogbuild.config import Config
from blogbuild.content.frontmatter import slug_from_filename
from blogbuild.content.models import Paginator, Post, Site, Tag
from blogbuild.diagnostics import Diagnostic, error, warning
from blogbuild.markdown.links import MARKER
from blogbuild.markdown.toc import slugify
from blogbuild.render import RenderResult, shorten

_MARKER_RE = re.compile(re.escape(MARKER) + r"([^\"'#?\s<>]*)([^\"'\s<>]*)")


def post_url(config: Config, slug: str, result: RenderResult) -> str:
    meta = result.meta
    assert meta is not None
    date = meta.date
    return config.permalink.format(
        slug=slug,
        year=f"{date.year:04d}" if date else "undated",
        month=f"{date.month:02d}" if date else "00",
        day=f"{date.day:02d}" if date else "00",
    )


def _slug_for(result: RenderResult) -> str:
    assert result.meta is not None
    if result.meta.slug:
        return result.meta.slug
    rel = result.job.rel
    stem = posixpath.splitext(posixpath.basename(rel))[0]
    if stem == "index" and "/" in rel:
        stem = posixpath.basename(posixpath.dirname(rel))
    return slugify(slug_from_filename(stem), default="post")


def _page_url(result: RenderResult) -> str:
    assert result.meta is not None
    rel = result.job.rel[: -len(".md")]
    if result.meta.slug:
        rel = posixpath.join(posixpath.dirname(rel), result.meta.slug)
    if rel == "index":
        return "/"
    if rel.endswith("/index"):
        rel = rel[: -len("/index")]
    return "/" + rel + "/"


def tag_for(name: str) -> Tag:
    slug = slugify(name, default="tag")
    return Tag(name, slug, f"/tags/{slug}/", f"/tags/{slug}/feed.xml")


def _bundle_dir(rel: str) -> str | None:
    """A post written as FOLDER/index.md owns the other files of FOLDER (a page bundle)."""
    if posixpath.basename(rel) == "index.md" and "/" in rel:
        return posixpath.dirname(rel)
    return None


def assemble(
    results: Iterable[RenderResult],
    assets: Iterable[str],
    config: Config,
    *,
    drafts: bool = False,
) -> tuple[Site, list[Diagnostic]]:
    diagnostics: list[Diagnostic] = []
    posts: list[Post] = []
    pages: list[Post] = []
    by_url: dict[str, Post] = {}
    by_source: dict[str, Post] = {}
    bundles: dict[str, str] = {}
    for result in sorted(results, key=lambda r: r.job.rel):
        if not result.ok:
            continue
        meta, rendered = result.meta, result.rendered
        assert meta is not None and rendered is not None
        if meta.draft and not drafts:
            continue
        is_post = result.job.kind == "post"
        slug = _slug_for(result)
        url = post_url(config, slug, result) if is_post else _page_url(result)
        title = meta.title or rendered.title or slug.replace("-", " ").capitalize()
        title_html = html_lib.escape(meta.title or title)
        if not meta.title and rendered.title and rendered.title_html:
            title_html = rendered.title_html
        description = meta.description or rendered.subtitle or rendered.summary
        post = Post(
            kind=result.job.kind,
            source=result.job.rel,
            display=result.job.display,
            meta=meta,
            slug=slug,
            url=url,
            title=title,
            title_html=title_html,
            subtitle=rendered.subtitle,
            description=shorten(" ".join(description.split()), 300),
            html=rendered.html,
            toc=rendered.toc,
            needs=rendered.needs,
            word_count=rendered.word_count,
            tags=tuple(tag_for(t) for t in meta.tags),
        )
        if url in by_url:
            other = by_url[url]
            diagnostics.append(error(
                result.job.display, 0,
                f"two files want the URL {url}: {other.display} and {result.job.display}; "
                "give one of them another 'slug' in its front matter",
            ))
            continue
        if is_post and meta.date is None:
            diagnostics.append(warning(
                result.job.display, 0,
                "post has no date: add 'date:' to its front matter or start the file name "
                "with YYYY-MM-DD-",
            ))
        by_url[url] = post
        by_source[result.job.rel] = post
        (posts if is_post else pages).append(post)
        bundle = _bundle_dir(result.job.rel)
        if bundle and is_post:
            bundles[bundle] = url

    asset_urls = {}
    for rel in sorted(assets):
        url = "/" + rel
        for folder, post_url_ in bundles.items():
            if rel.startswith(folder + "/"):
                url = post_url_ + rel[len(folder) + 1:]
                break
        asset_urls[rel] = url

    posts.sort(key=lambda p: (p.date.timestamp() if p.date else 0.0, p.title), reverse=True)
    for newer, older in itertools.pairwise(posts):
        newer.previous = older
        older.next = newer
    tags: dict[str, tuple[Tag, list[Post]]] = {}
    for post in posts:
        for tag in post.tags:
            tags.setdefault(tag.slug, (tag, []))[1].append(post)
    years: dict[int, list[Post]] = defaultdict(list)
    for post in posts:
        if post.date:
            years[post.date.year].append(post)
    site = Site(
        posts=posts,
        pages=sorted(pages, key=lambda p: p.url),
        tags=dict(sorted(tags.items())),
        years=sorted(years.items(), reverse=True),
        assets=asset_urls,
    )
    return site, diagnostics


#: Fragments every page answers to without an id in the body: the top of the page, and the
#: theme's skip-link target.
_PAGE_ANCHORS = frozenset({"top", "main"})


def resolve_refs(
    site: Site, results: dict[str, RenderResult], known_paths: set[str], config: Config,
    only: Collection[str] | None = None,
) -> list[Diagnostic]:
    """Replace blogbuild-ref markers with URLs; warn about local targets that do not exist.

    A missing image, file, page or `#anchor` is a warning (an error under --strict), so
    one broken link never stops the rest of the site from being built. `only` limits the
    work to those sources (the live server after a one-post edit)."""
    diagnostics: list[Diagnostic] = []
    urls = config.urls
    documents = {p.source: p for p in [*site.posts, *site.pages]}
    by_url = {p.url: p for p in documents.values()}
    prefix = urls.base_path
    for post in documents.values():
        if only is not None and post.source not in only:
            continue
        rendered = results[post.source].rendered
        assert rendered is not None
        for ref in rendered.refs:
            message = _check_ref(ref.kind, ref.target, post, documents, by_url, site,
                                 known_paths, results, prefix)
            if message:
                diagnostics.append(warning(post.display, ref.line, message))

        def replace(match: re.Match[str]) -> str:
            path = html_lib.unescape(match.group(1))
            tail = match.group(2)
            if path in documents:
                return urls.url(documents[path].url) + tail
            if path in site.assets:
                return urls.url(site.assets[path]) + tail
            return path + tail

        if MARKER in post.html:
            post.html = _MARKER_RE.sub(replace, post.html)
    return diagnostics


def _check_ref(kind: str, target: str, post: Post, documents: dict[str, Post],
               by_url: dict[str, Post], site: Site, known_paths: set[str],
               results: dict[str, RenderResult], prefix: str) -> str | None:
    """What is wrong with one local link or image target, or None when it exists."""
    what = "image" if kind == "image" else "link"
    path, _, fragment = target.partition("#")
    path = path.split("?")[0]
    if not path:  # "#fragment" on the same page
        return _missing_anchor(fragment, post, results, "this page")
    if path.startswith(MARKER):
        rel = path[len(MARKER):]
        if rel in documents:
            other = documents[rel]
            return _missing_anchor(fragment, other, results, other.display) if fragment \
                else None
        if rel in site.assets:
            return None
        return (f"{what} target not found: content/{rel} does not exist; fix the path "
                "(it is relative to this file)")
    site_path = "/" + path[len(prefix):] if path.startswith(prefix) else path
    if not _exists(site_path, known_paths):
        if kind == "image":
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


def paginate(posts: list[Post], per_page: int, first_url: str = "/") -> list[Paginator]:
    chunks = [posts[i: i + per_page] for i in range(0, len(posts), per_page)] or [[]]
    total = len(chunks)

    def url(n: int) -> str:
        return first_url if n == 1 else f"{first_url}page/{n}/"

    return [
        Paginator(
            number=n,
            total=total,
            posts=tuple(chunk),
            url=url(n),
            previous_url=url(n - 1) if n > 1 else None,
            next_url=url(n + 1) if n < total else None,
        )
        for n, chunk in enumerate(chunks, 1)
    ]
