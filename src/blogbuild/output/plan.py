"""Plan every output page of a Site: (path, template, context, the sources it depends on)."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from blogbuild.config_model import Config
from blogbuild.content.models import Paginator, Post, Site
from blogbuild.content.redirects import site_relative
from blogbuild.output.claims import Owner
from blogbuild.urls import output_path


@dataclass(frozen=True)
class PlannedPage:
    """A page to write: its URL and path, its template and what it is given."""

    url: str  # site-root URL path
    path: str  # file path in the output folder
    template: str
    context: dict[str, Any] = field(hash=False, compare=False)
    sources: frozenset[str] = frozenset()  # the document this page shows (served first when edited)
    #: Who wants this page (collision messages); None: a page blogbuild makes by itself.
    owner: Owner | None = field(default=None, hash=False, compare=False)


def page_owner(page: PlannedPage) -> Owner:
    if page.owner is not None:
        return page.owner
    return Owner(f"the generated page {page.url}", "")


#: The last site planned in this process, its config and its pages.
_LAST: list[Any] = []


def planned(site: Site, config: Config) -> list[PlannedPage]:
    """`plan` as a list, made once per site in a process: the build and its templating in
    the same process both ask for it (a worker process plans the site it was sent)."""
    if len(_LAST) == 3 and _LAST[0] is site and _LAST[1] is config:
        return list(_LAST[2])
    pages = list(plan(site, config))
    _LAST[:] = [site, config, pages]
    return list(pages)


def plan(site: Site, config: Config) -> Iterator[PlannedPage]:
    yield from _documents(site)
    yield from _lists(site, config)
    yield from _feeds(site, config)
    yield PlannedPage("/404.html", "404.html", "404.html", {"page": None, "needs": frozenset()})
    yield from _redirects(site, config)


def _documents(site: Site) -> Iterator[PlannedPage]:
    for post in [*site.posts, *site.pages]:
        yield document_page(post)


def document_page(post: Post) -> PlannedPage:
    """The page that shows a post or a page."""
    template = "post.html" if post.kind == "post" else "page.html"
    return PlannedPage(post.url, output_path(post.url), template,
                       {"page": post, "needs": post.needs},
                       sources=frozenset({post.source}),
                       owner=Owner(post.display, post.display))


def _redirects(site: Site, config: Config) -> Iterator[PlannedPage]:
    """A page at each old URL of a document that sends the reader on to it. Planned last,
    so a collision is reported at the post whose alias wants a taken path."""
    base = config.urls.base_path
    for post in [*site.posts, *site.pages]:
        taken = {output_path(post.url)}  # the post lives there already
        for alias, line in post.meta.aliases:
            url = site_relative(alias, base)
            path = output_path(url)
            if path in taken:  # `/blog/old/` and `/old/` of a site at /blog/ are one page
                continue
            taken.add(path)
            yield PlannedPage(url, path, "redirect.html",
                              {"page": None, "target": post, "needs": frozenset()},
                              owner=Owner(f"the redirect from {alias} (of {post.display})",
                                          post.display, line, fix=_REDIRECT_FIX))


_REDIRECT_FIX = "take that old URL out of the front matter, or move what is there"


def _lists(site: Site, config: Config) -> Iterator[PlannedPage]:
    index_url = "/"
    if any(p.url == "/" for p in site.pages):
        index_url = "/blog/"
    for pager in paginate(site.posts, config.posts_per_page, index_url):
        yield PlannedPage(pager.url, output_path(pager.url), "index.html",
                          {"page": None, "paginator": pager, "needs": frozenset()})
    for tag, posts in site.tags.values():
        yield PlannedPage(tag.url, output_path(tag.url), "tag.html",
                          {"page": None, "tag": tag, "posts": posts, "needs": frozenset()},
                          owner=Owner(f"the page of the tag '{tag.name}'", posts[-1].display))
    for series in site.series.values():
        if len(series.posts) > 1:
            yield PlannedPage(series.url, output_path(series.url), "series.html",
                              {"page": None, "series": series, "posts": list(series.posts),
                               "needs": frozenset()},
                              owner=Owner(f"the page of the series '{series.name}'",
                                          series.posts[0].display,
                                          series.posts[0].meta.line_of("series"),
                                          fix="rename the series, or give the other "
                                              "page another slug"))
    yield PlannedPage("/tags/", "tags/index.html", "tags.html",
                      {"page": None, "needs": frozenset()})
    yield PlannedPage("/archive/", "archive/index.html", "archive.html",
                      {"page": None, "needs": frozenset()})


def _feeds(site: Site, config: Config) -> Iterator[PlannedPage]:
    entries = site.posts[: config.feed_entries]
    yield PlannedPage("/feed.xml", "feed.xml", "feed.xml",
                      {"title": config.title, "feed_url": "/feed.xml", "home_url": "/",
                       "entries": entries})
    for tag, posts in site.tags.values():
        yield PlannedPage(tag.feed_url, tag.feed_url.lstrip("/"), "feed.xml",
                          {"title": f"{config.title} — {tag.name}", "feed_url": tag.feed_url,
                           "home_url": tag.url, "entries": posts[: config.feed_entries]},
                          owner=Owner(f"the feed of the tag '{tag.name}'", posts[-1].display))
    yield PlannedPage("/sitemap.xml", "sitemap.xml", "sitemap.xml",
                      {"documents": [*site.posts, *site.pages], "tags": site.tags,
                       "series": [s for s in site.series.values() if len(s.posts) > 1]})
    yield PlannedPage("/robots.txt", "robots.txt", "robots.txt", {})


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


def page_needs(page: PlannedPage) -> frozenset[str] | None:
    """The needs of an HTML page; None for a file that has none (a feed, the sitemap)."""
    needs = page.context.get("needs")
    return None if needs is None else frozenset(needs)
