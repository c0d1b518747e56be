"""The content model: plain dataclasses, no I/O."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from typing import Any

from blogbuild.content.frontmatter import PostMeta
from blogbuild.markdown.toc import TocEntry


@dataclass(frozen=True)
class Tag:
    name: str
    slug: str
    url: str
    feed_url: str


@dataclass
class Post:
    """A post or a page after rendering; `url` is a site-root path (no sub-path yet)."""

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
    html: str
    toc: tuple[TocEntry, ...]
    needs: frozenset[str]
    word_count: int
    tags: tuple[Tag, ...] = ()
    feed_html: str = ""  # the body as a feed entry carries it (absolute links, MathML)
    previous: Post | None = field(default=None, repr=False)
    next: Post | None = field(default=None, repr=False)

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
    number: int
    total: int
    posts: tuple[Post, ...]
    url: str
    previous_url: str | None
    next_url: str | None


@dataclass
class Site:
    posts: list[Post]  # newest first
    pages: list[Post]
    tags: dict[str, tuple[Tag, list[Post]]]  # slug -> (tag, posts newest first)
    years: list[tuple[int, list[Post]]]  # newest year first
    assets: dict[str, str]  # content-relative source path -> site-root URL path
