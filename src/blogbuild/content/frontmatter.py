"""Front matter: YAML between `---` lines at the top of a file → validated metadata."""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass, field
from typing import Any

import yaml

from blogbuild.diagnostics import ContentError
from blogbuild.urls import is_allowed_url, scheme_of

_DATE_IN_NAME = re.compile(r"^(\d{4})-(\d{2})-(\d{2})[-_]?(.*)$")


@dataclass(frozen=True)
class FrontMatter:
    data: dict[str, Any]
    body: str
    body_line_offset: int  # lines above the body (delimiters included)


def split_front_matter(text: str, file: str) -> FrontMatter:
    """Split `text` into YAML data and the Markdown body; errors name file and line."""
    if text.startswith("\ufeff"):
        text = text[1:]
    first, sep, rest = text.partition("\n")
    if first.rstrip() != "---" or not sep:
        return FrontMatter({}, text, 0)
    lines = rest.split("\n")
    for i, text_line in enumerate(lines):
        if text_line.rstrip() in ("---", "..."):
            yaml_text = "\n".join(lines[:i])
            body = "\n".join(lines[i + 1:])
            offset = i + 2
            break
    else:
        raise ContentError("front matter starts with '---' but has no closing '---'", file=file,
                           line=1)
    try:
        data = yaml.safe_load(yaml_text) if yaml_text.strip() else {}
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = mark.line + 2 if mark is not None else 1
        problem = getattr(exc, "problem", None) or "cannot parse"
        raise ContentError(f"invalid YAML in front matter: {problem}", file=file,
                           line=line) from None
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise ContentError("front matter must be a mapping of keys to values", file=file, line=2)
    return FrontMatter({str(k): v for k, v in data.items()}, body, offset)


def key_line(yaml_text_lines: list[str], key: str) -> int:
    for i, line in enumerate(yaml_text_lines):
        if re.match(rf"^{re.escape(key)}\s*:", line):
            return i + 2
    return 1


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


def _to_datetime(value: Any, key: str, file: str, line: int) -> dt.datetime:
    if isinstance(value, dt.datetime):
        return value
    if isinstance(value, dt.date):
        return dt.datetime(value.year, value.month, value.day)
    if isinstance(value, str):
        try:
            return dt.datetime.fromisoformat(value.strip().replace("Z", "+00:00"))
        except ValueError:
            pass
    raise ContentError(
        f"'{key}' is not a date: {value!r} (write it as 2024-12-17 or 2024-12-17T09:30:00+01:00)",
        file=file, line=line,
    )


def parse_meta(data: dict[str, Any], file: str, file_name: str, text: str) -> PostMeta:
    """Validate front matter values; `text` is the raw file text (for key line numbers)."""
    yaml_lines = text.split("\n")[1:]

    def line(key: str) -> int:
        return key_line(yaml_lines, key)

    def string(key: str) -> str | None:
        value = data.get(key)
        if value is None:
            return None
        if isinstance(value, bool) or not isinstance(value, str | int | float):
            raise ContentError(f"'{key}' must be a string, not {value!r}", file=file,
                               line=line(key))
        return str(value)

    def boolean(key: str, default: bool = False) -> bool:
        value = data.get(key, default)
        if not isinstance(value, bool):
            raise ContentError(f"'{key}' must be true or false, not {value!r}", file=file,
                               line=line(key))
        return value

    title = data.get("title")
    if title is not None and not isinstance(title, str):
        raise ContentError(f"'title' must be a string, not {title!r} (quote it)", file=file,
                           line=line("title"))
    date = None
    if data.get("date") is not None:
        date = _to_datetime(data["date"], "date", file, line("date"))
    else:
        match = _DATE_IN_NAME.match(file_name)
        if match:
            try:
                date = dt.datetime(int(match[1]), int(match[2]), int(match[3]))
            except ValueError:
                raise ContentError(f"the file name starts with an invalid date: {file_name}",
                                   file=file) from None
    updated = None
    if data.get("updated") is not None:
        updated = _to_datetime(data["updated"], "updated", file, line("updated"))
    tags_value = data.get("tags") or []
    if isinstance(tags_value, str):
        tags = tuple(t.strip() for t in tags_value.split(",") if t.strip())
    elif isinstance(tags_value, list) and all(isinstance(t, str | int) for t in tags_value):
        tags = tuple(str(t).strip() for t in tags_value if str(t).strip())
    else:
        raise ContentError("'tags' must be a list of names or a comma-separated string",
                           file=file, line=line("tags"))
    slug = string("slug")
    if slug is not None and not re.fullmatch(r"[\w.~-]+(/[\w.~-]+)*", slug):
        raise ContentError(f"'slug' may hold only letters, digits, '-', '_', '.': {slug!r}",
                           file=file, line=line("slug"))
    image = string("image")
    if image is not None and not is_allowed_url(image):
        raise ContentError(f"'image' must be a path or an http(s) URL, not {image!r} "
                           f"(a '{scheme_of(image)}:' URL is not allowed in a page's metadata)",
                           file=file, line=line("image"))
    return PostMeta(
        title=title,
        date=date,
        updated=updated,
        author=string("author"),
        description=string("description"),
        tags=tuple(dict.fromkeys(tags)),
        draft=boolean("draft"),
        slug=slug,
        image=image,
        math=boolean("math"),
        comments=boolean("comments"),
        extra={k: v for k, v in data.items() if k not in KNOWN},
    )


def slug_from_filename(stem: str) -> str:
    match = _DATE_IN_NAME.match(stem)
    if match and match[4]:
        stem = match[4]
    return stem
