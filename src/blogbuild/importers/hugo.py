"""Hugo: posts under content/ (leaf bundles with their files), old URLs from permalinks."""

from __future__ import annotations

import datetime as dt
import functools
import json
import re
import tomllib
from pathlib import Path
from typing import Any

import yaml

from blogbuild import yamlcore
from blogbuild.importers import shortcodes
from blogbuild.importers.links import Resolver
from blogbuild.importers.meta import (
    alias_list,
    map_front,
    starts_with_heading,
    title_from_name,
)
from blogbuild.importers.model import Converted, FoundSite, Line, Note, SourcePost
from blogbuild.importers.scan import BlockRule, InlineRule, Outcome
from blogbuild.importers.sources import name_date, pick_date, read_post, rel, walk
from blogbuild.urls import slugify

SUFFIXES = (".md", ".markdown")
_NOT_SOURCE = {"public", "resources", "node_modules", "themes"}
_CONFIGS = ("hugo.toml", "hugo.yaml", "hugo.yml", "hugo.json", "config.toml", "config.yaml",
            "config.yml", "config.json")
_PLACEHOLDER = re.compile(r":(year|month|monthname|day|weekday|yearday|section|sections|title|"
                          r"slug|filename|slugorfilename|contentbasename)")


@functools.lru_cache(maxsize=8)
def config(root: Path) -> dict[str, Any]:
    """The site's configuration file as data ({} when there is none or it is broken)."""
    for name in _CONFIGS:
        path = root / name
        if not path.is_file():
            continue
        try:
            text = path.read_text(encoding="utf-8")
            data = tomllib.loads(text) if name.endswith(".toml") else \
                json.loads(text) if name.endswith(".json") else yamlcore.safe_load(text)
        except (OSError, UnicodeDecodeError, ValueError, yaml.YAMLError):
            return {}
        return data if isinstance(data, dict) else {}
    return {}


def folder(root: Path, key: str, default: str) -> Path:
    """A folder the configuration names (contentDir, staticDir), always inside the site."""
    value = config(root).get(key, default)
    if not isinstance(value, str) or ".." in value.split("/") or value.startswith("/"):
        value = default
    return root / value


def content_dir(root: Path) -> Path:
    """The content folder: contentDir of the configuration, else content/."""
    return folder(root, "contentDir", "content")


_LANGUAGE_SUFFIX = re.compile(r"\.([a-z]{2,3}(?:-[a-z]{2,4})?)$", re.IGNORECASE)


def translation(path: Path, root: Path) -> str | None:
    """The language of a translated page (`post.fr.md`, `index.fr.md`) when it is not the
    site's default language, else None: blogbuild builds one language. A suffix counts
    when the configuration lists that language, or, with no list, when the page in the
    default language sits beside it (`v1.py.md` alone stays a post)."""
    match = _LANGUAGE_SUFFIX.search(path.stem)
    if match is None:
        return None
    settings = config(root)
    default = str(settings.get("defaultContentLanguage", "en")).lower()
    language = match.group(1).lower()
    if language == default:
        return None
    languages = settings.get("languages")
    if isinstance(languages, dict) and languages:
        return match.group(1) if language in {str(k).lower() for k in languages} else None
    base = path.stem[: match.start()]
    beside = (path.with_name(base + path.suffix), path.with_name(f"{base}.{default}{path.suffix}"))
    return match.group(1) if any(p.is_file() for p in beside) else None


