"""Hugo's shortcodes in a post body, rewritten into plain Markdown where there is an equivalent."""

from __future__ import annotations

import os
import posixpath
import re
from pathlib import Path

from blogbuild.importers.links import Resolver, target_rules
from blogbuild.importers.model import Converted, Line
from blogbuild.importers.rewrite import fenced, params, protect, read_include, video, youtube
from blogbuild.importers.scan import BlockRule, InlineRule, Outcome

_OPEN, _CLOSE = r"\{\{[<%]-?\s*", r"\s*-?[>%]\}\}"
# No shortcode runs into the next "{{", and repeats are bounded: a line of thousands of
# openers is work in proportion to its length, never its square.
_HIGHLIGHT = re.compile(r"^\s*" + _OPEN + r"highlight\s+([\w+#.-]+)((?:(?!\{\{).){0,500}?)"
                        + _CLOSE)
_END_HIGHLIGHT = re.compile(_OPEN + r"/\s*highlight" + _CLOSE)
_INSIDE = r'((?:"(?:[^"\\]|\\.){0,1000}"|(?!\{\{)[^"]){0,1000}?)'
_ESCAPED = re.compile(r"\{\{([<%])/\*((?:(?!\{\{).){0,1000}?)\*/([>%])\}\}")


def _shortcode(names: str) -> re.Pattern[str]:
    return re.compile(_OPEN + f"({names})" + r"\b" + _INSIDE + _CLOSE)


_VIDEO = _shortcode("youtube|vimeo")
_FIGURE = _shortcode("figure")
_REF = _shortcode("ref|relref")
_INCLUDE = _shortcode("readfile|include")
_ANY = re.compile(r"\{\{[<%]" + _INSIDE + r"[>%]\}\}")


def _highlight(start: re.Match[str], code: list[str], line: int, outcome: Outcome) -> list[str]:
    named, free = params(start[2])
    options = dict(named)
    for word in free:  # Hugo's "hl_lines=2 4-5,linenos=table" (one quoted argument)
        for item in word.split(","):
            key, _, value = item.partition("=")
            options[key.strip()] = value.strip()
    if options.get("linenos") in ("false", ""):
        options.pop("linenos", None)
    return fenced(start[1], options, code, line, outcome)


def unescape(lines: list[Line], outcome: Outcome) -> list[Line]:
    """{{</* x */>}} is how Hugo shows a shortcode as text, in code too: write {{< x >}}."""

    def plain(match: re.Match[str]) -> str:
        outcome.counts["escaped shortcode"] += 1
        return protect("{{" + match[1] + match[2] + match[3] + "}}")

    return [(n, _ESCAPED.sub(plain, text) if "/*" in text else text) for n, text in lines]


def _video(match: re.Match[str], line: int, outcome: Outcome) -> str | None:
    named, free = params(match[2])
    video_id = named.get("id") or (free[0] if free else "")
    if match[1] == "youtube":
        return youtube(video_id)
    return video(f"https://vimeo.com/{video_id}") if video_id.isdigit() else None


def _figure(match: re.Match[str], line: int, outcome: Outcome) -> str | None:
    named, _ = params(match[2])
    src = named.get("src", "")
    if not src or any(c in src for c in " ()<>"):
        return None
    alt = named.get("alt") or named.get("title") or ""
    caption = named.get("caption") or named.get("title") or ""
    dropped = sorted(set(named) - {"src", "alt", "title", "caption"})
    if dropped:
        outcome.note(line, f"figure options {', '.join(dropped)} have no Markdown equivalent; "
                           "dropped")
    alt = alt.replace("\\", "\\\\").replace("[", "\\[").replace("]", "\\]")
    title = ' "' + caption.replace("\\", "\\\\").replace('"', '\\"') + '"' if caption else ""
    return f"![{alt}]({src}{title})"


def rules(resolver: Resolver, root: Path, content: Path) -> tuple[
        list[BlockRule], list[InlineRule]]:
    """The block and inline rules for one Hugo post."""
    posts = resolver.index.table("ref", lambda: _post_names(resolver))

    def ref(match: re.Match[str], line: int, outcome: Outcome) -> str | None:
        named, free = params(match[2])
        target, hash_, fragment = (named.get("path") or (free[0] if free else "")).partition("#")
        if not target:
            return None
        base = content if target.startswith("/") else resolver.post.source.path.parent
        found = resolver.find("/" + rel_to(base / target.lstrip("/"), root)) \
            if _inside(base / target.lstrip("/"), root) else None
        post = found if isinstance(found, Converted) else posts.get(_name(target))
        return None if post is None else "/" + post.source.rel + hash_ + fragment

    def include(match: re.Match[str], line: int, outcome: Outcome) -> str | None:
        named, free = params(match[2])
        name = named.get("file") or (free[0] if free else "")
        for base in (resolver.post.source.path.parent, content, root):
            path = Path(os.path.normpath(base / name))
            if name and path.is_relative_to(root) and str(path) in resolver.index.files:
                text = read_include(path)
                if text is not None:
                    outcome.note(line, f"inlined {rel_to(path, root)}; check that it reads "
                                       "well here")
                return text
        return None

    inline = [
        InlineRule("video", _VIDEO, _video),
        InlineRule("figure", _FIGURE, _figure),
        InlineRule("ref", _REF, ref),
        InlineRule("include inlined", _INCLUDE, include),
        *target_rules(resolver),
    ]
    return [BlockRule(_HIGHLIGHT, _END_HIGHLIGHT, _highlight)], inline


def rel_to(path: Path, root: Path) -> str:
    """`path` (which may hold "..") relative to `root`, in POSIX form."""
    return Path(posixpath.normpath(path.as_posix())).relative_to(root).as_posix()


def _inside(path: Path, root: Path) -> bool:
    return Path(posixpath.normpath(path.as_posix())).is_relative_to(root)


def _name(target: str) -> str:
    """What `ref` matches a page by when the path is not exact: its name, no suffix."""
    stem = posixpath.splitext(target.rstrip("/"))[0]
    base = posixpath.basename(stem)
    return posixpath.basename(posixpath.dirname(stem)) if base == "index" else base


def _post_names(resolver: Resolver) -> dict[str, Converted]:
    names: dict[str, Converted] = {}
    for post in resolver.index.posts.values():
        names.setdefault(_name(post.source.rel), post)
    return names


def residue(text: str, line: int, outcome: Outcome) -> None:
    """Note every shortcode left in the text."""
    for match in _ANY.finditer(text):
        outcome.note(line, f"Hugo shortcode {match[0]}: no blogbuild equivalent; left as is, "
                           "rewrite it by hand")
