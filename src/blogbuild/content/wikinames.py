"""Which document or file an Obsidian-style name (`[[Some note]]`, `![[plot.png]]`) means.

Obsidian finds a note by its file name and an attachment by its name anywhere in the vault;
content/ is the vault here. A note name is tried, in order, as a path, a file name (with or
without the date a post's file name starts with), a slug and a title; the first rule that
finds anything decides, and two finds under one rule are ambiguous, never a guess. Names are
compared case-insensitively with runs of spaces made one.
"""

from __future__ import annotations

import posixpath
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from blogbuild.content.frontmatter import slug_from_filename
from blogbuild.readers import suffix_of

#: The rules a note name is tried by, in order (also the words messages use).
NOTE_RULES = ("path", "file name", "slug", "title")


@dataclass(frozen=True)
class Match:
    """What a name found: `rels` (one: found; several: ambiguous; none: missing) and by
    which rule."""

    rels: tuple[str, ...] = ()
    rule: str = ""


def fold(name: str) -> str:
    """A name as names are compared: case-insensitive, runs of spaces as one space."""
    return " ".join(name.split()).casefold()


def _without_suffix(name: str) -> str:
    """A document's name without its suffix (`[[analysis.ipynb]]` finds the notebook)."""
    suffix = suffix_of(name)
    return name[: -len(suffix)] if suffix else name


def _stem(rel: str) -> str:
    stem = posixpath.splitext(posixpath.basename(rel))[0]
    if stem == "index" and "/" in rel:
        stem = posixpath.basename(posixpath.dirname(rel))
    return stem


@dataclass(frozen=True)
class NoteIndex:
    """Every document under each rule's key: folded name -> content paths."""

    by_rule: Mapping[str, Mapping[str, tuple[str, ...]]]

    def find(self, name: str) -> Match:
        key = fold(_without_suffix(name))
        for rule in NOTE_RULES:
            rels = self.by_rule[rule].get(key, ())
            if rels:
                return Match(rels, rule)
        return Match()


def _add(table: dict[str, list[str]], key: str, rel: str) -> None:
    found = table.setdefault(fold(key), [])
    if rel not in found:
        found.append(rel)


def note_index(labels: Mapping[str, tuple[str, str]]) -> NoteIndex:
    """The index of documents given as content path -> (slug, title)."""
    tables: dict[str, dict[str, list[str]]] = {rule: {} for rule in NOTE_RULES}
    for rel in sorted(labels):
        slug, title = labels[rel]
        path = _without_suffix(rel)
        for suffix in _suffixes(path):
            _add(tables["path"], suffix, rel)
        stem = _stem(rel)
        _add(tables["file name"], stem, rel)
        _add(tables["file name"], slug_from_filename(stem), rel)
        _add(tables["slug"], slug, rel)
        if title:
            _add(tables["title"], title, rel)
    return NoteIndex({rule: {k: tuple(v) for k, v in table.items()}
                      for rule, table in tables.items()})


def _suffixes(path: str) -> Iterable[str]:
    """`a/b/c` -> `a/b/c`, `b/c`: the paths a link may name the file by (the whole path
    from content/, or its end with a folder)."""
    parts = path.split("/")
    return [path, *("/".join(parts[i:]) for i in range(1, len(parts) - 1))]


@dataclass(frozen=True)
class FileIndex:
    """Every file the site copies from content/ and static/, by its name (Obsidian's
    attachments). Paths are from the site folder: `content/…` or `static/…`."""

    paths: frozenset[str]
    by_name: Mapping[str, tuple[str, ...]]

    def find(self, name: str, source_dir: str) -> Match:
        """Beside the document first, then as a path from content/ or static/, then
        anywhere by its name, content/ before static/ (a name with folders: any file
        whose path ends with them)."""
        name = posixpath.normpath(name.strip().lstrip("/"))
        beside = posixpath.normpath(posixpath.join("content", source_dir, name))
        for rel in (beside, f"content/{name}", f"static/{name}"):
            if rel in self.paths:
                return Match((rel,), "path")
        found = self.by_name.get(posixpath.basename(name), ())
        if "/" in name:
            found = tuple(rel for rel in found if rel.endswith("/" + name))
        content = tuple(rel for rel in found if rel.startswith("content/"))
        return Match(content or found, "name")


def file_index(assets: Iterable[str], statics: Iterable[str]) -> FileIndex:
    """The index of the files under content/ (`assets`) and static/ (`statics`)."""
    ordered = sorted([*(f"content/{rel}" for rel in assets),
                      *(f"static/{rel}" for rel in statics)])
    by_name: dict[str, list[str]] = {}
    for rel in ordered:
        by_name.setdefault(posixpath.basename(rel), []).append(rel)
    return FileIndex(frozenset(ordered), {k: tuple(v) for k, v in by_name.items()})
