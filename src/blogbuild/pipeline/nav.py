"""Links between posts beyond older/newer: series and related posts. Pure functions."""

from __future__ import annotations

from blogbuild.content.dates import instant
from blogbuild.content.models import Post, Series
from blogbuild.diagnostics import Diagnostic, warning
from blogbuild.urls import slugify

#: How many related posts a post shows.
RELATED = 3


def _newest_first(post: Post) -> tuple[float, str, str]:
    return (-instant(post.date) if post.date else 0.0, post.title, post.source)


def _reading_order(post: Post) -> tuple[bool, int, float, str, str]:
    """Parts with a `series_order` by it, then the others oldest first."""
    order = post.meta.series_order
    return (order is None, order or 0, instant(post.date) if post.date else 0.0,
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
    share with it, then newest first, then by title. Posts its page links already (its
    series, older and newer) are left out, as are drafts and posts that share no tag.

    Each tag is a bit set over the posts numbered in the tie order (Python ints, so the
    set operations run in C, a machine word per 64 posts). For a post with k tags,
    `at_least[c]` holds the posts that share c or more of them, made with k * k set
    operations; the best are the lowest bits of the highest levels."""
    ranked = sorted((p for p in posts if not p.meta.draft), key=_newest_first)
    masks: dict[str, int] = {}
    for i, post in enumerate(ranked):
        for tag in post.tags:
            masks[tag.slug] = masks.get(tag.slug, 0) | 1 << i
    bit = {post.source: 1 << i for i, post in enumerate(ranked)}
    related: dict[str, tuple[Post, ...]] = {}
    for post in posts:
        own = [post, post.previous, post.next, *(post.series.posts if post.series else ())]
        left_out = sum({bit.get(p.source, 0) for p in own if p is not None})
        best = _best(_levels([masks[t.slug] for t in post.tags if t.slug in masks]),
                     left_out, limit)
        if best:
            related[post.source] = tuple(ranked[i] for i in best)
    return related


def _levels(sets: list[int]) -> list[int]:
    """`at_least[c]`: the members of c or more of `sets` (`at_least[0]` is unused)."""
    at_least = [0] * (len(sets) + 1)
    for n, members in enumerate(sets, 1):
        for c in range(n, 1, -1):
            at_least[c] |= at_least[c - 1] & members
        at_least[1] |= members
    return at_least


def _best(at_least: list[int], left_out: int, limit: int) -> list[int]:
    """The numbers of up to `limit` posts, most shared tags first, then lowest number."""
    found: list[int] = []
    for level in reversed(at_least[1:]):
        level &= ~left_out
        while level and len(found) < limit:
            low = level & -level
            found.append(low.bit_length() - 1)
            level ^= low
            left_out |= low
        if len(found) == limit:
            break
    return found
