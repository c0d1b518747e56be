"""Obsidian: every note of a vault is a post; wiki links and embeds follow the notes' new names."""

from __future__ import annotations

import json
import posixpath
import re
from pathlib import Path
from typing import Any
from urllib.parse import quote

from blogbuild.importers.links import Resolver, target_rules
from blogbuild.importers.meta import alias_list, map_front, starts_with_heading
from blogbuild.importers.model import Converted, FoundSite, Line, Note, SourcePost
from blogbuild.importers.scan import BlockRule, InlineRule, Outcome
from blogbuild.importers.sources import pick_date, read_post, rel, walk
from blogbuild.urls import slugify

# Groups: name, #heading, the separator ("|", or "\|" inside a table), the text after it.
_EMBED = re.compile(r"!\[\[([^\[\]|#\n]{1,500}?)(#[^\[\]|\n]{0,500}?)?"
                    r"(?:(\\?\|)([^\[\]\n]{0,500}))?\]\]")
_WIKI = re.compile(r"(?<!!)\[\[([^\[\]|#\n]{0,500}?)(#[^\[\]|\n]{0,500}?)?"
                   r"(?:(\\?\|)([^\[\]\n]{0,500}))?\]\]")
_SIZE = re.compile(r"\d+(?:x\d+)?")
_MEDIA = {".png", ".jpg", ".jpeg", ".gif", ".svg", ".webp", ".avif", ".bmp", ".mp4", ".webm",
          ".mp3", ".ogg", ".wav", ".pdf"}


def _templates(root: Path) -> str:
    """The vault's templates folder (Obsidian's setting, else "templates")."""
    try:
        data = json.loads((root / ".obsidian" / "templates.json").read_text(encoding="utf-8"))
        folder = data.get("folder") if isinstance(data, dict) else None
    except (OSError, ValueError):
        folder = None
    return str(folder).strip("/") if folder else "templates"


def find(root: Path) -> FoundSite:
    """Every note of the vault but the templates; every other file is an attachment."""
    files, skipped = walk(root)
    templates = _templates(root)
    posts: list[SourcePost] = []
    others: list[Path] = []
    left_out = 0
    for path in files:
        name = rel(path, root)
        if name.lower().startswith(templates.lower() + "/"):
            left_out += 1
        elif path.suffix.lower() == ".md":
            post = read_post(path, root, skipped)
            if post is not None:
                posts.append(post)
        else:
            others.append(path)
    if left_out:
        skipped.append(Note(0, f"{templates}/: {left_out} file(s) in the templates folder; "
                               "not imported"))
    return FoundSite(posts, others, skipped, [root])


def front(post: SourcePost, root: Path, outcome: Outcome) -> Converted:
    """Our front matter, slug and date for a note; a note without a date gets its file's."""
    data = post.data
    stem = post.path.stem
    date = pick_date(post, ("date", "created"), None, outcome)
    meta = map_front(_own_aliases(data, outcome), split_spaces=False, line=1, outcome=outcome)
    if not starts_with_heading(post.body):
        meta.setdefault("title", stem)
    meta["date"] = date
    if data.get("publish") is False:
        meta["draft"] = True
    if "tags" in meta:
        meta["tags"] = [str(t).lstrip("#") for t in meta["tags"]]
    aliases = alias_list(data.get("permalink"),
                         [a for a in _list(data.get("aliases")) if str(a).startswith("/")],
                         outcome=outcome)
    if aliases:
        meta["aliases"] = aliases
    return Converted(post, slugify(str(data.get("slug") or stem), default="note"), date, meta)


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else [] if value is None else [value]


def _own_aliases(data: dict[str, Any], outcome: Outcome) -> dict[str, Any]:
    """Obsidian's aliases are other names of the note, not old URLs: kept under another key."""
    names = [a for a in _list(data.get("aliases")) if not str(a).startswith("/")]
    if not names:
        return data
    outcome.note(1, "the note's aliases (other names, not URLs) are kept as 'note_aliases'")
    return {**data, "note_aliases": names}


def prepare(lines: list[Line], outcome: Outcome) -> list[Line]:
    """Nothing to do before the rules: Obsidian has no tags that reach into code."""
    return lines


def rules(resolver: Resolver, root: Path, files: list[Path]) -> tuple[
        list[BlockRule], list[InlineRule]]:
    """Rules for a note: embeds of files become images, wiki links name the new slugs."""
    notes = resolver.index.table("notes", lambda: _note_names(resolver))

    def embed(match: re.Match[str], line: int, outcome: Outcome) -> str | None:
        target = resolver.find(match[1].strip())
        if target is None or isinstance(target, Converted) or \
                target.suffix.lower() not in _MEDIA:
            return None
        label = (match[4] or "").strip()
        alt = "" if _SIZE.fullmatch(label) else label
        if label and not alt:
            outcome.note(line, f"the size in {match[0]} has no Markdown equivalent; dropped")
        alt = alt or target.stem
        alt = alt.replace("[", "\\[").replace("]", "\\]")
        # The path in the vault: the link rules that run next give it its new place.
        return f"![{alt}]({quote('/' + target.relative_to(root).as_posix())})"

    def wiki(match: re.Match[str], line: int, outcome: Outcome) -> str | None:
        name = match[1].strip()
        post = notes.get(name.lower().removesuffix(".md")) if name else None
        if post is None:
            if name:
                outcome.note(line, f"{match[0]}: no note of that name was imported; left as is")
            return None
        title = str(post.meta.get("title") or "")
        if " ".join(title.lower().split()) == " ".join(name.lower().split()):
            return None  # the build finds the note by its title: the link stays as written
        text = match[4] or name + (match[2] or "")
        # In a table row a bare | would end the cell: Obsidian writes \| there.
        pipe = match[3] or ("\\|" if match.string.lstrip().startswith("|") else "|")
        return f"[[{post.slug}{match[2] or ''}{pipe}{text}]]"

    inline = [InlineRule("embedded file", _EMBED, embed), InlineRule("wiki link", _WIKI, wiki),
              *target_rules(resolver)]
    return [], inline


def _note_names(resolver: Resolver) -> dict[str, Converted]:
    """Every note under the names a wiki link may give it: its path and its name."""
    notes: dict[str, Converted] = {}
    for post in resolver.index.posts.values():
        path = posixpath.splitext(post.source.rel)[0].lower()
        notes.setdefault(path, post)
        notes.setdefault(posixpath.basename(path), post)
    return notes


def residue(text: str, line: int, outcome: Outcome) -> None:
    """Note embeds of whole notes, which have no equivalent here."""
    for match in _EMBED.finditer(text):
        outcome.note(line, f"{match[0]}: embedding a note (or a file that was not found) has "
                           "no blogbuild equivalent; left as is")

