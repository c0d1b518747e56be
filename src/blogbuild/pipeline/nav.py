"""Links between posts beyond older/newer: series and related posts. Pure functions, and
the ranking of related posts that a build keeps for the next (`Ranking`)."""

from __future__ import annotations

import bisect
import operator

from blogbuild.content.dates import instant
from blogbuild.content.models import Post, Series
from blogbuild.diagnostics import Diagnostic, warning
from blogbuild.pipeline.deps import plain_fingerprint
from blogbuild.pipeline.state import Ranked, unranked
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


class Ranking:
    """The related posts of the last build, reused while what ranks them holds: every
    post's place in the order of `_newest_first`, its tags, whether it is a draft and the
    posts its page links already. An edit of a post's text keeps all of them, and ranking
    a thousand posts again is a third of the time assembling the site takes. `rank` ranks
    (or reuses) and keeps what it found for the next build (`kept`)."""

    __slots__ = ("kept",)

    def __init__(self, kept: Ranked | None = None) -> None:
        self.kept: Ranked = kept if kept is not None else unranked()

    def rank(self, posts: list[Post], limit: int = RELATED) -> dict[str, tuple[Post, ...]]:
        digest = self.digest(posts, limit)
        last_digest, last = self.kept
        if digest == last_digest:
            by_source = {post.source: post for post in posts}
            return {source: tuple([by_source[s] for s in others])
                    for source, others in last.items()}
        related = related_posts(posts, limit)
        self.kept = (digest, {source: tuple([p.source for p in others])
                              for source, others in related.items()})
        return related

    @staticmethod
    def digest(posts: list[Post], limit: int) -> bytes:
        """What the ranking of `posts` is made from, in their order (the order of the
        ranking's dict): what `_newest_first` reads (the date as written, with its time
        zone), whether a post is a draft, its tags and the posts its page links already."""
        plain = [(post.source, post.title, post.date.isoformat() if post.date else "",
                  post.meta.draft, tuple([t.slug for t in post.tags]),
                  tuple([p.source for p in _own(post) if p is not None]))
                 for post in posts]
        return plain_fingerprint((limit, plain))


def _own(post: Post) -> list[Post | None]:
    """The posts the page of `post` links already (and itself): never related to it."""
    return [post, post.previous, post.next, *(post.series.posts if post.series else ())]


def related_posts(posts: list[Post], limit: int = RELATED) -> dict[str, tuple[Post, ...]]:
    """For each post (by source), up to `limit` others ranked by the number of tags they
    share with it, then by closeness in date (between as close, the newer), then by
    title. Posts its page links already (its series, older and newer) are left out, as
    are drafts and posts that share no tag. Closeness keeps a post's list among posts of
    its time, and a new post joins the lists of the recent posts it shares tags with, not
    of every post that shares them (whose pages would all change).

    Each tag is a bit set over the posts numbered newest first (Python ints, so the set
    operations run in C, a machine word per 64 posts). For a post with k tags,
    `at_least[c]` holds the posts that share c or more of them, made with k * k set
    operations; the best of a level are its members nearest the post's own place in that
    order, on either side."""
    keys_of = {post.source: _newest_first(post) for post in posts}
    keyed = sorted(((keys_of[p.source], p) for p in posts if not p.meta.draft),
                   key=operator.itemgetter(0))
    keys = [key for key, _post in keyed]
    ranked = [post for _key, post in keyed]
    masks: dict[str, int] = {}
    for i, post in enumerate(ranked):
        for tag in post.tags:
            masks[tag.slug] = masks.get(tag.slug, 0) | 1 << i
    bit = {post.source: 1 << i for i, post in enumerate(ranked)}
    related: dict[str, tuple[Post, ...]] = {}
    for post in posts:
        left_out = sum({bit.get(p.source, 0) for p in _own(post) if p is not None})
        key = keys_of[post.source]
        best = _best(_levels([masks[t.slug] for t in post.tags if t.slug in masks]),
                     left_out, limit, bisect.bisect_left(keys, key), keys, -key[0])
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


def _best(at_least: list[int], left_out: int, limit: int, place: int,
          keys: list[tuple[float, str, str]], when: float) -> list[int]:
    """The numbers of up to `limit` posts, most shared tags first, then nearest `when` (a
    post at `place` in the order of `keys`, newest first): newer, then older, as close."""
    found: list[int] = []
    newer = (1 << place) - 1
    for level in reversed(at_least[1:]):
        level &= ~left_out
        if level:
            nearest = _nearest(level, limit - len(found), newer, keys, when)
            found += nearest
            left_out |= sum(1 << i for i in nearest)  # the levels below hold them too
        if len(found) == limit:
            break
    return found


def _nearest(members: int, count: int, newer: int, keys: list[tuple[float, str, str]],
             when: float) -> list[int]:
    """The `count` members (bits) nearest `when`, then newer, then by title. Each side of
    the post's place (`newer`: the bits of the posts before it) is walked outwards, nearer
    first, until it has `count` and the last time it took has no more members (posts of
    one time are in title order, which on the newer side is not the order of the walk);
    the best of both sides are the best of all."""
    picked: list[int] = []
    before = members & newer
    for side, walk_down in ((before, True), (members ^ before, False)):
        taken: list[int] = []
        while side:
            i = side.bit_length() - 1 if walk_down else (side & -side).bit_length() - 1
            if len(taken) >= count and keys[i][0] != keys[taken[-1]][0]:
                break
            taken.append(i)
            side ^= 1 << i
        picked += taken
    picked.sort(key=lambda i: (abs(-keys[i][0] - when), keys[i]))
    return picked[:count]
