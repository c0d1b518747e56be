"""URLs in math (\\href, \\url, \\includegraphics): the link rules, and the site's sub-path.

KaTeX asks blogbuild's `trust` function (katex_render.js) before it renders one of these
commands, and that function has the last word. This module reads the URLs written in the
TeX first, so that a refused one is reported at its own line and column, even one that
KaTeX would drop without asking (`java&#9;script:`), and so that a site-root path
(`/files/a.pdf`) gets the site's sub-path like a Markdown link. The sub-path is written
into the TeX KaTeX renders, so the formula cache keys on it.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from urllib.parse import urljoin

from blogbuild.urls import scheme_of, url_problem

#: A URL argument written out: \href{…}, \url{…}, \includegraphics[…]{…}.
URL_ARG_RE = re.compile(r"\\(href|url|includegraphics)\s*(?:\[[^\]]*\]\s*)?\{([^{}]*)\}")
_LINK_SCHEMES = ("", "http", "https", "mailto")
_IMAGE_SCHEMES = ("", "http", "https")


def refusal(command: str, url: str) -> str:
    """The message for a URL math may not hold (katex_render.js words it the same way)."""
    return (f"\\{command} with URL '{url}' is not allowed in math: math links and images "
            "follow the link rules (http, https, mailto or a site path)")


def url_allowed(command: str, url: str) -> bool:
    schemes = _IMAGE_SCHEMES if command == "includegraphics" else _LINK_SCHEMES
    return bool(url.strip()) and scheme_of(url) in schemes


def with_base(url: str, base_path: str) -> str:
    """A site-root path with the site's sub-path in front, as links get it."""
    if not url.startswith("/") or url.startswith("//") or base_path == "/":
        return url
    if url == base_path.rstrip("/") or url.startswith(base_path):
        return url
    return base_path + url[1:]


def check_urls(
    tex: str,
    base_path: str,
    replace: Callable[[int, int, str], None],
    refuse: Callable[[int, str], None],
) -> None:
    """Report each refused URL of `tex`; give site-root paths the sub-path (`replace`)."""
    for match in URL_ARG_RE.finditer(tex):
        command, url = match.group(1), match.group(2)
        if not url_allowed(command, url):
            refuse(match.start(), refusal(command, url))
            continue
        based = with_base(url, base_path)
        if based != url:
            replace(match.start(2), match.end(2), based)


def absolute_urls(tex: str, base: str) -> str:
    """`tex` with each URL argument made absolute against `base` (the post's address), for
    the feed: a feed entry is read away from the page, so `#eq-1` or `/about/` would lead
    nowhere (mailto: and http(s) URLs stay as they are)."""
    def absolute(match: re.Match[str]) -> str:
        start, end = match.start(2) - match.start(), match.end(2) - match.start()
        whole, url = str(match.group(0)), str(match.group(2))
        if url_problem(url) is not None or url_problem(base) is not None:
            return whole  # refused where the formula was read; urljoin would raise
        return whole[:start] + urljoin(base, url) + whole[end:]

    return URL_ARG_RE.sub(absolute, tex)


def feed_tex(tex: str, base: str | None) -> str | None:
    """The TeX the feed renders instead of `tex`, or None when `tex` links nowhere."""
    if not base or not URL_ARG_RE.search(tex):
        return None
    return absolute_urls(tex, base)
