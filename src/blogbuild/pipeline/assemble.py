"""Assemble rendered sources into a Site: URLs, tags, archives, cross links. Pure functions."""

from __future__ import annotations

import functools
import hashlib
import html as html_lib
import re
from collections import defaultdict
from collections.abc import Iterable

from blogbuild.config_checks import COMMENTS_EXAMPLE, missing_comment_keys
from blogbuild.config_model import Config
from blogbuild.content.bodies import Bodies
from blogbuild.content.dates import instant
from blogbuild.content.frontmatter import PostMeta
from blogbuild.content.linkmap import (
    asset_urls,
    bundle_dir,
    document_url,
    fallback_title,
    slug_for,
)
from blogbuild.content.models import Post, Site, Tag, link
from blogbuild.content.records import RenderResult, shorten
from blogbuild.diagnostics import Diagnostic, error, warning
from blogbuild.images.process import ImageInfo
from blogbuild.output.claims import Claims, Owner
from blogbuild.pipeline.nav import Ranking, group_series, related_posts
from blogbuild.urls import output_path, slugify, unsafe_path

#: Symbols that tell tags apart (C++, C#, Q&A) become words in the slug instead of vanishing.
_TAG_SYMBOLS = {"+": " plus ", "#": " sharp ", "&": " and ", "@": " at "}


def tag_slug(name: str) -> str:
    """The URL segment of a tag: `C++` -> c-plus-plus, `C#` -> c-sharp, `.NET` -> dot-net.
    A tag with no letter or digit (`🚀`, `!!!`) is named by its code points (u1f680,
    u21-21-21): two such tags never share a page, and the segment never changes."""
    text = "dot " + name[1:] if name.startswith(".") else name
    text = re.sub(r"[+#&@]", lambda m: _TAG_SYMBOLS[m.group()], text)
    spelled = name.strip()
    return slugify(text, default="") or (
        "u" + "-".join(f"{ord(c):x}" for c in spelled) if spelled else "tag")


@functools.lru_cache(maxsize=4096)
def tag_for(name: str) -> Tag:
    """A tag of that name (the same object for every post that has it: tags are few)."""
    slug = tag_slug(name)
    return Tag(name, slug, f"/tags/{slug}/", f"/tags/{slug}/feed.xml")


def _merge_tags(posts: list[Post]) -> tuple[dict[str, tuple[Tag, list[Post]]], list[Diagnostic]]:
    """Group posts by tag. Spellings that differ only in case are one tag (the most used
    spelling wins; a warning names them); other tags whose pages would share a URL are an
    error through the one registry of output paths."""
    diagnostics: list[Diagnostic] = []
    uses: dict[str, dict[str, list[Post]]] = {}  # casefolded name -> spelling -> posts
    for post in posts:
        for tag in post.tags:
            uses.setdefault(tag.name.casefold(), {}).setdefault(tag.name, []).append(post)
    canonical: dict[str, Tag] = {}
    claims = Claims()
    for key in sorted(uses):
        spellings = uses[key]
        name = min(spellings, key=lambda n: (-len(spellings[n]), n))
        tag = tag_for(name)
        if len(spellings) > 1:
            others = sorted(set(spellings) - {name})
            first = min(spellings[others[0]], key=lambda p: p.display)
            diagnostics.append(warning(
                first.display, 0,
                f"the tags {', '.join(repr(n) for n in [name, *others])} differ only in case: "
                f"they are one tag, shown as {name!r}; use one spelling everywhere"))
        owner = Owner(f"the tag {name!r} (of {min(p.display for p in spellings[name])})",
                      min(p.display for s in spellings.values() for p in s),
                      fix="their names differ only in symbols or spacing: spell them alike, "
                          "or rename one")
        if claims.claim(tag.url.lstrip("/") + "index.html", owner):
            for spelling in spellings:
                canonical[spelling] = tag
    diagnostics += claims.problems
    tags: dict[str, tuple[Tag, list[Post]]] = {}
    for post in posts:
        post.tags = tuple(dict.fromkeys(canonical[t.name] for t in post.tags
                                        if t.name in canonical))
        for tag in post.tags:
            tags.setdefault(tag.slug, (tag, []))[1].append(post)
    return dict(sorted(tags.items())), diagnostics


