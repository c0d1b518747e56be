"""What the source finders share: a safe walk, reading a post, dates from names and times."""

from __future__ import annotations

import datetime as dt
import os
import re
from collections.abc import Callable
from pathlib import Path

from blogbuild.content.dates import BadDate, date_in_name
from blogbuild.content.walk import ignored, walk_files
from blogbuild.diagnostics import BlogbuildError
from blogbuild.importers.frontmatter import BadFrontMatter, split
from blogbuild.importers.meta import as_date
from blogbuild.importers.model import Note, SourcePost
from blogbuild.importers.scan import Outcome
from blogbuild.sourcetext import decode_source

#: A post longer than this is not read: a mistake, or an attempt to stall the import.
MAX_POST_BYTES = 5_000_000
_DATED = re.compile(r"^(\d{4})-(\d{2})-(\d{2})-(.+)$")


def walk(root: Path, skip: Callable[[str], bool] = lambda name: False) -> tuple[
        list[Path], list[Note]]:
    """Every regular file under `root` (links only to places inside it), and what was skipped."""
    files, problems = walk_files(root, [root.resolve()], root=root,
                                 skip=lambda name: ignored(name) or skip(name))
    return files, [Note(0, f"{d.file}: {d.message}") for d in problems]


def rel(path: Path, root: Path) -> str:
    """`path` relative to the source folder, in POSIX form (for messages and lookups)."""
    return path.relative_to(root).as_posix()


def read_post(path: Path, root: Path, skipped: list[Note], **extra: object) -> SourcePost | None:
    """The post at `path`, or None with a note in `skipped` when it cannot be read."""
    name = rel(path, root)
    try:
        size = path.stat().st_size
        if size > MAX_POST_BYTES:
            skipped.append(Note(0, f"{name}: {size:,} bytes, more than a post can be "
                                   f"({MAX_POST_BYTES:,}); not imported"))
            return None
        raw = path.read_bytes()
    except OSError as exc:
        skipped.append(Note(0, f"{name}: cannot be read ({exc.strerror or exc}); not imported"))
        return None
    try:
        text = decode_source(raw, name)
        data, body = split(text)
    except BadFrontMatter as exc:
        skipped.append(Note(0, f"{name}:{exc.line}: {exc.message}; not imported"))
        return None
    except BlogbuildError as exc:  # not UTF-8: the message names the encoding to convert
        skipped.append(Note(0, f"{exc.format()}; not imported"))
        return None
    draft = bool(extra.get("draft", False))
    bundle = extra.get("bundle")
    return SourcePost(path, name, data, body, draft=draft,
                      bundle=bundle if isinstance(bundle, str) else None)


def name_date(stem: str) -> tuple[dt.date | None, str]:
    """(the date a YYYY-MM-DD-name stem starts with, the rest) or (None, stem)."""
    match = _DATED.match(stem)
    if match is None:
        return None, stem
    try:
        return date_in_name(match[1], match[2], match[3]).date(), match[4]
    except BadDate:
        return None, stem


def pick_date(post: SourcePost, keys: tuple[str, ...], day: dt.date | None,
              outcome: Outcome) -> dt.date | dt.datetime:
    """The first of the front matter `keys` that is a date, else `day` (from the file name),
    else the day the file was last changed; the author hears of a bad date and of the last."""
    for key in keys:
        value = post.data.get(key)
        date = as_date(value)
        if date is not None:
            return date
        if value is not None:
            outcome.note(1, f"'{key}: {value}' is not a date; ignored")
    if day is not None:
        return day
    changed = dt.date.fromtimestamp(os.stat(post.path).st_mtime)
    outcome.note(1, f"no date in the front matter or the file name: dated "
                    f"{changed.isoformat()}, the day the file was last changed (add 'date:' "
                    "to choose another)")
    return changed
