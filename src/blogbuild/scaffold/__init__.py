"""The starter files of a new blog (read by `blogbuild init` and `new`) and how to fill them in."""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Mapping
from pathlib import Path

import yaml

from blogbuild.content.frontmatter import slug_from_filename
from blogbuild.urls import slugify

_HERE = Path(__file__).resolve().parent
_MARKER = re.compile(r"\{\{ (\w+) \}\}")


def read(name: str) -> str:
    """The text of the starter file `name` (a file beside this module)."""
    return (_HERE / name).read_text(encoding="utf-8")


def fill(text: str, values: Mapping[str, str]) -> str:
    """Replace each `{{ name }}` with values[name]; a marker without a value is a bug here."""

    def value(match: re.Match[str]) -> str:
        return values[match[1]]

    return _MARKER.sub(value, text)


def yaml_string(value: str) -> str:
    """`value` as one double-quoted YAML scalar: quotes, colons, '#' and newlines survive."""
    # safe_dump escapes what YAML needs; the huge width keeps it on one line.
    return yaml.safe_dump(value, default_style='"', allow_unicode=True, width=2**31).strip()


def yaml_list(values: list[str]) -> str:
    """A flow list of quoted strings: ["a", "b"]."""
    return "[" + ", ".join(yaml_string(v) for v in values) + "]"


def title_slug(title: str) -> str:
    """The slug of a title as the site derives it from file names ("" when nothing is left)."""
    return slugify(title, default="")


def derived_slug(stem: str) -> str:
    """The slug the site gives a file named `stem` (date prefix dropped), as site.py does."""
    return slugify(slug_from_filename(stem), default="post")


def dated_name(day: dt.date, slug: str) -> str:
    """The file name of a post: YYYY-MM-DD-slug.md."""
    return f"{day.isoformat()}-{slug}.md"
