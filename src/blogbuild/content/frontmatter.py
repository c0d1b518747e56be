"""Front matter: YAML between `---` lines at the top of a file → validated metadata."""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass, field
from typing import Any

from yaml.nodes import MappingNode, Node

from blogbuild.content.dates import BadDate, date_in_name, parse_date
from blogbuild.content.frontvalues import FrontValues, Notes, split_names
from blogbuild.content.redirects import BadRedirect, redirect_path
from blogbuild.diagnostics import ContentError
from blogbuild.urls import is_allowed_url, scheme_of, url_problem
from blogbuild.yamlcore import (
    Document,
    compose,
    describe,
    safe_load,
    to_python,
)

DATE_IN_NAME = re.compile(r"^(\d{4})-(\d{2})-(\d{2})[-_]?(.*)$")
_CLOSING = re.compile(r"^(?:---|\.\.\.)[ \t]*$", re.MULTILINE)
_TOML_CLOSING = re.compile(r"^\+\+\+[ \t]*$", re.MULTILINE)
#: Jekyll's permalink placeholders (`/:year/:title/`): a pattern, not a path.
_PLACEHOLDER = re.compile(r"(?:^|/):[a-z_]+")
#: Longer front matter is refused: it is metadata, and YAML this long is a mistake (a missing
#: closing line far down a big file) or an attempt to make the build slow.
MAX_FRONT_MATTER = 100_000


@dataclass(frozen=True)
class FrontMatter:
    """A document's front matter as plain data and as written, and its body."""

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


def quick_front_matter(text: str) -> tuple[dict[str, Any], str]:
    """The front matter's data and text, read quickly (libyaml's loader, bounded as the
    full reading is: an alias bomb in `tags:` is refused before anything walks it): the
    front matter of 1,000 posts in tens of milliseconds, where `split_front_matter` keeps
    every node's line. A hint: the render reads it again the full way, and the build
    checks that the two agree. Raises ValueError, yaml.YAMLError, RecursionError."""
    text = text.removeprefix("\ufeff")
    first, sep, rest = text.partition("\n")
    if first.rstrip() != "---" or not sep:
        return {}, ""
    end = _CLOSING.search(rest)
    if end is None:
        raise ValueError("no closing ---")
    data = safe_load(rest[: end.start()]) or {}
    if not isinstance(data, dict):
        raise ValueError("not a mapping")
    return {str(k): v for k, v in data.items()}, text[: len(first) + 1 + end.end()]


Aliases = tuple[tuple[str, int], ...]  # (site-root path, line in the file)


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
    comments: bool | None  # None: not in the front matter (the site's default applies)
    extra: dict[str, Any] = field(default_factory=dict)
    #: Old URLs of the post as site-root paths (`/old/post/`, `/2019/05/x.html`): each
    #: gets a page that redirects to the post (see blogbuild.content.redirects).
    aliases: Aliases = ()
    #: Warnings about the front matter: (line, message).
    notes: Notes = ()
    #: The series the post is a part of, and its place there when not by date.
    series: str | None = None
    series_order: int | None = None
    image_alt: str | None = None  # what the cover image shows; None: it is decorative
    #: Lines of the keys a later stage may warn about (`image`, `series`, `series_order`).
    lines: tuple[tuple[str, int], ...] = ()

    def line_of(self, key: str) -> int:
        return dict(self.lines).get(key, 0)
    comments_line: int = 0  # where `comments:` is written (messages point there)
    #: The line of `title:` (0: the title is not in the front matter).
    title_line: int = 0


KNOWN = {"title", "date", "updated", "author", "description", "tags", "draft", "slug",
         "image", "math", "comments"}


