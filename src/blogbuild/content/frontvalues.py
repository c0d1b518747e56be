"""Typed reading of front matter values: each value checked against what its key takes,
every error naming the key and its line (blogbuild.content.frontmatter.parse_meta uses it)."""

from __future__ import annotations

import datetime as dt
from typing import TYPE_CHECKING

from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from blogbuild.content.dates import DATE_FORMAT_HINT, BadDate, parse_date
from blogbuild.diagnostics import ContentError
from blogbuild.yamlcore import BOOL, INT, STR, describe, is_null, text_of, to_python

if TYPE_CHECKING:
    from blogbuild.content.frontmatter import FrontMatter

Notes = tuple[tuple[int, str], ...]  # (line, warning)
_YAML11_BOOLS = {"yes", "no", "on", "off", "y", "n"}


def split_names(text: str) -> tuple[str, ...]:
    """A string of tags: split at commas when it has any, else at spaces."""
    parts = text.split(",") if "," in text else text.split()
    return tuple(t.strip() for t in parts if t.strip())


class FrontValues:
    """Typed reading of front matter values; every error names the key and its line."""

    def __init__(self, fm: FrontMatter, file: str) -> None:
        self.fm = fm
        self.file = file

    def line(self, node: Node) -> int:
        return self.fm.doc.line(node) if self.fm.doc is not None else 0

    def fail(self, message: str, node: Node) -> ContentError:
        return ContentError(message, file=self.file, line=self.line(node))

    def node(self, key: str) -> Node | None:
        node = self.fm.nodes.get(key)
        return None if node is None or (text_of(node) is None and is_null(node)) else node

    def string(self, key: str) -> str | None:
        """A text value as written: `title: 010` is "010", `slug: 1e3` is "1e3"."""
        node = self.node(key)
        if node is None:
            return None
        if not isinstance(node, ScalarNode):
            raise self.fail(f"'{key}' must be a string, not {describe(node)}; if the text holds "
                            "':' or starts with '[', '{' or '-', put it in quotes", node)
        return text_of(node)

    def boolean(self, key: str) -> bool:
        node = self.node(key)
        if node is None:
            return False
        if node.tag != BOOL:
            yaml11 = isinstance(node, ScalarNode) and str(node.value).lower() in _YAML11_BOOLS
            hint = " (only true and false are booleans in YAML 1.2)" if yaml11 else ""
            raise self.fail(f"'{key}' must be true or false, not {describe(node)}{hint}", node)
        return str(node.value).lower() == "true"

    def published(self) -> bool | dt.datetime | None:
        """Jekyll's `published: false` (a draft), or Hugo's `published: DATE` (its publish
        date: the post's date when it has no `date:`); None when absent."""
        node = self.node("published")
        if node is None:
            return None
        if isinstance(node, ScalarNode) and node.tag == STR:
            try:
                return parse_date(str(node.value))
            except BadDate:
                pass
        if node.tag != BOOL:
            yaml11 = isinstance(node, ScalarNode) and str(node.value).lower() in _YAML11_BOOLS
            hint = " (only true and false are booleans in YAML 1.2)" if yaml11 else ""
            raise self.fail(f"'published' must be true or false (false makes the post a "
                            f"draft), not {describe(node)}{hint}", node)
        return str(node.value).lower() == "true"

    def date(self, key: str) -> dt.datetime | None:
        node = self.node(key)
        if node is None:
            return None
        if not isinstance(node, ScalarNode):
            raise self.fail(f"'{key}' must be a date, not {describe(node)}; {DATE_FORMAT_HINT}",
                            node)
        try:
            return parse_date(str(node.value))
        except BadDate as exc:
            raise self.fail(f"'{key}' {exc}; {DATE_FORMAT_HINT}",
                            node) from None

    def names(self, key: str) -> tuple[str, ...]:
        """Tags or categories: a list, or a string split at commas (at spaces when it has
        none, as Jekyll does: `tags: python machine-learning` is two tags)."""
        node = self.node(key)
        if node is None:
            return ()
        hint = f'write {key}: [python, math] or {key}: "python, math"'
        if isinstance(node, ScalarNode):
            if node.tag != STR:
                raise self.fail(f"'{key}' must be a list of names or a comma-separated "
                                f"string, not {describe(node)}; {hint}", node)
            return split_names(str(node.value))
        if not isinstance(node, SequenceNode):
            raise self.fail(f"'{key}' must be a list of names, not {describe(node)}; {hint}",
                            node)
        names = []
        for item in node.value:
            if not isinstance(item, ScalarNode):
                what = "category" if key.startswith("categor") else "tag"
                raise self.fail(f"each {what} must be a name, not {describe(item)}; {hint}",
                                item)
            text = text_of(item)
            if text is not None and text.strip():
                names.append(text.strip())
        return tuple(names)

    def series(self) -> tuple[str | None, int | None, Notes]:
        """`series: Name`, Hugo's `series: [Name]`, or `series: {name: Name, part: 2}`; the
        place from `part`, else `series_order` (or `series_part`), else the date. Of a
        list of several series (Hugo allows it) the first counts, with a warning."""
        node, part = self.node("series"), None
        notes: Notes = ()
        hint = "write series: Name (and series_order: 2 to place the post yourself)"
        if isinstance(node, MappingNode):
            items = {str(k.value): v for k, v in node.value}
            node, part = items.get("name"), items.get("part")
            if node is None:
                raise self.fail(f"'series' needs a 'name:'; {hint}", self.fm.nodes["series"])
        elif isinstance(node, SequenceNode):
            if len(node.value) > 1:
                notes = ((self.line(node), f"a post is in one series: only the first of "
                          f"these {len(node.value)} is used"),)
            node = node.value[0] if node.value else None
        if node is not None and (not isinstance(node, ScalarNode) or node.tag == BOOL):
            raise self.fail(f"'series' must be a name, not {describe(node)}; {hint}", node)
        name = " ".join((text_of(node) or "").split()) if node is not None else ""
        part = part or self.node("series_order") or self.node("series_part")
        order = to_python(part, self.fm.doc) if part is not None and part.tag == INT \
            and self.fm.doc is not None else None
        if part is not None and (order is None or order < 1):
            raise self.fail(f"a post's place in its series must be a whole number from 1, "
                            f"not {describe(part)}", part)
        return name or None, order, notes

    def paths(self, key: str) -> list[tuple[str, Node]]:
        """The old URLs of `key` (one string or a list of them), each with its node."""
        node = self.node(key)
        if node is None:
            return []
        items = node.value if isinstance(node, SequenceNode) else [node]
        found: list[tuple[str, Node]] = []
        for item in items:
            if not isinstance(item, ScalarNode) or item.tag not in (STR, INT):
                raise self.fail(f"'{key}' must be a path or a list of paths (like "
                                f"/2019/05/old-name.html), not {describe(item)}", item)
            found.append((str(item.value), item))
        return found
