"""List items: a post's entry in the lists of posts, templated once and shown on every list.

The front page's pages, the tag pages and the series pages show the same entry for a
post, and a new post moves every entry of every list page by one place without changing
one. So an entry is templated on its own, from `partials/post_item.html` (`list_item(post)`
in a template), seeing the post and the site's globals and nothing of the page it lands
on; the reads it made are recorded with it, and a page that shows it adds them to its own
(blogbuild.pipeline.deps), so that the page is templated again when any of them changes.

A build keeps the entries in its state. The next build shows one as it is while the item
template, what it includes and the globals are the same (`key`), the values it read of the
site and the config are the same, and its post has the same fingerprint
(`deps.post_fingerprint`: it changes with anything a template could read of the post) or,
when the post changed, the values the entry read of it are the same (a new post changes
the older and newer links and the related posts of its neighbours, which no entry shows).
Within one run of templating, an entry made for one page is shown on the others.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable
from typing import Any, NamedTuple

from blogbuild.pipeline.deps import CONFIG, SITE, Dep, Reads, compact
from blogbuild.themefiles import FEED_ENTRY_FUNCTION, ITEM_FUNCTION

#: Where the state keeps the entries each template function made.
STATE_FIELDS = {ITEM_FUNCTION: "items", FEED_ENTRY_FUNCTION: "feed_items"}


class ListItem(NamedTuple):
    """An entry as the state keeps it."""

    html: str
    reads: Reads  # what templating it read, by source
    key: bytes  # the item template's closure and the globals, as it was templated with
    post: bytes  # its post's fingerprint then
    others: tuple[tuple[Dep, bytes], ...]  # the values of the site and config it read
    values: bytes  # a fingerprint of the values of all it read


#: An entry made in this run: its HTML and its reads.
Made = tuple[str, frozenset[Dep]]


class Items:
    """The entries a run of templating may show: the last build's that still hold (`known`,
    checked against this build's post fingerprints `prints` and `values`), and those made
    in this run, handed back with the pages (`take`) for the state. Sent to a worker
    process (a clean build, or hundreds of pages), it goes without the last build's
    entries, and the worker shows its own and hands none back: thousands of entries, each
    from both workers, would be held by the build's process at once (a clean build of
    5,000 posts peaked 22 MiB higher). The next build that templates a list makes them.
    `known` may be a function that loads them, called when the first entry is asked for."""

    def __init__(self, known: dict[str, ListItem] | Callable[[], dict[str, ListItem]]
                 | None = None, key: bytes = b"",
                 prints: dict[str, bytes] | None = None,
                 values: Callable[[Dep], bytes] | None = None, *,
                 hand_back: bool = True) -> None:
        self._load = known if callable(known) else None
        self.known = {} if callable(known) or known is None else known
        self.key = key
        self.prints = prints or {}
        self.values = values
        self.hand_back = hand_back
        self.made: dict[str, Made] = {}
        self._new: list[tuple[str, Made]] = []

    def __reduce__(self) -> tuple[Any, ...]:
        return (_in_worker, ())

    def get(self, source: str) -> Made | None:
        found = self.made.get(source)
        if found is not None:
            return found
        if self._load is not None:
            self.known, self._load = self._load(), None
        item = self.known.get(source)
        values = self.values
        if item is None or item.key != self.key or values is None \
                or any(values(dep) != value for dep, value in item.others):
            return None
        deps = frozenset((source_, attribute) for source_, attributes in item.reads
                         for attribute in attributes)
        found = self.made[source] = (item.html, deps)
        if self.prints.get(source) != item.post:  # the post changed: did what it showed?
            if values_print(deps, values) != item.values:
                del self.made[source]
                return None
            if self.hand_back:
                self._new.append((source, found))  # kept with the post's new fingerprint
        return found

    def add(self, source: str, made: Made) -> None:
        self.made[source] = made
        if self.hand_back:
            self._new.append((source, made))

    def take(self) -> tuple[tuple[str, Made], ...]:
        """The entries made since the last call (those the state does not have yet)."""
        new, self._new = tuple(self._new), []
        return new


def _in_worker() -> Items:
    return Items(hand_back=False)


def next_items(last: dict[str, ListItem], made: Iterable[tuple[str, Made]], key: bytes,
               prints: dict[str, bytes], values: Callable[[Dep], bytes],
               shared: dict[frozenset[str], frozenset[str]]) -> dict[str, ListItem]:
    """The entries for the next build: those made, and the last build's of the posts still
    there (one whose post changed since is checked when it is asked for, and made again:
    dropping it would only write its shard of the state again)."""
    items = {source: item for source, item in last.items()
             if item.key == key and source in prints}
    for source, (html, deps) in made:
        if source not in prints:
            continue
        others = tuple(sorted((dep, values(dep)) for dep in deps if dep[0] in (SITE, CONFIG)))
        items[source] = ListItem(html, compact(deps, shared), key, prints[source], others,
                                 values_print(deps, values))
    return items


def values_print(deps: Iterable[Dep], values: Callable[[Dep], bytes]) -> bytes:
    """A fingerprint of the values of `deps`, as they are in this build."""
    return hashlib.blake2b(b"".join(values(dep) for dep in sorted(deps)),
                           digest_size=16).digest()
