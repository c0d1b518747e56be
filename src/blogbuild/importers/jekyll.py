"""Jekyll: posts in _posts/ (drafts in _drafts/), old URLs from _config.yml's permalink.

As in Jekyll, a file in _posts/ whose name does not start with a date is no post (it can be
an include_relative snippet)."""

from __future__ import annotations

import datetime as dt
import functools
import posixpath
import re
from pathlib import Path
from typing import Any

import yaml

from blogbuild import yamlcore
from blogbuild.importers import liquid
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

SUFFIXES = (".md", ".markdown", ".mdown", ".mkdn", ".mkd")
#: Folders of a Jekyll site that hold no posts and no files posts link to.
_NOT_SOURCE = {"_site", "vendor", "node_modules", ".jekyll-cache", ".sass-cache"}
_PRESETS = {
    "date": "/:categories/:year/:month/:day/:title:output_ext",
    "pretty": "/:categories/:year/:month/:day/:title/",
    "ordinal": "/:categories/:year/:y_day/:title:output_ext",
    "weekdate": "/:categories/:year/W:week/:short_day/:title:output_ext",
    "none": "/:categories/:title:output_ext",
}
_PLACEHOLDER = re.compile(r":(year|short_year|month|i_month|short_month|day|i_day|y_day|"
                          r"title|slug|name|categories|output_ext)")


def find(root: Path) -> FoundSite:
    """The dated posts under _posts/ and the drafts under _drafts/; every other file."""
    files, skipped = walk(root, skip=lambda name: name in _NOT_SOURCE)
    posts: list[SourcePost] = []
    others: list[Path] = []
    for path in files:
        name = rel(path, root)
        top = name.split("/", 1)[0]
        dated = top == "_drafts" or name_date(path.stem)[0] is not None
        if top in ("_posts", "_drafts") and "/" in name and dated:
            if path.suffix.lower() in SUFFIXES:
                post = read_post(path, root, skipped, draft=top == "_drafts")
                if post is not None:
                    posts.append(post)
            elif path.suffix.lower() in (".html", ".textile"):
                skipped.append(Note(0, f"{name}: a {path.suffix} post; only Markdown posts "
                                       "are imported"))
            else:
                others.append(path)
        else:
            others.append(path)
    return FoundSite(posts, others, skipped, [root])


@functools.lru_cache(maxsize=8)
def _config(root: Path) -> dict[str, Any]:
    try:
        data = yamlcore.safe_load((root / "_config.yml").read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, yaml.YAMLError):
        return {}
    return data if isinstance(data, dict) else {}


def front(post: SourcePost, root: Path, outcome: Outcome) -> Converted:
    """Our front matter, slug and date for a Jekyll post."""
    data = post.data
    stem = Path(post.path.name).stem
    day, name = name_date(stem)
    date = pick_date(post, ("date",), day, outcome)
    slug = slugify(str(data.get("slug") or name), default="post")
    meta = map_front(data, split_spaces=True, line=1, outcome=outcome)
    if not starts_with_heading(post.body):
        meta.setdefault("title", title_from_name(name))
    meta["date"] = date
    if post.draft:
        meta["draft"] = True
    old = _old_url(data, date, name, _config(root).get("permalink"))
    aliases = alias_list(data.get("redirect_from"), outcome=outcome)
    if old is not None and not post.draft:
        aliases = list(dict.fromkeys([old, *aliases]))
    if aliases:
        meta["aliases"] = aliases
    return Converted(post, slug, date, meta)


def _old_url(data: dict[str, Any], date: dt.date, name: str, pattern: Any) -> str | None:
    """The URL Jekyll gave the post: its own permalink or else the site's, placeholders
    (`:year`, `:title`…) filled in."""
    template = data.get("permalink") or pattern or "date"
    if not isinstance(template, str):
        return None
    template = _PRESETS.get(template, template)
    categories = [c.lower() for c in _categories(data)]
    slug = str(data.get("slug") or name)
    values = {
        "year": f"{date.year:04d}", "short_year": f"{date.year % 100:02d}",
        "month": f"{date.month:02d}", "i_month": str(date.month),
        "short_month": date.strftime("%b"), "day": f"{date.day:02d}", "i_day": str(date.day),
        "y_day": f"{date.timetuple().tm_yday:03d}", "title": slug, "slug": slugify(slug),
        "name": name, "categories": "/".join(categories), "output_ext": ".html",
    }
    url = _PLACEHOLDER.sub(lambda m: values[m[1]], template)
    url = re.sub(r"/{2,}", "/", "/" + url)
    return posixpath.normpath(url) + ("/" if url.endswith("/") else "")


def _categories(data: dict[str, Any]) -> list[str]:
    out: list[str] = []
    for key in ("category", "categories"):
        value = data.get(key)
        items = value.split() if isinstance(value, str) else value if isinstance(value, list) \
            else []
        out.extend(str(item) for item in items)
    return list(dict.fromkeys(out))


def prepare(lines: list[Line], outcome: Outcome) -> list[Line]:
    """Raw tags go first, everywhere: Liquid read the whole file, code included."""
    return liquid.unraw(lines, outcome)


def rules(resolver: Resolver, root: Path, files: list[Path]) -> tuple[
        list[BlockRule], list[InlineRule]]:
    """Liquid's rules for one post; the includes are looked up once per import."""
    includes = resolver.index.table("includes", lambda: {
        rel(p, root / "_includes"): p for p in files if p.is_relative_to(root / "_includes")})
    return liquid.rules(resolver, includes)


residue = liquid.residue
