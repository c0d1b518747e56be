"""What an output page read while it was templated, and fingerprints of those values.

A page is templated again only when something it read differs from the last build: an
attribute of a post, of the site (`site.posts`, …) or of the config. Reads are seen by
wrapping the two methods through which Jinja resolves every ``a.b`` and ``a['b']``.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import hashlib
import marshal
import sys
from collections.abc import Iterable, Mapping
from pathlib import PurePath
from typing import TYPE_CHECKING, Any

from blogbuild.config_model import Config
from blogbuild.content.models import Post, Site

if TYPE_CHECKING:
    import jinja2

#: Pseudo sources for reads of the site and of the config.
SITE = "<site>"
CONFIG = "<config>"
#: Post attributes whose value is the rendered body: their fingerprint is the render digest.
BODY_ATTRIBUTES = frozenset({"html", "feed_html"})

Dep = tuple[str, str]  # (post source, SITE or CONFIG; attribute name)
#: A page's reads, compact: (source, attributes) by source; equal attribute sets are shared.
Reads = tuple[tuple[str, frozenset[str]], ...]


class Tracker:
    """Records the (source, attribute) pairs templates read while one page renders."""

    def __init__(self) -> None:
        self._current: set[Dep] | None = None

    def install(self, env: jinja2.Environment) -> None:
        base_getattr, base_getitem = env.getattr, env.getitem

        kinds: dict[type, int] = {}  # what each type of object read is (`_kind`)

        def note(obj: Any, name: Any) -> None:
            current = self._current
            if current is None or type(name) is not str:
                return
            kind = kinds.get(type(obj))
            if kind is None:
                kind = kinds[type(obj)] = _kind(obj)
            if kind == _POST:
                current.add((obj.source, name))
            elif kind == _SITE:
                current.add((SITE, name))
            elif kind == _CONFIG:
                current.add((CONFIG, name))

        def getattr_(obj: Any, attribute: str) -> Any:
            note(obj, attribute)
            return base_getattr(obj, attribute)

        def getitem_(obj: Any, argument: Any) -> Any:
            note(obj, argument)
            return base_getitem(obj, argument)

        env.getattr = getattr_  # type: ignore[method-assign]
        env.getitem = getitem_  # type: ignore[method-assign]

    def start(self) -> None:
        self._current = set()

    def stop(self) -> frozenset[Dep]:
        deps = frozenset(self._current or ())
        self._current = None
        return deps

    def swap(self, reads: set[Dep] | None) -> set[Dep] | None:
        """Record into `reads` from now on; returns the reads recorded so far."""
        current, self._current = self._current, reads
        return current

    def extend(self, deps: Iterable[Dep]) -> None:
        """Count `deps` as read (what a part templated before read: blogbuild.pipeline.items)."""
        if self._current is not None:
            self._current.update(deps)


_OTHER, _POST, _SITE, _CONFIG = range(4)


def _kind(obj: Any) -> int:
    """Whether reads of `obj`'s attributes are recorded, and as whose (once per type: tens
    of thousands of reads per build)."""
    if isinstance(obj, Post):
        return _POST
    if isinstance(obj, Site):
        return _SITE
    if isinstance(obj, Config):
        return _CONFIG
    return _OTHER


_PLAIN = frozenset({str, int, float, bool, type(None), bytes})


def shape(value: Any) -> Any:
    """A plain, ordered picture of a value: posts by source, sets sorted, dataclasses by field.

    Equal shapes in two processes mean equal values as a template sees them; what the posts
    themselves say is covered by the reads recorded for them. (Tens of thousands of values
    per build: the usual kinds are told apart inline, before any call.)"""
    kind = type(value)
    if kind in _PLAIN:
        return value
    if kind is Post:
        return ("post", value.source)
    if kind is list or kind is tuple:
        return tuple([v if (k := type(v)) in _PLAIN else ("post", v.source) if k is Post
                      else shape(v) for v in value])
    fields = _FIELDS.get(kind)
    if fields is not None:  # a dataclass met before (tags, covers, entries of a TOC)
        return (kind.__name__, *[v if type(v := getattr(value, name)) in _PLAIN else shape(v)
                                 for name in fields])
    if isinstance(value, Mapping):
        return ("map", tuple([(k if type(k) in _PLAIN else shape(k),
                               v if type(v) in _PLAIN else shape(v))
                              for k, v in value.items()]))
    if isinstance(value, set | frozenset):
        return ("set", tuple(sorted([v if type(v) in _PLAIN else shape(v) for v in value],
                                    key=repr)))
    if isinstance(value, dt.date | dt.time | dt.timedelta | PurePath):
        return repr(value)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return (kind.__name__, *[shape(getattr(value, name)) for name in _fields(kind)])
    if isinstance(value, Post):
        return ("post", value.source)
    return (kind.__name__, repr(value))


_FIELDS: dict[type, tuple[str, ...]] = {}


def _fields(kind: type) -> tuple[str, ...]:
    found = _FIELDS.get(kind)
    if found is None:
        found = _FIELDS[kind] = tuple(f.name for f in dataclasses.fields(kind)
                                      if f.compare and f.name not in ("previous", "next"))
    return found


def fingerprint(value: Any) -> bytes:
    """A digest of the shape of `value`: equal for equal shapes, in any process."""
    return plain_fingerprint(shape(value))


def plain_fingerprint(plain: Any) -> bytes:
    """The digest of a shape, or of a value made only of what a shape is made of (tuples,
    lists, strings, bytes, numbers, booleans and None): `fingerprint` without the shaping."""
    return hashlib.blake2b(_serialized(plain), digest_size=16).digest()


def _serialized(plain: Any) -> bytes:
    """The bytes of a shape (a tree of tuples, strings, bytes, numbers, booleans and None),
    the same for equal shapes in any process: marshal's version 2, which writes no
    references to a part met before (those would depend on which parts are the same
    object) and no mark of interned strings; a third of the pickler's time."""
    return marshal.dumps(plain, 2)


