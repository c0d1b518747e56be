"""Map another generator's front matter to blogbuild's, and write it as readable YAML."""

from __future__ import annotations

import datetime as dt
import re
from typing import Any

import yaml

from blogbuild.content.dates import BadDate, parse_date
from blogbuild.importers.scan import Outcome
from blogbuild.urls import is_allowed_url, url_problem

#: Keys of the other generators and the key each becomes here (first one given wins).
RENAMED = {
    "lastmod": "updated", "last_modified_at": "updated", "modified": "updated",
    "summary": "description", "excerpt": "description",
    "mathjax": "math", "katex": "math",
}
#: Keys whose content is folded into ours by their own rule, never kept as they are.
FOLDED = {"title", "date", "tags", "categories", "category", "published", "draft",
          "description", "image", "cover", "header", "redirect_from", "aliases", "slug",
          "permalink", "url", "updated", *RENAMED}
#: Our keys in the order they are written; the kept unknown keys follow.
ORDER = ("title", "date", "updated", "author", "description", "tags", "draft", "image",
         "math", "comments", "aliases")
_PLAIN = re.compile(r"[A-Za-z0-9][\w ./()+-]*")


def as_date(value: Any) -> dt.date | dt.datetime | None:
    """A front matter date (a YAML or TOML date, or a string in any ISO form); None if not."""
    if isinstance(value, dt.datetime | dt.date):
        return value
    if isinstance(value, str):
        try:
            stamp = parse_date(value)
        except BadDate:
            return None
        short = re.fullmatch(r"\s*\d{4}-\d{1,2}-\d{1,2}\s*", value)
        return stamp.date() if short else stamp
    return None


def date_text(value: dt.date | dt.datetime) -> str:
    """One form for every date: 2024-12-17, or 2024-12-17T09:30:00+01:00 with a time."""
    if isinstance(value, dt.datetime):
        if value.tzinfo is None and value.time() == dt.time():
            return value.date().isoformat()
        return value.isoformat(timespec="seconds")
    return value.isoformat()


def names(value: Any, *, split_spaces: bool) -> list[str]:
    """Tags as a list: a YAML list, or a string split at commas (Jekyll: also at spaces)."""
    if value is None:
        return []
    items = value if isinstance(value, list) else [value]
    out: list[str] = []
    for item in items:
        if isinstance(item, dict | list):
            continue
        text = str(item)
        parts = text.split(",") if "," in text or not split_spaces else text.split()
        out.extend(part.strip() for part in parts if part.strip())
    return list(dict.fromkeys(out))


def image_of(data: dict[str, Any]) -> str | None:
    """image, cover (or cover.image) or header.image, whichever is there first."""
    for key in ("image", "cover", "header"):
        value = data.get(key)
        if isinstance(value, dict):
            value = value.get("image")
        if isinstance(value, str) and value.strip():
            return value.strip()
    return None


def drafted(data: dict[str, Any]) -> bool:
    """Jekyll's published: false means what draft: true means here."""
    return data.get("draft") is True or data.get("published") is False


def map_front(data: dict[str, Any], *, split_spaces: bool, line: int,
              outcome: Outcome) -> dict[str, Any]:
    """Our front matter (without date and aliases, which the importer works out) from `data`."""
    meta: dict[str, Any] = {}
    if isinstance(data.get("title"), str | int | float):
        meta["title"] = str(data["title"])
    for key, value in data.items():
        ours = RENAMED.get(key)
        if ours is not None and ours not in meta and value not in (None, ""):
            meta[ours] = value
    if "updated" in data:
        meta["updated"] = data["updated"]
    for key in ("description", "author"):
        if isinstance(data.get(key), str):
            meta[key] = data[key]
    if isinstance(meta.get("description"), str):
        meta["description"] = " ".join(meta["description"].split())
    if "updated" in meta and as_date(meta["updated"]) is None:
        outcome.note(line, f"the update date {meta.pop('updated')!r} is not a date; dropped")
    tags = names(data.get("tags"), split_spaces=split_spaces)
    tags += names(data.get("categories"), split_spaces=split_spaces)
    tags += names(data.get("category"), split_spaces=False)
    if tags:
        meta["tags"] = list(dict.fromkeys(tags))
    if drafted(data):
        meta["draft"] = True
    image = image_of(data)
    if image is not None:
        meta["image"] = image
    for key, value in data.items():
        if key not in FOLDED and key not in meta:
            meta[key] = value
    return _checked(meta, line, outcome)


