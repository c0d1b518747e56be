"""Helpers of the tests that look at page stylesheets: which one a page links, its parts."""

from __future__ import annotations

import re
from pathlib import Path

import html5lib

#: The comment the build puts before each file it joins into a page stylesheet.
PART = re.compile(r"^/\* (\S+\.css) \*/$", re.M)


def stylesheets(page: Path) -> list[str]:
    """The href of every `<link rel="stylesheet">` of an HTML page."""
    doc = html5lib.parse(page.read_bytes(), namespaceHTMLElements=False)
    return [link.get("href") for link in doc.iter("link")
            if "stylesheet" in (link.get("rel") or "").split()]


def page_stylesheet(out: Path, page: str, base_path: str = "/") -> str:
    """The text of the one stylesheet the page `page` (relative to `out`) links."""
    [href] = stylesheets(out / page)
    assert href.startswith(base_path), href
    return (out / href[len(base_path):]).read_text(encoding="utf-8")


def parts(css: str) -> list[str]:
    """The files a page stylesheet is made of, in order."""
    return PART.findall(css)