def assemble(
    results: Iterable[RenderResult],
    assets: Iterable[str],
    config: Config,
    *,
    drafts: bool = False,
    bodies: Bodies | None = None,
    images: dict[str, ImageInfo] | None = None,
    ranking: Ranking | None = None,
) -> tuple[Site, list[Diagnostic]]:
    """The site from render records (sorted, tagged, linked); `bodies` is where the posts'
    rendered bodies are read from when a template shows them; `ranking`, the related posts
    of the last build, reused when they rank alike. The posts' covers are the cover
    stage's (blogbuild.stages.covers)."""
    diagnostics: list[Diagnostic] = []
    posts: list[Post] = []
    pages: list[Post] = []
    by_url: dict[str, Post] = {}
    by_source: dict[str, Post] = {}
    bundles: dict[str, str] = {}
    for result in sorted(results, key=lambda r: r.job.rel):
        if not result.ok:
            continue
        assert result.meta is not None
        if result.meta.draft and not drafts:
            continue
        post = document_post(result, config, bodies, diagnostics)
        url, is_post = post.url, post.kind == "post"
        unsafe = unsafe_path(output_path(url))
        if unsafe is not None:
            diagnostics.append(error(
                result.job.display, 0,
                f"its URL {url!r} would lead outside the output folder ({unsafe}); change "
                "its 'slug' or site.yaml's 'permalink'"))
            continue
        if url in by_url:
            other = by_url[url]
            diagnostics.append(error(
                result.job.display, 0,
                f"two files want the URL {url}: {other.display} and {result.job.display}; "
                "give one of them another 'slug' in its front matter",
            ))
            continue
        if is_post and post.meta.date is None:
            diagnostics.append(warning(
                result.job.display, 0,
                "post has no date: add 'date:' to its front matter or start the file name "
                "with YYYY-MM-DD-",
            ))
        by_url[url] = post
        by_source[result.job.rel] = post
        (posts if is_post else pages).append(post)
        bundle = bundle_dir(result.job.rel)
        if bundle and is_post:
            bundles[bundle] = url

    posts.sort(key=lambda p: (instant(p.date) if p.date else 0.0, p.title), reverse=True)
    link(posts)
    tags, tag_problems = _merge_tags(posts)
    diagnostics += tag_problems
    years: dict[int, list[Post]] = defaultdict(list)
    for post in posts:
        if post.date:
            years[post.date.year].append(post)
    series, series_problems = group_series(posts)
    site = Site(
        posts=posts,
        pages=sorted(pages, key=lambda p: p.url),
        tags=tags,
        years=sorted(years.items(), reverse=True),
        assets=asset_urls(assets, bundles),
        images=dict(images or {}),
        series=series,
    )
    site.link_series()
    site.related = related_posts(posts) if ranking is None else ranking.rank(posts)
    site.link_series()
    return site, [*diagnostics, *series_problems]


def document_post(result: RenderResult, config: Config, bodies: Bodies | None,
                  diagnostics: list[Diagnostic]) -> Post:
    """The post or page of one good render record, not yet linked to others (its tags as
    written, no neighbours, series, related posts or cover)."""
    meta, rendered = result.meta, result.rendered
    assert meta is not None and rendered is not None
    is_post = result.job.kind == "post"
    slug = slug_for(result.job.rel, meta)
    url = document_url(config, result.job.rel, result.job.kind, meta)
    title = meta.title or rendered.title or fallback_title(slug)
    title_html = html_lib.escape(meta.title or title)
    if not meta.title and rendered.title and rendered.title_html:
        title_html = rendered.title_html
    cut = rendered.excerpt_html is not None  # the summary ends at <!--more-->
    description = meta.description or (rendered.summary if cut else None) \
        or rendered.subtitle or rendered.summary
    comments = is_post and _wants_comments(meta, config, result.job.display, diagnostics)
    return Post(
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
        digest=result.digest,
        body_id=_body_id(result.digest, rendered.resolved, rendered.wiki,
                         rendered.xrefs, rendered.inputs, rendered.images),
        bodies=bodies,
        toc=rendered.toc,
        needs=rendered.needs | {"comments"} if comments else rendered.needs,
        comments=comments,
        word_count=rendered.word_count,
        tags=tuple(tag_for(t) for t in meta.tags),
        excerpt_html=(rendered.excerpt_html or "") if meta.description is None else "",
    )


def _wants_comments(meta: PostMeta, config: Config, display: str,
                    diagnostics: list[Diagnostic]) -> bool:
    """Whether the post shows comments: its `comments:`, else the site's default. Without
    a `comments:` block in site.yaml none is shown, and a post's `comments: true` is told
    what to add."""
    if config.comments is None:
        if meta.comments:
            diagnostics.append(warning(
                display, meta.comments_line,
                "comments: true shows no comments, because site.yaml has no 'comments:' "
                f"block; add the giscus block there, {COMMENTS_EXAMPLE} (giscus.app shows "
                "the ids of your repository), or remove comments: true"))
        return False
    wanted = config.comments.enabled_by_default if meta.comments is None else meta.comments
    missing = missing_comment_keys(config.comments)
    if wanted and missing:  # only a post's own `comments: true` gets here (see config_checks)
        diagnostics.append(error(
            display, meta.comments_line,
            f"comments: true needs {missing[0]} in site.yaml (giscus.app shows the "
            f"repository's ids); add it there, or remove comments: true"))
        return False
    return wanted


def _body_id(digest: str, resolved: tuple[tuple[str, str | None], ...],
             wiki: tuple[tuple[str, str], ...], xrefs: tuple[tuple[str, str], ...],
             inputs: tuple[tuple[str, str], ...] = (),
             images: tuple[tuple[str, str | None], ...] = ()) -> str:
    """Names a body as pages show it: the render and what it looked up elsewhere (link
    targets, wiki names, other posts' labels, the .bib files it cites from, the pictures
    it shows)."""
    return hashlib.blake2b(repr((digest, resolved, wiki, xrefs, inputs, images)).encode(),
                           digest_size=16).hexdigest()
