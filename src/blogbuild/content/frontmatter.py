"""Front matter: YAML between `---` lines at the top of a file → validated metadata."""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass, field
from typing import Any

from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from blogbuild.content.dates import DATE_FORMAT_HINT, BadDate, date_in_name, parse_date
from blogbuild.diagnostics import ContentError
from blogbuild.urls import is_allowed_url, scheme_of
from blogbuild.yamlcore import BOOL, STR, Document, compose, describe, is_null, text_of, to_python

DATE_IN_NAME = re.compile(r"^(\d{4})-(\d{2})-(\d{2})[-_]?(.*)$")
_CLOSING = re.compile(r"^(?:---|\.\.\.)[ \t]*$", re.MULTILINE)
_TOML_CLOSING = re.compile(r"^\+\+\+[ \t]*$", re.MULTILINE)
_YAML11_BOOLS = {"yes", "no", "on", "off", "y", "n"}
#: Longer front matter is refused: it is metadata, and YAML this long is a mistake (a missing
#: closing line far down a big file) or an attempt to make the build slow.
MAX_FRONT_MATTER = 100_000


@dataclass(frozen=True)
class FrontMatter:
    data: dict[str, Any]  # every value as plain data (YAML 1.2 core schema)
    body: str
    body_line_offset: int  # lines above the body (delimiters included)
    nodes: dict[str, Node] = field(default_factory=dict)  # key -> its value as written
    doc: Document | None = None  # for the line of a node


def split_front_matter(text: str, file: str) -> FrontMatter:
    """Split `text` ("\\n" line ends) into YAML data and the Markdown body; errors have lines."""
    if text.startswith("\ufeff"):
        text = text[1:]
    first, _, rest = text.partition("\n")
    if first.rstrip() == "+++":
        raise ContentError(
            "this front matter is TOML (between '+++' lines, as Hugo writes it); blogbuild "
            "reads YAML: change both '+++' lines to '---' and each 'key = value' to "
            "'key: value'" + ("" if _TOML_CLOSING.search(rest) else
                              ", and close it with a '---' line"), file=file, line=1)
    if first.rstrip() != "---":
        return FrontMatter({}, text, 0)
    closing = _CLOSING.search(rest, 0, MAX_FRONT_MATTER + 1)
    if closing is None and len(rest) > MAX_FRONT_MATTER:
        raise ContentError(
            f"the front matter is longer than {MAX_FRONT_MATTER:,} characters (or has no "
            "closing '---' line); close it with '---' and move long text into the body",
            file=file, line=1)
    if closing is None:
        raise ContentError(
            "the front matter opened with '---' on line 1 has no closing '---' line; add one "
            "after the last key (for a horizontal rule at the top of the body, put a blank "
            "line before it)", file=file, line=1)
    yaml_text = rest[: closing.start()]
    body = rest[closing.end():].removeprefix("\n")
    offset = yaml_text.count("\n") + 2
    doc = compose(yaml_text, file, ContentError, first_line=2)
    if doc.root is None:
        return FrontMatter({}, body, offset, {}, doc)
    if not isinstance(doc.root, MappingNode):
        raise doc.fail(f"front matter must be 'key: value' lines, not {describe(doc.root)}",
                       doc.root)
    nodes = {str(key.value): value for key, value in doc.root.value}
    data = {key: to_python(value, doc) for key, value in nodes.items()}
    return FrontMatter(data, body, offset, nodes, doc)


@dataclass(frozen=True)
class PostMeta:
    """Validated metadata of a post or page (what front matter and the file name say)."""

    title: str | None
    date: dt.datetime | None
    updated: dt.datetime | None
    author: str | None
    description: str | None
    tags: tuple[str, ...]
    draft: bool
    slug: str | None
    image: str | None
    math: bool
    comments: bool
    extra: dict[str, Any] = field(default_factory=dict)


KNOWN = {"title", "date", "updated", "author", "description", "tags", "draft", "slug",
         "image", "math", "comments"}


class _Reader:
    """Typed reading of front matter values; every error names the key and its line."""

    def __init__(self, fm: FrontMatter, file: str) -> None:
        self.fm = fm
        self.file = file

    def fail(self, message: str, node: Node) -> ContentError:
        line = self.fm.doc.line(node) if self.fm.doc is not None else 0
        return ContentError(message, file=self.file, line=line)

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

    def tags(self) -> tuple[str, ...]:
        node = self.node("tags")
        if node is None:
            return ()
        hint = 'write tags: [python, math] or tags: "python, math"'
        if isinstance(node, ScalarNode):
            if node.tag != STR:
                raise self.fail(f"'tags' must be a list of names or a comma-separated string, "
                                f"not {describe(node)}; {hint}", node)
            return tuple(t.strip() for t in str(node.value).split(",") if t.strip())
        if not isinstance(node, SequenceNode):
            raise self.fail(f"'tags' must be a list of names, not {describe(node)}; {hint}",
                            node)
        names = []
        for item in node.value:
            if not isinstance(item, ScalarNode):
                raise self.fail(f"each tag must be a name, not {describe(item)}; {hint}", item)
            text = text_of(item)
            if text is not None and text.strip():
                names.append(text.strip())
        return tuple(names)


def parse_meta(fm: FrontMatter, file: str, file_name: str) -> PostMeta:
    """Validate front matter values (`file_name`: the file's stem, which may hold the date)."""
    read = _Reader(fm, file)
    date = read.date("date")
    match = DATE_IN_NAME.match(file_name)
    if date is None and match:
        try:
            date = date_in_name(match[1], match[2], match[3])
        except BadDate as exc:
            raise ContentError(
                f"the date the file name starts with {exc}; rename the file or "
                "set 'date:' in the front matter", file=file) from None
    slug = read.string("slug")
    if slug is not None and (not re.fullmatch(r"[\w.~-]+(/[\w.~-]+)*", slug)
                             or any(part.strip(".") == "" for part in slug.split("/"))):
        node = fm.nodes["slug"]
        raise read.fail(f"'slug' may hold only letters, digits, '-', '_', '.', '~' and '/' "
                        f"between parts (no part only of dots), not {slug!r}", node)
    image = read.string("image")
    if image is not None and not is_allowed_url(image):
        raise read.fail(f"'image' must be a path or an http(s) URL, not {image!r} (a "
                        f"'{scheme_of(image)}:' URL is not allowed in a page's metadata)",
                        fm.nodes["image"])
    return PostMeta(
        title=read.string("title"),
        date=date,
        updated=read.date("updated"),
        author=read.string("author"),
        description=read.string("description"),
        tags=tuple(dict.fromkeys(read.tags())),
        draft=read.boolean("draft"),
        slug=slug,
        image=image,
        math=read.boolean("math"),
        comments=read.boolean("comments"),
        extra={k: v for k, v in fm.data.items() if k not in KNOWN},
    )


def slug_from_filename(stem: str) -> str:
    match = DATE_IN_NAME.match(stem)
    if match and match[4]:
        stem = match[4]
    return stem
