"""The marks a formatted citation carries instead of HTML, and the one place they become HTML.

Private-use characters stand for tags while citeproc-py works on the text; `clean` removes
them from everything that comes from a .bib file or a post, so only the formatter makes
them, and `to_html` escapes all the rest once.
"""

from __future__ import annotations

import html
import re
from collections.abc import Sequence
from urllib.parse import quote

#: Formatting marks: (open, close) for each tag the formatter uses ("" shows nothing).
_TAGS = ("em", "strong", "sup", "sub", "smallcaps", "")
OPEN = {tag: chr(0xE000 + 2 * i) for i, tag in enumerate(_TAGS)}
CLOSE = {tag: chr(0xE001 + 2 * i) for i, tag in enumerate(_TAGS)}
_HTML = {"smallcaps": ('<span class="smallcaps">', "</span>"), "": ("", "")}
ITEM_END = "\ue020"  # ends a cited work (ITEM(n) starts the n-th work of a citation)
DOI = "\ue021"  # starts a DOI
URL = "\ue022"  # starts a URL
LINK_END = "\ue023"
_ITEM_BASE = 0xE100
_ANY_MARK = re.compile("[\ue000-\ue3ff]")
_DOI_SHOWN = re.compile(r"(?:https?://(?:dx\.)?doi\.org/|doi:\s*)$", re.IGNORECASE)
_SAFE_URL_CHARS = ":/?#[]@!$&'()*+,;=%~"


def ITEM(n: int) -> str:
    return chr(_ITEM_BASE + n)


def clean(text: str) -> str:
    """`text` without characters that the marks use."""
    return _ANY_MARK.sub("", text)


def doi_href(doi: str) -> str:
    return "https://doi.org/" + quote(doi, safe=_SAFE_URL_CHARS)


def web_href(url: str) -> str | None:
    """The address of an http(s) URL (percent-encoded where needed), else None."""
    if re.match(r"https?://[^\s/]", url, re.IGNORECASE) is None:
        return None
    return quote(url, safe=_SAFE_URL_CHARS)


class _Writer:
    def __init__(self, keys: Sequence[str], links: bool) -> None:
        self.keys = keys
        self.links = links
        self.out: list[str] = []
        self.text: list[str] = []  # text not yet escaped, after the last tag

    def flush(self) -> str:
        shown = "".join(self.text)
        self.text = []
        self.out.append(html.escape(shown, quote=False))
        return shown

    def tag(self, markup: str) -> None:
        self.flush()
        self.out.append(markup)

    def link(self, kind: str, target: str) -> None:
        """A DOI or URL: a link when it is one, the text that names it included."""
        before = "".join(self.text)
        shown_prefix = ""
        if kind == DOI:
            found = _DOI_SHOWN.search(before)
            if found is not None and found.group().lower().startswith("http"):
                shown_prefix = found.group()
                self.text = [before[:found.start()]]
        self.flush()
        href = doi_href(target) if kind == DOI else web_href(target)
        label = html.escape(shown_prefix + target, quote=False)
        if href is None or not self.links:
            self.out.append(label)
        else:
            self.out.append(f'<a href="{html.escape(href)}">{label}</a>')


def to_html(text: str, keys: Sequence[str], *, links: bool = True) -> str:
    """The HTML of a formatted citation or entry; the n-th work of a citation links to
    `#ref-KEY` (`keys`), DOIs and http(s) URLs to themselves (none of it when not `links`)."""
    writer = _Writer(keys, links)
    opened = {mark: tag for tag, mark in OPEN.items()}
    closed = {mark: tag for tag, mark in CLOSE.items()}
    i = 0
    while i < len(text):
        char = text[i]
        if char in opened or char in closed:
            tag = opened.get(char, closed.get(char, ""))
            start, end = _HTML.get(tag, (f"<{tag}>", f"</{tag}>"))
            writer.tag(start if char in opened else end)
        elif char in (DOI, URL):
            end_at = text.find(LINK_END, i + 1)
            end_at = len(text) if end_at < 0 else end_at
            writer.link(char, clean(text[i + 1:end_at]))
            i = end_at
        elif _ITEM_BASE <= ord(char) < _ITEM_BASE + len(keys):
            key = keys[ord(char) - _ITEM_BASE]
            writer.tag(f'<a href="#ref-{html.escape(key)}">' if links else "")
        elif char == ITEM_END:
            writer.tag("</a>" if links else "")
        elif not _ANY_MARK.match(char):
            writer.text.append(char)
        i += 1
    writer.flush()
    return "".join(writer.out)
