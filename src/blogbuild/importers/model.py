"""What an import works with: the posts found in a source and what became of each."""

from __future__ import annotations

import datetime as dt
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

#: A line of a body with the line number it had in its source file.
Line = tuple[int, str]


@dataclass(frozen=True)
class Note:
    """Something left as written (or dropped) that the author should look at."""

    line: int
    what: str


@dataclass
class SourcePost:
    """A post as found in the source folder, before conversion."""

    path: Path  # absolute
    rel: str  # POSIX path relative to the source folder, for messages
    data: dict[str, Any]  # its front matter as the source wrote it
    body: list[Line]
    draft: bool = False  # found where drafts live (Jekyll's _drafts/)
    #: A Hugo leaf bundle's folder (relative to the source): its other files belong to it.
    bundle: str | None = None


@dataclass
class Converted:
    """One post ready to write: where, what, and the report of the rewrites."""

    source: SourcePost
    slug: str
    date: dt.date | dt.datetime
    meta: dict[str, Any]
    body: str = ""
    dest: str = ""  # content-relative POSIX path of the new .md file
    counts: Counter[str] = field(default_factory=Counter)
    notes: list[Note] = field(default_factory=list)
    front_notes: list[Note] = field(default_factory=list)  # from the front matter and name
    source_image: str | None = None  # the image as the source named it
    #: Files this post uses: source path -> reference kinds ("body" or "image").
    assets: dict[Path, set[str]] = field(default_factory=dict)


@dataclass
class FoundSite:
    """Everything a source finder returns: posts, every other readable file, problems."""

    posts: list[SourcePost]
    files: list[Path]  # absolute paths of the non-post files the walk accepted
    skipped: list[Note]  # with SRC-relative names in `what`
    #: Folders where an absolute reference ("/img/x.png") is looked up, in order.
    roots: list[Path]