def post_value(post: Post | None, attribute: str) -> bytes:
    """Fingerprint of what a template gets for ``post.<attribute>``."""
    if post is None:
        return b"missing"
    if attribute in BODY_ATTRIBUTES:
        return hashlib.blake2b(f"{attribute}:{post.body_id}".encode(), digest_size=16).digest()
    try:
        return fingerprint(getattr(post, attribute))
    except Exception:  # a template asked for something a post does not have
        return b"unreadable"


def post_fingerprint(post: Post) -> bytes:
    """Changes whenever any attribute a template could read of this post changes: all of
    them derive from the render (its digest) and the post's place in the site."""
    return fingerprint((post.body_id, post.kind, post.display, post.url, post.slug, post.title,
                        post.tags, post.previous, post.next, post.series, post.related,
                        post.cover))


def other_value(site: Site, config: Config, source: str, attribute: str) -> bytes:
    """Fingerprint of ``site.<attribute>`` or ``config.<attribute>``."""
    target: Any = site if source == SITE else config
    try:
        return fingerprint(getattr(target, attribute))
    except Exception:
        return b"unreadable"


def compact(deps: Iterable[Dep], shared: dict[frozenset[str], frozenset[str]]) -> Reads:
    """`deps` grouped by source; `shared` keeps one copy of each attribute set, so thousands
    of list pages that read the same attributes of their posts cost one set."""
    grouped: dict[str, set[str]] = {}
    for source, attribute in deps:
        grouped.setdefault(source, set()).add(attribute)
    out = []
    for source in sorted(grouped):
        attributes = frozenset(sys.intern(a) for a in grouped[source])
        out.append((sys.intern(source), shared.setdefault(attributes, attributes)))
    return tuple(out)


def share(reads: Reads, shared: dict[frozenset[str], frozenset[str]]) -> Reads:
    """`reads` (as a worker compacted them) with one copy of each attribute set, kept in
    `shared`, and the names interned: what comes back from thousands of pages costs
    little more than the sets they have in common."""
    return tuple([(sys.intern(source), shared.setdefault(attributes, attributes))
                  for source, attributes in reads])
