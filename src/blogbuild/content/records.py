"""What rendering a source gives: the records the build keeps, and the bodies it stores.

Light on purpose: the build's state and the render store hold these, and reading them
must not load the Markdown parser."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from blogbuild.content.frontmatter import PostMeta
from blogbuild.content.jobs import SourceJob
from blogbuild.content.models import Ref, TocEntry
from blogbuild.diagnostics import Diagnostic

if TYPE_CHECKING:
    from blogbuild.content.linkmap import LinkMap


@dataclass(frozen=True)
class Execution:
    """Build-time runnable blocks of one render: run now, or taken from the cache."""

    executed: int
    reused: int
    seconds: float


@dataclass(frozen=True)
class Rendered:
    """A document rendered: its body and what the build needs to know of it."""

    html: str
    toc: tuple[TocEntry, ...]
    title: str | None
    title_html: str | None
    subtitle: str | None
    summary: str
    needs: frozenset[str]
    diagnostics: tuple[Diagnostic, ...]
    refs: tuple[Ref, ...]
    word_count: int
    anchors: frozenset[str] = frozenset()  # the ids a `#fragment` link can point at
    #: The body as a feed entry carries it: absolute links, math as MathML only (None when
    #: not asked for: only the posts that some feed lists need it).
    feed_html: str | None = ""
    #: The summary the author cut with `<!--more-->`, rendered as a feed entry is; None
    #: when the body has no marker.
    excerpt_html: str | None = None
    #: Relative targets resolved through the link map: (content path, URL or None).
    resolved: tuple[tuple[str, str | None], ...] = ()
    #: Wiki names looked up through the link map: (wiki key, what it found).
    wiki: tuple[tuple[str, str], ...] = ()
    #: The labelled ids of the body: (id, kind, label), e.g. ("thm-ua", "theorem", "Theorem 2").
    labels: tuple[tuple[str, str, str], ...] = ()
    #: The ids that previews on other pages can show: (id, digest of its snippet, needs of
    #: the snippet's HTML), for the ids whose snippet is small enough.
    previews: tuple[tuple[str, str, tuple[str, ...]], ...] = ()
    #: Those snippets: (id, HTML) (blogbuild.markdown.xref_previews). A body: the render
    #: store keeps it, the build's record does not (KaTeX's markup is large).
    snippets: tuple[tuple[str, str], ...] = ()
    #: Cross-references to other documents looked up through the link map: (rel#id, what
    #: `LinkMap.xref_outcome` said).
    xrefs: tuple[tuple[str, str], ...] = ()
    #: Files other than the source that the render read (a post's .bib files): (path
    #: from the site folder, sha256 of its bytes). Other bytes there: render it again.
    inputs: tuple[tuple[str, str], ...] = ()
    #: What this render ran at build time (None: no block runs at build time).
    execution: Execution | None = None
    #: The pictures of the site it showed: (content path or site URL, `LinkMap.image_key`
    #: then: None when the image stage did not know it).
    images: tuple[tuple[str, str | None], ...] = ()
    #: Files its page needs beside it that the render made (the copies of a picture a
    #: build-time block drew): (name, the file in the cache).
    files: tuple[tuple[str, str], ...] = ()


def lookups_hold(rendered: Rendered, links: LinkMap) -> bool:
    """Whether what the render looked up through the link map (relative targets, wiki
    names, other documents' labels and previews) is still what `links` says."""
    return links.still_valid(rendered.resolved, rendered.wiki, rendered.xrefs,
                             rendered.images)


@dataclass(frozen=True)
class RenderResult:
    """What the worker returns for a job: metadata and HTML, or the diagnostics that stopped it."""

    job: SourceJob
    digest: str
    meta: PostMeta | None = None
    rendered: Rendered | None = None
    diagnostics: tuple[Diagnostic, ...] = field(default_factory=tuple)

    @property
    def ok(self) -> bool:
        return self.meta is not None and self.rendered is not None


@dataclass
class SourceEntry:
    """A source as the build's state keeps it: the digest of its bytes, its render record
    (no body: that is in the render store), and whether the stored body has the feed
    variant."""

    digest: str
    result: RenderResult
    feed: bool


def shorten(text: str, limit: int) -> str:
    """`text` cut at a word before `limit` characters, with an ellipsis."""
    if len(text) <= limit:
        return text
    cut = text[:limit].rsplit(" ", 1)[0].rstrip(",;:.—-")
    return cut + "…"
