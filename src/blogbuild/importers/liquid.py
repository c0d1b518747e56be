"""Jekyll's Liquid in a post body, rewritten into plain Markdown where there is an equivalent."""

from __future__ import annotations

import os
import posixpath
import re
from pathlib import Path

from blogbuild.importers.links import Resolver, target_rules
from blogbuild.importers.model import Converted, Line
from blogbuild.importers.rewrite import (
    fenced,
    params,
    protect,
    read_include,
    video,
    youtube,
)
from blogbuild.importers.scan import BlockRule, InlineRule, Outcome

_RAW = re.compile(r"\{%-?\s*(end)?raw\s*-?%\}")
# No tag runs into the next "{%" (or output into the next "{{"), and repeats are bounded:
# a line of thousands of openers is work in proportion to its length, never its square.
_HIGHLIGHT = re.compile(r"^\s*\{%-?\s*highlight\s+([\w+#.-]+)"
                        r"((?:(?!\{%)[^%]|%(?!\})){0,500}?)-?%\}")
_END_HIGHLIGHT = re.compile(r"\{%-?\s*endhighlight\s*-?%\}")
_INCLUDE = re.compile(r"\{%-?\s*include(_relative)?\s+([^\s%]{1,500})"
                      r"((?:(?!\{%)[^%]|%(?!\})){0,1000}?)-?%\}")
_POST_URL = re.compile(r"\{%-?\s*post_url\s+([^\s%]{1,500})\s*-?%\}")
_LINK = re.compile(r"\{%-?\s*link\s+([^\s%]{1,500})\s*-?%\}")
_SITE_URL = re.compile(r"\{\{-?\s*site\.(?:url|baseurl)\s*-?\}\}")
_URL_FILTER = re.compile(r"""\{\{-?\s*(["'])([^"'{}]{0,1000})\1\s*\|\s*"""
                         r"""(?:relative_url|absolute_url|prepend:\s*site\.(?:base)?url)\s*-?\}\}""")
_VIDEO_TAG = re.compile(r"""\{%-?\s*(youtube|vimeo)\s+["']?([\w-]+)["']?\s*-?%\}""")
_INCLUDE_VALUE = re.compile(r"\{\{-?\s*include\.([\w-]+)\s*-?\}\}")
_TAG = re.compile(r"\{%-?\s*(\w+)(?:(?!\{%)[^%]|%(?!\})){0,1000}?-?%\}")
_OUTPUT = re.compile(r"\{\{(?:(?!\{\{)[^}]|\}(?!\})){0,1000}\}\}")


def unraw(lines: list[Line], outcome: Outcome) -> list[Line]:
    """Drop {% raw %} and {% endraw %} everywhere (Liquid reads code blocks too), keeping
    what they enclose literally; a line that held only a tag goes."""
    out: list[Line] = []
    inside = False
    for number, text in lines:
        if not inside and "raw" not in text:
            out.append((number, text))
            continue
        pieces, at = [], 0
        for match in _RAW.finditer(text):
            chunk = text[at:match.start()]
            pieces.append(protect(chunk) if inside else chunk)
            inside = match[1] is None
            at = match.end()
            outcome.counts["raw tag"] += 1
        rest = text[at:]
        pieces.append(protect(rest) if inside else rest)
        new = "".join(pieces)
        if new.strip() or not _RAW.search(text):
            out.append((number, new))
    return out


def _highlight(start: re.Match[str], code: list[str], line: int, outcome: Outcome) -> list[str]:
    named, free = params(start[2])
    options = dict(named)
    options.update((word, "") for word in free)
    return fenced(start[1], options, code, line, outcome)


def rules(resolver: Resolver, includes: dict[str, Path]) -> tuple[
        list[BlockRule], list[InlineRule]]:
    """The block and inline rules for one Jekyll post (`includes`: name -> file)."""
    by_name = resolver.index.table("post_url", lambda: _post_names(resolver))

    def include(match: re.Match[str], line: int, outcome: Outcome) -> str | None:
        name = match[2]
        named, free = params(match[3])
        if "youtube" in name.lower():
            video_id = named.get("id") or named.get("youtube_id") or named.get("video_id") \
                or (free[0] if free else "")
            embed = youtube(video_id)
            if embed is not None:
                outcome.counts["video"] += 1
                return embed
        if match[1]:  # include_relative: beside the post
            beside = os.path.normpath(resolver.post.source.path.parent / name)
            path = resolver.index.files.get(beside)
        else:
            path = includes.get(posixpath.normpath(name))
        text = read_include(path) if path is not None else None
        if text is None or path is None:
            return None
        outcome.counts["include inlined"] += 1
        shown = path.relative_to(resolver.index.root).as_posix()
        outcome.note(line, f"inlined {shown}; check that it reads well here")
        return _INCLUDE_VALUE.sub(lambda m: named.get(m[1], ""), text)

    def post_url(match: re.Match[str], line: int, outcome: Outcome) -> str | None:
        post = by_name.get(match[1].strip("/"))
        return None if post is None else "/" + post.source.rel

    def link(match: re.Match[str], line: int, outcome: Outcome) -> str | None:
        path = "/" + match[1].lstrip("/")
        return path if resolver.find(path) is not None else None

    inline = [
        InlineRule("video", _VIDEO_TAG, _video_tag),
        InlineRule("", _INCLUDE, include),
        InlineRule("post_url", _POST_URL, post_url),
        InlineRule("link tag", _LINK, link),
        InlineRule("site.baseurl", _SITE_URL, lambda match, _line, _outcome: ""),
        InlineRule("url filter", _URL_FILTER, lambda match, _line, _outcome: match[2]),
        *target_rules(resolver),
    ]
    return [BlockRule(_HIGHLIGHT, _END_HIGHLIGHT, _highlight)], inline


def _video_tag(match: re.Match[str], line: int, outcome: Outcome) -> str | None:
    """The {% youtube ID %} and {% vimeo ID %} tags of Jekyll's video plugins."""
    if match[1] == "youtube":
        return youtube(match[2])
    return video(f"https://vimeo.com/{match[2]}") if match[2].isdigit() else None


def _post_names(resolver: Resolver) -> dict[str, Converted]:
    """Every imported post under the name {% post_url %} gives it (its file name, no suffix)."""
    names: dict[str, Converted] = {}
    for post in resolver.index.posts.values():
        stem = posixpath.splitext(post.source.rel)[0]
        if stem.startswith("_posts/"):
            names[stem[len("_posts/"):]] = post
            names.setdefault(posixpath.basename(stem), post)
    return names


def residue(text: str, line: int, outcome: Outcome) -> None:
    """Note every Liquid tag and output left in the text."""
    for match in _TAG.finditer(text):
        if match[1] == "include":
            outcome.note(line, f"{match[0]}: no such file in _includes/ (or not readable); "
                               "left as is: copy what it should show into the post")
        else:
            outcome.note(line, f"Liquid tag {match[0]}: no blogbuild equivalent; left as is, "
                               "rewrite it by hand")
    for match in _OUTPUT.finditer(text):
        outcome.note(line, f"Liquid output {match[0]}: no blogbuild equivalent; left as is, "
                           "rewrite it by hand")
