"""The <div class="KIND" markdown="1"> family (syntax.md §4) — being written; see issue 3."""

from __future__ import annotations

from markdown_it import MarkdownIt

from blogbuild.urls import UrlBuilder


def divs_plugin(md: MarkdownIt, *, urls: UrlBuilder | None = None) -> None:
    return None
