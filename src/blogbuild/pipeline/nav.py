"""Links between posts beyond older/newer: series and related posts. Pure functions."""

from __future__ import annotations

from collections import Counter
from heapq import nlargest
from itertools import chain
from operator import itemgetter

from blogbuild.content.models import Post, Series
from blogbuild.diagnostics import Diagnostic, warning
from blogbuild.urls import slugify

#: How many related posts a post shows.
RELATED = 3


def _newest_first(post: Post) -> tuple[float, str, str]:
    return (-post.date.timestamp() if post.date else 0.0, post.title, post.source)


def _reading_order(post: Post) -> tuple[bool, int, float, str, str]:
    """Parts with a `series_order` by it, then the others oldest first."""
    order = post.meta.series_order
    return (order is None, order or 0, post.date.timestamp() if post.date else 0.0,
            post.title, post.source)


def _order_line(post: Post) -> int:
    meta = post.meta
    return meta.line_of("series_order") or meta.line_of("series_part") \
        or meta.line_of("series")


def group_series(posts: list[Post]) -> tuple[dict[str, Series], list[Diagnostic]]:
    """The series by slug (names that differ only in case or symbols are one series, named
    as its first part names it), and warnings: two parts with one place, a series of one."""
    found: dict[str, list[Post]] = {}
    for post in posts:
        if post.meta.series:
            found.setdefault(slugify(post.meta.series, default="series"), []).append(post)
    series: dict[str, Series] = {}
    diagnostics: list[Diagnostic] = []
    for slug in sorted(found):
        parts = tuple(sorted(found[slug], key=_reading_order))
        name = parts[0].meta.series or slug
        series[slug] = Series(name, slug, parts)
        if len(parts) == 1:
            diagnostics.append(warning(
                parts[0].display, parts[0].meta.line_of("series"),
                f"the series {name!r} has only this post, so no series box is shown; add "
                "'series:' to its other parts (drafts are left out) or remove it here"))
        placed: dict[int, Post] = {}
        for post in parts:
            order = post.meta.series_order
            if order is None:
                continue
            if order in placed:
                diagnostics.append(warning(
                    post.display, _order_line(post),
                    f"part {order} of the series {name!r} is also "
                    f"{placed[order].display}; give each part its own number"))
            placed.setdefault(order, post)
    return series, diagnostics


def related_posts(posts: list[Post], limit: int = RELATED) -> dict[str, tuple[Post, ...]]:
    """For each post (by source), up to `limit` others ranked by the number of tags they
    share with it, then newest first, then by title. Drafts and parts of the post's own
    series (its series box lists them) are left out; so are posts that share no tag.

    Posts are numbered in the tie order and indexed by tag, so a post's candidates are
    counted by `Counter` and ranked by `nlargest` (both stable, both in C): the work grows
    with the posts that share a tag, not with every pair of posts."""
    ranked = sorted((p for p in posts if not p.meta.draft), key=_newest_first)
    by_tag: dict[str, list[int]] = {}
    for i, post in enumerate(ranked):
        for tag in post.tags:
            by_tag.setdefault(tag.slug, []).append(i)
    index = {post.source: i for i, post in enumerate(ranked)}
    related: dict[str, tuple[Post, ...]] = {}
    for post in posts:
        if not post.tags:
            continue
        counts = Counter(chain.from_iterable(by_tag.get(t.slug, ()) for t in post.tags))
        own = [post] if post.series is None else post.series.posts
        for other in own:
            counts.pop(index.get(other.source, -1), None)
        if counts:
            best = nlargest(limit, sorted(counts.items()), key=itemgetter(1))
            related[post.source] = tuple(ranked[i] for i, _ in best)
    return related
