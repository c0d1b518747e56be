"""Which post attributes each output page reads: the live server re-renders only what changed."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable
from typing import Any

import jinja2

from blogbuild.content.models import Post, Site

#: The pseudo source recorded when a template reads `site.<attribute>`.
SITE = "<site>"

Dep = tuple[str, str]  # (post source or SITE, attribute name)


class Tracker:
    """Records the (post, attribute) pairs a template reads while one page renders.

    Jinja compiles ``post.title`` and ``post['title']`` (also ``sort(attribute=…)``) into
    ``environment.getattr``/``getitem`` calls, so wrapping those two methods of one
    Environment sees every read a theme makes, whatever its templates look like.
    """

    def __init__(self) -> None:
        self._current: set[Dep] | None = None

    def install(self, env: jinja2.Environment) -> None:
        if getattr(env, "_blogbuild_tracker", None) is self:
            return
        base_getattr = env.getattr
        base_getitem = env.getitem

        def note(obj: Any, name: Any) -> None:
            current = self._current
            if current is None or not isinstance(name, str):
                return
            if isinstance(obj, Post):
                current.add((obj.source, name))
            elif isinstance(obj, Site):
                current.add((SITE, name))

        def getattr_(obj: Any, attribute: str) -> Any:
            note(obj, attribute)
            return base_getattr(obj, attribute)

        def getitem_(obj: Any, argument: Any) -> Any:
            note(obj, argument)
            return base_getitem(obj, argument)

        env.getattr = getattr_  # type: ignore[method-assign]
        env.getitem = getitem_  # type: ignore[method-assign]
        env._blogbuild_tracker = self  # type: ignore[attr-defined]

    def start(self) -> None:
        self._current = set()

    def stop(self) -> frozenset[Dep]:
        deps = frozenset(self._current or ())
        self._current = None
        return deps


def shape(value: Any) -> Any:
    """A comparable picture of a page context: posts by source, containers element-wise.

    Two plans give the same shape for a page when it lists the same posts in the same order
    with the same plain values; what the posts themselves say is checked through the deps.
    """
    if isinstance(value, Post):
        return ("post", value.source)
    if isinstance(value, list | tuple):
        return tuple(shape(v) for v in value)
    if isinstance(value, dict):
        return tuple((k, shape(v)) for k, v in value.items())
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return (type(value).__name__, *(shape(getattr(value, f.name))
                                        for f in dataclasses.fields(value)))
    return value


def same(a: Any, b: Any) -> bool:
    """Equal as a template would see it; posts compare by identity of their source."""
    try:
        return bool(shape(a) == shape(b))
    except Exception:  # an exotic value that cannot compare: assume it changed
        return False


_MISSING = object()


def attribute_changed(old: Post | None, new: Post | None, name: str) -> bool:
    if old is None or new is None:
        return old is not new
    try:
        before = getattr(old, name, _MISSING)
        after = getattr(new, name, _MISSING)
    except Exception:
        return True
    return not same(before, after)


class DepIndex:
    """Per output page: the deps recorded at its last render, and a reverse index by source."""

    def __init__(self) -> None:
        self.deps: dict[str, frozenset[Dep]] = {}
        self.by_source: dict[str, set[str]] = {}

    def record(self, path: str, deps: frozenset[Dep]) -> None:
        self.forget(path)
        self.deps[path] = deps
        for source, _ in deps:
            self.by_source.setdefault(source, set()).add(path)

    def forget(self, path: str) -> None:
        for source, _ in self.deps.pop(path, frozenset()):
            paths = self.by_source.get(source)
            if paths is not None:
                paths.discard(path)

    def affected(self, changed: dict[str, tuple[Post | None, Post | None]],
                 site_changed: bool) -> set[str]:
        """Paths of pages that read an attribute whose value differs between old and new."""
        out: set[str] = set()
        for source, (old, new) in changed.items():
            for path in self.by_source.get(source, ()):
                if path in out:
                    continue
                if any(src == source and attribute_changed(old, new, name)
                       for src, name in self.deps.get(path, ())):
                    out.add(path)
        if site_changed:
            out.update(self.by_source.get(SITE, ()))
        return out

    def sources_pages(self, sources: Iterable[str]) -> set[str]:
        """Pages that read anything of these sources."""
        return {path for source in sources for path in self.by_source.get(source, ())}
