"""The content model: plain dataclasses (and a named tuple), no I/O."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from blogbuild.content.bodies import Bodies
from blogbuild.content.frontmatter import PostMeta


class TocEntry(NamedTuple):
    """A heading of a post's table of contents. A named tuple, not a dataclass: a
    1,000-post blog has some 10,000 of them in the build's state, loaded by every build."""

    level: int
    id: str
    html: str  # the heading's inline HTML (math included), links stripped


@dataclass(frozen=True)
class Ref:
    """A link or image that points inside the site; checked once every page is known."""

    kind: str  # "link" or "image"
    target: str  # a site-root path, `#fragment`, or the relative target as written
    line: int  # 1-based line in the source file
    rel: str | None = None  # for a relative target: the content path it points at


@dataclass(frozen=True)
class Tag:
    """A tag as pages show it: its name, and the URLs of its page and its feed."""

    name: str
    slug: str
    url: str
    feed_url: str


@dataclass(frozen=True)
class Cover:
    """A post's `image:` as lists and its page show it; no size when it cannot be read."""

    url: str  # a site-root path or an http(s) URL
    width: int | None
    height: int | None
    alt: str
    #: Its smaller copies (blogbuild.stages.images), by format, the one every browser
    #: shows last: (MIME type, srcset of site URLs).
    sources: tuple[tuple[str, str], ...] = ()
    src: str = ""  # the widest of those last ones, a site URL ("": `url` itself)


@dataclass(frozen=True, eq=False)
class Series:
    """Posts that name one `series:`, in reading order (their `series_order`, else date)."""

    name: str
    slug: str
    posts: tuple[Post, ...]

    @property
    def url(self) -> str:
        """Where the series' page lists its parts (a series of one post has none)."""
        return f"/series/{self.slug}/"

    def number(self, post: Post) -> int:
        """The post's part number, from 1."""
        return next(i for i, p in enumerate(self.posts, 1) if p is post)


@dataclass
class Post:
    """A post or a page after rendering; `url` is a site-root path (no sub-path yet).

    The rendered body is not held here: `html` and `feed_html` read it from `bodies` when a
    template asks, so a site of thousands of posts stays small in memory and cheap to send
    to the worker processes that write pages."""

    kind: str  # "post" or "page"
    source: str  # path under content/ (POSIX)
    display: str  # path shown in messages
    meta: PostMeta
    slug: str
    url: str
    title: str
    title_html: str
    subtitle: str | None
    description: str
    digest: str  # of the render (source bytes, options, code): names the body in `bodies`
    #: Changes whenever the body does: the digest, and the URLs its relative links got.
    body_id: str
    toc: tuple[TocEntry, ...]
    needs: frozenset[str]
    word_count: int
    tags: tuple[Tag, ...] = ()
    #: Shows the comments section (front matter `comments:`, else the site's default).
    comments: bool = False
    #: The summary cut with `<!--more-->` as HTML (absolute links, math without a
    #: stylesheet), shown by lists and feeds; "" when there is none or a description.
    excerpt_html: str = ""
    cover: Cover | None = None
    bodies: Bodies | None = field(default=None, repr=False, compare=False)
    previous: Post | None = field(default=None, repr=False)
    next: Post | None = field(default=None, repr=False)
    series: Series | None = field(default=None, repr=False, compare=False)
    #: Up to three other posts that share most tags with this one (see pipeline.related).
    related: tuple[Post, ...] = field(default=(), repr=False, compare=False)

    def __getstate__(self) -> dict[str, Any]:
        """Pickled without the posts it links to (a chain of thousands of posts would
        overflow the stack); `Site` links them again."""
        return {k: v for k, v in vars(self).items() if k not in _LINKS}

    def __setstate__(self, state: dict[str, Any]) -> None:
        vars(self).update(state, previous=None, next=None, series=None, related=())

    @property
    def html(self) -> str:
        return self.bodies.html(self.digest) if self.bodies is not None else ""

    @property
    def feed_html(self) -> str:
        """The body as a feed entry carries it (absolute links, math as MathML)."""
        return self.bodies.feed_html(self.digest) if self.bodies is not None else ""

    @property
    def date(self) -> dt.datetime | None:
        return self.meta.date

    @property
    def updated(self) -> dt.datetime | None:
        return self.meta.updated or self.meta.date

    @property
    def author(self) -> str | None:
        return self.meta.author

    @property
    def reading_minutes(self) -> int:
        return max(1, round(self.word_count / 230))

    @property
    def extra(self) -> dict[str, Any]:
        return self.meta.extra


@dataclass(frozen=True)
class Paginator:
    """One page of a list of posts, and the URLs of the pages beside it."""

    number: int
    total: int
    posts: tuple[Post, ...]
    url: str
    previous_url: str | None
    next_url: str | None


_LINKS = ("previous", "next", "series", "related")


@dataclass
class Site:
    """Every published document, assembled: posts, pages, tags, years, series."""

    posts: list[Post]  # newest first
    pages: list[Post]
    tags: dict[str, tuple[Tag, list[Post]]]  # slug -> (tag, posts newest first)
    years: list[tuple[int, list[Post]]]  # newest year first
    assets: dict[str, str]  # content-relative source path -> site-root URL path
    #: Pictures by source (a content path or static/…), blogbuild.stages.images.
    images: dict[str, Any] = field(default_factory=dict)
    series: dict[str, Series] = field(default_factory=dict)  # slug -> series
    related: dict[str, tuple[Post, ...]] = field(default_factory=dict)  # by source

    def __setstate__(self, state: dict[str, Any]) -> None:
        vars(self).update(state)
        link(self.posts)
        self.link_series()

    def link_series(self) -> None:
        """Give every post its series and related posts, which `Site` keeps."""
        for series in self.series.values():
            for post in series.posts:
                post.series = series
        for post in self.posts:
            post.related = self.related.get(post.source, ())


def link(posts: list[Post]) -> None:
    """Set every post's `previous` (older) and `next` (newer); `posts` is newest first."""
    for i, post in enumerate(posts):
        post.next = posts[i - 1] if i > 0 else None
        post.previous = posts[i + 1] if i + 1 < len(posts) else None