def find(root: Path) -> FoundSite:
    """The posts under content/posts/ (else every section), bundles with their files."""
    files, skipped = walk(root, skip=lambda name: name in _NOT_SOURCE)
    content = content_dir(root)
    sections = content / "posts" if (content / "posts").is_dir() else content
    bundles = {p.parent for p in files if p.name == "index.md" and p.parent != content
               and p.is_relative_to(sections)}
    posts: list[SourcePost] = []
    others: list[Path] = []
    for path in files:
        language = translation(path, root) if path.suffix.lower() in SUFFIXES else None
        if language is not None and path.is_relative_to(content):
            skipped.append(Note(0, f"{rel(path, root)}: a translation ({language}); blogbuild "
                                   "builds one language, so it is not imported"))
            continue
        owner = next((b for b in bundles if path.is_relative_to(b)), None)
        markdown = path.suffix.lower() in SUFFIXES and path.is_relative_to(content) and (
            owner is None or path.name == "index.md")
        if markdown and path.name == "_index.md":
            skipped.append(Note(0, f"{rel(path, root)}: a section's list page; not imported"))
        elif markdown and (path.parent == content or not path.is_relative_to(sections)):
            skipped.append(Note(0, f"{rel(path, root)}: a page, not a post; not imported "
                                   "(copy it into content/ by hand)"))
        elif markdown:
            bundle = rel(owner, root) if owner is not None else None
            post = read_post(path, root, skipped, bundle=bundle)
            if post is not None:
                posts.append(post)
        else:
            others.append(path)
    static = folder(root, "staticDir", "static")
    return FoundSite(posts, others, skipped, [static, content, root])


def front(post: SourcePost, root: Path, outcome: Outcome) -> Converted:
    """Our front matter, slug and date for a Hugo post."""
    data = post.data
    stem = post.path.parent.name if post.bundle else post.path.stem
    day, name = name_date(stem)
    date = pick_date(post, ("date", "publishDate"), day, outcome)
    slug = slugify(str(data.get("slug") or name), default="post")
    meta = map_front(data, split_spaces=False, line=1, outcome=outcome)
    if not starts_with_heading(post.body):
        meta.setdefault("title", title_from_name(name))
    meta["date"] = date
    meta.pop("publishDate", None)
    old = _old_url(data, date, slug, name, post, root)
    aliases = alias_list(data.get("url"), data.get("aliases"), outcome=outcome)
    if old is not None and not meta.get("draft"):
        aliases = list(dict.fromkeys([old, *aliases]))
    if aliases:
        meta["aliases"] = aliases
    return Converted(post, slug, date, meta)


def _old_url(data: dict[str, Any], date: dt.date, slug: str, name: str, post: SourcePost,
             root: Path) -> str | None:
    """The URL Hugo gave the post: its section's permalinks pattern, else /SECTION/SLUG/."""
    if isinstance(data.get("url"), str):
        return None  # listed among the aliases as written
    where = post.path.parent.parent if post.bundle else post.path.parent
    sections = rel(where, content_dir(root)) if where != content_dir(root) else ""
    section = sections.split("/", 1)[0]
    patterns = config(root).get("permalinks")
    if isinstance(patterns, dict) and isinstance(patterns.get("page"), dict):
        patterns = patterns["page"]
    pattern = patterns.get(section) if isinstance(patterns, dict) else None
    if not isinstance(pattern, str):
        return "/" + "/".join(p for p in (sections, slug) if p) + "/"
    title = slugify(str(data.get("title") or name), default=slug)
    values = {
        "year": f"{date.year:04d}", "month": f"{date.month:02d}",
        "monthname": date.strftime("%B").lower(), "day": f"{date.day:02d}",
        "weekday": str(date.isoweekday() % 7), "yearday": str(date.timetuple().tm_yday),
        "section": section, "sections": sections, "title": title, "slug": slug,
        "filename": name, "slugorfilename": slug, "contentbasename": name,
    }
    url = _PLACEHOLDER.sub(lambda m: values[m[1]], pattern)
    return re.sub(r"/{2,}", "/", "/" + url)


def prepare(lines: list[Line], outcome: Outcome) -> list[Line]:
    """Hugo's escaped shortcodes become text, in code blocks too (Hugo reads those)."""
    return shortcodes.unescape(lines, outcome)


def rules(resolver: Resolver, root: Path, files: list[Path]) -> tuple[
        list[BlockRule], list[InlineRule]]:
    """The shortcode rules for one post."""
    return shortcodes.rules(resolver, root, content_dir(root))


residue = shortcodes.residue
