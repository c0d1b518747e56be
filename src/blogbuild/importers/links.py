"""References from one imported post to another post or to a file, mapped to their new homes.

Every source-specific rule first turns its own link syntax into a plain path as the source
site saw it (`{% post_url x %}` becomes `/_posts/x.md`); the rules here then find the file
that path names, inside the source folder only, and write the path it has after import: a
relative link to the other post's new `.md` file, a file name beside the post, or a
site-root path under /assets/.
"""

from __future__ import annotations

import os
import posixpath
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar
from urllib.parse import quote, unquote

from blogbuild.importers.model import Converted
from blogbuild.importers.scan import InlineRule, Outcome

T = TypeVar("T")
_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")
# Bounded repeats: a line of thousands of "[" is work in proportion to its length.
_TITLE = r"""(?:\s+(?:"(?:[^"\\]|\\.){0,1000}"|'(?:[^'\\]|\\.){0,1000}'|\([^)]{0,1000}\)))?"""
_LINK = re.compile(r"(!?\[(?:[^\[\]]|\[[^\[\]]{0,1000}\]){0,1000}\]\(\s*)"
                   r"(<[^<>\n]{0,2000}>|[^\s()<>]{1,2000})(" + _TITLE
                   + r"\s*\))")
_DEFINITION = re.compile(r"^(\s{0,3}\[[^\]]{1,1000}\]:\s*)(<[^<>\n]{0,2000}>|\S{1,2000})")
_ATTRIBUTE = re.compile(r"""(<[A-Za-z][^<>]{0,1000}?\s(?:src|href|poster)=)(["'])"""
                        r"""([^"'<>]{0,2000})\2""")


@dataclass
class Index:
    """What every post's references are looked up in (one per import)."""

    root: Path
    roots: list[Path]  # where "/x" is looked up, in order
    files: dict[str, Path]  # normalised absolute path -> file, for every non-post file
    posts: dict[str, Converted]  # normalised absolute path of the source -> its post
    old_urls: dict[str, Converted] = field(default_factory=dict)
    names: dict[str, Path] = field(default_factory=dict)  # Obsidian: lower-case name -> file
    placement: dict[Path, str] = field(default_factory=dict)  # file -> content-relative path
    final: bool = False  # False while the first pass only collects what posts use
    _tables: dict[str, Any] = field(default_factory=dict)

    def table(self, name: str, make: Callable[[], T]) -> T:
        """A lookup table the rules of every post share, made once (`make`) per import."""
        if name not in self._tables:
            self._tables[name] = make()
        found: T = self._tables[name]
        return found


class Resolver:
    """Finds and rewrites the references of one post."""

    def __init__(self, index: Index, post: Converted) -> None:
        self.index = index
        self.post = post

    def find(self, ref: str) -> Path | Converted | None:
        """The file or post a reference (a path, percent-encoded or not) names."""
        path = unquote(ref)
        if not path or "\x00" in path:
            return None
        if path.startswith("/"):
            found = self.index.old_urls.get(path) or self.index.old_urls.get(path + "/")
            if found is not None:
                return found
            bases = self.index.roots
        else:
            bases = [self.post.source.path.parent, self.index.root]
        for base in bases:
            hit = self._known(os.path.normpath(os.path.join(base, path.lstrip("/"))))
            if hit is not None:
                return hit
        if self.index.names:
            return self.index.names.get(posixpath.basename(path).lower())
        return None

    def _known(self, key: str) -> Path | Converted | None:
        posts = self.index.posts
        post = posts.get(key) or posts.get(key + ".md") or posts.get(key + "/index.md")
        if post is not None:
            return post
        # Another Markdown file (a page, a note left out) would become a page here: no.
        return None if key.lower().endswith((".md", ".markdown")) else self.index.files.get(key)

    def link_to(self, target: Converted) -> str:
        """A relative link from this post's new file to `target`'s new file."""
        if not self.index.final:
            return "post.md"
        here = posixpath.dirname(self.post.dest)
        return quote(posixpath.relpath(target.dest, here))

    def use(self, path: Path, kind: str = "body") -> str:
        """Record that this post uses the file `path`; the reference to write for it."""
        self.post.assets.setdefault(path, set()).add(kind)
        if not self.index.final:
            return "file"
        dest = self.index.placement[path]
        here = posixpath.dirname(self.post.dest)
        if kind == "body" and self.post.dest.endswith("/index.md") \
                and dest.startswith(here + "/"):
            return quote(dest[len(here) + 1:])
        return quote("/" + dest)

    def rewrite(self, url: str, line: int, outcome: Outcome) -> str | None:
        """The new form of a link or image target, or None to leave it (with a note if it
        points at a local file that was not found)."""
        bare = url[1:-1] if url.startswith("<") and url.endswith(">") else url
        if not bare or bare.startswith(("#", "//", "?")) or _SCHEME.match(bare):
            return None
        path, hash_, fragment = bare.partition("#")
        path = path.partition("?")[0]
        target = self.find(path)
        if isinstance(target, Converted):
            outcome.counts["link to a post"] += 1
            return self.link_to(target) + hash_ + fragment
        if target is not None:
            outcome.counts["file"] += 1
            return self.use(target) + hash_ + fragment
        outcome.note(line, f"the link target {bare} is neither an imported post nor a file "
                           "of the source; left as is (check it after the import)")
        return None


def target_rules(resolver: Resolver) -> list[InlineRule]:
    """Rules that rewrite the targets of Markdown links, images, definitions and HTML."""

    def link(match: re.Match[str], line: int, outcome: Outcome) -> str | None:
        new = resolver.rewrite(match[2], line, outcome)
        return None if new is None else match[1] + new + match[3]

    def attribute(match: re.Match[str], line: int, outcome: Outcome) -> str | None:
        new = resolver.rewrite(match[3], line, outcome)
        return None if new is None else f"{match[1]}{match[2]}{new}{match[2]}"

    return [InlineRule("", _LINK, link), InlineRule("", _DEFINITION, link),
            InlineRule("", _ATTRIBUTE, attribute)]