def _checked(meta: dict[str, Any], line: int, outcome: Outcome) -> dict[str, Any]:
    """Drop (with a note) values of our keys that the build would refuse."""
    for key in ("math", "comments"):
        if key in meta and not isinstance(meta[key], bool):
            outcome.note(line, f"'{key}: {meta.pop(key)}' is not true or false; dropped")
    for key in ("title", "description", "author"):
        if key in meta and not isinstance(meta[key], str):
            outcome.note(line, f"'{key}' is not text; dropped")
            del meta[key]
    image = meta.get("image")
    if image is not None and (not is_allowed_url(image) or url_problem(image) is not None):
        outcome.note(line, f"the image {image!r} is not a path or an http(s) URL; dropped")
        del meta["image"]
    return meta


#: Addresses the site makes pages of itself: an old URL there would collide with them.
_GENERATED = frozenset({"/", "/tags", "/archive", "/feed.xml", "/404.html", "/sitemap.xml",
                        "/robots.txt"})


def alias_list(*values: Any, outcome: Outcome) -> list[str]:
    """Old URLs from redirect_from, aliases, permalink or url: site paths with a leading /.
    The home page and the pages the site makes itself (/tags/, /archive/, …) are left out,
    with a note: they stay what the new site makes of them."""
    out = []
    for value in values:
        for item in value if isinstance(value, list) else [value]:
            if isinstance(item, str) and item.strip() and "://" not in item:
                path = "/" + item.strip().lstrip("/")
                if path.rstrip("/") in _GENERATED or path == "/":
                    outcome.note(1, f"the old URL {path} is a page the new site makes itself "
                                    "(home, tags, archive, feed); no redirect is kept for it")
                    continue
                out.append(path)
    return list(dict.fromkeys(out))


def emit(meta: dict[str, Any]) -> str:
    """The front matter block, our keys first in a fixed order, the rest as they came."""
    keys = [k for k in ORDER if k in meta] + [k for k in meta if k not in ORDER]
    lines = ["---"]
    for key in keys:
        lines.append(_entry(str(key), meta[key]))
    lines.append("---")
    return "\n".join(lines) + "\n"


def _entry(key: str, value: Any) -> str:
    shown_key = key if _plain(key) else _quoted(key)
    if isinstance(value, dt.date | dt.datetime):
        return f"{shown_key}: {date_text(value)}"
    if isinstance(value, bool):
        return f"{shown_key}: {'true' if value else 'false'}"
    if isinstance(value, str):
        return f"{shown_key}: {_scalar(value)}"
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return f"{shown_key}: [{', '.join(_scalar(v) for v in value)}]"
    dumped = yaml.safe_dump({key: value}, sort_keys=False, allow_unicode=True,
                            default_flow_style=False, width=100)
    return dumped.rstrip("\n")


def _scalar(text: str) -> str:
    return text if _plain(text) else _quoted(text)


def _plain(text: str) -> bool:
    """Whether `text` reads back as the same string unquoted, in YAML 1.1 and 1.2 alike."""
    if not _PLAIN.fullmatch(text) or text != text.strip() or text[0].isdigit():
        return False
    return text.lower() not in {"yes", "no", "on", "off", "y", "n", "true", "false", "null"}


def _quoted(text: str) -> str:
    return yaml.safe_dump(text, default_style='"', allow_unicode=True, width=2**31).strip()


def title_from_name(slug: str) -> str:
    """Jekyll's title for a post without one: the slug's words, capitalised."""
    return " ".join(word.capitalize() for word in slug.replace("_", "-").split("-") if word)



def starts_with_heading(body: list[tuple[int, str]]) -> bool:
    """Whether the body opens with a `# Title` line (then it gives the title, shown once)."""
    first = next((text for _, text in body if text.strip()), "")
    return first.startswith("# ")
