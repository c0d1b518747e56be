"""Rewriting helpers the source modules share: code fences, line ranges, embeds, includes."""

from __future__ import annotations

import re
from pathlib import Path

from blogbuild.importers.scan import Outcome, fence_for

#: Stand-ins for a literal "{{" and "{%" the author protected (Jekyll's raw, Hugo's /* */),
#: so no later rule or check reads them as tags; `restore` puts them back. They are Unicode
#: noncharacters, which text never holds (private-use ones do occur: icon fonts).
OPEN_BRACES, OPEN_TAG, OPEN_SHORTCODE = "\ufdd0", "\ufdd1", "\ufdd2"
_YOUTUBE_ID = re.compile(r"[\w-]{6,20}")
_QUOTED = r""""(?:[^"\\]|\\.)*"|'[^']*'|`[^`]*`"""
_PARAM = re.compile(rf"""([\w-]+)\s*=\s*({_QUOTED}|[^\s"']+)|({_QUOTED}|[^\s"'=]+)""")
#: An included file larger than this is not inlined.
MAX_INCLUDE_BYTES = 200_000


def protect(text: str) -> str:
    """Hide the tag openers in `text` from every later rule."""
    return text.replace("{{<", OPEN_SHORTCODE).replace("{{", OPEN_BRACES).replace("{%", OPEN_TAG)


def restore(text: str) -> str:
    """Put back what `protect` hid."""
    return text.replace(OPEN_SHORTCODE, "{{<").replace(OPEN_BRACES, "{{").replace(OPEN_TAG, "{%")


def line_ranges(spec: str) -> str:
    """ "2 4-6", "[2, 4-6]" or "2,4-6" as our "{2,4-6}" ("" when nothing is left)."""
    parts = [p for p in re.split(r"[\s,\[\]]+", spec) if re.fullmatch(r"\d+(?:-\d+)?", p)]
    return "{" + ",".join(parts) + "}" if parts else ""


def fenced(lang: str, options: dict[str, str], code: list[str], line: int,
           outcome: Outcome) -> list[str]:
    """A fenced code block for a highlight tag, its options carried over where we have them."""
    info = lang
    marked = line_ranges(options.get("hl_lines", ""))
    if marked:
        info += " " + marked
    if "linenos" in options:  # MkDocs' spelling, which blogbuild reads from the start
        start = options.get("linenostart", "1")
        info += f' linenums="{start if start.isascii() and start.isdigit() else 1}"'
    outcome.counts["highlight"] += 1
    fence = fence_for(code)
    return [fence + info, *code, fence]


def params(text: str) -> tuple[dict[str, str], list[str]]:
    """Named and positional parameters of a tag: `a="x y" b=1 free` -> ({a, b}, [free])."""
    named: dict[str, str] = {}
    free: list[str] = []
    for match in _PARAM.finditer(text):
        if match[1]:
            named[match[1]] = _unquote(match[2])
        else:
            free.append(_unquote(match[3]))
    return named, free


def _unquote(text: str) -> str:
    if len(text) >= 2 and text[0] == text[-1] == '"':
        return re.sub(r"\\(.)", r"\1", text[1:-1])
    return text[1:-1] if len(text) >= 2 and text[0] == text[-1] and text[0] in "'`" else text


def video(url: str) -> str:
    """Our video widget for `url` (attribute-escaped: the URL came from the source)."""
    safe = url.replace("&", "&amp;").replace('"', "&quot;").replace("<", "&lt;")
    return f'<div class="video-embed" data-src="{safe}"></div>'


def youtube(video_id: str) -> str | None:
    """The video widget for a YouTube id, or None when `video_id` is not one."""
    if not _YOUTUBE_ID.fullmatch(video_id):
        return None
    return video(f"https://www.youtube.com/watch?v={video_id}")


def read_include(path: Path) -> str | None:
    """The text of a file to inline, or None when it is too big or not text."""
    try:
        if path.stat().st_size > MAX_INCLUDE_BYTES:
            return None
        return path.read_text(encoding="utf-8").replace("\r\n", "\n").rstrip("\n")
    except (OSError, UnicodeDecodeError):
        return None