def parse_meta(fm: FrontMatter, file: str, file_name: str) -> PostMeta:
    """Validate front matter values (`file_name`: the file's stem, which may hold the date).

    Keys Jekyll and Hugo write stand in for ours when ours is absent: `published`,
    `publishDate` and `pubdate` for `date`, `lastmod` and `last_modified_at` for `updated`,
    `summary` and `excerpt` for `description`; `published: false` makes a draft, and
    categories are tags too. They stay in `extra` as well, where templates found them."""
    read = FrontValues(fm, file)
    published = read.published()
    date = read.date("date") or _first_date(read, "publishDate", "pubdate") or (
        published if isinstance(published, dt.datetime) else None)
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
    problem = url_problem(image) if image is not None else None
    if problem is not None:
        raise read.fail(f"'image' is not a URL that can be read, {image!r}: {problem}",
                        fm.nodes["image"])
    names = [*read.names("tags"), *read.names("tag"), *read.names("categories"),
             *read.names("category")]
    aliases, notes = _redirects(read)
    series, series_order, series_notes = read.series()
    lines = tuple((key, read.line(fm.nodes[key])) for key in ("image", "series", "series_order",
                                                               "series_part") if key in fm.nodes)
    comments_node = read.node("comments")
    return PostMeta(
        title=read.string("title"),
        date=date,
        updated=read.date("updated") or _first_date(read, "lastmod", "last_modified_at"),
        author=read.string("author"),
        description=_first_string(read, "description", "summary", "excerpt"),
        tags=tuple(dict.fromkeys(names)),
        draft=read.boolean("draft") or published is False,
        slug=slug,
        image=image,
        math=read.boolean("math"),
        comments=read.boolean("comments") if comments_node is not None else None,
        comments_line=read.line(comments_node) if comments_node is not None else 0,
        extra={k: v for k, v in fm.data.items() if k not in KNOWN},
        aliases=aliases,
        notes=notes + series_notes,
        series=series,
        series_order=series_order,
        image_alt=read.string("image_alt"),
        lines=lines,
        title_line=read.line(fm.nodes["title"]) if "title" in fm.nodes else 0,
    )


def meta_hint(front: dict[str, Any], file_name: str) -> PostMeta:
    """The fields that place a document (slug, date, draft, tags) from the quick reading
    (`quick_front_matter`); `parse_meta` of the full reading is the truth, and the build
    compares the two."""
    slug = front.get("slug")
    published = front.get("published")
    when = front.get("date") or front.get("publishDate") or front.get("pubdate") or (
        published if not isinstance(published, bool) else None)
    date: dt.datetime | None
    if isinstance(when, dt.datetime):
        date = when
    elif isinstance(when, dt.date):
        date = dt.datetime(when.year, when.month, when.day)
    elif isinstance(when, str):
        date = parse_date(when)
    else:
        match = DATE_IN_NAME.match(file_name)
        date = date_in_name(match[1], match[2], match[3]) if match else None
    hinted: list[str] = []
    for key in ("tags", "tag", "categories", "category"):
        names = front.get(key)
        if isinstance(names, str):
            hinted += split_names(names)
        elif isinstance(names, list):
            hinted += [str(t) for t in names]
    title = front.get("title")
    return PostMeta(
        title=title if isinstance(title, str) else None, date=date, updated=None,
        author=None, description=None, tags=tuple(dict.fromkeys(hinted)),
        draft=front.get("draft") is True or published is False,
        slug=str(slug) if slug is not None else None,
        image=None, math=False, comments=False)


def _first_date(read: FrontValues, *keys: str) -> dt.datetime | None:
    for key in keys:
        found = read.date(key)
        if found is not None:
            return found
    return None


def _first_string(read: FrontValues, *keys: str) -> str | None:
    for key in keys:
        found = read.string(key)
        if found is not None:
            return found
    return None


def _redirects(read: FrontValues) -> tuple[Aliases, Notes]:
    """The post's old URLs (`aliases`, `redirect_from`, and a Jekyll `permalink` or Hugo
    `url`, which name where the post lived), and warnings about what is not read."""
    found: dict[str, int] = {}  # path -> line
    notes: list[tuple[int, str]] = []
    for key in ("aliases", "redirect_from", "permalink", "url"):
        own = key in ("permalink", "url")  # where the post lived: a redirect if it can be
        for text, node in read.paths(key):
            if own and text.strip() == "/":  # a home page: it still is one
                continue
            if own and _PLACEHOLDER.search(text):
                notes.append((read.line(node), f"'{key}: {text}' has placeholders, which "
                              "are not read; the post's URL comes from its slug and "
                              "site.yaml's 'permalink' (list the old URL in 'aliases' to "
                              "keep it working)"))
                continue
            try:
                found.setdefault(redirect_path(text), read.line(node))
            except BadRedirect as exc:
                if not own:
                    raise read.fail(f"'{key}' {exc}", node) from None
                notes.append((read.line(node), f"'{key}' {exc}; it is not made a redirect "
                              "to this page"))
    target = read.node("redirect_to")
    if target is not None:
        notes.append((read.line(target), "'redirect_to' is not supported: this page is built "
                      "as usual; to send its readers elsewhere, list its URL in the 'aliases' "
                      "of the post it moved to and delete this file"))
    return tuple(found.items()), tuple(notes)


def slug_from_filename(stem: str) -> str:
    match = DATE_IN_NAME.match(stem)
    if match and match[4]:
        stem = match[4]
    return stem
